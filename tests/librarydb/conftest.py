"""The library's store tests run on SQLite and on PostgreSQL (the ``library_url``
parameter), with the service tests' throwaway PostgreSQL server; without PostgreSQL its
half is skipped unless DEEPRESEARCH_REQUIRE_POSTGRES=1."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from ..service.postgres import PostgresServer

REQUIRE_POSTGRES = os.environ.get("DEEPRESEARCH_REQUIRE_POSTGRES") == "1"


@pytest.fixture(scope="session")
def library_postgres() -> Iterator[PostgresServer]:
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


@pytest.fixture(params=["sqlite", "postgresql"])
def library_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A fresh, empty database on each backend."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'library.sqlite3'}"
    server: PostgresServer = request.getfixturevalue("library_postgres")
    return server.new_database()
