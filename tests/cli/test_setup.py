"""Setting up and checking it (issue 18, part 4): ``deepresearch init`` writes the config and
the keys from flags or answers, checks every choice first and replaces nothing without
--force; ``deepresearch doctor`` really calls the model (the loopback chat server) and the
search provider (the offline web's SearXNG endpoint), checks storage, names where each key
came from and never shows one."""

from __future__ import annotations

import json
import socket
import stat
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from dotenv import dotenv_values
from typer.testing import CliRunner

from deepresearch.cli.app import app
from deepresearch.cli.init import FIELD_FLAGS
from deepresearch.search.registry import PROVIDERS

from .chat_server import SECRET, ChatServer
from .conftest import cli

WIDE = {"COLUMNS": "250"}


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _corpus(tmp_path: Path) -> Path:
    corpus = tmp_path / "docs"
    corpus.mkdir()
    (corpus / "gen.md").write_text("# Generators\n\nA generator uses yield.\n")
    return corpus


def _checks(done: object) -> dict[str, dict[str, object]]:
    payload = json.loads(done.stdout)  # type: ignore[attr-defined]
    return {f"{c['area']}: {c['name']}": c for c in payload["checks"]}


def test_every_setting_a_provider_needs_has_an_init_flag() -> None:
    for name, provider in PROVIDERS.items():
        for setting in (*provider.needs, *provider.optional):
            assert setting in FIELD_FLAGS, f"{name} needs {setting}: init has no flag for it"


def test_init_from_flags_then_doctor_uses_what_it_wrote(
    tmp_path: Path, chat_server: ChatServer, web_process: str
) -> None:
    corpus = _corpus(tmp_path)
    base_url = f"http://127.0.0.1:{chat_server.server_address[1]}/v1"
    key = "sk-init-'quoted\"-#key"
    done = cli(
        "init",
        "--provider", "openai-compatible", "--model", "test-model",
        "--model-base-url", base_url, "--api-key", key,
        "--search", "searxng,local", "--searxng-url", web_process, "--corpus", "docs",
        "--yes",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    config = tomllib.loads((tmp_path / "deepresearch.toml").read_text())
    assert config == {
        "model": "openai-compatible:test-model",
        "model_base_url": base_url,
        "search": "searxng,local",
        "searxng_url": web_process,
        "corpus_dir": str(corpus.resolve()),  # absolute: found from any folder
    }
    env = tmp_path / ".env"
    assert stat.S_IMODE(env.stat().st_mode) == 0o600
    assert dotenv_values(env) == {"DEEPRESEARCH_MODEL_API_KEY": key}  # round-trips
    assert key not in done.stdout + done.stderr

    doctor = cli("doctor", "--json", "--timeout", "30")
    assert doctor.returncode == 0, doctor.stdout + doctor.stderr
    checks = _checks(doctor)
    model = checks["model: every role: openai-compatible:test-model"]
    assert model["ok"] is True
    assert "100+20 tokens" in str(model["detail"])  # the gateway counted the real call
    assert "DEEPRESEARCH_MODEL_API_KEY (.env)" in str(model["detail"])
    assert chat_server.authorizations[-1] == f"Bearer {key}"  # the key from .env was sent
    assert checks["search: searxng"]["ok"] is True
    assert "reachable" in str(checks["search: searxng"]["detail"])
    assert checks["search: local"]["ok"] is True
    assert checks["storage: data folder"]["ok"] is True
    assert str(tmp_path / "deepresearch.toml") in str(checks["config: settings file"]["detail"])
    assert key not in doctor.stdout + doctor.stderr


def test_init_writes_the_key_of_a_native_web_search(tmp_path: Path) -> None:
    """``--search anthropic_web`` takes Anthropic's key and writes it under the name the
    SDKs read (the search reads it there too)."""
    done = cli(
        "init", "--provider", "none", "--search", "anthropic_web",
        "--anthropic-key", "sk-ant-test", "--yes",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert tomllib.loads((tmp_path / "deepresearch.toml").read_text())["search"] == "anthropic_web"
    assert dotenv_values(tmp_path / ".env") == {"ANTHROPIC_API_KEY": "sk-ant-test"}


def test_init_refuses_to_replace_without_force(tmp_path: Path) -> None:
    (tmp_path / ".env").write_text("OTHER=keep-me\nTAVILY_API_KEY=old\n")
    args = ["init", "--provider", "none", "--search", "tavily", "--tavily-key", "new", "--yes"]
    done = cli(*args)
    assert done.returncode == 2
    assert ".env exists" in done.stderr and "--force" in done.stderr
    assert not (tmp_path / "deepresearch.toml").exists()  # nothing half-written
    assert cli(*args, "--force").returncode == 0
    assert dotenv_values(tmp_path / ".env") == {"OTHER": "keep-me", "TAVILY_API_KEY": "new"}
    again = cli(*args)
    assert again.returncode == 2 and "deepresearch.toml exists" in again.stderr


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["--provider", "nope"], "unknown model provider 'nope'"),
        (["--provider", "none", "--search", "bing"], "unknown search provider 'bing'"),
        (["--provider", "none", "--search", "searxng"], "--searxng-url"),
        (["--provider", "none", "--search", "local", "--corpus", "missing"], "not a folder"),
        (["--provider", "openai-compatible", "--model", "m"], "--model-base-url"),
        (["--provider", "none", "--search", "searxng", "--searxng-url", "ftp://x"], "http(s)"),
    ],
)
def test_init_checks_every_choice_before_writing(
    tmp_path: Path, args: list[str], needle: str
) -> None:
    done = cli("init", *args, "--yes")
    assert done.returncode == 2, done.stderr
    assert needle in done.stderr and "Traceback" not in done.stderr
    assert not (tmp_path / "deepresearch.toml").exists() and not (tmp_path / ".env").exists()


