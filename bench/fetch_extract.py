"""fetch_extract: real pages fetched over HTTP and extracted, at several concurrency levels.

The ScrapingHub pages (``--pages``, all 181 by default) are served byte for byte by the
offline web (``python -m deepresearch.testing.web`` over a folder of links to the
``.html.gz`` files) in a child process, so the server does not share this interpreter.
Each page is fetched by the real ``HttpFetcher`` (``allow_hosts=["127.0.0.1"]``, robots.txt
checked as in a run, per-host politeness gap 0 and per-host limit raised to the level) and
extracted the way the reading stage does it, at most ``level`` pages in flight (an asyncio
semaphore around fetch plus extract), in two modes level by level: ``c<N>.*`` through an
``ExtractPool`` of ``extract_workers`` processes (the default setting, what a run does
now) and ``thread.c<N>.*`` with ``extract_workers=0`` (``extract`` in a worker thread, as
before the pool). Each mode gets one untimed pass over every page at the highest level
first (worker start, the extractors' lazy loading). The baseline is
``trafilatura.extract`` called directly on the same bytes, one page at a time, no HTTP.
F1 as in ``bench.extraction``.
"""

from __future__ import annotations

import asyncio
import os
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import trafilatura

from bench.common import BenchResult, Options, mean, percentile, require
from bench.extraction import MAX_CHARS, SCRAPINGHUB_DIR, load_pages, page_ids, token_scores
from bench.memory import PeakRss
from deepresearch.errors import FetchError
from deepresearch.fetch.extract_pool import ExtractPool, default_workers
from deepresearch.fetch.http_fetcher import HttpFetcher
from deepresearch.testing.web import offline_web_process

NOTES = (
    "Per level: pages_per_s = pages / wall time of the whole level; p50/p95_ms = per page, "
    "from taking a semaphore slot to the end of extraction (queueing for a slot excluded); "
    "fetch_p50_ms = the fetch part alone. cpu_ms_per_page = this process's CPU time (all "
    "threads, time.process_time) over the level / pages; worker_cpu_ms_per_page = the "
    "extraction workers' CPU (utime + stime from /proc/PID/stat) over the level / pages, "
    "server_cpu_ms_per_page the same for the loopback server, total_cpu_ms_per_page the "
    "three together: less sensitive to other load on the machine than the rates. peak_rss_mb = this "
    "process's resident-memory high-water mark during the level (VmHWM reset before each "
    "level; the server child and the workers are not counted), rss_growth_mb = peak minus "
    "the resident size when the level started. worker_*_mb (after the pool's last level, "
    "per worker, the largest of them): rss = VmRSS, peak = VmHWM, pss = proportional set "
    "size (pages shared with the forkserver and the other workers divided among them), "
    "uss = private pages only (smaps_rollup). c<N>.* = extract_workers processes (the "
    "default, what a run does); thread.c<N>.* = extract_workers 0 (extraction in a thread, "
    "pure Python under the GIL: at most about one core). identical_pages = pages whose "
    "text from the pool equals the text from the thread, at every level. The loopback "
    "server is the offline web's ThreadingHTTPServer in a child process (gunzips each page "
    "per request); it shares the machine's cores with the rest. trafilatura.*: "
    "trafilatura.extract(html bytes) with its defaults, no URL, sequential, no HTTP. F1: "
    "lowercased \\w+ token multiset overlap with the gold articleBody, averaged over pages "
    "(failed pages count as 0)."
)


@dataclass
class Level:
    """What one concurrency level measured."""

    concurrency: int
    wall_s: float = 0.0
    cpu_s: float = 0.0
    worker_cpu_s: float = 0.0
    server_cpu_s: float = 0.0
    seconds: list[float] = field(default_factory=list)
    fetch_seconds: list[float] = field(default_factory=list)
    texts: dict[str, str] = field(default_factory=dict)
    failed: int = 0


@contextmanager
def serve(folder: Path, ids: list[str]) -> Iterator[str]:
    """The offline web over links to ``ids``' pages, in a child process; yields its URL."""
    with tempfile.TemporaryDirectory(prefix="bench-fetch-") as tmp:
        for page_id in ids:
            name = f"{page_id}.html.gz"
            (Path(tmp) / name).symlink_to(folder / "html" / name)
        with offline_web_process(tmp) as url:
            yield url


