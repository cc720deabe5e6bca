"""library: search latency of the library at 100,000 stored quotes, and how much the
database grows per run (issue 25).

    python -m bench.library                         # SQLite, 1,000 runs x 100 quotes
    python -m bench.library --postgres              # and PostgreSQL (a throwaway server)
    python -m bench.library --runs 50 --queries 20  # a quick look
    python -m bench.library --hybrid --real-runs 0  # hybrid search ([embeddings] extra)

Each synthetic run is built from real text (the Vital articles of ``../shared/data``): 10
pages of up to 8,000 characters as its sources, 100 of their sentences as its verified
quotes, 20 claims, and a 40-sentence markdown report; so 1,000 runs hold 100,000 quotes,
20,000 claims and about 10,000 distinct page texts. They are added through the real store
(``LibraryStore.add``, one transaction a run) to two owners (99% to the measured one).

Searches go through ``parse_query`` and ``LibraryStore.search`` (limit 20), as the CLI and
the API do: two words of a random stored quote (the common case), one common word (many
matches to rank), the one word found in the most items (the worst case: "the" on SQLite,
"also" on PostgreSQL, whose stop words leave "the" out), and the two-word queries again
with a filter (domain, since, tag); and the lookup a new run makes per sub-question
(``LibraryStore.shelved``: any of four words, two of them common).
Reported: p50, p95 and max in milliseconds per kind, after 5 untimed warm-up searches.
On PostgreSQL the tables are analyzed after filling, as autovacuum would.
Growth: the database's size (SQLite: file and WAL after a checkpoint; PostgreSQL:
``pg_database_size``) after adding the runs, divided by the runs, and the bytes of page
text, quotes and claims a run holds, for scale; and ``--real-runs`` real offline runs (no
model, the local search over 40 Vital articles): the library's and the checkpoints' size
per run.

``--hybrid`` gives the store the ``[embeddings]`` extra's embedder: every item is embedded
as it is added (so ``fill_seconds`` and ``bytes_per_run`` include the vectors), searches
are hybrid (``librarydb/vectors.py``), and the first search, which loads the owner's
matrix into the process, is timed on its own (``first_search_ms``), as is a bare scan
of the matrix (``scan``: embed the query, score every vector, pick the top 100)."""

from __future__ import annotations

import argparse
import json
import random
import re
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, text

from bench.common import DEFAULT_DATA_DIR
from deepresearch.core.library_query import parse_query
from deepresearch.core.library_reuse import ASK_LIMIT
from deepresearch.core.support import Embedder
from deepresearch.librarydb.engine import migrate_library
from deepresearch.librarydb.store import LibraryStore
from deepresearch.models.library import LibraryClaim, LibraryEntry, LibraryQuote, LibrarySource
from deepresearch.sqldb import make_engine
from deepresearch.testing.corpora import vital_documents

OWNER, OTHER = "bench", "other"
_SENTENCE = re.compile(r"(?<=[.!?])\s+")
_WORD = re.compile(r"[A-Za-z]{5,}")
COMMON = ["history", "world", "century", "government", "people", "known", "first", "later"]
#: the word in the most items, the worst case: on SQLite "the" (FTS5 keeps every word; in
#: 88% of the items), on PostgreSQL "also" ("english" drops "the" and the like as stop
#: words; "also" is in 8%)
COMMONEST = {"sqlite": "the", "postgresql": "also"}


def sentences(texts: Sequence[str]) -> list[str]:
    out: list[str] = []
    for body in texts:
        out.extend(s.strip() for s in _SENTENCE.split(body) if 40 <= len(s.strip()) <= 400)
    return out


def make_runs(data_dir: Path, runs: int, seed: int = 7) -> list[LibraryEntry]:
    rng = random.Random(seed)
    documents = vital_documents(data_dir)
    start = datetime(2026, 1, 1, tzinfo=UTC)
    entries = []
    for index in range(runs):
        pages = rng.sample(documents, 10)
        texts = [page.text[:8000] for page in pages]
        pool = sentences(texts) or ["An empty page has one sentence to quote here."]
        picked = [pool[i % len(pool)] for i in range(100)]
        sources = [
            LibrarySource(
                source_id=f"s{n}",
                url=page.url,
                title=page.title,
                domain=f"site{n % 7}.example.org",
                text=body,
                fetched_at=start + timedelta(hours=index),
            )
            for n, (page, body) in enumerate(zip(pages, texts, strict=True))
        ]
        owner_of = {s: f"s{n}" for n, body in enumerate(texts) for s in sentences([body])}
        quotes = [
            LibraryQuote(
                evidence_id=f"q{n // 10}-e{n}",
                source_id=owner_of.get(quote, "s0"),
                quote=quote,
                claim=quote[:80],
            )
            for n, quote in enumerate(picked)
        ]
        claims = [
            LibraryClaim(
                claim_id=f"c{n}",
                text=quotes[n * 5].quote[:120],
                source_id=quotes[n * 5].source_id,
                evidence_ids=[quotes[n * 5].evidence_id],
            )
            for n in range(20)
        ]
        report = "# " + pages[0].title + "\n\n" + "\n\n".join(picked[:40])
        entries.append(
            LibraryEntry(
                run_id=f"run-{index:06d}",
                recipe="research",
                question=f"What is known about {pages[0].title}?",
                title=pages[0].title,
                kind="synthesized",
                report=report,
                finished_at=start + timedelta(hours=index),
                sources=sources,
                quotes=quotes,
                claims=claims,
            )
        )
    return entries


