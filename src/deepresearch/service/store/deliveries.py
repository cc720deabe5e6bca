"""The webhook outbox (issue 25): a watch's change report to POST is a ``watch_deliveries``
row, written in the transaction that writes the report (``queue_delivery``), so it
outlives the process that wrote it.

A pending row whose ``next_attempt_at`` has come is claimed like a due watch (PostgreSQL
``FOR UPDATE SKIP LOCKED``, SQLite ``BEGIN IMMEDIATE``): the claim counts the attempt,
names the claimer and moves ``next_attempt_at`` one lease ahead. So with several
processes one sends it, and a claimer killed mid-POST leaves a row that another process
(or the restarted one) takes once the lease has lapsed. The claimer then records what
happened, if it still holds the claim: delivered, pending again at the backoff's time, or
failed (attempts spent, or a refusal not worth repeating) with the last error, which
``GET /v1/watches/{id}`` shows with the run."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import Connection, Row, insert, select, update

from deepresearch.models.watch import WebhookDelivery
from deepresearch.service import tables as t
from deepresearch.service.store.base import StoreBase, aware

#: the longest error kept on a row
_ERROR_CHARS = 500


@dataclass(frozen=True)
class Delivery:
    """One claimed delivery: what to POST where, signed with which key."""

    watch_id: str
    due_at: datetime
    url: str
    secret: str
    body: bytes
    #: this attempt's number, from 1
    attempt: int


def queue_delivery(
    conn: Connection, *, watch_id: str, due_at: datetime, url: str, body: str, now: datetime
) -> None:
    """A pending delivery of ``body`` to ``url``, in ``conn``'s transaction (the one that
    writes the change report)."""
    conn.execute(
        insert(t.watch_deliveries).values(
            watch_id=watch_id,
            due_at=due_at,
            url=url,
            body=body,
            status="pending",
            attempts=0,
            next_attempt_at=now,
            created_at=now,
        )
    )


def delivery_from_row(row: Row[Any]) -> WebhookDelivery | None:
    """A joined row's delivery, or None when the run has none (no webhook)."""
    m = row._mapping
    if m.get("delivery_status") is None:
        return None
    return WebhookDelivery(
        status=m["delivery_status"],
        attempts=int(m["delivery_attempts"]),
        next_attempt_at=aware(m["delivery_next"]) if m["delivery_status"] == "pending" else None,
        last_error=m["delivery_error"],
        delivered_at=aware(m["delivered_at"]),
    )


def delivery_columns() -> list[Any]:
    """The outbox's columns a run's listing joins (labelled apart from the run's own)."""
    d = t.watch_deliveries.c
    return [
        d.status.label("delivery_status"),
        d.attempts.label("delivery_attempts"),
        d.next_attempt_at.label("delivery_next"),
        d.last_error.label("delivery_error"),
        d.delivered_at,
    ]


class DeliveryQueries(StoreBase):
    def claim_delivery(self, worker: str, lease_s: float) -> Delivery | None:
        """Claim the pending delivery due longest ago for ``worker`` (None: none is due)."""
        d, w = t.watch_deliveries.c, t.watches.c
        now = self.clock()
        with self._write() as conn:
            row = conn.execute(
                select(t.watch_deliveries, w.webhook_secret)
                .join(t.watches, w.id == d.watch_id)
                .where(d.status == "pending", d.next_attempt_at <= now)
                .order_by(d.next_attempt_at, d.watch_id)
                .limit(1)
                .with_for_update(of=t.watch_deliveries, skip_locked=True)
            ).first()
            if row is None:
                return None
            m = row._mapping
            attempt = int(m["attempts"]) + 1
            conn.execute(
                update(t.watch_deliveries)
                .where(d.watch_id == m["watch_id"], d.due_at == m["due_at"])
                .values(
                    attempts=attempt,
                    claimed_by=worker,
                    next_attempt_at=now + timedelta(seconds=lease_s),
                )
            )
        due_at = aware(m["due_at"])
        assert due_at is not None
        return Delivery(
            watch_id=m["watch_id"],
            due_at=due_at,
            url=m["url"],
            secret=m["webhook_secret"] or "",
            body=m["body"].encode("utf-8"),
            attempt=attempt,
        )

    def finish_delivery(
        self,
        delivery: Delivery,
        worker: str,
        *,
        delivered: bool,
        retry_at: datetime | None = None,
        error: str | None = None,
    ) -> bool:
        """Record ``worker``'s attempt: delivered; else pending again from ``retry_at``, or
        (no ``retry_at``) failed for good. False: ``worker`` no longer held the claim."""
        d = t.watch_deliveries.c
        values: dict[str, Any] = {"claimed_by": None}
        if delivered:
            values.update(status="delivered", delivered_at=self.clock())
        elif retry_at is not None:
            values.update(next_attempt_at=retry_at, last_error=(error or "")[:_ERROR_CHARS])
        else:
            values.update(status="failed", last_error=(error or "")[:_ERROR_CHARS])
        with self._write() as conn:
            done = conn.execute(
                update(t.watch_deliveries)
                .where(
                    d.watch_id == delivery.watch_id,
                    d.due_at == delivery.due_at,
                    d.status == "pending",
                    d.claimed_by == worker,
                )
                .values(**values)
            )
        return bool(done.rowcount)

    def pending_deliveries(self) -> int:
        """How many deliveries wait to be sent (tests, logs)."""
        d = t.watch_deliveries.c
        with self._read() as conn:
            rows = conn.execute(select(d.watch_id).where(d.status == "pending")).all()
        return len(rows)
