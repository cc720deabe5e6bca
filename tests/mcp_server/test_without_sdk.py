"""Without the ``mcp`` extra: ``deepresearch mcp`` says what to install (exit code 2), and
the service runs without its /mcp endpoint."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from deepresearch.service.app import create_app
from deepresearch.settings import load_settings


def test_the_command_says_which_extra_to_install(tmp_path: Path) -> None:
    shadow = tmp_path / "shadow" / "mcp"
    shadow.mkdir(parents=True)
    (shadow / "__init__.py").write_text("raise ImportError('the mcp SDK is not installed')\n")
    env = {**os.environ, "PYTHONPATH": str(shadow.parent)}
    done = subprocess.run(
        [sys.executable, "-m", "deepresearch.cli.app", "mcp", "--model", "none"],
        capture_output=True, text=True, env=env, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 2 and done.stdout == ""
    assert "error: the MCP server needs the mcp package" in done.stderr
    assert "pip install 'deepresearch[mcp]'" in done.stderr
    assert "Traceback" not in done.stderr


def test_the_service_runs_without_its_mcp_endpoint(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "deepresearch.mcp.http", None)  # import fails
    settings = load_settings(
        model="none", search="none", database_url=f"sqlite:///{tmp_path / 'j.db'}"
    )
    with TestClient(
        create_app(settings, start_workers=False), base_url="http://127.0.0.1"
    ) as client:
        assert client.get("/healthz").status_code == 200
        assert client.post("/mcp", json={}).status_code == 404
