"""Every query the service makes, in one place. Synchronous SQLAlchemy Core; the async
parts of the service call it from worker threads or, for short writes, inline.

Writes that read-then-write (submissions, claims) are serialised: SQLite transactions
start with ``BEGIN IMMEDIATE``; PostgreSQL takes a per-owner advisory lock for
submissions and ``FOR UPDATE SKIP LOCKED`` for claims."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import (
    Connection,
    Engine,
    Row,
    and_,
    delete,
    func,
    insert,
    or_,
    select,
    text,
    update,
)
from sqlalchemy.exc import IntegrityError

from deepresearch.core.ids import new_run_id
from deepresearch.models import Report, RunEvent
from deepresearch.models.event_payloads import ModelCalled
from deepresearch.service import tables as t
from deepresearch.service.jobs import (
    ACTIVE,
    STATUSES,
    TERMINAL,
    TERMINAL_EVENT,
    Job,
    JobStatus,
    Outcome,
    Submission,
    count_updates,
    progress_after,
    stage_after,
    usage_updates,
)

Clock = Callable[[], datetime]


def utcnow() -> datetime:
    return datetime.now(UTC)


class StoreError(Exception):
    """A submission the store refuses; the routes map each subclass to a status code."""


class IdempotencyMismatch(StoreError):
    """The Idempotency-Key was used before with a different body (422)."""


class IdempotencyInFlight(StoreError):
    """The first request with this Idempotency-Key is still being created (409)."""


class SubmissionRateLimited(StoreError):
    def __init__(self, retry_after_s: float) -> None:
        super().__init__("too many submissions")
        self.retry_after_s = retry_after_s


@dataclass(frozen=True)
class Limits:
    window_s: float
    per_window: int
    ttl_s: float


@dataclass(frozen=True)
class StoredEvent:
    seq: int
    event: RunEvent


@dataclass(frozen=True)
class ApiKey:
    id: str
    name: str
    prefix: str
    max_active_runs: int
    created_at: datetime
    revoked_at: datetime | None


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def _aware(value: datetime | None) -> datetime | None:
    """SQLite hands back naive datetimes; everything here is UTC."""
    if value is not None and value.tzinfo is None:
        return value.replace(tzinfo=UTC)
    return value


class JobStore:
    def __init__(self, engine: Engine, clock: Clock = utcnow) -> None:
        self.engine = engine
        self.clock = clock
        self.sqlite = engine.dialect.name == "sqlite"

    # transactions ---------------------------------------------------------------
    @contextmanager
    def _write(self) -> Iterator[Connection]:
        """A transaction that may read and then write without losing a race."""
        engine = (
            self.engine.execution_options(sqlite_immediate=True) if self.sqlite else self.engine
        )
        with engine.begin() as conn:
            yield conn

    @contextmanager
    def _read(self) -> Iterator[Connection]:
        with self.engine.connect() as conn:
            yield conn

    # api keys -------------------------------------------------------------------
    def add_key(self, key_id: str, name: str, token: str, max_active_runs: int) -> ApiKey:
        now = self.clock()
        with self._write() as conn:
            conn.execute(
                insert(t.api_keys).values(
                    id=key_id,
                    name=name,
                    key_hash=hash_token(token),
                    prefix=token[:12],
                    max_active_runs=max_active_runs,
                    created_at=now,
                )
            )
        return ApiKey(key_id, name, token[:12], max_active_runs, now, None)

    def list_keys(self) -> list[ApiKey]:
        with self._read() as conn:
            rows = conn.execute(select(t.api_keys).order_by(t.api_keys.c.created_at)).all()
        return [_key(row) for row in rows]

    def revoke_key(self, key_id: str) -> bool:
        with self._write() as conn:
            result = conn.execute(
                update(t.api_keys)
                .where(t.api_keys.c.id == key_id, t.api_keys.c.revoked_at.is_(None))
                .values(revoked_at=self.clock())
            )
        return bool(result.rowcount)

    def key_for_token(self, token: str) -> ApiKey | None:
        with self._read() as conn:
            row = conn.execute(
                select(t.api_keys).where(
                    t.api_keys.c.key_hash == hash_token(token), t.api_keys.c.revoked_at.is_(None)
                )
            ).first()
        return _key(row) if row else None

    def has_keys(self) -> bool:
        with self._read() as conn:
            count = conn.execute(
                select(func.count())
                .select_from(t.api_keys)
                .where(t.api_keys.c.revoked_at.is_(None))
            ).scalar_one()
        return bool(count)

    # submitting -----------------------------------------------------------------
    def submit(
        self,
        *,
        owner: str,
        question: str,
        recipe: str,
        options: dict[str, Any],
        request_hash: str,
        idempotency_key: str | None,
        max_active_runs: int,
        limits: Limits,
    ) -> Submission:
        """Create a job, or return the job this request already made or should attach to.

        Order: an Idempotency-Key replay first (never rate limited), then attaching to
        the owner's active run when they have as many as they may, then the rate limit."""
        try:
            with self._write() as conn:
                self._lock_owner(conn, owner)
                if idempotency_key:
                    existing = self._by_idempotency_key(conn, owner, idempotency_key)
                    if existing is not None:
                        if existing.request_hash != request_hash:
                            raise IdempotencyMismatch()
                        return Submission(existing, replayed=True)
                active = self._active_jobs(conn, owner)
                if len(active) >= max_active_runs:
                    return Submission(active[0], attached=True)
                self._check_rate(conn, owner, limits)
                job_id = new_run_id()
                now = self.clock()
                conn.execute(
                    insert(t.research_jobs).values(
                        id=job_id,
                        owner=owner,
                        status="QUEUED",
                        progress=0.0,
                        question=question,
                        recipe=recipe,
                        options=options,
                        idempotency_key=idempotency_key,
                        request_hash=request_hash,
                        created_at=now,
                        updated_at=now,
                        expires_at=now + timedelta(seconds=limits.ttl_s),
                        attempts=0,
                        cancel_requested=False,
                        counts={},
                        usage={},
                    )
                )
                job = self._get(conn, job_id)
                assert job is not None
                return Submission(job, created=True)
        except IntegrityError:
            # another request with the same Idempotency-Key won the race
            with self._read() as conn:
                existing = self._by_idempotency_key(conn, owner, str(idempotency_key))
            if existing is None:
                raise IdempotencyInFlight() from None
            if existing.request_hash != request_hash:
                raise IdempotencyMismatch() from None
            return Submission(existing, replayed=True)

    def _lock_owner(self, conn: Connection, owner: str) -> None:
        if not self.sqlite:
            conn.execute(text("SELECT pg_advisory_xact_lock(hashtext(:owner))"), {"owner": owner})

    def _by_idempotency_key(self, conn: Connection, owner: str, key: str) -> Job | None:
        row = conn.execute(
            select(t.research_jobs).where(
                t.research_jobs.c.owner == owner, t.research_jobs.c.idempotency_key == key
            )
        ).first()
        return _job(row) if row else None

    def _active_jobs(self, conn: Connection, owner: str) -> list[Job]:
        rows = conn.execute(
            select(t.research_jobs)
            .where(t.research_jobs.c.owner == owner, t.research_jobs.c.status.in_(ACTIVE))
            .order_by(t.research_jobs.c.created_at.desc())
        ).all()
        return [_job(row) for row in rows]

    def _check_rate(self, conn: Connection, owner: str, limits: Limits) -> None:
        since = self.clock() - timedelta(seconds=limits.window_s)
        recent = conn.execute(
            select(t.research_jobs.c.created_at)
            .where(t.research_jobs.c.owner == owner, t.research_jobs.c.created_at > since)
            .order_by(t.research_jobs.c.created_at)
        ).all()
        if len(recent) >= limits.per_window:
            oldest = _aware(recent[-limits.per_window][0])
            assert oldest is not None
            wait = (oldest - since).total_seconds()
            raise SubmissionRateLimited(max(1.0, wait))

    # reading jobs ---------------------------------------------------------------
    def get(self, job_id: str, owner: str | None = None) -> Job | None:
        with self._read() as conn:
            job = self._get(conn, job_id)
        if job is None or (owner is not None and job.owner != owner):
            return None
        return job

    def _get(self, conn: Connection, job_id: str) -> Job | None:
        row = conn.execute(select(t.research_jobs).where(t.research_jobs.c.id == job_id)).first()
        return _job(row) if row else None

    def list_jobs(
        self, owner: str, *, limit: int = 20, before: datetime | None = None
    ) -> list[Job]:
        """The owner's jobs, newest first; ``before`` pages on from a created_at."""
        query = select(t.research_jobs).where(t.research_jobs.c.owner == owner)
        if before is not None:
            query = query.where(t.research_jobs.c.created_at < before)
        query = query.order_by(t.research_jobs.c.created_at.desc(), t.research_jobs.c.id.desc())
        with self._read() as conn:
            rows = conn.execute(query.limit(limit)).all()
        return [_job(row) for row in rows]

    def queue_counts(self) -> dict[str, int]:
        with self._read() as conn:
            rows = conn.execute(
                select(t.research_jobs.c.status, func.count()).group_by(t.research_jobs.c.status)
            ).all()
        counts: dict[str, int] = dict.fromkeys(STATUSES, 0)
        counts.update({str(status): int(n) for status, n in rows})
        return counts

    # running jobs ----------------------------------------------------------------
    def _claimable(self) -> Any:
        now = self.clock()
        return or_(
            t.research_jobs.c.status == "QUEUED",
            and_(
                t.research_jobs.c.status == "RUNNING",
                t.research_jobs.c.lease_expires_at < now,
            ),
        )

    def has_claimable(self) -> bool:
        """Whether ``claim`` would find a job (a read, without taking the write lock)."""
        with self._read() as conn:
            row = conn.execute(
                select(t.research_jobs.c.id).where(self._claimable()).limit(1)
            ).first()
        return row is not None

    def claim(self, worker: str, lease_s: float) -> Job | None:
        """Take the oldest queued job, or a running one whose lease has lapsed (its
        worker died), and lease it to ``worker``."""
        now = self.clock()
        with self._write() as conn:
            row = conn.execute(
                select(t.research_jobs.c.id)
                .where(self._claimable())
                .order_by(t.research_jobs.c.created_at, t.research_jobs.c.id)
                .limit(1)
                .with_for_update(skip_locked=True)
            ).first()
            if row is None:
                return None
            conn.execute(
                update(t.research_jobs)
                .where(t.research_jobs.c.id == row.id)
                .values(
                    status="RUNNING",
                    lease_owner=worker,
                    lease_expires_at=now + timedelta(seconds=lease_s),
                    attempts=t.research_jobs.c.attempts + 1,
                    started_at=func.coalesce(t.research_jobs.c.started_at, now),
                    updated_at=now,
                )
            )
            return self._get(conn, row.id)

    def renew(self, job_id: str, worker: str, lease_s: float) -> Job | None:
        """Extend the lease; None when ``worker`` no longer holds it."""
        now = self.clock()
        with self._write() as conn:
            result = conn.execute(
                update(t.research_jobs)
                .where(
                    t.research_jobs.c.id == job_id,
                    t.research_jobs.c.lease_owner == worker,
                    t.research_jobs.c.status == "RUNNING",
                )
                .values(lease_expires_at=now + timedelta(seconds=lease_s), updated_at=now)
            )
            if not result.rowcount:
                return None
            return self._get(conn, job_id)

    def release(self, job_id: str, worker: str) -> None:
        """Give a running job back to the queue (shutdown): the next worker resumes it."""
        with self._write() as conn:
            conn.execute(
                update(t.research_jobs)
                .where(t.research_jobs.c.id == job_id, t.research_jobs.c.lease_owner == worker)
                .values(
                    status="QUEUED",
                    lease_owner=None,
                    lease_expires_at=None,
                    updated_at=self.clock(),
                )
            )

    def request_cancel(self, job_id: str, owner: str) -> Job | None:
        """Flag a job for cancellation; a queued one is cancelled at once."""
        now = self.clock()
        with self._write() as conn:
            job = self._get(conn, job_id)
            if job is None or job.owner != owner:
                return None
            if job.status == "QUEUED":
                conn.execute(
                    update(t.research_jobs)
                    .where(t.research_jobs.c.id == job_id)
                    .values(
                        status="CANCELLED",
                        cancel_requested=True,
                        finished_at=now,
                        updated_at=now,
                    )
                )
                self._append(conn, job_id, "run_cancelled", None, "Cancelled before it started", {})
            elif job.status == "RUNNING":
                conn.execute(
                    update(t.research_jobs)
                    .where(t.research_jobs.c.id == job_id)
                    .values(cancel_requested=True, updated_at=now)
                )
            return self._get(conn, job_id)

    def finish(
        self,
        job_id: str,
        worker: str,
        status: JobStatus,
        *,
        message: str,
        error: str | None = None,
        ttl_s: float,
        data: dict[str, Any] | None = None,
    ) -> bool:
        """Move a job this worker holds to a terminal state and store the terminal event
        in the same transaction. False when the worker had lost the job."""
        assert status in TERMINAL
        now = self.clock()
        with self._write() as conn:
            result = conn.execute(
                update(t.research_jobs)
                .where(t.research_jobs.c.id == job_id, t.research_jobs.c.lease_owner == worker)
                .values(
                    status=status,
                    error=error,
                    finished_at=now,
                    expires_at=now + timedelta(seconds=ttl_s),
                    lease_owner=None,
                    lease_expires_at=None,
                    updated_at=now,
                    progress=1.0 if status == "COMPLETED" else t.research_jobs.c.progress,
                )
            )
            if not result.rowcount:
                return False
            payload = dict(data or {})
            if error:
                payload["error"] = error
            self._append(conn, job_id, TERMINAL_EVENT[status], None, message, payload)
        return True

    def expire(self) -> int:
        """Jobs past their time-to-live become EXPIRED and their results are deleted."""
        now = self.clock()
        with self._write() as conn:
            ids = [
                row.id
                for row in conn.execute(
                    select(t.research_jobs.c.id).where(
                        t.research_jobs.c.expires_at < now,
                        t.research_jobs.c.status.in_(
                            ("COMPLETED", "FAILED", "CANCELLED", "QUEUED")
                        ),
                    )
                ).all()
            ]
            if not ids:
                return 0
            for table in (t.research_results, t.research_sources, t.research_evidence):
                conn.execute(delete(table).where(table.c.job_id.in_(ids)))
            conn.execute(
                update(t.research_jobs)
                .where(t.research_jobs.c.id.in_(ids))
                .values(status="EXPIRED", updated_at=now)
            )
        return len(ids)

    # events ----------------------------------------------------------------------
    def append_event(self, job_id: str, run_event: RunEvent) -> int:
        """Store one event; its sequence number."""
        return self.append_events([(job_id, run_event)])[0]

    def append_events(self, items: Sequence[tuple[str, RunEvent]]) -> list[int]:
        """Store runs' events in one transaction, each with its job's next sequence number,
        in the order given; fold them into each job's stage, progress, counts and usage."""
        seqs: list[int] = []
        with self._write() as conn:
            next_seq: dict[str, int] = {}
            jobs: dict[str, dict[str, Any]] = {}
            events: list[dict[str, Any]] = []
            usage_rows: list[dict[str, Any]] = []
            for job_id, run_event in items:
                if job_id not in next_seq:
                    job = self._get(conn, job_id)
                    if job is None:
                        raise KeyError(job_id)
                    next_seq[job_id] = self._last_seq(conn, job_id) + 1
                    jobs[job_id] = {
                        "stage": job.stage,
                        "progress": job.progress,
                        "counts": dict(job.counts),
                        "usage": dict(job.usage),
                    }
                seq = next_seq[job_id]
                next_seq[job_id] = seq + 1
                seqs.append(seq)
                events.append(_event_row(job_id, seq, run_event))
                _fold(jobs[job_id], run_event)
                if isinstance(run_event.data, ModelCalled):
                    usage_rows.append(_usage_row(job_id, seq, run_event.stage, run_event.data))
            if events:
                conn.execute(insert(t.job_events), events)
            if usage_rows:
                conn.execute(insert(t.research_usage), usage_rows)
            now = self.clock()
            for job_id, values in jobs.items():
                conn.execute(
                    update(t.research_jobs)
                    .where(t.research_jobs.c.id == job_id)
                    .values(updated_at=now, **values)
                )
        return seqs

    def last_event_seq(self, job_id: str) -> int:
        """The id of the job's latest stored event; 0 before its first."""
        with self._read() as conn:
            return self._last_seq(conn, job_id)

    def _last_seq(self, conn: Connection, job_id: str) -> int:
        last = conn.execute(
            select(func.max(t.job_events.c.seq)).where(t.job_events.c.job_id == job_id)
        ).scalar_one()
        return int(last or 0)

    def _append(
        self,
        conn: Connection,
        job_id: str,
        kind: str,
        stage: str | None,
        message: str,
        data: dict[str, Any],
        ts: datetime | None = None,
    ) -> int:
        seq = self._last_seq(conn, job_id) + 1
        conn.execute(
            insert(t.job_events).values(
                job_id=job_id,
                seq=seq,
                ts=ts or self.clock(),
                type=kind,
                stage=stage,
                message=message,
                data=data,
            )
        )
        return seq

    def events_after(self, job_id: str, after: int, limit: int = 500) -> list[StoredEvent]:
        with self._read() as conn:
            rows = conn.execute(
                select(t.job_events)
                .where(t.job_events.c.job_id == job_id, t.job_events.c.seq > after)
                .order_by(t.job_events.c.seq)
                .limit(limit)
            ).all()
        return [
            StoredEvent(
                row.seq,
                RunEvent(
                    run_id=job_id,
                    seq=row.seq,
                    ts=_aware(row.ts) or self.clock(),
                    type=row.type,
                    stage=row.stage,
                    message=row.message,
                    data=row.data,
                ),
            )
            for row in rows
        ]

    # results ---------------------------------------------------------------------
    def save_result(self, job_id: str, outcome: Outcome) -> None:
        """Store the document, its scored sources and its evidence. Idempotent: a job that
        is resumed and finishes again replaces its rows, it never duplicates them."""
        report = outcome.report
        now = self.clock()
        with self._write() as conn:
            for table in (t.research_results, t.research_sources, t.research_evidence):
                conn.execute(delete(table).where(table.c.job_id == job_id))
            conn.execute(
                insert(t.research_results).values(
                    job_id=job_id,
                    kind=outcome.kind,
                    report=outcome.document,
                    markdown=outcome.markdown,
                    created_at=now,
                )
            )
            sources = _source_rows(job_id, report) if report else []
            if sources:
                conn.execute(insert(t.research_sources), sources)
            evidence = {
                item.id: {
                    "job_id": job_id,
                    "evidence_id": item.id,
                    "source_url": item.source_url,
                    "quote": item.quote,
                    "verified": item.verified,
                    "detail": item.model_dump(mode="json"),
                }
                for item in outcome.evidence
            }
            if evidence:
                conn.execute(insert(t.research_evidence), list(evidence.values()))
            counts = {
                "evidence": len(evidence),
                "evidence_verified": sum(1 for item in outcome.evidence if item.verified),
            }
            if report is not None:
                counts["sources_cited"] = len(report.sources)
                counts["sources_considered"] = len(report.considered)
            job = self._get(conn, job_id)
            merged = {**(job.counts if job else {}), **counts}
            conn.execute(
                update(t.research_jobs)
                .where(t.research_jobs.c.id == job_id)
                .values(counts=merged, stage="done")
            )

    def result(self, job_id: str) -> tuple[str, dict[str, Any], str] | None:
        """The stored document of a finished job: (kind, JSON, markdown)."""
        with self._read() as conn:
            row = conn.execute(
                select(t.research_results).where(t.research_results.c.job_id == job_id)
            ).first()
        if row is None:
            return None
        return str(row.kind), dict(row.report), str(row.markdown)

    def sources(self, job_id: str) -> list[dict[str, Any]]:
        with self._read() as conn:
            rows = conn.execute(
                select(t.research_sources)
                .where(t.research_sources.c.job_id == job_id)
                .order_by(t.research_sources.c.final.desc(), t.research_sources.c.url)
            ).all()
        return [
            {k: v for k, v in row._mapping.items() if k not in ("job_id", "url_hash")}
            for row in rows
        ]

    def evidence_ids(self, job_id: str) -> list[str]:
        with self._read() as conn:
            rows = conn.execute(
                select(t.research_evidence.c.evidence_id).where(
                    t.research_evidence.c.job_id == job_id
                )
            ).all()
        return [row.evidence_id for row in rows]