async def fetch_all(base_url: str, ids: list[str], concurrency: int, pool: ExtractPool) -> Level:
    """Fetch and extract every page, at most ``concurrency`` at a time."""
    level = Level(concurrency)
    slots = asyncio.Semaphore(concurrency)
    async with HttpFetcher(
        allow_hosts=["127.0.0.1"], max_per_host=concurrency, min_interval_s=0.0
    ) as fetcher:

        async def one(page_id: str) -> None:
            async with slots:
                started = time.perf_counter()
                try:
                    page = await fetcher.fetch(f"{base_url}/page/{page_id}")
                    fetched = time.perf_counter()
                    doc = await pool.extract(page, max_chars=MAX_CHARS)
                except FetchError:
                    level.failed += 1
                    return
                level.seconds.append(time.perf_counter() - started)
                level.fetch_seconds.append(fetched - started)
                level.texts[page_id] = doc.text

        workers, server = pool.worker_pids(), _server_pids()
        started, cpu = time.perf_counter(), time.process_time()
        worker_cpu, server_cpu = _cpu_s(workers), _cpu_s(server)
        await asyncio.gather(*(one(page_id) for page_id in ids))
        level.wall_s = time.perf_counter() - started
        level.cpu_s = time.process_time() - cpu
        level.worker_cpu_s = _cpu_s(workers) - worker_cpu
        level.server_cpu_s = _cpu_s(server) - server_cpu
    return level


def run(options: Options) -> BenchResult:
    """Every level in both modes over all pages, then the trafilatura baseline; F1 against
    the gold text."""
    folder = require(options.data_dir / SCRAPINGHUB_DIR)
    ids = page_ids(options.data_dir, options.pages)
    pages, gold = _load(options.data_dir, ids)
    workers = default_workers()
    result = BenchResult(
        notes=NOTES,
        params={
            "pages": len(ids),
            "html_mb": round(sum(len(html) for html in pages.values()) / 1_000_000, 2),
            "concurrency": list(options.concurrency),
            "cpu_count": os.cpu_count() or 0,
            "extract_workers": workers,
            "min_interval_s": 0.0,
            "respect_robots": True,
            "max_chars": MAX_CHARS,
            "warmup_pages": len(ids) if options.warmup else 0,
            "dataset": "scrapinghub/article-extraction-benchmark",
        },
    )
    pool, thread = ExtractPool(workers), ExtractPool(0)
    rates: dict[str, float] = {}
    identical = len(ids)
    try:
        with serve(folder, ids) as base_url:
            started = time.perf_counter()
            pool.start()
            result.add("pool.start_s", time.perf_counter() - started, "s", digits=2)
            if options.warmup:
                for mode in (thread, pool):
                    asyncio.run(fetch_all(base_url, ids, max(options.concurrency), mode))
            for concurrency in options.concurrency:
                texts: list[dict[str, str]] = []
                for prefix, mode in (("thread.", thread), ("", pool)):
                    with PeakRss() as peak:
                        level = asyncio.run(fetch_all(base_url, ids, concurrency, mode))
                    rate = len(level.seconds) / level.wall_s if level.wall_s else 0.0
                    first = rates.setdefault(prefix, rate)
                    _add_level(result, prefix, level, gold, peak, rate / first if first else 0.0)
                    result.params["rss_peak_reset"] = peak.reset
                    texts.append(level.texts)
                identical = min(identical, sum(texts[0].get(i) == texts[1].get(i) for i in ids))
            _add_workers(result, pool.worker_pids())
    finally:
        pool.shutdown()
    result.add("identical_pages", identical, "pages", digits=0)
    _baseline(result, pages, gold)
    return result


def _load(data_dir: Path, ids: list[str]) -> tuple[dict[str, bytes], dict[str, str]]:
    loaded = load_pages(data_dir, len(ids))  # the same pages, in the same order
    pages = {page_id: page.content for page_id, (page, _) in zip(ids, loaded, strict=True)}
    gold = {page_id: text for page_id, (_, text) in zip(ids, loaded, strict=True)}
    return pages, gold


