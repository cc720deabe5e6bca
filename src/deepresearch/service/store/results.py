"""A finished job's results: the document, its scored sources and its evidence, stored
idempotently (a resumed job that finishes again replaces its rows), read back, and
deleted when the job expires."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Any

from sqlalchemy import Connection, delete, insert, select, update

from deepresearch.models import Report
from deepresearch.service import tables as t
from deepresearch.service.jobs import Outcome, place_of
from deepresearch.service.store.base import StoreBase, get_job, place_values

#: the tables that hold a job's results (its row and its events stay)
RESULT_TABLES = (t.research_results, t.research_sources, t.research_evidence)


class ResultQueries(StoreBase):
    def save_result(self, job_id: str, outcome: Outcome) -> None:
        """Store the document, its scored sources and its evidence. Idempotent: a job that
        is resumed and finishes again replaces its rows, it never duplicates them."""
        report = outcome.report
        now = self.clock()
        with self._write() as conn:
            delete_results(conn, [job_id])
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
            job = get_job(conn, job_id, lock=True)
            merged = {**(job.counts if job else {}), **counts}
            # the report says where a follow-up stands, should its event have been lost
            place = place_of(report)
            conn.execute(
                update(t.research_jobs)
                .where(t.research_jobs.c.id == job_id)
                .values(counts=merged, stage="done", **(place_values(place) if place else {}))
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


def delete_results(conn: Connection, job_ids: Sequence[str]) -> None:
    """Delete the jobs' results inside the caller's transaction."""
    for table in RESULT_TABLES:
        conn.execute(delete(table).where(table.c.job_id.in_(job_ids)))


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
