"""The research wave: every pending sub-question runs as a research unit, in parallel up
to ``max_concurrent_units``, within the run's cap on units. Results merge into state."""

from __future__ import annotations

import asyncio

from langgraph.runtime import Runtime

from deepresearch.context import RunContext
from deepresearch.core.injection import flag_reason
from deepresearch.core.provenance import Provenance
from deepresearch.errors import ConfigError, ProviderAuthError
from deepresearch.models import Evidence, Source, SubQuestion
from deepresearch.stages.reading import SourceReader
from deepresearch.stages.unit import UnitResult, run_unit
from deepresearch.state import RunState

STAGE = "research"


async def research(state: RunState, runtime: Runtime[RunContext]) -> RunState:
    ctx = runtime.context
    settings = ctx.settings
    wave = state.get("wave", 0) + 1
    units_used = state.get("units_used", 0)
    budget = max(settings.limit("max_units_total") - units_used, 0)
    sub_questions = list(state["sub_questions"])
    pending = [sq for sq in sub_questions if sq.status == "pending"][:budget]
    ctx.bus.emit(
        "wave_started",
        stage=STAGE,
        message=f"Wave {wave}: researching {len(pending)} sub-question(s)",
        wave=wave,
        max_waves=settings.limit("max_waves"),
        units=[{"id": sq.id, "text": sq.text} for sq in pending],
    )
    sources: dict[str, Source] = dict(state.get("sources", {}))
    reader = SourceReader(ctx, sources, Provenance.for_run(state["question"]))
    seen_urls = {source.url for source in sources.values()}
    limit = asyncio.Semaphore(settings.limit("max_concurrent_units"))

    finished = 0

    async def bounded(sq: SubQuestion) -> UnitResult:
        nonlocal finished
        async with limit:
            result = await run_unit(
                ctx, reader, sq, state["question"], seen_urls=seen_urls, wave=wave
            )
        finished += 1  # how far the wave is: the job's progress moves with it
        ctx.bus.emit(
            "evidence_added",
            stage=STAGE,
            message=f"{sq.id}: {len(result.evidence)} verified quotes",
            sub_question=sq.id,
            wave=wave,
            count=len(result.evidence),
            sources=len(result.sources),
            done=finished,
            units=len(pending),
            max_waves=settings.limit("max_waves"),
        )
        return result

    results = await asyncio.gather(*(bounded(sq) for sq in pending))
    _raise_if_search_is_broken(results, first_wave=wave == 1)

    evidence: list[Evidence] = list(state.get("evidence", []))
    known_ids = {item.id for item in evidence}
    warnings = list(state.get("warnings", []))
    considered = dict(state.get("considered", {}))
    done: dict[str, SubQuestion] = {}
    for result in results:
        for source in result.sources:
            previous = sources.get(source.id)
            if previous is not None:
                source = source.model_copy(
                    update={
                        "sub_question_ids": sorted(
                            {*previous.sub_question_ids, *source.sub_question_ids}
                        ),
                        "summary": previous.summary or source.summary,
                    }
                )
            sources[source.id] = source
        for item in result.evidence:
            if item.id not in known_ids:
                known_ids.add(item.id)
                evidence.append(item)
        warnings.extend(result.warnings)
        for scores in result.considered:
            known = considered.get(scores.url)
            if known is None or known.decision != "read":  # a read decision is never undone
                considered[scores.url] = scores
        sq = result.sub_question
        enough = result.evidence and result.passing >= settings.min_passing_sources
        # a widened sub-question was covered already: its next-best pages only add to it
        status = "covered" if enough or sq.widened else "weak"
        done[sq.id] = sq.model_copy(
            update={
                "status": status,
                "wave": wave,
                "attempts": sq.attempts + 1,
                "passing": result.passing,
            }
        )
    for url, findings in reader.flags.items():  # a page that tried to instruct the model is dropped
        if url in considered:
            considered[url] = considered[url].model_copy(
                update={"decision": "dropped", "reason": flag_reason(findings)}
            )
    updated = [done.get(sq.id, sq) for sq in sub_questions]
    ctx.bus.emit(
        "stage_completed",
        stage=STAGE,
        message=f"Wave {wave} done: {len(sources)} sources, {len(evidence)} verified quotes",
        wave=wave,
        sources=len(sources),
        fetched=sum(1 for s in sources.values() if s.fetched),
        evidence=len(evidence),
    )
    return {
        "wave": wave,
        "units_used": units_used + len(pending),
        "sub_questions": updated,
        "sources": sources,
        "evidence": evidence,
        "warnings": warnings,
        "considered": considered,
        "usage": ctx.usage_snapshot(),
    }


def _raise_if_search_is_broken(results: list[UnitResult], *, first_wave: bool) -> None:
    """A refused key, or a provider that failed every query of the first wave, is a
    configuration problem: stop with a clear message instead of an empty report."""
    errors = [error for result in results for error in result.errors]
    auth = next((error for error in errors if isinstance(error, ProviderAuthError)), None)
    nothing = sum(result.hits for result in results) == 0
    culprit = auth or (errors[0] if errors and first_wave and nothing else None)
    if culprit is not None:
        raise ConfigError(
            culprit.message,
            hint="nothing more was researched; check the search settings with `deepresearch doctor`",
        ) from culprit