def _add_level(
    result: BenchResult,
    mode: str,
    level: Level,
    gold: dict[str, str],
    peak: PeakRss,
    speedup: float,
) -> None:
    prefix = f"{mode}c{level.concurrency}."
    f1 = [token_scores(level.texts.get(page_id, ""), text).f1 for page_id, text in gold.items()]
    add = result.add
    add(prefix + "pages_per_s", len(level.seconds) / level.wall_s, "pages/s", digits=2)
    add(prefix + "speedup", speedup, "x vs first level", digits=2)
    add(prefix + "p50_ms", percentile(level.seconds, 0.5) * 1000, "ms", digits=1)
    add(prefix + "p95_ms", percentile(level.seconds, 0.95) * 1000, "ms", digits=1)
    add(prefix + "fetch_p50_ms", percentile(level.fetch_seconds, 0.5) * 1000, "ms", digits=2)
    pages = max(len(level.seconds), 1)
    add(prefix + "cpu_ms_per_page", level.cpu_s / pages * 1000, "ms CPU/page", digits=1)
    if not mode:
        per_page = level.worker_cpu_s / pages * 1000
        add(prefix + "worker_cpu_ms_per_page", per_page, "ms CPU/page", digits=1)
    per_page = level.server_cpu_s / pages * 1000
    add(prefix + "server_cpu_ms_per_page", per_page, "ms CPU/page", digits=1)
    total = (level.cpu_s + level.worker_cpu_s + level.server_cpu_s) / pages * 1000
    add(prefix + "total_cpu_ms_per_page", total, "ms CPU/page", digits=1)
    add(prefix + "peak_rss_mb", peak.peak_mb, "MiB", digits=1)
    add(prefix + "rss_growth_mb", peak.growth_mb, "MiB", digits=1)
    add(prefix + "mean_f1", mean(f1), "F1")
    add(prefix + "failed", level.failed, "pages", digits=0)


def _add_workers(result: BenchResult, pids: list[int]) -> None:
    """The largest worker's memory figures, and how many workers were measured."""
    memory = [_memory_mb(pid) for pid in pids]
    result.add("workers_measured", len(memory), "processes", digits=0)
    for key in ("rss", "peak", "pss", "uss"):
        value = max((figures.get(key, 0.0) for figures in memory), default=0.0)
        result.add(f"worker_{key}_mb", value, "MiB", digits=1)


def _memory_mb(pid: int) -> dict[str, float]:
    """VmRSS, VmHWM, Pss and Private_Clean + Private_Dirty of ``pid`` in MiB (Linux)."""
    figures: dict[str, float] = {}
    try:
        status = Path(f"/proc/{pid}/status").read_text(encoding="ascii")
        rollup = Path(f"/proc/{pid}/smaps_rollup").read_text(encoding="ascii")
    except OSError:
        return figures
    kib = {
        name.rstrip(":"): int(value)
        for line in (status + rollup).splitlines()
        if len(parts := line.split()) == 3 and parts[2] == "kB"
        for name, value in [parts[:2]]
    }
    figures["rss"] = kib.get("VmRSS", 0) / 1024
    figures["peak"] = kib.get("VmHWM", 0) / 1024
    figures["pss"] = kib.get("Pss", 0) / 1024
    figures["uss"] = (kib.get("Private_Clean", 0) + kib.get("Private_Dirty", 0)) / 1024
    return figures


def _server_pids() -> list[int]:
    """The offline web's process: the child of this one that runs deepresearch.testing.web."""
    found = []
    for children in Path("/proc/self/task").glob("*/children"):
        for pid in children.read_text(encoding="ascii").split():
            try:
                command = Path(f"/proc/{pid}/cmdline").read_bytes()
            except OSError:
                continue
            if b"deepresearch.testing.web" in command:
                found.append(int(pid))
    return found


def _cpu_s(pids: list[int]) -> float:
    """User + system CPU seconds of ``pids`` so far (0 for a process that is gone)."""
    ticks = os.sysconf("SC_CLK_TCK")
    total = 0
    for pid in pids:
        try:
            stat = Path(f"/proc/{pid}/stat").read_text(encoding="ascii")
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()  # the name in parentheses may hold spaces
        total += int(fields[11]) + int(fields[12])  # utime, stime (fields 14 and 15)
    return total / ticks


def _baseline(result: BenchResult, pages: dict[str, bytes], gold: dict[str, str]) -> None:
    seconds: list[float] = []
    f1: list[float] = []
    cpu = time.process_time()
    for page_id, html in pages.items():
        started = time.perf_counter()
        text = trafilatura.extract(html) or ""
        seconds.append(time.perf_counter() - started)
        f1.append(token_scores(text, gold[page_id]).f1)
    cpu_s = time.process_time() - cpu  # scoring included: a few ms over all pages
    total = sum(seconds)
    result.add("trafilatura.pages_per_s", len(pages) / total if total else 0.0, "pages/s", digits=2)
    result.add("trafilatura.p50_ms", percentile(seconds, 0.5) * 1000, "ms", digits=1)
    result.add("trafilatura.p95_ms", percentile(seconds, 0.95) * 1000, "ms", digits=1)
    per_page = cpu_s / max(len(pages), 1) * 1000
    result.add("trafilatura.cpu_ms_per_page", per_page, "ms CPU/page", digits=1)
    result.add("trafilatura.mean_f1", mean(f1), "F1")
