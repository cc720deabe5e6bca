"""The findings review from the command line (issue 15): ``--review-findings`` stops
before writing with exit code 4, lists the verified findings and says how to answer;
``deepresearch reply --drop`` / ``--gap`` is checked (exit 2 with the reason, the run keeps
waiting) and continues the same run to its report, without the dropped finding. No model:
the report is extractive."""

from __future__ import annotations

import json
from pathlib import Path

from .conftest import cli, offline_args

QUESTION = "If Gallu is a demon Lilu is what?"


def _events(stdout: str) -> list[dict[str, object]]:
    return [json.loads(line) for line in stdout.splitlines() if line.startswith("{")]


def test_review_findings_then_drop_one_without_a_model(web_process: str, tmp_path: Path) -> None:
    env = {"DEEPRESEARCH_DATA_DIR": str(tmp_path / "d")}
    out = tmp_path / "report.md"
    asked = cli(
        "run",
        QUESTION,
        "--model",
        "none",
        "--review-findings",
        *offline_args(web_process, "--depth", "quick", "--min-domains", "1"),
        *("--run-id", "findings-1", "--out", str(out), "--json-events"),
        env=env,
    )
    assert asked.returncode == 4, asked.stderr
    assert "The verified findings" in asked.stderr
    assert "deepresearch reply findings-1 --approve" in asked.stderr
    assert "--drop ID" in asked.stderr and "--gap" in asked.stderr
    assert not out.exists()
    request = next(e for e in _events(asked.stdout) if e["type"] == "input_requested")
    findings = request["data"]["findings"]  # type: ignore[index]
    ids = [item["id"] for item in findings]
    assert len(ids) >= 2
    for item in findings:  # each listed with its id
        assert f"  {item['id']}. " in asked.stderr

    unknown = cli("reply", "findings-1", "--drop", "q9-nope", env=env)
    assert unknown.returncode == 2 and "no finding has the id 'q9-nope'" in unknown.stderr
    short = cli("reply", "findings-1", "--gap", "ab", env=env)
    assert short.returncode == 2 and "the gap is 2 characters" in short.stderr
    mixed = cli("reply", "findings-1", "--approve", "--drop", ids[0], env=env)
    assert mixed.returncode == 2 and "give one answer" in mixed.stderr

    done = cli("reply", "findings-1", "--drop", ids[0], "--json-events", env=env)
    assert done.returncode in (0, 3), done.stderr
    events = _events(done.stdout)
    received = next(e for e in events if e["type"] == "input_received")
    assert received["data"] == {"kind": "findings", "action": "drop", "dropped": [ids[0]]}
    assert out.exists()
    report = out.read_text()
    assert findings[0]["quote"] not in report
    assert findings[1]["quote"] in report
