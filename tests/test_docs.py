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


def _sh_block_after(heading: str) -> str:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text.split(f"\n## {heading}\n", 1)[1]
    found = re.search(r"```sh\n(.*?)```", section, re.S)
    assert found is not None, f"no sh block under {heading!r}"
    return found.group(1)


def _argv(words: list[str]) -> list[str]:
    """A README command line run with this interpreter (no activated environment needed)."""
    import sys

    if words[0] == "python":
        return [sys.executable, *words[1:]]
    assert words[0] == "deepresearch", words
    return [sys.executable, "-m", "deepresearch.cli.app", *words[1:]]


def test_the_offline_world_block_runs_as_written(tmp_path: Path) -> None:
    """Each line of the README's offline-world block, in a folder of its own (it needed
    the shared data folder beside the checkout, which a fresh clone does not have): the
    web on a free port instead of 8899, in the background as ``&`` asks."""
    import os
    import shlex
    import socket
    import subprocess

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = str(probe.getsockname()[1])
    block = _sh_block_after("The offline world").replace("\\\n", " ").replace("8899", port)
    env = {**os.environ, "DEEPRESEARCH_DATA_DIR": str(tmp_path / "data")}
    background: list[subprocess.Popen[str]] = []
    try:
        for line in block.splitlines():
            words = shlex.split(line, comments=True)
            if not words:
                continue
            if words == ["kill", "%1"]:
                continue  # the finally below stops it
            if words[-1] == "&":
                web = subprocess.Popen(
                    _argv(words[:-1]), cwd=tmp_path, env=env, stdout=subprocess.PIPE, text=True
                )
                background.append(web)
                assert web.stdout is not None and web.stdout.readline().startswith("http://")
                continue
            done = subprocess.run(
                _argv(words), cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600
            )
            assert done.returncode == 0, f"{line}\n{done.stderr}"
    finally:
        for process in background:
            process.terminate()
            process.wait(timeout=10)
    report = (tmp_path / "r.json").read_text(encoding="utf-8")
    assert '"kind": "extractive"' in report or '"kind":"extractive"' in report
