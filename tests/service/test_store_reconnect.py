"""The store's PostgreSQL connections after the server dropped them (a restart, a proxy's
idle cut; made here with ``pg_terminate_backend``): a pooled connection idle a moment is
pinged as it leaves the pool and replaced, so no request sees the dead one
(``sqldb._PingIfIdle``); one used within that moment fails its first statement once, and
the pool then starts afresh."""

from __future__ import annotations

import time

import psycopg
import pytest
from sqlalchemy.exc import OperationalError

from deepresearch import sqldb
from deepresearch.service.db import make_engine, migrate
from deepresearch.service.store import JobStore
from deepresearch.sqldb import libpq_url

from .helpers import queue_job
from .postgres import PostgresServer


def _drop_connections(url: str) -> int:
    """End every other session of the database, as a restarted server would."""
    with psycopg.connect(libpq_url(url), autocommit=True) as admin:
        cursor = admin.execute(
            "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
            "WHERE datname = current_database() AND pid <> pg_backend_pid()"
        )
        row = cursor.fetchone()
    return int(row[0]) if row else 0


def test_pooled_connections_the_server_dropped_are_replaced(
    postgres_server: PostgresServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sqldb, "PING_IDLE_S", 0.1)
    url = postgres_server.new_database()
    engine = make_engine(url)
    try:
        migrate(engine)
        store = JobStore(engine)
        job_id = queue_job(store).job.id
        assert store.get(job_id) is not None
        assert _drop_connections(url) >= 1

        # idle past the ping's threshold: the dead connection is found and replaced
        time.sleep(0.3)
        assert store.get(job_id) is not None
        assert _drop_connections(url) >= 1

        # used a moment ago: taken as alive, its statement fails once; then the pool
        # gives new connections
        monkeypatch.setattr(sqldb, "PING_IDLE_S", 60.0)
        with pytest.raises(OperationalError):
            store.get(job_id)
        assert store.get(job_id) is not None
    finally:
        engine.dispose()
