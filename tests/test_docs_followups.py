"""docs/followups.md's library example runs as written (offline: it researches the docs
folder, then follows up)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_followups_library_example_runs(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    blocks = re.findall(r"```python\n(.*?)```", (ROOT / "docs" / "followups.md").read_text(), re.S)
    assert blocks
    monkeypatch.chdir(ROOT)
    for block in blocks:
        exec(compile(block, "docs/followups.md", "exec"), {})
    assert capsys.readouterr().out.splitlines() == ["2 False True", "True"]
