"""extraction: speed and quality of ``deepresearch.fetch.extract.extract`` on real pages.

The 181 ScrapingHub article-extraction-benchmark pages (real news and blog HTML) are
decompressed up front and handed to ``extract`` as ``FetchedPage`` objects, the way the
fetcher hands them over (``text/html`` without a charset, so the page's own ``<meta>``
decides the encoding). Only the ``extract`` calls are timed. Quality is the token-level
F1 (lowercased ``\\w+`` tokens, multiset overlap) against the hand-made ``articleBody``.
"""

from __future__ import annotations

import gzip
import json
import re
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from bench.common import BenchResult, Options, mean, percentile, require
from deepresearch.fetch.base import FetchedPage
from deepresearch.fetch.extract import extract

SCRAPINGHUB_DIR = Path("extraction/scrapinghub")
#: large enough never to cut an article, so F1 compares whole texts
MAX_CHARS = 1_000_000

_TOKEN = re.compile(r"\w+")


@dataclass(frozen=True)
class Scores:
    """Token-level precision, recall and F1 of one extraction."""

    precision: float
    recall: float
    f1: float


def token_scores(predicted: str, gold: str) -> Scores:
    """Multiset token overlap of ``predicted`` against ``gold``."""
    pred = Counter(_TOKEN.findall(predicted.lower()))
    true = Counter(_TOKEN.findall(gold.lower()))
    overlap = sum((pred & true).values())
    if not overlap:
        return Scores(0.0, 0.0, 0.0)
    precision = overlap / sum(pred.values())
    recall = overlap / sum(true.values())
    return Scores(precision, recall, 2 * precision * recall / (precision + recall))


def _truth(data_dir: Path) -> dict[str, dict[str, str]]:
    folder = require(data_dir / SCRAPINGHUB_DIR)
    truth: dict[str, dict[str, str]] = json.loads(
        (folder / "ground-truth.json").read_text(encoding="utf-8")
    )
    return truth


def page_ids(data_dir: Path, limit: int | None = None) -> list[str]:
    """The page ids, sorted, the first ``limit``: the pages ``load_pages`` returns."""
    ids = sorted(_truth(data_dir))
    return ids[:limit] if limit is not None else ids


def load_pages(data_dir: Path, limit: int | None = None) -> list[tuple[FetchedPage, str]]:
    """``(page, gold article text)`` pairs, sorted by page id, the first ``limit``."""
    folder = require(data_dir / SCRAPINGHUB_DIR)
    truth = _truth(data_dir)
    ids = sorted(truth)[:limit] if limit is not None else sorted(truth)
    pages = []
    for page_id in ids:
        html = gzip.decompress((folder / "html" / f"{page_id}.html.gz").read_bytes())
        url = truth[page_id].get("url") or f"https://example.invalid/{page_id}"
        page = FetchedPage(
            url=url, final_url=url, status=200, content_type="text/html", content=html
        )
        pages.append((page, truth[page_id].get("articleBody", "")))
    return pages


def run(options: Options) -> BenchResult:
    """Extract every page once, timing each call; score against the gold text."""
    pages = load_pages(options.data_dir, options.pages)
    seconds: list[float] = []
    scores: list[Scores] = []
    for page, gold in pages:
        started = time.perf_counter()
        doc = extract(page, max_chars=MAX_CHARS)
        seconds.append(time.perf_counter() - started)
        scores.append(token_scores(doc.text, gold))
    total_s = sum(seconds)
    total_mb = sum(len(page.content) for page, _ in pages) / 1_000_000
    result = BenchResult(
        params={
            "pages": len(pages),
            "html_mb": round(total_mb, 2),
            "max_chars": MAX_CHARS,
            "dataset": "scrapinghub/article-extraction-benchmark",
        },
        notes=(
            "Single process, one page at a time; only extract() is timed (HTML already "
            "decompressed in memory). MB = 10^6 bytes of HTML. F1/precision/recall: token "
            "multiset overlap with the gold articleBody, averaged over pages. The run "
            "extracts uncapped (max_chars=1e6); runs cap the stored text at max_text_chars "
            "(8000 by default) after extraction, which costs nothing measurable."
        ),
    )
    result.add("pages_per_s", len(pages) / total_s, "pages/s", digits=2)
    result.add("mb_per_s", total_mb / total_s, "MB/s", digits=3)
    result.add("p50_ms", percentile(seconds, 0.5) * 1000, "ms", digits=1)
    result.add("p95_ms", percentile(seconds, 0.95) * 1000, "ms", digits=1)
    result.add("max_ms", max(seconds) * 1000, "ms", digits=1)
    result.add("mean_f1", mean([s.f1 for s in scores]), "F1")
    result.add("mean_precision", mean([s.precision for s in scores]), "precision")
    result.add("mean_recall", mean([s.recall for s in scores]), "recall")
    result.add("pages_f1_below_0.8", sum(s.f1 < 0.8 for s in scores), "pages", digits=0)
    return result
