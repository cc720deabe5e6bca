"""``deepresearch doctor`` connects to the PostgreSQL database ``database_url`` names (a
throwaway server on loopback) and says so; a database it cannot reach is a failed check
that never shows the URL's password."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys

from .postgres import PostgresServer


def _doctor(database_url: str) -> tuple[int, dict[str, object], str]:
    done = subprocess.run(
        [sys.executable, "-m", "deepresearch.cli.app", "doctor", "--json",
         "--model", "none", "--search", "none", "--timeout", "5"],
        capture_output=True, text=True, timeout=120, check=False,
        env={**os.environ, "DEEPRESEARCH_DATABASE_URL": database_url},
    )  # fmt: skip
    checks = {c["name"]: c for c in json.loads(done.stdout)["checks"]}
    return done.returncode, checks["database (jobs and checkpoints)"], done.stdout + done.stderr


def test_doctor_connects_to_postgresql(postgres_server: PostgresServer) -> None:
    code, check, _ = _doctor(postgres_server.new_database())
    assert code == 0 and check["ok"] is True
    assert "PostgreSQL" in str(check["detail"]) and "connected" in str(check["detail"])


def test_doctor_reports_a_database_it_cannot_reach_without_the_password() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    url = f"postgresql+psycopg://me:Sup3r-s3cret-pw@127.0.0.1:{port}/research"
    code, check, printed = _doctor(url)
    assert code == 1 and check["ok"] is False
    assert f"127.0.0.1:{port}" in str(check["detail"]) and check["fix"]
    assert "Sup3r-s3cret-pw" not in printed
    table = subprocess.run(
        [sys.executable, "-m", "deepresearch.cli.app", "doctor", "--model", "none",
         "--search", "none", "--timeout", "5", "--settings"],
        capture_output=True, text=True, timeout=120, check=False,
        env={**os.environ, "DEEPRESEARCH_DATABASE_URL": url, "COLUMNS": "250"},
    )  # fmt: skip
    assert table.returncode == 1 and "me:***@127.0.0.1" in table.stdout
    assert "Sup3r-s3cret-pw" not in table.stdout + table.stderr
