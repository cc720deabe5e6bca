"""``deepresearch employer`` as a user runs it: real processes, the offline web of real
pages about Google on loopback, ``--model none`` or an OpenAI-compatible server."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from deepresearch.recipes.employer import EmployerResult, classify, judge, synthesize

from ..cli.chat_server import SECRET, ChatServer
from .conftest import JOB_POSTING
from .test_run import assert_traced


def cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "deepresearch.cli.app", "employer", *args],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, **(env or {})},
        check=False,
    )


def offline(base_url: str) -> list[str]:
    return [
        "--search", "searxng", "--searxng-url", base_url,
        "--allow-host", base_url.removeprefix("http://"),
    ]  # fmt: skip


def test_a_company_profile_as_json(google_web_process: str, tmp_path: Path) -> None:
    out = tmp_path / "google.json"
    done = cli(
        "Google", "--role", "Software Engineer", *offline(google_web_process),
        "--model", "none", "--format", "json", "--out", str(out),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "employer profile written to" in done.stderr
    data = json.loads(out.read_text())
    assert data["recipe"] == "employer" and data["outcome"] == "profile"
    assert [step["route"] for step in data["routing_trace"]] == [
        "ENHANCE_SEARCH", "CONTINUE_WITH_FLAGS",
    ]  # fmt: skip
    assert data["low_data_flag"] is True and data["search_attempt"] == 2

    result = EmployerResult.model_validate(data)
    assert all(e.source_url.startswith(google_web_process) for e in result.evidence)
    assert_traced(result)


def test_a_job_description_file_as_markdown(google_web_process: str, tmp_path: Path) -> None:
    out = tmp_path / "profile.md"
    done = cli(
        "Google", "--job-description", str(JOB_POSTING), *offline(google_web_process),
        "--model", "none", "--out", str(out),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    text = out.read_text()
    assert text.startswith("# Employer profile: Google")
    assert "Data quality: CLEAN" in text and "(CONTINUE)" in text
    assert "generic requirements: Strong communication skills.; Team player." in text
    assert "platitudes: We offer great benefits." in text


def test_events_stream_as_ndjson(google_web_process: str, tmp_path: Path) -> None:
    done = cli(
        "Google", *offline(google_web_process), "--model", "none", "--json-events",
        "--queries", "1", "--out", str(tmp_path / "p.md"),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    events = [json.loads(line) for line in done.stdout.splitlines() if line.strip()]
    types = [event["type"] for event in events]
    assert types[0] == "run_started" and types[-1] == "run_completed"
    assert {"phase", "thought", "phase_complete", "route_decided"} <= set(types)
    first_search = next(e for e in events if e["type"] == "thought")
    assert first_search["data"]["input"] == {
        "query": "Google software engineer tech stack engineering culture"
    }


def test_suspicious_input_exits_with_code_3(google_web_process: str, tmp_path: Path) -> None:
    out = tmp_path / "p.md"
    done = cli(
        "{{company_name}}", *offline(google_web_process), "--model", "none", "--out", str(out)
    )
    assert done.returncode == 3, done.stderr
    assert "early exit (no profile)" in done.stderr and "suspicious input" in done.stderr
    assert "Company: SUSPICIOUS" in out.read_text()


def test_nothing_to_research_is_a_usage_error(tmp_path: Path) -> None:
    done = cli("--model", "none", "--search", "none")
    assert done.returncode == 2
    assert "give a company name or a job description" in done.stderr


def test_user_lists_extend_the_pruning(google_web_process: str, tmp_path: Path) -> None:
    extra = tmp_path / "lists.toml"
    extra.write_text('generic_tech_terms = ["chromecast"]\n')
    out = tmp_path / "p.json"
    done = cli(
        "Google", *offline(google_web_process), "--model", "none", "--lists", str(extra),
        "--format", "json", "--out", str(out),
    )  # fmt: skip
    assert done.returncode in (0, 3), done.stderr
    assert "Chromecast" in json.loads(out.read_text())["reranker"]["pruned_data"]["tech_stack"]
    bad = tmp_path / "bad.toml"
    bad.write_text("generic_requirement_patterns = ['(']\n")
    done = cli("Google", "--search", "none", "--model", "none", "--lists", str(bad))
    assert done.returncode == 2 and "not a valid regular expression" in done.stderr


def test_with_an_openai_compatible_model_server(
    google_web_process: str, employer_chat_server: ChatServer, tmp_path: Path
) -> None:
    out = tmp_path / "p.json"
    base_url = f"http://127.0.0.1:{employer_chat_server.server_address[1]}/v1"
    done = cli(
        "Google", "--job-description", str(JOB_POSTING), *offline(google_web_process),
        "--model", "openai:local-model", "--model-base-url", base_url,
        "--format", "json", "--out", str(out),
        env={"DEEPRESEARCH_MODEL_API_KEY": SECRET},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    data = json.loads(out.read_text())
    assert data["phase_2_output"]["synthesized_by"] == "model"
    assert data["reranker"]["evaluated_by"] == "judge"
    assert "tech_stack: Haskell" in data["phase_2_output"]["unsupported"]
    assert "Haskell" not in [t["text"] for t in data["profile"]["tech_stack"]]
    assert data["usage"]["calls"] == 3  # classify, synthesize, judge
    # seed 000's temperatures reach the model: synthesis 0.3, judging 0.1; the rest 0.0
    sent = dict(employer_chat_server.temperatures)
    assert sent == {
        classify.SYSTEM.splitlines()[0]: 0.0,
        synthesize.SYSTEM.splitlines()[0]: 0.3,
        judge.SYSTEM.splitlines()[0]: 0.1,
    }
    for text in (done.stdout, done.stderr, out.read_text()):
        assert SECRET not in text


def test_the_cli_flags_take_the_recipes_defaults_and_bounds() -> None:
    """The options model owns the defaults and bounds; the CLI (which cannot import it
    for --help) copies them, and this keeps the copies honest."""
    import typer

    from deepresearch.cli import employer as cli
    from deepresearch.cli.app import app
    from deepresearch.recipes.employer import EmployerOptions

    command = typer.main.get_command(app).commands["employer"]  # type: ignore[attr-defined]
    flags = {param.name: param for param in command.params}
    for flag, field, copy in (
        ("queries", "max_queries", cli.QUERIES),
        ("result_chars", "max_result_chars", cli.RESULT_CHARS),
    ):
        info = EmployerOptions.model_fields[field]
        bounds = {type(m).__name__: m for m in info.metadata}
        owned = (info.default, bounds["Ge"].ge, bounds["Le"].le)
        assert copy == owned, field
        param = flags[flag]
        assert (param.default, param.min, param.max) == owned, flag
