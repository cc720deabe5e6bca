"""One research unit: a sub-question's queries -> search -> preprocess -> rank -> read ->
passages -> summaries and verified evidence. Runs in parallel with the wave's other units."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from dataclasses import dataclass

from deepresearch.context import RunContext
from deepresearch.core.answers import about, anchors, names_any, own_pages
from deepresearch.core.fusion import provider_counts
from deepresearch.core.library_reuse import with_reused
from deepresearch.core.mentions import mention_key
from deepresearch.core.passages import answer_scores, choose_evidence, make_passages
from deepresearch.core.preprocess import preprocess
from deepresearch.core.questions import QuestionProfile, analyze_question
from deepresearch.core.ranking import read_own_pages
from deepresearch.core.table_rows import in_context
from deepresearch.core.waves import UnitReads, UnitResult, screen_reads, with_unit
from deepresearch.errors import ProviderError
from deepresearch.models import Evidence, Passage, SearchHit, Source, SubQuestion
from deepresearch.models.event_payloads import (
    ChosenSource,
    SearchCompleted,
    SearchFailedWarning,
    SourcesRanked,
    SourceSummarized,
)
from deepresearch.models.scores import SourceScores
from deepresearch.reading import SourceReader
from deepresearch.recipes.research.stages.compress import CANDIDATES_PER_SOURCE, digest_source
from deepresearch.recipes.research.stages.rank import rank_candidates

STAGE = "research"
EVIDENCE_PER_SOURCE = 3
LEAD_SOURCES = 2  # sources a lead's unit reads: the lead's page and one in case it is not first
RELEVANT_RATIO = 0.3  # of the best answer-aware score: the no-model evidence floor


async def run_unit(
    ctx: RunContext,
    reader: SourceReader,
    sub_question: SubQuestion,
    question: str,
    *,
    seen_urls: set[str],
    wave: int = 1,
    shelved: Mapping[str, list[Evidence]] | None = None,
) -> UnitResult:
    """Research one sub-question in wave ``wave``. Its events carry the sub-question and
    the wave, which name this unit within the run; the wave reports it finished.
    ``shelved``: the quotes the library stage reused, by source id: a chosen page with
    some for this sub-question gives those first, and what else its stored text holds."""
    result = UnitResult(sub_question=sub_question)
    kept = await _search(ctx, reader, sub_question, result, wave=wave)
    profile = analyze_question(question)
    fresh, limit = _unread(
        [hit for hit in kept if hit.url not in seen_urls],
        sub_question,
        profile,
        limit=ctx.limits.sources_per_question,
    )
    chosen = await _choose(ctx, fresh, sub_question, profile, limit=limit, wave=wave)
    readings = await asyncio.gather(*(reader.read(hit) for hit, _ in chosen.read))
    # a page that tries to instruct the model is dropped: never summarized, quoted or cited
    reads = screen_reads(chosen.decisions, [scores for _, scores in chosen.read], readings)
    result.flagged = reads.flagged
    result.considered = reads.decisions
    result.passing = reads.passing
    await _gather_evidence(ctx, result, reads, question, profile, shelved or {})
    return result


async def _search(
    ctx: RunContext,
    reader: SourceReader,
    sub_question: SubQuestion,
    result: UnitResult,
    *,
    wave: int,
) -> list[SearchHit]:
    """The unit's queries searched and the results preprocessed (deduplicated, invalid
    ones dropped), announced."""
    hits = await _search_all(ctx, reader, sub_question, result)
    kept = preprocess(hits, limit=max(len(hits), 1))
    ctx.bus.emit(
        SearchCompleted(
            sub_question=sub_question.id,
            wave=wave,
            queries=list(sub_question.queries),
            received=kept.received,
            duplicates=kept.duplicates,
            invalid=kept.invalid,
            kept=kept.kept,
            providers=dict(provider_counts(kept.hits)),
        ),
        stage=STAGE,
        message=f"{sub_question.id}: {kept.kept} results from {len(sub_question.queries)} queries",
    )
    return kept.hits


def _unread(
    fresh: list[SearchHit], sub_question: SubQuestion, profile: QuestionProfile, *, limit: int
) -> tuple[list[SearchHit], int]:
    """The results no earlier unit read that this unit may read, and how many it reads."""
    if sub_question.lead:  # a lead's unit looks for the lead's own page, a search's top hits
        # and reads only results that name the lead: the others are about something else
        # (a lead with no page of its own finds words of its query: "Tattoo" for "impact")
        key = mention_key(sub_question.lead)
        naming = [hit for hit in fresh if names_any(f"{hit.title} {hit.snippet}", [key])]
        return naming, min(limit, LEAD_SOURCES)
    if sub_question.widened:
        # reading further down the results: only those that name what the question is about
        keys = anchors(profile)
        return [hit for hit in fresh if about(hit.snippet, hit.title, keys)], limit
    return fresh, limit


@dataclass(frozen=True)
class _Chosen:
    """Every candidate's decision, and the results chosen to read with their scores."""

    decisions: list[SourceScores]
    read: list[tuple[SearchHit, SourceScores]]


