"""The offline web and pydoc corpus commands, run as real subprocesses."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import threading
from pathlib import Path

import httpx
import pytest

pytestmark = pytest.mark.slow


def _first_line(process: subprocess.Popen[str], timeout: float) -> str:
    lines: list[str] = []
    assert process.stdout is not None
    stdout = process.stdout
    reader = threading.Thread(target=lambda: lines.append(stdout.readline()), daemon=True)
    reader.start()
    reader.join(timeout)
    assert lines, "the server printed nothing"
    return lines[0].strip()


def test_web_cli_serves_on_port_zero_and_stops_on_sigterm(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus.json"
    corpus.write_text(
        json.dumps([{"id": "one", "title": "One", "text": "The only document."}]),
        encoding="utf-8",
    )
    process = subprocess.Popen(
        [sys.executable, "-m", "deepresearch.testing.web", "--corpus", str(corpus), "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        base_url = _first_line(process, timeout=30)
        assert base_url.startswith("http://127.0.0.1:")
        assert not base_url.endswith(":0")
        assert httpx.get(f"{base_url}/healthz", timeout=10).text == "ok"
        search = httpx.get(f"{base_url}/search", params={"q": "document", "format": "json"})
        assert search.json()["results"][0]["url"] == f"{base_url}/page/one"
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=10) == 0
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


def test_web_cli_reports_a_bad_corpus(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "deepresearch.testing.web", "--corpus", str(tmp_path / "no")],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 1
    assert "corpus not found" in result.stderr


def test_pydoc_corpus_cli(tmp_path: Path) -> None:
    out = tmp_path / "demo"
    result = subprocess.run(
        [sys.executable, "-m", "deepresearch.testing.pydoc_corpus", "--out", str(out)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    files = sorted(path for path in out.rglob("*.md"))
    assert f"wrote {len(files)} files" in result.stdout
    assert len(files) > 100
