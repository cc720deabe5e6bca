"""Watches (issue 25): adding, listing, pausing and removing a key's watches, claiming
the due ones, and the change reports.

Claiming a due time is one transaction: the watch's ``next_due`` moves on with a
conditional UPDATE (``WHERE next_due = <the due time read>``), the job is queued and the
``watch_runs`` row (keyed by the watch and the due time) written, all or nothing. So with
several processes on one database a due time queues exactly one job, and a process killed
before its commit leaves the due time for the next scheduler; a killed worker's job is
taken over through the job's own lease. The change report, written once the job ended,
is leased the same way (``claimed_by``, ``lease_expires_at``): whoever holds the lease
writes it, and a lease that lapsed is taken by another process."""

from __future__ import annotations

import secrets
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import Connection, Row, delete, func, insert, or_, select, text, update

from deepresearch.models.watch import (
    ChangeReport,
    Watch,
    WatchSnapshot,
    WatchState,
    WebhookDelivery,
)
from deepresearch.recipes.registry import DEFAULT_RECIPE
from deepresearch.service import tables as t
from deepresearch.service.jobs import TERMINAL, Job, request_hash
from deepresearch.service.store.base import StoreBase, aware, get_job
from deepresearch.service.store.deliveries import (
    delivery_columns,
    delivery_from_row,
    queue_delivery,
)
from deepresearch.service.store.submissions import (
    Limits,
    StoreError,
    insert_job,
    lock_owner,
    rate_wait,
)

#: change reports a watch keeps (the oldest written ones beyond are deleted): storage
#: stays bounded however often a watch runs
KEEP_REPORTS = 100

#: a due time's next one, from the watch's schedule and the time it is claimed
NextDue = Callable[[Watch, datetime], datetime]


class WatchLimitReached(StoreError):
    """The key keeps as many watches as it may (``max_watches_per_key``)."""


@dataclass(frozen=True)
class WatchRun:
    """One due time of a watch: the job it queued and, once written, its change report."""

    watch_id: str
    due_at: datetime
    job_id: str
    previous_run: str | None
    status: str
    summary: str | None
    report: ChangeReport | None
    snapshot: WatchSnapshot | None
    created_at: datetime
    reported_at: datetime | None
    #: its webhook delivery, when the watch has a webhook and the report is written
    delivery: WebhookDelivery | None = None


def new_watch_id() -> str:
    return "w" + secrets.token_hex(8)


def _at(value: datetime) -> datetime:
    stamped = aware(value)
    assert stamped is not None
    return stamped


def watch_from_row(row: Row[Any]) -> Watch:
    m = row._mapping
    return Watch(
        id=m["id"],
        owner=m["owner"],
        question=m["question"],
        schedule=m["schedule"],
        options=dict(m["options"] or {}),
        state=m["state"],
        thread=m["thread"],
        next_due=_at(m["next_due"]),
        last_run=m["last_run"],
        last_run_at=aware(m["last_run_at"]),
        webhook_url=m["webhook_url"],
        webhook_secret=m["webhook_secret"],
        created_at=_at(m["created_at"]),
        deferred_until=aware(m["deferred_until"]),
        deferred_reason=m["deferred_reason"],
    )


def _room(conn: Connection, watch: Watch, rate: Limits | None, now: datetime) -> float | None:
    """Seconds until the watch's owner may have another job; None: now (or no limit).
    The caller holds the owner's lock (``lock_owner``)."""
    if rate is None:
        return None
    return rate_wait(conn, watch.owner, rate, now)


def _put_off(conn: Connection, watch: Watch, until: datetime, now: datetime, rate: Limits) -> bool:
    """Move an unclaimed due time to ``until``, saying why on the watch; False when
    another scheduler took it."""
    w = t.watches.c
    # put off again (still no room): the reason keeps the first due time it held back
    reason = watch.deferred_reason or (
        f"the due time {watch.next_due.isoformat(timespec='seconds')} is put off: the key's "
        f"submission rate limit ({rate.per_window} per {rate.window_s:g} s) is reached"
    )
    moved = conn.execute(
        update(t.watches)
        .where(w.id == watch.id, w.next_due == watch.next_due, w.state == "active")
        .values(next_due=until, updated_at=now, deferred_until=until, deferred_reason=reason)
    )
    return bool(moved.rowcount)


