"""Configuration precedence: flags > TOML file > DEEPRESEARCH_* environment > .env."""

from __future__ import annotations

from pathlib import Path

import pytest

from deepresearch.errors import ConfigError
from deepresearch.settings import load_settings
from deepresearch.settings_groups import ModelSettings, RunLimits


def test_defaults_and_depth_presets() -> None:
    settings = load_settings()
    assert settings.depth == "standard"
    assert RunLimits.of(settings).max_waves == 3
    assert RunLimits.of(load_settings(depth="quick")).max_waves == 2
    assert RunLimits.of(load_settings(depth="quick", max_waves=4)).max_waves == 4


def test_precedence_flag_over_toml_over_env_over_dotenv(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    (tmp_path / ".env").write_text(
        "DEEPRESEARCH_SEARCH=brave\nDEEPRESEARCH_DEPTH=deep\nDEEPRESEARCH_MIN_DOMAINS=7\n"
    )
    assert load_settings().min_domains == 7  # .env is read
    monkeypatch.setenv("DEEPRESEARCH_SEARCH", "exa")
    monkeypatch.setenv("DEEPRESEARCH_DEPTH", "quick")
    assert load_settings().search == "exa"  # env beats .env
    config = tmp_path / "deepresearch.toml"
    config.write_text('search = "local"\nmodel = "none"\n')
    settings = load_settings()
    assert settings.search == "local"  # TOML beats env
    assert settings.depth == "quick"  # env still applies where TOML is silent
    assert settings.min_domains == 7
    assert load_settings(search="searxng").search == "searxng"  # flags beat all


def test_explicit_config_file(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    path = tmp_path / "elsewhere.toml"
    path.write_text(
        'writer_model = "anthropic:claude-sonnet-4-5"\nallow_hosts = ["127.0.0.1:8899"]\n'
    )
    monkeypatch.setenv("DEEPRESEARCH_CONFIG", str(path))
    settings = load_settings(model="none")
    assert ModelSettings.of(settings).model_for("writer") == "anthropic:claude-sonnet-4-5"
    assert ModelSettings.of(settings).model_for("planner") == "none"
    assert settings.allow_hosts == ["127.0.0.1:8899"]


def test_bad_values_name_the_setting() -> None:
    with pytest.raises(ConfigError, match="unknown search provider 'bing'"):
        load_settings(search="bing")
    with pytest.raises(ConfigError, match="depth"):
        load_settings(depth="forever")
    with pytest.raises(ConfigError, match="max_sub_questions"):
        load_settings(max_sub_questions=9)


def test_secrets_are_hidden_in_repr(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DEEPRESEARCH_TAVILY_API_KEY", "tvly-secret-value")
    settings = load_settings()
    assert "tvly-secret-value" not in repr(settings)
    assert settings.secrets() == ["tvly-secret-value"]


@pytest.mark.parametrize(
    ("text", "where"),
    [
        ("depth = \n", "line 1, column 9"),
        ('model = "none"\ndepth = "quick\n', "line 2"),
        ("[models\n", "line 1"),
        ('model = "none"\nmodel = "none"\n', "line 2"),  # a key defined twice
    ],
)
def test_invalid_toml_names_the_file_line_and_column(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, text: str, where: str
) -> None:
    path = tmp_path / "bad.toml"
    path.write_text(text)
    monkeypatch.setenv("DEEPRESEARCH_CONFIG", str(path))
    with pytest.raises(ConfigError) as caught:
        load_settings()
    assert str(path) in caught.value.message and "not valid TOML" in caught.value.message
    assert where in caught.value.message


@pytest.mark.parametrize(
    ("text", "named", "suggested"),
    [
        ('dept = "deep"\n', "'dept'", "'depth'"),
        ('serch = "local"\n', "'serch'", "'search'"),
        ("max_wave = 2\n", "'max_wave'", "'max_waves'"),
        ('[models]\nwriter = "none"\n', "'models'", "'model'"),  # top-level keys only
        ('zzz_unrelated = 1\nmodel = "none"\n', "'zzz_unrelated'", None),
    ],
)
def test_unknown_toml_keys_are_reported_with_the_closest_setting(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, text: str, named: str, suggested: str | None
) -> None:
    (tmp_path / "deepresearch.toml").write_text(text)  # found in the working directory
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ConfigError) as caught:
        load_settings()
    assert f"unknown setting {named}" in caught.value.message
    if suggested:
        assert f"did you mean {suggested}?" in caught.value.message
    else:
        assert "did you mean" not in caught.value.message


def test_a_missing_config_file_named_by_the_environment_is_an_error(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("DEEPRESEARCH_CONFIG", str(tmp_path / "nope.toml"))
    with pytest.raises(ConfigError, match=r"nope\.toml does not exist"):
        load_settings()
