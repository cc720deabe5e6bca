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


def test_the_live_view_shows_spend_against_the_budget_then_what_ended_it() -> None:
    from datetime import UTC, datetime

    from deepresearch.cli.live import RunView
    from deepresearch.models import RunEvent

    def event(type_: str, message: str = "", **data: object) -> RunEvent:
        if type_ == "model_call":  # the fields every model call has
            data = {
                "role": "writer", "model": "m", "latency_s": 0.1, "ok": True,
                "attempts": 1, "usage_source": "estimated", **data,
            }  # fmt: skip
        return RunEvent.model_validate(
            {"run_id": "run-x", "ts": datetime.now(UTC), "type": type_, "message": message,
             "data": data}
        )  # fmt: skip

    view = RunView()
    spend = {
        "tokens": 1200,
        "max_tokens": 5000,
        "cost_usd": 0.0031,
        "max_cost_usd": 0.5,
        "elapsed_s": 12.4,
        "max_time_s": None,
    }
    view.apply(
        event("model_call", input_tokens=1000, output_tokens=200, cost_usd=0.0031, budget=spend)
    )
    assert view.budget_lines() == ["budget: tokens 1,200 of 5,000   $0.0031 of $0.5000"]
    assert view.cost_usd == 0.0031
    view.apply(
        event(
            "budget_exhausted", "Budget reached: the token budget ...", budget="tokens", spend=spend
        )
    )
    assert view.budget_lines() == ["Budget reached: the token budget ..."]
    # no budget set: no budget line
    plain = RunView()
    plain.apply(event("model_call", input_tokens=1, output_tokens=1, cost_usd=None))
    assert plain.budget_lines() == [] and plain.cost_usd == 0.0