def run_from_row(row: Row[Any]) -> WatchRun:
    m = row._mapping
    return WatchRun(
        watch_id=m["watch_id"],
        due_at=_at(m["due_at"]),
        job_id=m["job_id"],
        previous_run=m["previous_run"],
        status=m["status"],
        summary=m["summary"],
        report=ChangeReport.model_validate(m["report"]) if m["report"] else None,
        snapshot=WatchSnapshot.model_validate(m["snapshot"]) if m["snapshot"] else None,
        created_at=_at(m["created_at"]),
        reported_at=aware(m["reported_at"]),
        delivery=delivery_from_row(row),
    )


class WatchQueries(StoreBase):
    def add_watch(
        self,
        *,
        owner: str,
        question: str,
        schedule: str,
        options: dict[str, Any],
        first_due: datetime,
        thread: str | None,
        max_watches: int,
        webhook_url: str | None = None,
    ) -> Watch:
        """A new active watch for ``owner``; ``WatchLimitReached`` when they keep
        ``max_watches`` already (counted under the owner's lock)."""
        w = t.watches.c
        with self._write() as conn:
            if not self.sqlite:
                conn.execute(text("SELECT pg_advisory_xact_lock(hashtext(:o))"), {"o": owner})
            kept = conn.execute(select(func.count()).where(w.owner == owner)).scalar_one()
            if kept >= max_watches:
                raise WatchLimitReached(f"at most {max_watches} watches per key")
            now = self.clock()
            watch_id = new_watch_id()
            conn.execute(
                insert(t.watches).values(
                    id=watch_id,
                    owner=owner,
                    question=question,
                    schedule=schedule,
                    options=options,
                    state="active",
                    thread=thread,
                    next_due=first_due,
                    webhook_url=webhook_url,
                    webhook_secret=secrets.token_hex(32) if webhook_url else None,
                    created_at=now,
                    updated_at=now,
                )
            )
            row = conn.execute(select(t.watches).where(w.id == watch_id)).one()
        return watch_from_row(row)

    def get_watch(self, watch_id: str, owner: str | None = None) -> Watch | None:
        """The watch, if it exists and (``owner`` given) is theirs."""
        w = t.watches.c
        query = select(t.watches).where(w.id == watch_id)
        if owner is not None:
            query = query.where(w.owner == owner)
        with self._read() as conn:
            row = conn.execute(query).first()
        return watch_from_row(row) if row else None

    def list_watches(self, owner: str | None = None) -> list[Watch]:
        """The watches (``owner``'s, when given), oldest first."""
        w = t.watches.c
        query = select(t.watches).order_by(w.created_at, w.id)
        if owner is not None:
            query = query.where(w.owner == owner)
        with self._read() as conn:
            return [watch_from_row(row) for row in conn.execute(query).all()]

    def set_watch_state(
        self, watch_id: str, owner: str | None, state: WatchState, next_due: datetime | None
    ) -> Watch | None:
        """Pause or resume (``next_due``: the first due time after resuming)."""
        w = t.watches.c
        values: dict[str, Any] = {
            "state": state,
            "updated_at": self.clock(),
            "deferred_until": None,
            "deferred_reason": None,
        }
        if next_due is not None:
            values["next_due"] = next_due
        query = update(t.watches).where(w.id == watch_id)
        if owner is not None:
            query = query.where(w.owner == owner)
        with self._write() as conn:
            if not conn.execute(query.values(**values)).rowcount:
                return None
            row = conn.execute(select(t.watches).where(w.id == watch_id)).one()
        return watch_from_row(row)

    def due_now(self, watch_id: str, owner: str | None) -> Watch | None:
        """Make an active watch due at once (``run-now``); None: no such watch of
        ``owner``'s, or it is paused."""
        w = t.watches.c
        now = self.clock()
        query = update(t.watches).where(w.id == watch_id, w.state == "active")
        if owner is not None:
            query = query.where(w.owner == owner)
        with self._write() as conn:
            moved = query.values(
                next_due=now, updated_at=now, deferred_until=None, deferred_reason=None
            )
            if not conn.execute(moved).rowcount:
                return None
            row = conn.execute(select(t.watches).where(w.id == watch_id)).one()
        return watch_from_row(row)

    def remove_watch(self, watch_id: str, owner: str | None) -> bool:
        """Delete the watch and its change reports (the jobs it queued stay)."""
        w = t.watches.c
        query = delete(t.watches).where(w.id == watch_id)
        if owner is not None:
            query = query.where(w.owner == owner)
        with self._write() as conn:
            conn.execute(delete(t.watch_runs).where(t.watch_runs.c.watch_id == watch_id))
            conn.execute(
                delete(t.watch_deliveries).where(t.watch_deliveries.c.watch_id == watch_id)
            )
            return bool(conn.execute(query).rowcount)

    def claim_due(
        self,
        next_due: NextDue,
        *,
        ttl_s: float,
        limit: int = 20,
        rate: Limits | None = None,
        deferred: list[tuple[Watch, float]] | None = None,
    ) -> list[tuple[Watch, Job]]:
        """Queue one job for each active watch whose due time has come (up to ``limit``),
        moving its ``next_due`` to ``next_due(watch, now)`` in the same transaction: a
        due time missed while no scheduler ran is one run, not one per missed interval.

        ``rate``: the owner's submission limit counts a watch's jobs too. A due time the
        owner has no room for is put off, not dropped: its ``next_due`` moves to when the
        window frees, the watch says so (``deferred_until``, ``deferred_reason``, cleared
        when a due time is claimed) and ``(watch, seconds)`` is added to ``deferred``."""
        w = t.watches.c
        now = self.clock()
        put_off = deferred if deferred is not None else []
        with self._write() as conn:
            rows = conn.execute(
                select(t.watches)
                .where(w.state == "active", w.next_due <= now)
                .order_by(w.next_due, w.id)
                .limit(limit)
                .with_for_update(skip_locked=True)
            ).all()
            watches = [watch_from_row(row) for row in rows]
            if rate is not None:
                # the owners' locks (those submissions take), always in one order: two
                # schedulers never wait for each other's
                for owner in sorted({watch.owner for watch in watches}):
                    lock_owner(conn, owner)
            claimed: list[tuple[Watch, Job]] = []
            for watch in watches:
                wait = _room(conn, watch, rate, now)
                if rate is not None and wait is not None:
                    if _put_off(conn, watch, now + timedelta(seconds=wait), now, rate):
                        put_off.append((watch, wait))
                    continue
                one = self._claim_one(conn, watch, next_due, now, ttl_s)
                if one is not None:
                    claimed.append(one)
            return claimed

    def _claim_one(
        self, conn: Connection, watch: Watch, next_due: NextDue, now: datetime, ttl_s: float
    ) -> tuple[Watch, Job] | None:
        w = t.watches.c
        moved = conn.execute(
            update(t.watches)
            .where(w.id == watch.id, w.next_due == watch.next_due, w.state == "active")
            .values(
                next_due=next_due(watch, now),
                updated_at=now,
                deferred_until=None,
                deferred_reason=None,
            )
        )
        if not moved.rowcount:  # another scheduler claimed this due time first
            return None
        # a watch asks what changed: every page is read afresh, never reused from the
        # library within its freshness window (which would hide a changed page)
        options = {**watch.options, "use_library": False}
        job = insert_job(
            conn,
            owner=watch.owner,
            question=watch.question,
            recipe=DEFAULT_RECIPE,
            options=options,
            request_hash=request_hash(watch.question, DEFAULT_RECIPE, options),
            idempotency_key=f"watch:{watch.id}:{watch.next_due.isoformat()}",
            now=now,
            ttl_s=ttl_s,
        )
        conn.execute(
            update(t.watches).where(w.id == watch.id).values(last_run=job.id, last_run_at=now)
        )
        conn.execute(
            insert(t.watch_runs).values(
                watch_id=watch.id,
                due_at=watch.next_due,
                job_id=job.id,
                previous_run=watch.thread,
                status="running",
                created_at=now,
            )
        )
        return watch, job

    def watch_runs(self, watch_id: str, limit: int = 50) -> list[WatchRun]:
        """The watch's due times, newest first."""
        r, d = t.watch_runs.c, t.watch_deliveries.c
        with self._read() as conn:
            rows = conn.execute(
                select(t.watch_runs, *delivery_columns())
                .outerjoin(t.watch_deliveries, (d.watch_id == r.watch_id) & (d.due_at == r.due_at))
                .where(r.watch_id == watch_id)
                .order_by(r.due_at.desc())
                .limit(limit)
            ).all()
        return [run_from_row(row) for row in rows]

    def run_snapshot(self, job_id: str) -> WatchSnapshot | None:
        """The snapshot kept for the watch run that ran ``job_id``, if any."""
        r = t.watch_runs.c
        with self._read() as conn:
            row = conn.execute(
                select(r.snapshot).where(r.job_id == job_id, r.snapshot.is_not(None))
            ).first()
        return WatchSnapshot.model_validate(row.snapshot) if row else None

    def claim_report(self, worker: str, lease_s: float) -> tuple[WatchRun, Watch, Job] | None:
        """Lease one watch run whose job has ended and whose report is not written (nobody
        holds it, or its holder's lease lapsed) to ``worker``."""
        r, j = t.watch_runs.c, t.research_jobs.c
        now = self.clock()
        with self._write() as conn:
            row = conn.execute(
                select(t.watch_runs)
                .join(t.research_jobs, j.id == r.job_id)
                .where(
                    r.status == "running",
                    j.status.in_(TERMINAL),
                    or_(r.claimed_by.is_(None), r.lease_expires_at < now),
                )
                .order_by(r.due_at)
                .limit(1)
                .with_for_update(of=t.watch_runs, skip_locked=True)
            ).first()
            if row is None:
                return None
            run = run_from_row(row)
            conn.execute(
                update(t.watch_runs)
                .where(r.watch_id == run.watch_id, r.due_at == run.due_at)
                .values(claimed_by=worker, lease_expires_at=now + timedelta(seconds=lease_s))
            )
            watch_row = conn.execute(select(t.watches).where(t.watches.c.id == run.watch_id)).one()
            job = get_job(conn, run.job_id)
        assert job is not None
        return run, watch_from_row(watch_row), job

    def finish_report(
        self,
        run: WatchRun,
        worker: str,
        *,
        snapshot: WatchSnapshot | None,
        report: ChangeReport,
        summary: str,
        webhook: tuple[str, str] | None = None,
    ) -> bool:
        """Write the change report if ``worker`` still holds the run's lease; a finished
        job's run becomes the watch's thread (what the next run is compared with).
        ``webhook`` (the URL and the body to POST there) is queued in the outbox in the
        same transaction (``deliveries.py``)."""
        r = t.watch_runs.c
        now = self.clock()
        with self._write() as conn:
            done = conn.execute(
                update(t.watch_runs)
                .where(
                    r.watch_id == run.watch_id,
                    r.due_at == run.due_at,
                    r.status == "running",
                    r.claimed_by == worker,
                )
                .values(
                    status="reported",
                    snapshot=snapshot.model_dump(mode="json") if snapshot else None,
                    report=report.model_dump(mode="json"),
                    summary=summary,
                    reported_at=now,
                )
            )
            if not done.rowcount:
                return False
            if webhook is not None:
                url, body = webhook
                queue_delivery(
                    conn, watch_id=run.watch_id, due_at=run.due_at, url=url, body=body, now=now
                )
            if snapshot is not None:
                conn.execute(
                    update(t.watches)
                    .where(t.watches.c.id == run.watch_id)
                    .values(thread=run.job_id, updated_at=now)
                )
            _forget_old_reports(conn, run.watch_id)
        return True


def _forget_old_reports(conn: Connection, watch_id: str) -> None:
    """Delete the watch's written reports beyond the newest ``KEEP_REPORTS``."""
    r = t.watch_runs.c
    cutoff = conn.execute(
        select(r.due_at)
        .where(r.watch_id == watch_id, r.status == "reported")
        .order_by(r.due_at.desc())
        .offset(KEEP_REPORTS - 1)
        .limit(1)
    ).first()
    if cutoff is not None:
        conn.execute(
            delete(t.watch_runs).where(
                r.watch_id == watch_id, r.status == "reported", r.due_at < cutoff.due_at
            )
        )
        d = t.watch_deliveries.c
        conn.execute(
            delete(t.watch_deliveries).where(d.watch_id == watch_id, d.due_at < cutoff.due_at)
        )
