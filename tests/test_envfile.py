"""The ecosystem's variable names and the .env file (issue 18, part 3): every name other
tools use is read beside DEEPRESEARCH_* (which wins); .env is found from the working folder
upward, stops at the project's top or the home folder, never replaces a real variable
(whatever its name), and reaches the model SDKs, which read their own variables."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from dotenv import dotenv_values

from deepresearch.envfile import find_env_file, load_env_file
from deepresearch.errors import ConfigError, MissingKeyError
from deepresearch.llm.providers import build_role_models, key_env_vars, known_providers
from deepresearch.settings import Settings, load_settings
from deepresearch.settings_groups import ModelSettings
from deepresearch.settings_values import ECOSYSTEM_ENV, env_names

ROOT = Path(__file__).resolve().parents[1]


def _value(settings: Settings, field: str) -> str | None:
    value = getattr(settings, field)
    return value.get_secret_value() if hasattr(value, "get_secret_value") else value


@pytest.mark.parametrize(
    ("field", "name"),
    [(field, name) for field, names in ECOSYSTEM_ENV.items() for name in names],
)
def test_every_ecosystem_name_sets_its_setting(
    monkeypatch: pytest.MonkeyPatch, field: str, name: str
) -> None:
    value = "http://127.0.0.1:8888" if field == "searxng_url" else f"{name.lower()}-value"
    monkeypatch.setenv(name, value)
    assert _value(load_settings(), field) == value
    # the DEEPRESEARCH_ name wins when both are set
    own = "http://127.0.0.1:9999" if field == "searxng_url" else "own-value"
    monkeypatch.setenv(f"DEEPRESEARCH_{field.upper()}", own)
    assert _value(load_settings(), field) == own


def test_the_issues_names_are_all_there() -> None:
    wanted = {
        "TAVILY_API_KEY", "EXA_API_KEY", "BRAVE_API_KEY", "GOOGLE_API_KEY", "GOOGLE_CSE_ID",
        "SEARXNG_URL", "SERPER_API_KEY", "S2_API_KEY", "SEMANTIC_SCHOLAR_API_KEY",
        "NCBI_API_KEY",
    }  # fmt: skip
    assert wanted <= {name for names in ECOSYSTEM_ENV.values() for name in names}


def _project(tmp_path: Path) -> Path:
    """tmp/project (a git checkout) with a .env and a sub/folder to run from."""
    project = tmp_path / "project"
    (project / ".git").mkdir(parents=True)
    (project / "sub" / "folder").mkdir(parents=True)
    return project


def test_env_file_is_found_from_the_working_folder_upward(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    project = _project(tmp_path)
    (project / ".env").write_text("TAVILY_API_KEY='tv-from-file'\nOPENAI_API_KEY=sk-file\n")
    monkeypatch.chdir(project / "sub" / "folder")
    assert find_env_file() == project / ".env"
    settings = load_settings()
    assert _value(settings, "tavily_api_key") == "tv-from-file"
    assert os.environ["OPENAI_API_KEY"] == "sk-file"  # for the SDK, which reads its own


def test_the_walk_stops_at_the_projects_top(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    project = _project(tmp_path)
    (tmp_path / ".env").write_text("TAVILY_API_KEY=above-the-project\n")
    monkeypatch.chdir(project / "sub")
    assert find_env_file() is None
    assert load_settings().tavily_api_key is None


def test_the_walk_stops_at_home(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    home = tmp_path / "home" / "me"
    (home / "work").mkdir(parents=True)
    (tmp_path / "home" / ".env").write_text("TAVILY_API_KEY=someone-elses\n")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.chdir(home / "work")
    assert find_env_file() is None
    (home / ".env").write_text("TAVILY_API_KEY=mine\n")  # home's own .env counts
    assert find_env_file() == home / ".env"


def test_a_real_variable_beats_the_file_whatever_its_name(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    (tmp_path / ".env").write_text(
        "DEEPRESEARCH_TAVILY_API_KEY=file-own-name\nEXA_API_KEY=file-exa\nDEEPRESEARCH_DEPTH=deep\n"
    )
    monkeypatch.setenv("TAVILY_API_KEY", "shell")
    monkeypatch.setenv("EXA_API_KEY", "shell-exa")
    settings = load_settings()
    # the shell's ecosystem name beats the file's DEEPRESEARCH_ name, and its own name
    assert _value(settings, "tavily_api_key") == "shell"
    assert _value(settings, "exa_api_key") == "shell-exa"
    assert os.environ["EXA_API_KEY"] == "shell-exa"  # never replaced
    assert settings.depth == "deep"  # the file still sets what nothing else does
    assert load_settings().depth == "deep"  # and again: loading twice changes nothing


def test_env_file_variable(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    (tmp_path / ".env").write_text("TAVILY_API_KEY=local\n")
    elsewhere = tmp_path / "keys.env"
    elsewhere.write_text("TAVILY_API_KEY=elsewhere\n")
    monkeypatch.setenv("DEEPRESEARCH_ENV_FILE", str(elsewhere))
    assert _value(load_settings(), "tavily_api_key") == "elsewhere"
    monkeypatch.setenv("DEEPRESEARCH_ENV_FILE", "none")
    assert find_env_file() is None
    monkeypatch.setenv("DEEPRESEARCH_ENV_FILE", str(tmp_path / "missing.env"))
    with pytest.raises(ConfigError, match=r"missing\.env does not exist"):
        load_settings()


def test_the_model_sdks_see_keys_from_the_file(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """OPENAI_API_KEY, ANTHROPIC_API_KEY and GEMINI_API_KEY are the SDKs' own names:
    they are honoured from .env because it is loaded into the environment."""
    for spec in ("openai:gpt-4.1-mini", "anthropic:claude-sonnet-4-5"):
        with pytest.raises(MissingKeyError):
            build_role_models(ModelSettings.of(load_settings(model=spec)))
    (tmp_path / ".env").write_text(
        "OPENAI_API_KEY=sk-file\nANTHROPIC_API_KEY=sk-ant-file\nGEMINI_API_KEY=g-file\n"
    )
    for spec in ("openai:gpt-4.1-mini", "anthropic:claude-sonnet-4-5", "google:gemini-2.5-flash"):
        models = build_role_models(ModelSettings.of(load_settings(model=spec)))
        assert models["writer"] is not None


def test_an_unreadable_env_file_is_a_config_error(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    (tmp_path / ".env").write_bytes(b"TAVILY_API_KEY=\xff\xfe\n")
    with pytest.raises(ConfigError, match=r"cannot read the \.env file"):
        load_env_file()


def test_env_example_lists_every_name() -> None:
    text = (ROOT / ".env.example").read_text(encoding="utf-8")
    assert not {k: v for k, v in dotenv_values(ROOT / ".env.example").items() if v}, (
        "every line is an example, commented out"
    )
    names = set(re.findall(r"^#\s*([A-Z][A-Z0-9_]+)=", text, flags=re.MULTILINE))
    wanted = {name for field in ECOSYSTEM_ENV for name in env_names(field)}
    wanted |= {f"DEEPRESEARCH_{f.upper()}" for f, i in Settings.model_fields.items()
               if "SecretStr" in str(i.annotation)}  # fmt: skip
    for provider in known_providers():
        wanted |= set(key_env_vars(f"{provider}:x"))
    wanted |= {"OPENAI_BASE_URL", "OLLAMA_HOST", "DEEPRESEARCH_MODEL", "DEEPRESEARCH_SEARCH"}
    wanted |= {"DEEPRESEARCH_DATA_DIR", "DEEPRESEARCH_CONFIG", "DEEPRESEARCH_ENV_FILE"}
    assert not wanted - names, sorted(wanted - names)
    config = (ROOT / "docs" / "configuration.md").read_text(encoding="utf-8")
    for field in ECOSYSTEM_ENV:
        for name in env_names(field)[1:]:
            assert f"`{name}`" in config, f"docs/configuration.md misses {name}"
