"""Ranking a sub-question's candidates before anything is fetched (seeds 001 and 003).

Every candidate gets the signal score (domain authority, recency, retrieval relevance,
credibility tier); with a judge model, the best candidates are also scored by the model on
relevance, quality and usefulness, in parallel (bounded), with the neutral score when a
call fails. Both schemes, the extractability and query-relevance multipliers, the adaptive
threshold and the decision with its reason come from the pure cores; this module only
gathers the model's judgments. A result whose title or snippet tries to instruct a model
never reaches the judge and is dropped (``core.injection``)."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from datetime import UTC, datetime

from pydantic import BaseModel, Field

from deepresearch.context import RunContext
from deepresearch.core.injection import Finding, scan
from deepresearch.core.ranking import rank_and_select
from deepresearch.core.scoring import ModelDims
from deepresearch.core.text import clip
from deepresearch.core.threshold import Selection
from deepresearch.core.untrusted import DATA_RULE, data_block
from deepresearch.core.waves import drop_flagged
from deepresearch.models import SearchHit, SubQuestion

STAGE = "rank"
MODEL_SCORING_CONCURRENCY = 8
SCORING_TIMEOUT_S = 30.0  # seed 001: LLM scoring times out at 30 s, then the neutral score
MODEL_SCORED_PER_READ = 2  # the model scores twice as many candidates as will be read

SYSTEM = f"""You rate a search result for a research sub-question. {DATA_RULE}
Give three numbers from 0 to 1: relevance (does it directly answer the sub-question?),
quality (is the source credible and well written?), usefulness (does it give specific,
citable facts?). Judge only from the title, address and snippet."""


class Rating(BaseModel):
    relevance: float = Field(ge=0.0, le=1.0)
    quality: float = Field(ge=0.0, le=1.0)
    usefulness: float = Field(ge=0.0, le=1.0)


async def rank_candidates(
    ctx: RunContext, hits: Sequence[SearchHit], sub_question: SubQuestion, *, limit: int
) -> Selection:
    now = datetime.now(UTC)
    hostile = {hit.url: bad for hit in hits if (bad := scan(f"{hit.title}\n{hit.snippet}"))}
    if hostile:
        for url, bad in hostile.items():
            ctx.bus.emit(
                "warning",
                stage=STAGE,
                message=f"Dropped a search result: its snippet tries to instruct the model "
                f"({bad[0].describe()})",
                url=url,
                phrase=bad[0].excerpt[:80],
                code="injection",
            )
        clean = [hit for hit in hits if hit.url not in hostile]
        selection = await rank_candidates(ctx, clean, sub_question, limit=limit)
        return _with_dropped(
            selection, [hit for hit in hits if hit.url in hostile], hostile, sub_question, ctx, now
        )
    ratings: dict[str, ModelDims | None] = {}
    if ctx.gateway.has_model("judge") and hits:
        first = rank_and_select(hits, sub_question.text, ctx.domain_rules, now=now, limit=None)
        rated = min(limit * MODEL_SCORED_PER_READ, MODEL_SCORING_CONCURRENCY)  # one round of calls
        best = sorted(first.decisions, key=lambda s: -s.final)[:rated]
        by_url = {hit.url: hit for hit in hits}
        semaphore = asyncio.Semaphore(MODEL_SCORING_CONCURRENCY)

        async def rate(hit: SearchHit) -> ModelDims | None:
            async with semaphore:
                rating = await ctx.gateway.structured(
                    "judge",
                    Rating,
                    system=SYSTEM,
                    user=_prompt(hit, sub_question),
                    stage=STAGE,
                    timeout_s=min(SCORING_TIMEOUT_S, ctx.settings.model_timeout_s),
                )
            return (
                ModelDims(rating.relevance, rating.quality, rating.usefulness) if rating else None
            )

        found = await asyncio.gather(*(rate(by_url[s.url]) for s in best))
        ratings = {s.url: dims for s, dims in zip(best, found, strict=True)}
    return rank_and_select(
        hits,
        sub_question.text,
        ctx.domain_rules,
        now=now,
        limit=limit,
        ratings=ratings,
        threshold=ctx.settings.apply_threshold,
    )


def _with_dropped(
    selection: Selection,
    flagged: list[SearchHit],
    findings: dict[str, list[Finding]],
    sub_question: SubQuestion,
    ctx: RunContext,
    now: datetime,
) -> Selection:
    """``selection`` plus the flagged hits, scored for the record and dropped."""
    scored = rank_and_select(flagged, sub_question.text, ctx.domain_rules, now=now, limit=None)
    dropped = drop_flagged(scored.decisions, findings)
    return selection.model_copy(update={"decisions": [*selection.decisions, *dropped]})


def _prompt(hit: SearchHit, sub_question: SubQuestion) -> str:
    body = f"Title: {clip(hit.title, 200)}\nAddress: {hit.url}\nSnippet: {clip(hit.snippet, 400)}"
    return f"Sub-question: {sub_question.text}\n\n" + data_block("source", body)
