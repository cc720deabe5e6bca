"""``deepresearch run``'s budget flags are checked before any work: a clear message and
exit code 2, never a traceback, and nothing written (issue 19)."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from deepresearch.cli.app import app

runner = CliRunner()


@pytest.mark.parametrize(
    ("flag", "value", "needle"),
    [
        ("--max-cost", "-1", "max_cost: Input should be greater than 0"),
        ("--max-time", "0", "max_time: Input should be greater than 0"),
        ("--max-tokens", "0", "--max-tokens"),
        ("--max-tokens", "lots", "--max-tokens"),
        ("--max-cost", "$5", "--max-cost"),
    ],
)
def test_bad_budget_flags_stop_before_any_work(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, flag: str, value: str, needle: str
) -> None:
    monkeypatch.setenv("DEEPRESEARCH_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.chdir(tmp_path)
    result = runner.invoke(
        app,
        ["run", "What is X?", "--model", "none", "--search", "local", flag, value],
        env={"DEEPRESEARCH_CONFIG": None},
    )
    assert result.exit_code == 2, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
    assert needle in result.stderr
    assert "Traceback" not in result.stderr
    assert not (tmp_path / "data").exists() and not (tmp_path / "report.md").exists()
