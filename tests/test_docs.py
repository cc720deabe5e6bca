"""The README's Python example runs as written (offline: it researches the docs folder)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def python_blocks(path: Path) -> list[str]:
    return re.findall(r"```python\n(.*?)```", path.read_text(), re.S)


def test_readme_library_example_runs(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    blocks = python_blocks(ROOT / "README.md")
    assert blocks, "the README has no python example"
    monkeypatch.chdir(ROOT)
    for block in blocks:
        exec(compile(block, "README.md", "exec"), {})
    out = capsys.readouterr().out
    assert out.startswith("extractive ")
    assert "file://" in out  # evidence lines name the document they quote
    # "Steering a run": the plan review's example paused, was edited and researched
    assert "\nplan ['What does the quality gate check before a report is written?']\n" in out
    assert re.search(r"^extractive [1-9]\d* quotes$", out, re.M)
    # the findings review's example: the first finding shown was dropped from the report
    assert "\nfindings True\ndropped True\n" in out


def test_readme_starts_with_demo_and_test() -> None:
    commands = re.findall(r"^make (\w+)", (ROOT / "README.md").read_text(), re.M)
    assert commands[:2] == ["demo", "test"]