def _event_row(job_id: str, seq: int, run_event: RunEvent) -> dict[str, Any]:
    return {
        "job_id": job_id,
        "seq": seq,
        "ts": run_event.ts,
        "type": run_event.type,
        "stage": run_event.stage,
        "message": run_event.message,
        "data": run_event.data.model_dump(mode="json"),
    }


def _fold(job: dict[str, Any], run_event: RunEvent) -> None:
    """What an event changes in its job's row: stage, progress, counts, usage."""
    job["stage"] = stage_after(run_event.type, run_event.stage, job["stage"])
    job["progress"] = progress_after(
        run_event.type, run_event.stage, run_event.data, job["progress"]
    )
    for key, n in count_updates(run_event.data).items():
        job["counts"][key] = job["counts"].get(key, 0) + n
    for key, n in usage_updates(run_event.data).items():
        job["usage"][key] = job["usage"].get(key, 0) + n


def _usage_row(job_id: str, seq: int, stage: str | None, call: ModelCalled) -> dict[str, Any]:
    return {
        "job_id": job_id,
        "seq": seq,
        "stage": stage,
        "role": call.role,
        "model": call.model,
        "input_tokens": call.input_tokens,
        "output_tokens": call.output_tokens,
        "cached": False,  # a reply from the response cache makes no model_call event
    }