async def _choose(
    ctx: RunContext,
    fresh: list[SearchHit],
    sub_question: SubQuestion,
    profile: QuestionProfile,
    *,
    limit: int,
    wave: int,
) -> _Chosen:
    """The results ranked and the best ``limit`` chosen (and the pages of the things the
    unit names, whatever ranks), announced."""
    selection = await rank_candidates(ctx, fresh, sub_question, limit=limit)
    if not sub_question.lead:  # the pages of the things it names are read, whatever ranks
        asked = " ".join([sub_question.text, *sub_question.queries])
        selection = read_own_pages(selection, names_any(asked, anchors(profile)))
    by_url = {hit.url: hit for hit in fresh}
    chosen = [(by_url[scores.url], scores) for scores in selection.read]
    ctx.bus.emit(
        SourcesRanked(
            sub_question=sub_question.id,
            wave=wave,
            threshold=selection.threshold,
            candidates=list(selection.decisions),
            chosen=[
                ChosenSource(url=hit.url, title=hit.title, score=scores.final)
                for hit, scores in chosen
            ],
            dropped=len(selection.dropped),
        ),
        stage=STAGE,
        message=f"{sub_question.id}: reading {len(chosen)} of {len(fresh)} sources (threshold {selection.threshold:.2f})",
    )
    return _Chosen(decisions=list(selection.decisions), read=chosen)


async def _gather_evidence(
    ctx: RunContext,
    result: UnitResult,
    reads: UnitReads,
    question: str,
    profile: QuestionProfile,
    shelved: Mapping[str, list[Evidence]],
) -> None:
    """The usable pages summarized and quoted (a page the library gave: its reused quotes
    for this sub-question first, read from its stored text, never fetched); the unit's
    sources and its best evidence set on ``result``."""
    sub_question = result.sub_question
    readable = [s for s in reads.usable if s.fetched and s.text]
    candidates, relevant = _candidates(readable, sub_question, profile)
    reused = {
        sid: [item for item in items if item.sub_question_id == sub_question.id]
        for sid, items in shelved.items()
    }

    async def digest(source: Source) -> tuple[str | None, list[Evidence]]:
        found = candidates.get(source.id, [])
        summary, evidence = await _digest(ctx, source, sub_question, question, found, relevant)
        return summary, with_reused(reused.get(source.id, []), evidence)

    digests = await asyncio.gather(*(digest(source) for source in reads.usable))
    summaries = {s.id: summary for s, (summary, _) in zip(reads.usable, digests, strict=True)}
    result.sources = [with_unit(s, sub_question.id, summaries.get(s.id)) for s in reads.sources]
    # the unit's budget goes to its best evidence, whichever source it came from
    found = [item for _, evidence in digests for item in evidence]
    titles = {source.id: source.title for source in reads.sources}
    # a lead's unit covers its lead; another covers each thing the question names whose
    # own page it read, so another page that only names it does not stand in for it
    own = own_pages(anchors(profile), [s.title for s in readable]) if not sub_question.lead else []
    must_cover = [*profile.options, *([sub_question.lead] if sub_question.lead else own)]
    budget = ctx.limits.evidence_per_question
    result.evidence = choose_evidence(profile, found, titles, must_cover, budget)


def _candidates(
    readable: list[Source], sub_question: SubQuestion, profile: QuestionProfile
) -> tuple[dict[str, list[Passage]], set[str]]:
    """Each source's best passages for the sub-question and the ids of those relevant
    enough to quote without a model. Scores compare across sources, so the best evidence
    of the unit can be chosen: answer-aware (``core.passages.answer_scores``: relevance,
    raised for a value of the asked kind and for naming what the question or the unit's
    lead is about)."""
    groups = {s.id: make_passages(s.id, s.text) for s in readable}
    # a table's row is scored under its header, which says what its numbers are
    read = [
        [p.model_copy(update={"text": in_context(s.text, p.start, p.text)}) for p in groups[s.id]]
        for s in readable
    ]
    scores = answer_scores(
        read,
        sub_question.text,
        profile,
        titles=[source.title for source in readable],
        focus=[sub_question.lead] if sub_question.lead else [],
        ratio=RELEVANT_RATIO,
    )
    relevant = {pid for pid, (_, ok) in scores.items() if ok}
    candidates = {
        sid: sorted(
            (
                p.model_copy(update={"score": scores[p.id][0]})
                for p in passages
                # a lead's unit reads the lead's page for what the question asks of it:
                # the summarizer too sees only those passages
                if not sub_question.lead or p.id in relevant
            ),
            key=lambda p: -p.score,
        )[:CANDIDATES_PER_SOURCE]
        for sid, passages in groups.items()
    }
    return candidates, relevant


async def _search_all(
    ctx: RunContext, reader: SourceReader, sub_question: SubQuestion, result: UnitResult
) -> list[SearchHit]:
    limit = ctx.limits.results_per_query

    async def one(query: str) -> list[SearchHit]:
        try:
            return await ctx.search.search(query, limit=limit)
        except ProviderError as exc:
            result.errors.append(exc)
            result.warnings.append(f"search failed for {query!r}: {exc.message}")
            ctx.bus.emit(
                SearchFailedWarning(code="search_failed", query=query),
                stage=STAGE,
                message=f"Search failed: {exc.message}",
            )
            return []

    batches = await asyncio.gather(*(one(query) for query in sub_question.queries))
    result.searched = len(sub_question.queries)
    hits = [hit for batch in batches for hit in batch]
    result.hits = len(hits)
    reader.provenance.add_hits(hits)  # the only URLs this unit may fetch
    return hits


async def _digest(
    ctx: RunContext,
    source: Source,
    sub_question: SubQuestion,
    question: str,
    candidates: list[Passage],
    relevant: set[str],
) -> tuple[str | None, list[Evidence]]:
    if not source.fetched or not source.text:
        return None, []
    async with ctx.summarizer_semaphore:
        summary, evidence = await digest_source(
            ctx,
            source,
            sub_question,
            question,
            candidates=candidates,
            fallback_ids=relevant,
            max_evidence=EVIDENCE_PER_SOURCE,
        )
    if summary:
        ctx.bus.emit(
            SourceSummarized(url=source.url, sub_question=sub_question.id, evidence=len(evidence)),
            stage=STAGE,
            message=f"Summarized {source.domain}",
        )
    return summary, evidence
