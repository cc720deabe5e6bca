"""Every misconfiguration gets a clear message and exit code 2, never a stack trace."""

from __future__ import annotations

import socket
from pathlib import Path

from .conftest import cli

WIDE = {"COLUMNS": "250"}


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _no_traceback(text: str) -> None:
    assert "Traceback" not in text


def test_unknown_search_provider(tmp_path: Path) -> None:
    done = cli("run", "What is X?", "--search", "bing", "--model", "none")
    assert done.returncode == 2
    assert "unknown search provider 'bing'" in done.stderr
    _no_traceback(done.stderr)


def test_missing_search_key_names_the_variable() -> None:
    done = cli("run", "What is X?", "--search", "tavily", "--model", "none")
    assert done.returncode == 2
    assert "DEEPRESEARCH_TAVILY_API_KEY" in done.stderr
    _no_traceback(done.stderr)


def test_missing_model_key_names_the_variable() -> None:
    done = cli("run", "What is X?", "--search", "none", "--model", "openai:gpt-4.1-mini")
    assert done.returncode == 2
    assert "OPENAI_API_KEY" in done.stderr and "--model none" in done.stderr
    _no_traceback(done.stderr)


def test_unknown_model_provider() -> None:
    done = cli("run", "What is X?", "--search", "none", "--model", "nosuchprovider:model-x")
    assert done.returncode == 2
    _no_traceback(done.stderr)


def test_unreachable_searxng(tmp_path: Path) -> None:
    url = f"http://127.0.0.1:{_free_port()}"
    done = cli("run", "What is X?", "--search", "searxng", "--searxng-url", url, "--model", "none")
    assert done.returncode == 2, done.stderr
    assert url in done.stderr and "could not be reached" in done.stderr
    _no_traceback(done.stderr)


def test_searxng_without_url() -> None:
    done = cli("run", "What is X?", "--search", "searxng", "--model", "none")
    assert done.returncode == 2
    assert "--searxng-url" in done.stderr


def test_no_question() -> None:
    done = cli("run")
    assert done.returncode == 2
    assert "give a question" in done.stderr


def test_resume_unknown_run(tmp_path: Path) -> None:
    done = cli("run", "--resume", "run-missing", env={"DEEPRESEARCH_DATA_DIR": str(tmp_path)})
    assert done.returncode != 0
    assert "no run 'run-missing'" in done.stderr
    _no_traceback(done.stderr)


def test_doctor_reports_reachable_searxng(web_process: str) -> None:
    done = cli(
        "doctor", "--search", "searxng", "--searxng-url", web_process, "--model", "none", env=WIDE
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "reachable" in done.stdout


def test_doctor_reports_unreachable_searxng() -> None:
    url = f"http://127.0.0.1:{_free_port()}"
    done = cli("doctor", "--search", "searxng", "--searxng-url", url, "--model", "none", env=WIDE)
    assert done.returncode == 1
    assert "could not be reached" in done.stdout
