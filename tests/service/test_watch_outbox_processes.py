"""A webhook delivery outlives its process (issue 25), on SQLite and PostgreSQL: a real
``deepresearch serve`` runs a watch whose loopback receiver refuses the change report
(503), so the delivery waits for its retry; the process is killed with SIGKILL; the
receiver recovers and a ``deepresearch worker`` started on the same database sends the
delivery: the receiver takes it exactly once, its HMAC-SHA256 signature valid. Before the
outbox the delivery lived in the killed process's memory and never arrived."""

from __future__ import annotations

import json
import os
import signal
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import select

from deepresearch.service.db import make_engine
from deepresearch.service.tables import watch_deliveries

from ..cli.chat_server import ChatServer, chat_server  # noqa: F401 (fixture)
from ..cli.conftest import cli_corpus, web_process  # noqa: F401 (fixtures)
from .processes import Process, launch, wait_ready
from .test_many_processes import _questions
from .webhook_receiver import signed, webhook_receiver

pytestmark = pytest.mark.serial

ENV = {"DEEPRESEARCH_WATCH_TICK_S": "0.2", "DEEPRESEARCH_WATCH_WEBHOOK_BACKOFF_S": "4"}


def _delivery(database_url: str) -> Any:
    engine = make_engine(database_url)
    try:
        with engine.connect() as conn:
            return conn.execute(select(watch_deliveries)).first()
    finally:
        engine.dispose()


def _waiting_for_retry(database_url: str) -> bool:
    """The delivery failed at least once, nobody holds it, and its retry is a second off."""
    row = _delivery(database_url)
    if row is None or row.status != "pending" or row.attempts < 1 or row.claimed_by:
        return False
    retry = row.next_attempt_at
    retry = retry if retry.tzinfo else retry.replace(tzinfo=UTC)
    return bool(retry - datetime.now(UTC) > timedelta(seconds=1))


def _until(check: Any, what: str, timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, what
        time.sleep(0.1)


@pytest.mark.slow
def test_a_pending_delivery_is_sent_once_after_its_process_is_killed(
    web_process: str,  # noqa: F811
    chat_server: ChatServer,  # noqa: F811
    database_url: str,
    tmp_path: Path,
) -> None:
    where: dict[str, Any] = {"web": web_process, "chat": chat_server, "database_url": database_url}
    processes: list[Process] = []
    with webhook_receiver() as receiver:
        receiver.answer = 503
        try:
            first = wait_ready(launch("serve", tmp_path / "first", **where, env=ENV))
            processes.append(first)
            with httpx.Client(base_url=first.ready, timeout=30) as client:
                created = client.post(
                    "/v1/watches",
                    json={"question": _questions()[0], "every": "1d", "webhook": receiver.url},
                )
            assert created.status_code == 201, created.text
            watch_id, secret = created.json()["id"], created.json()["signing_secret"]
            _until(lambda: _waiting_for_retry(database_url), "the delivery was never refused")
            os.kill(first.pid, signal.SIGKILL)
            first.popen.wait(timeout=10)
            assert receiver.taken() == [] and receiver.posts  # refused so far
            receiver.answer = 204
            second = wait_ready(launch("worker", tmp_path / "second", **where, env=ENV))
            processes.append(second)
            _until(lambda: _delivery(database_url).status == "delivered", "never delivered")
            time.sleep(2)  # ten more passes of the outbox: nothing is sent again
        finally:
            for process in processes:
                process.stop()
        [(body, signature)] = receiver.taken()
    assert signed(secret, body, signature)
    report = json.loads(body)
    assert report["watch_id"] == watch_id
    row = _delivery(database_url)
    assert row.attempts >= 2 and row.delivered_at is not None and row.body.encode() == body
    log = second.log.read_text(encoding="utf-8", errors="replace")
    assert "Traceback" not in log, log[-3000:]