def database_bytes(engine: Engine, path: Path | None) -> int:
    if engine.dialect.name == "postgresql":
        with engine.connect() as conn:
            return int(
                conn.execute(text("SELECT pg_database_size(current_database())")).scalar_one()
            )
    assert path is not None
    with engine.connect() as conn:
        conn.exec_driver_sql("PRAGMA wal_checkpoint(TRUNCATE)")
    return sum(p.stat().st_size for p in path.parent.glob(path.name + "*"))


def fill(store: LibraryStore, entries: list[LibraryEntry]) -> float:
    began = time.perf_counter()
    for index, entry in enumerate(entries):
        store.add(OTHER if index % 100 == 99 else OWNER, entry)
        if index % 10 == 0:
            store.tag(OWNER if index % 100 != 99 else OTHER, entry.run_id, ["sample"])
    return time.perf_counter() - began


def queries(entries: list[LibraryEntry], count: int, seed: int = 11) -> list[str]:
    rng = random.Random(seed)
    out: list[str] = []
    while len(out) < count:
        entry = rng.choice(entries)
        words = _WORD.findall(rng.choice(entry.quotes).quote)
        if len(words) >= 2:
            start = rng.randrange(len(words) - 1)
            out.append(f"{words[start]} {words[start + 1]}")
    return out


def timed(store: LibraryStore, cases: list[tuple[str, dict[str, object]]]) -> dict[str, float]:
    for query, filters in cases[:5]:  # warm-up
        store.search(OWNER, parse_query(query, filters))
    times = []
    found = 0
    for query, filters in cases:
        began = time.perf_counter()
        hits = store.search(OWNER, parse_query(query, filters))
        times.append((time.perf_counter() - began) * 1000)
        found += bool(hits)
    times.sort()
    return {
        "p50_ms": round(statistics.median(times), 2),
        "p95_ms": round(times[max(0, int(len(times) * 0.95) - 1)], 2),
        "max_ms": round(times[-1], 2),
        "queries": len(times),
        "with_results": found,
    }


def hybrid_extra(store: LibraryStore, two: list[str]) -> dict[str, Any]:
    """The first hybrid search (it loads the owner's matrix) and bare scans of it."""
    from deepresearch.librarydb.vectors import VectorIndex, nearest

    assert store.embedder is not None
    began = time.perf_counter()
    store.search(OWNER, parse_query(two[0], {}))
    first = (time.perf_counter() - began) * 1000
    index = VectorIndex()
    times = []
    with store.engine.connect() as conn:
        index.matrix(conn, OWNER)
        for query in two:
            began = time.perf_counter()
            nearest(conn, OWNER, parse_query(query, {}), store.embedder, index, 100)
            times.append((time.perf_counter() - began) * 1000)
    times.sort()
    return {
        "first_search_ms": round(first, 1),
        "scan": {
            "p50_ms": round(statistics.median(times), 2),
            "p95_ms": round(times[max(0, int(len(times) * 0.95) - 1)], 2),
        },
    }


def timed_reuse(store: LibraryStore, asked: list[list[str]]) -> dict[str, float]:
    """The lookup a new run makes for each sub-question (any of its words, the best
    ``ASK_LIMIT`` quotes with their pages)."""
    times = []
    for words in asked[:5] + asked:  # the first 5: warm-up
        began = time.perf_counter()
        store.shelved(OWNER, words, limit=ASK_LIMIT)
        times.append((time.perf_counter() - began) * 1000)
    times = sorted(times[5:])
    return {
        "p50_ms": round(statistics.median(times), 2),
        "p95_ms": round(times[max(0, int(len(times) * 0.95) - 1)], 2),
        "max_ms": round(times[-1], 2),
        "queries": len(times),
    }


