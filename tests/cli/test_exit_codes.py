"""The README's table of exit codes is true: each row is walked with a real
``deepresearch`` process (Ctrl-C is a real SIGINT), and the table, the constants in
``deepresearch.cli.common`` and what the commands do agree."""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from deepresearch.cli import common

from .conftest import cli

ROOT = Path(__file__).resolve().parents[2]
LOCAL = ["--model", "none", "--search", "local"]


def readme_codes() -> dict[int, str]:
    text = (ROOT / "README.md").read_text()
    section = text.split("### Exit codes", 1)[1].split("\n## ", 1)[0]
    return {
        int(code): meaning
        for code, meaning in re.findall(r"^\| `(\d+)` \| (.+) \|$", section, re.M)
    }


README = readme_codes()


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    folder = tmp_path / "corpus"
    folder.mkdir()
    (folder / "generators.md").write_text(
        "# Generators\n\nPython generators produce values lazily. A generator function "
        "uses the yield statement to hand back one value at a time.\n"
    )
    return folder


@pytest.fixture
def silent_server() -> Iterator[str]:
    """A loopback address that accepts connections and never answers (a search that
    hangs, so a run is surely in progress when Ctrl-C comes)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen(16)
        yield f"http://127.0.0.1:{sock.getsockname()[1]}"


def _spawn(*args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "deepresearch.cli.app", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=dict(os.environ),
    )


def _wait_for(process: subprocess.Popen[str], needle: str, timeout: float = 120) -> list[str]:
    """stderr lines until one contains ``needle``."""
    assert process.stderr is not None
    seen: list[str] = []
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        line = process.stderr.readline()
        if not line:
            break
        seen.append(line)
        if needle in line:
            return seen
    process.kill()
    raise AssertionError(f"{needle!r} never appeared: {''.join(seen)}")


def test_the_table_and_the_code_agree() -> None:
    constants = {
        common.EXIT_OK,
        common.EXIT_FAILED,
        common.EXIT_USAGE,
        common.EXIT_ABORT,
        common.EXIT_INTERRUPTED,
    }
    assert set(README) == constants == {0, 1, 2, 3, 130}
    for code in constants:  # the module docstring carries the same table
        assert re.search(rf"^    {code} ", common.__doc__ or "", re.M)


# one walk per row ---------------------------------------------------------------------------
def _ok(tmp_path: Path, corpus: Path) -> None:
    done = cli("run", "What are generators?", *LOCAL, "--corpus", str(corpus), "--out", "r.md")
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "r.md").read_text().startswith("# What are generators?")


def _failed(tmp_path: Path, corpus: Path) -> None:
    paused = cli(
        "run", "What are generators?", *LOCAL, "--corpus", str(corpus),
        "--run-id", "half", "--stop-after", "plan",
    )  # fmt: skip
    assert paused.returncode == 0, paused.stderr
    done = cli("report", "half")  # the report is not ready yet
    assert done.returncode == 1, done.stderr
    assert "run half has not finished" in done.stderr and "--resume half" in done.stderr


def _usage(tmp_path: Path, corpus: Path) -> None:
    cases = [
        ("run",),  # no question
        ("run", "Q?", "--depth", "forever"),  # a bad flag value (click)
        ("run", "Q?", "--run-id", "../x"),  # an invalid run id
        ("report", "run-never"),  # an unknown run id
        ("run", "Q?", "--out", str(tmp_path)),  # an --out that cannot be written
        ("report", "run-never", "--format", "pdf"),  # a binary format with no --out
        ("jobs", "status", "run-x", "--server", "http://127.0.0.1:9"),  # no service there
    ]
    for args in cases:
        done = cli(*args)
        assert done.returncode == 2, (args, done.stderr)
        assert "Traceback" not in done.stderr


def _abort(tmp_path: Path, corpus: Path) -> None:
    done = cli(
        "run", "What is the capital of Mongolia?", *LOCAL, "--corpus", str(corpus),
        "--out", "r.md",
    )  # fmt: skip
    assert done.returncode == 3, done.stderr
    assert "abort report written" in done.stderr


def _interrupted(tmp_path: Path, silent: str) -> None:
    process = _spawn(
        "run", "What are generators?", "--model", "none", "--search", "searxng",
        "--searxng-url", silent, "--run-id", "stopped", "--out", "r.md",
    )  # fmt: skip
    _wait_for(process, "Research started")
    time.sleep(1.0)  # inside the first search, which never gets an answer
    process.send_signal(signal.SIGINT)
    _, stderr = process.communicate(timeout=60)
    assert process.returncode == 130, stderr
    assert "interrupted; resume with: deepresearch run --resume stopped" in stderr
    assert "Traceback" not in stderr
    assert (tmp_path / "data" / "runs" / "stopped.json").is_file()  # resumable
    assert not (tmp_path / "r.md").exists()


WALKS: dict[int, Callable[..., None]] = {0: _ok, 1: _failed, 2: _usage, 3: _abort}


@pytest.mark.parametrize("code", sorted(README))
def test_each_row_of_the_table(
    code: int, tmp_path: Path, corpus: Path, request: pytest.FixtureRequest
) -> None:
    if code == common.EXIT_INTERRUPTED:
        _interrupted(tmp_path, request.getfixturevalue("silent_server"))
    else:
        WALKS[code](tmp_path, corpus)


# serve: a busy port is a usage error, Ctrl-C a clean stop, then 130 --------------------
def test_serve_on_a_busy_port_exits_2_with_a_clear_message() -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen(1)
        port = busy.getsockname()[1]
        done = cli("serve", "--port", str(port), "--model", "none", "--search", "none")
    assert done.returncode == 2, done.stderr
    assert f"cannot listen on 127.0.0.1:{port}" in done.stderr
    assert "hint: choose another --port" in done.stderr
    assert "Traceback" not in done.stderr and "ERROR" not in done.stderr


def test_serve_stops_cleanly_on_ctrl_c_and_exits_130() -> None:
    process = _spawn("serve", "--port", "0", "--model", "none", "--search", "none")
    _wait_for(process, "deepresearch serving on http://127.0.0.1:")
    process.send_signal(signal.SIGINT)
    _, stderr = process.communicate(timeout=60)
    assert process.returncode == 130, stderr
    assert "Application shutdown complete" in stderr and "Traceback" not in stderr


def test_an_unexpected_error_is_one_line_and_exit_1(tmp_path: Path) -> None:
    # a command with a bug, wired into the real entry point
    script = (
        "import sys\n"
        "from deepresearch.cli import app as cli_app\n"
        "@cli_app.app.command('boom')\n"
        "def boom() -> None:\n"
        "    raise RuntimeError('detail that may hold a secret: sk-123')\n"
        "sys.argv = ['deepresearch', 'boom']\n"
        "cli_app.main()\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == common.EXIT_FAILED, done.stderr
    assert done.stderr.startswith("error: deepresearch failed unexpectedly (RuntimeError in ")
    assert "Traceback" not in done.stderr and "sk-123" not in done.stderr
    debug = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env={**os.environ, "DEEPRESEARCH_DEBUG": "1"},
    )
    assert "Traceback" in debug.stderr and debug.returncode == 1
