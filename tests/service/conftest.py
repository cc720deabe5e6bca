"""Service tests run on SQLite and on PostgreSQL (the ``backend`` parameter). Without
PostgreSQL installed its half is skipped, unless DEEPRESEARCH_REQUIRE_POSTGRES=1 (CI),
which turns the skip into a failure."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from .postgres import PostgresServer

BACKENDS = ["sqlite", "postgresql"]
# read before the autouse fixture clears DEEPRESEARCH_* variables for each test
REQUIRE_POSTGRES = os.environ.get("DEEPRESEARCH_REQUIRE_POSTGRES") == "1"
SHARED_DATA = Path(__file__).resolve().parents[2].parent / "shared" / "data"


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[PostgresServer]:
    why_not = PostgresServer.available()
    if why_not:
        if REQUIRE_POSTGRES:
            pytest.fail(f"PostgreSQL is required here: {why_not}")
        pytest.skip(why_not)
    server = PostgresServer()
    server.start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(params=BACKENDS)
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A fresh, empty service database on each backend."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'service.sqlite3'}"
    server: PostgresServer = request.getfixturevalue("postgres_server")
    return server.new_database()