def _source_rows(job_id: str, report: Report) -> list[dict[str, Any]]:
    cited = {ref.url: ref for ref in report.sources}
    rows: dict[str, dict[str, Any]] = {}
    for score in report.considered:
        url_hash = hashlib.sha256(score.url.encode()).hexdigest()
        ref = cited.get(score.url)
        rows[url_hash] = {
            "job_id": job_id,
            "url_hash": url_hash,
            "url": score.url,
            "domain": score.domain,
            "title": ref.title if ref else "",
            "tier": score.tier,
            "decision": score.decision,
            "cited": ref is not None,
            "final": score.final,
            "signal_score": score.signal_score,
            "model_score": score.model_score,
            "credibility": score.credibility,
            "domain_authority": score.domain_authority,
            "recency": score.recency,
            "retrieval_relevance": score.retrieval_relevance,
            "scores": score.model_dump(mode="json"),
            "reason": score.reason,
        }
    return list(rows.values())


def _job(row: Row[Any]) -> Job:
    m = row._mapping
    return Job(
        id=m["id"],
        owner=m["owner"],
        status=m["status"],
        stage=m["stage"],
        progress=float(m["progress"]),
        question=m["question"],
        recipe=m["recipe"],
        options=dict(m["options"] or {}),
        idempotency_key=m["idempotency_key"],
        request_hash=m["request_hash"],
        created_at=_aware(m["created_at"]) or utcnow(),
        started_at=_aware(m["started_at"]),
        finished_at=_aware(m["finished_at"]),
        expires_at=_aware(m["expires_at"]),
        updated_at=_aware(m["updated_at"]) or utcnow(),
        attempts=int(m["attempts"]),
        lease_owner=m["lease_owner"],
        lease_expires_at=_aware(m["lease_expires_at"]),
        cancel_requested=bool(m["cancel_requested"]),
        error=m["error"],
        counts=dict(m["counts"] or {}),
        usage=dict(m["usage"] or {}),
    )


def _key(row: Row[Any]) -> ApiKey:
    m = row._mapping
    return ApiKey(
        id=m["id"],
        name=m["name"],
        prefix=m["prefix"],
        max_active_runs=int(m["max_active_runs"]),
        created_at=_aware(m["created_at"]) or utcnow(),
        revoked_at=_aware(m["revoked_at"]),
    )