def test_init_asks_for_what_the_flags_leave_out(tmp_path: Path) -> None:
    corpus = _corpus(tmp_path)
    answers = "\n".join(
        [
            "anthropic",  # provider
            "",  # model: the default
            "sk-ant-typed",  # ANTHROPIC_API_KEY (hidden)
            "bing",  # an unknown provider: asked again
            "local,tavily",
            str(corpus),
            "tv-typed",  # TAVILY_API_KEY (hidden)
        ]
    )
    result = CliRunner().invoke(app, ["init", "--interactive"], input=answers + "\n")
    assert result.exit_code == 0, result.output
    assert "unknown search provider 'bing'" in result.output
    config = tomllib.loads((tmp_path / "deepresearch.toml").read_text())
    assert config["model"] == "anthropic:claude-sonnet-4-5"
    assert config["search"] == "local,tavily" and config["corpus_dir"] == str(corpus.resolve())
    assert dotenv_values(tmp_path / ".env") == {
        "ANTHROPIC_API_KEY": "sk-ant-typed",
        "TAVILY_API_KEY": "tv-typed",
    }
    assert "sk-ant-typed" not in result.output and "tv-typed" not in result.output


def test_doctor_names_what_fails_and_never_shows_a_key(
    tmp_path: Path, chat_server: ChatServer
) -> None:
    """A refused key, a model server that is not there, a search provider that does not
    answer: each is a row saying so, the command exits 1, and the key is not printed."""
    chat_server.refuse = True
    (tmp_path / ".env").write_text(f"DEEPRESEARCH_MODEL_API_KEY={SECRET}\n")
    base_url = f"http://127.0.0.1:{chat_server.server_address[1]}/v1"
    silent = f"http://127.0.0.1:{_closed_port()}"
    done = cli(
        "doctor", "--model", "openai-compatible:test-model", "--model-base-url", base_url,
        "--search", "searxng", "--searxng-url", silent, "--timeout", "5", "--settings", env=WIDE,
    )  # fmt: skip
    assert done.returncode == 1, done.stdout + done.stderr
    assert SECRET not in done.stdout + done.stderr
    assert "NO" in done.stdout and "refused" in done.stdout
    assert "could not be reached" in done.stdout
    assert "DEEPRESEARCH_MODEL_API_KEY (.env)" in done.stdout  # where it came from
    assert "model_api_key" in done.stdout and "set, from" in done.stdout
    unreachable = cli(
        "doctor", "--json", "--model", "openai-compatible:m", "--model-base-url",
        f"http://127.0.0.1:{_closed_port()}/v1", "--search", "none", "--timeout", "5",
    )  # fmt: skip
    model = _checks(unreachable)["model: every role: openai-compatible:m"]
    assert unreachable.returncode == 1 and model["ok"] is False and model["fix"]


def test_doctor_finds_a_broken_data_folder_and_database(tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir()
    (data / "checkpoints.sqlite3").write_text("this is not a database")
    done = cli("doctor", "--json", "--model", "none", "--search", "none")
    checks = _checks(done)
    assert done.returncode == 1
    assert checks["storage: checkpoints"]["ok"] is False
    assert "not a readable SQLite database" in str(checks["storage: checkpoints"]["detail"])
    assert checks["storage: data folder"]["ok"] is True
    blocked = tmp_path / "blocked"
    blocked.write_text("a file where the folder should be")
    done = cli("doctor", "--json", "--model", "none", "--search", "none",
               env={"DEEPRESEARCH_DATA_DIR": str(blocked)})  # fmt: skip
    assert done.returncode == 1
    assert "is a file, not a folder" in str(_checks(done)["storage: data folder"]["detail"])


def test_the_commands_own_variables_come_from_env_too(tmp_path: Path) -> None:
    """DEEPRESEARCH_SERVER is read by the jobs commands' flags, before any settings: the
    .env file (found from a subfolder) is loaded before the flags are."""
    port = _closed_port()
    (tmp_path / ".git").mkdir()
    (tmp_path / ".env").write_text(f"DEEPRESEARCH_SERVER=http://127.0.0.1:{port}\n")
    sub = tmp_path / "sub"
    sub.mkdir()
    done = subprocess.run(
        [sys.executable, "-m", "deepresearch.cli.app", "jobs", "list"],
        capture_output=True, text=True, timeout=60, check=False, cwd=sub,
    )  # fmt: skip
    assert done.returncode == 2
    assert f"no service at http://127.0.0.1:{port}" in done.stderr
