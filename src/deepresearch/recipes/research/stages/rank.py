"""Ranking a sub-question's candidates before anything is fetched (seeds 001 and 003).

Every candidate gets the signal score (domain authority, recency, retrieval relevance,
credibility tier). With a judge model, one call rates the best candidates together on
relevance, quality and usefulness. When that call fails, or its ratings carry no signal
(``core.ranking.judge_problem``: unparsable, some candidates missing, out of range, all
the neutral 0.5, all the same), the sub-question is ranked exactly as without a model, a
warning says so, and every candidate's reason names why. Both schemes, the
extractability and query-relevance multipliers, the adaptive threshold and the decision
with its reason come from the pure cores; this module only gathers the judge's ratings.
A result whose title or snippet tries to instruct a model never reaches the judge and is
dropped (``injection``)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from pydantic import BaseModel, Field

from deepresearch.context import RunContext
from deepresearch.core.ranking import judge_problem, rank_and_select
from deepresearch.core.scoring import ModelDims
from deepresearch.core.text import clip
from deepresearch.core.threshold import Selection
from deepresearch.core.waves import drop_flagged
from deepresearch.injection import Finding, scan
from deepresearch.injection.untrusted import DATA_RULE, data_block
from deepresearch.models import SearchHit, SubQuestion
from deepresearch.models.event_payloads import InjectionWarning, JudgeUnusableWarning

STAGE = "rank"
SCORING_TIMEOUT_S = 30.0  # seed 001: LLM scoring times out at 30 s, then the fallback
MODEL_SCORED_PER_READ = 2  # the judge rates twice as many candidates as will be read
MAX_RATED = 12  # per call: the prompt stays small enough for a small local model

SYSTEM = f"""You rate search results for a research sub-question. {DATA_RULE}
The results are numbered <source> blocks. Give every result three numbers from 0 to 1:
relevance (does it directly answer the sub-question?), quality (is the source credible
and well written?), usefulness (does it give specific, citable facts?). Judge only from
the title, address and snippet. Rate each result once, by its id; tell them apart."""


class Rating(BaseModel):
    id: int = Field(description="the result's id")
    relevance: float = Field(ge=0.0, le=1.0)
    quality: float = Field(ge=0.0, le=1.0)
    usefulness: float = Field(ge=0.0, le=1.0)


class Ratings(BaseModel):
    ratings: list[Rating]


async def rank_candidates(
    ctx: RunContext, hits: Sequence[SearchHit], sub_question: SubQuestion, *, limit: int
) -> Selection:
    # recency is scored in whole days: units ranking at once (and their replay, which may
    # rank in another order) score the same page alike
    now = ctx.clock().replace(hour=0, minute=0, second=0, microsecond=0)
    hostile = {hit.url: bad for hit in hits if (bad := scan(f"{hit.title}\n{hit.snippet}"))}
    if hostile:
        for url, bad in hostile.items():
            ctx.bus.emit(
                InjectionWarning(code="injection", url=url, phrase=bad[0].excerpt[:80]),
                stage=STAGE,
                message=f"Dropped a search result: its snippet tries to instruct the model "
                f"({bad[0].describe()})",
            )
        clean = [hit for hit in hits if hit.url not in hostile]
        selection = await rank_candidates(ctx, clean, sub_question, limit=limit)
        return _with_dropped(
            selection, [hit for hit in hits if hit.url in hostile], hostile, sub_question, ctx, now
        )
    ratings: dict[str, ModelDims] = {}
    problem: str | None = None
    if ctx.gateway.has_model("judge") and hits:
        first = rank_and_select(hits, sub_question.text, ctx.domain_rules, now=now, limit=None)
        best = sorted(first.decisions, key=lambda s: -s.final)[
            : min(limit * MODEL_SCORED_PER_READ, MAX_RATED)
        ]
        by_url = {hit.url: hit for hit in hits}
        ratings, problem = await _judge(ctx, [by_url[s.url] for s in best], sub_question)
        if problem is not None:
            ctx.bus.emit(
                JudgeUnusableWarning(
                    code="judge_unusable", sub_question=sub_question.id, reason=problem
                ),
                stage=STAGE,
                message=f"{sub_question.id}: ranked without the judge model: {problem}",
            )
    return rank_and_select(
        hits,
        sub_question.text,
        ctx.domain_rules,
        now=now,
        limit=limit,
        ratings=ratings,
        threshold=ctx.policy.apply_threshold,
        unjudged=problem,
    )


async def _judge(
    ctx: RunContext, candidates: list[SearchHit], sub_question: SubQuestion
) -> tuple[dict[str, ModelDims], str | None]:
    """One call rating every candidate: their ratings by url, or none and why not."""
    reply, why = await ctx.gateway.structured_with_reason(
        "judge",
        Ratings,
        system=SYSTEM,
        user=_prompt(candidates, sub_question),
        stage=STAGE,
        timeout_s=min(SCORING_TIMEOUT_S, ctx.models.model_timeout_s),
    )
    if reply is None:
        return {}, why
    numbered = {number: hit.url for number, hit in enumerate(candidates, 1)}
    ratings: dict[str, ModelDims] = {}
    for rating in reply.ratings:
        url = numbered.get(rating.id)
        if url is not None and url not in ratings:
            ratings[url] = ModelDims(rating.relevance, rating.quality, rating.usefulness)
    problem = judge_problem(ratings, list(numbered.values()))
    return ({}, problem) if problem is not None else (ratings, None)


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


def _prompt(candidates: Sequence[SearchHit], sub_question: SubQuestion) -> str:
    blocks = [
        data_block(
            "source",
            f"Title: {clip(hit.title, 160)}\nAddress: {clip(hit.url, 160)}\n"
            f"Snippet: {clip(hit.snippet, 300)}",
            id=str(number),
        )
        for number, hit in enumerate(candidates, 1)
    ]
    return (
        f"Sub-question: {sub_question.text}\n\n"
        + "\n".join(blocks)
        + f"\n\nRate all {len(candidates)} results, ids 1 to {len(candidates)}."
    )
