"""ranking: does ranking choose better sources to read than raw search order?

For each HotpotQA question (all 100 by default, ``--ranking-questions``), the deterministic queries a run would
send without a model go through the real SearXNG adapter to the offline web (HotpotQA's
994 gold and distractor paragraphs as pages, on loopback), the results are preprocessed
as a run does, and the sources a sub-question would read (``sources_per_question`` at the
standard depth) are chosen twice: by the pipeline's ranking (``core.ranking.rank_and_select``,
the code the research stage runs) and by raw search order. Figure: recall of the gold
supporting paragraphs among the chosen sources, for both, and their ratio. No model."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from datetime import UTC, datetime

import httpx

from bench.common import BenchResult, Options, mean, require
from deepresearch.core.planning import fallback_queries
from deepresearch.core.preprocess import preprocess
from deepresearch.core.ranking import rank_and_select
from deepresearch.core.tiers import with_local_hosts
from deepresearch.domain_rules import load_domain_rules
from deepresearch.models import SearchHit
from deepresearch.search.searxng import SearxngSearch
from deepresearch.settings_values import DEPTHS
from deepresearch.testing.corpora import HotpotQuestion, hotpotqa_documents, hotpotqa_questions
from deepresearch.testing.web import OfflineWeb


def _recall(chosen: list[SearchHit], question: HotpotQuestion) -> float:
    gold = set(question.supporting_titles)
    return len(gold & {hit.title for hit in chosen}) / len(gold) if gold else 0.0


@dataclass
class Measured:
    """Per question: recall of each choice, and how many sources the threshold kept."""

    ranked: list[float] = field(default_factory=list)
    raw: list[float] = field(default_factory=list)
    thresholded: list[float] = field(default_factory=list)
    thresholded_read: list[int] = field(default_factory=list)
    candidates: int = 0


async def _measure(web: OfflineWeb, questions: list[HotpotQuestion]) -> Measured:
    preset = DEPTHS["standard"]
    limit = preset.sources_per_question
    out = Measured()
    rules = with_local_hosts(load_domain_rules(), [web.base_url.removeprefix("http://")])
    now = datetime.now(UTC)
    async with httpx.AsyncClient() as client:
        search = SearxngSearch(client, base_url=web.base_url)
        for question in questions:
            queries = fallback_queries(
                question.question, count=preset.queries_per_question, operators=True
            )
            batches = await asyncio.gather(
                *(search.search(q, limit=preset.results_per_query) for q in queries)
            )
            kept = preprocess([hit for batch in batches for hit in batch], limit=10_000).hits
            by_url = {hit.url: hit for hit in kept}
            out.candidates += len(kept)
            raw = sorted(kept, key=lambda hit: hit.rank)[:limit]
            as_run = rank_and_select(kept, question.question, rules, now=now, limit=limit)
            always = rank_and_select(
                kept, question.question, rules, now=now, limit=limit, threshold="always"
            )
            out.raw.append(_recall(raw, question))
            out.ranked.append(_recall([by_url[s.url] for s in as_run.read], question))
            out.thresholded.append(_recall([by_url[s.url] for s in always.read], question))
            out.thresholded_read.append(len(always.read))
    return out


def run(options: Options) -> BenchResult:
    data = require(options.data_dir / "qa" / "hotpotqa")
    questions = hotpotqa_questions(data.parent.parent)[: options.ranking_questions]
    with OfflineWeb(hotpotqa_documents(data.parent.parent)) as web:
        measured = asyncio.run(_measure(web, questions))
    preset = DEPTHS["standard"]
    result = BenchResult(
        params={
            "questions": len(questions),
            "queries_per_question": preset.queries_per_question,
            "results_per_query": preset.results_per_query,
            "sources_read": preset.sources_per_question,
            "model": "none",
        },
        notes=(
            "Recall of HotpotQA gold supporting paragraphs (by title) among the sources chosen "
            "for reading. 'ranked' = core.ranking.rank_and_select as a run without a model uses "
            "it (signal score and multipliers; the adaptive threshold is reported, not applied: "
            "apply_threshold=auto); 'threshold_always' = the same with the threshold applied (at "
            "least 2 read); 'raw' = the provider's order (best rank first, across the "
            "deterministic queries). Real SearXNG adapter and preprocessing over a loopback "
            "offline web of HotpotQA paragraphs; no model."
        ),
    )
    gold = mean([len(q.supporting_titles) for q in questions])
    read = mean(measured.thresholded_read)
    result.add("ranked_recall", mean(measured.ranked), "fraction")
    result.add("raw_recall", mean(measured.raw), "fraction")
    ratio = mean(measured.ranked) / mean(measured.raw) if mean(measured.raw) else 0.0
    result.add("ratio", ratio, "x", digits=3)
    result.add("candidates_per_question", measured.candidates / len(questions), "sources", digits=1)
    result.add("threshold_always_recall", mean(measured.thresholded), "fraction")
    result.add("threshold_always_sources_read", read, "sources", digits=2)
    result.add(
        "threshold_always_gold_per_source_read",
        mean(measured.thresholded) * gold / read if read else 0.0,
        "gold/source",
    )
    result.add(
        "raw_gold_per_source_read",
        mean(measured.raw) * gold / preset.sources_per_question,
        "gold/source",
    )
    return result