def measure(
    engine: Engine,
    path: Path | None,
    entries: list[LibraryEntry],
    count: int,
    embedder: Embedder | None = None,
) -> dict[str, Any]:
    migrate_library(engine)
    store = LibraryStore(engine, embedder=embedder)
    empty = database_bytes(engine, path)
    seconds = fill(store, entries)
    if engine.dialect.name == "postgresql":  # the statistics autovacuum would gather
        with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
            conn.exec_driver_sql("ANALYZE")
    full = database_bytes(engine, path)
    stored = store.counts(OWNER)
    two = queries(entries, count)
    extra = hybrid_extra(store, two) if embedder is not None else {}
    result: dict[str, Any] = {
        "dialect": engine.dialect.name,
        "mode": store.search_mode,
        **extra,
        "runs": len(entries),
        "quotes_measured_owner": stored["quotes"],
        "fill_seconds": round(seconds, 1),
        "bytes_per_run": round((full - empty) / len(entries)),
        "database_mb": round(full / 1e6, 1),
        "search": {
            "two_words": timed(store, [(q, {}) for q in two]),
            "common_word": timed(store, [(w, {}) for w in COMMON * max(1, count // 40)]),
            "commonest_word": timed(
                store, [(COMMONEST[engine.dialect.name], {})] * max(5, count // 5)
            ),
            "two_words_domain": timed(store, [(q, {"domain": "site3.example.org"}) for q in two]),
            "two_words_since": timed(store, [(q, {"since": "2026-02-01"}) for q in two]),
            "two_words_tag": timed(store, [(q, {"tag": "sample"}) for q in two]),
        },
        # a sub-question's words: two of a stored quote and two common ones
        "reuse_lookup": timed_reuse(
            store, [[*q.split(), *COMMON[n % 8 : n % 8 + 2]] for n, q in enumerate(two)]
        ),
    }
    return result


def run_text_bytes(entries: list[LibraryEntry]) -> dict[str, int]:
    """What one run holds, for scale: its page texts, quotes, claims and report."""
    first = entries[0]
    return {
        "page_text": sum(len(s.text.encode()) for s in first.sources),
        "quotes": sum(len(q.quote.encode()) + len(q.claim.encode()) for q in first.quotes),
        "claims": sum(len(c.text.encode()) for c in first.claims),
        "report": len(first.report.encode()),
    }


def real_growth(data_dir: Path, runs: int) -> dict[str, Any]:
    """Real offline runs (no model, the local search over 40 Vital articles): how much the
    library and, for scale, the checkpoints grow per run."""
    import deepresearch

    documents = vital_documents(data_dir)[:40]
    with tempfile.TemporaryDirectory() as folder:
        corpus, store = Path(folder) / "corpus", Path(folder) / "data"
        corpus.mkdir()
        for n, document in enumerate(documents):
            (corpus / f"{n:03d}.md").write_text(f"# {document.title}\n\n{document.text}\n")
        options = {"model": "none", "search": "local", "corpus_dir": corpus, "data_dir": store}
        quotes, sizes = 0, []
        for document in documents[: runs + 1]:  # the first run makes the empty schema
            report = deepresearch.research(f"What is {document.title}?", **options)
            quotes += sum(1 for evidence in report.evidence if evidence.verified)
            engine = make_engine(f"sqlite:///{store / 'library.sqlite3'}")
            checkpoints = sum(p.stat().st_size for p in store.glob("checkpoints.sqlite3*"))
            sizes.append((database_bytes(engine, store / "library.sqlite3"), checkpoints))
            engine.dispose()
    return {
        "runs": runs,
        "verified_quotes_per_run": round(quotes / (runs + 1), 1),
        "library_bytes_per_run": round((sizes[-1][0] - sizes[0][0]) / runs),
        "checkpoint_bytes_per_run": round((sizes[-1][1] - sizes[0][1]) / runs),
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--runs", type=int, default=1000, help="runs of 100 quotes each")
    parser.add_argument("--queries", type=int, default=200, help="searches per kind")
    parser.add_argument("--postgres", action="store_true", help="also on a throwaway PostgreSQL")
    parser.add_argument("--real-runs", type=int, default=10, help="real offline runs (growth)")
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA_DIR)
    parser.add_argument("--out", type=Path, help="write the figures as JSON here")
    parser.add_argument("--hybrid", action="store_true", help="hybrid search (embeddings)")
    args = parser.parse_args(argv)
    embedder = None
    if args.hybrid:
        from deepresearch.embeddings import load_default_embedder

        embedder = load_default_embedder()
        if embedder is None:
            parser.error("--hybrid needs the [embeddings] extra: pip install wordllama")
    entries = make_runs(args.data, args.runs)
    results: dict[str, Any] = {"run_holds_bytes": run_text_bytes(entries), "backends": []}
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "library.sqlite3"
        engine = make_engine(f"sqlite:///{path}")
        results["backends"].append(measure(engine, path, entries, args.queries, embedder))
        engine.dispose()
    if args.postgres:
        sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
        from tests.service.postgres import PostgresServer

        server = PostgresServer()
        server.start()
        try:
            engine = make_engine(server.new_database())
            results["backends"].append(measure(engine, None, entries, args.queries, embedder))
            engine.dispose()
        finally:
            server.stop()
    if args.real_runs:
        results["real_runs"] = real_growth(args.data, args.real_runs)
    shown = json.dumps(results, indent=2)
    print(shown)
    if args.out:
        args.out.write_text(shown + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
