"""The research wave: every pending sub-question runs as a research unit, in parallel up
to ``max_concurrent_units``, within the run's cap on units. Results merge into state
through ``core.waves.merge_wave``.

A unit's failure is its own (seed 004, ``core.units``): one that raises something
unexpected, or runs past ``unit_timeout_s``, ends failed with its reason and the wave's
other units go on. Each unit's ``evidence_added`` event is its summary: status, topic,
duration and failure reason. The duration is only in the event, never in state: a
replay's differs, and the report it renders must not."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable
from datetime import datetime

from langgraph.runtime import Runtime

from deepresearch.context import RunContext
from deepresearch.core.findings_review import wave_units
from deepresearch.core.library_reuse import shelved_evidence
from deepresearch.core.provenance import Provenance
from deepresearch.core.thread import reusable_urls
from deepresearch.core.units import owns, unit_outcome
from deepresearch.core.waves import (
    UnitResult,
    WaveState,
    failed_unit,
    merge_wave,
    search_failure,
)
from deepresearch.errors import ConfigError
from deepresearch.models import Source, SubQuestion
from deepresearch.models.event_payloads import EvidenceAdded, StageCompleted, UnitRef, WaveStarted
from deepresearch.reading import LibraryPages, SourceReader
from deepresearch.recipes.research.stages.unit import run_unit
from deepresearch.recipes.research.state import RunState

STAGE = "research"


async def research(state: RunState, runtime: Runtime[RunContext]) -> RunState:
    ctx = runtime.context
    wave = state.get("wave", 0) + 1
    units_used = state.get("units_used", 0)
    pending = _start_wave(ctx, state, wave=wave)
    sources: dict[str, Source] = dict(state.get("sources", {}))
    results = await _run_units(ctx, state, pending, sources, wave=wave)
    _raise_if_search_is_broken(results, first_wave=wave == 1)

    merged = merge_wave(
        WaveState(
            sub_questions=list(state["sub_questions"]),
            sources=sources,
            evidence=list(state.get("evidence", [])),
            considered=dict(state.get("considered", {})),
            warnings=list(state.get("warnings", [])),
        ),
        results,
        wave=wave,
        min_passing=ctx.limits.min_passing_sources,
    )
    sources, evidence = merged.sources, merged.evidence
    ctx.bus.emit(
        StageCompleted(
            wave=wave,
            sources=len(sources),
            fetched=sum(1 for s in sources.values() if s.fetched),
            evidence=len(evidence),
        ),
        stage=STAGE,
        message=f"Wave {wave} done: {len(sources)} sources, {len(evidence)} verified quotes",
    )
    return {
        "wave": wave,
        "units_used": units_used + len(pending),
        "sub_questions": merged.sub_questions,
        "sources": sources,
        "evidence": evidence,
        "warnings": merged.warnings,
        "considered": merged.considered,
    }


def _start_wave(ctx: RunContext, state: RunState, *, wave: int) -> list[SubQuestion]:
    """The sub-questions wave ``wave`` researches (``core.findings_review.wave_units``),
    announced."""
    limits = ctx.limits
    pending = wave_units(
        list(state["sub_questions"]),
        room=limits.max_units_total - state.get("units_used", 0),
        # the findings review named a gap: this wave researches it alone
        gap_id=state.get("findings_review", {}).get("gap_id"),
        # a run budget (tokens, cost, time) is used up: no new unit
        spent=ctx.gateway.budget.check(ctx.gateway.usage, at=f"wave {wave}") is not None,
    )
    ctx.bus.emit(
        WaveStarted(
            wave=wave,
            max_waves=limits.max_waves,
            units=[UnitRef(id=sq.id, text=sq.text) for sq in pending],
        ),
        stage=STAGE,
        message=f"Wave {wave}: researching {len(pending)} sub-question(s)",
    )
    return pending


async def _run_units(
    ctx: RunContext,
    state: RunState,
    pending: list[SubQuestion],
    sources: dict[str, Source],
    *,
    wave: int,
) -> list[UnitResult]:
    """Every pending sub-question researched as a unit, at most ``max_concurrent_units``
    at once, each announced as it finishes; the results in the units' order."""
    limits = ctx.limits
    reader = SourceReader(ctx, sources, Provenance.for_run(state["question"]), _library(ctx, state))
    # a follow-up's units may read again, from the stored text, pages only earlier turns used
    earlier = state.get("thread")
    reusable = reusable_urls(sources, {sq.id for sq in earlier.sub_questions}) if earlier else set()
    # the first wave's units rank the library's reused pages with their other results and
    # take a chosen one's reused quotes, reading nothing (``stages/library.py``)
    shelved = shelved_evidence(state.get("library"), state.get("evidence", [])) if wave == 1 else {}
    reusable |= {sources[sid].url for sid in shelved if sid in sources}
    seen_urls = {source.url for source in sources.values()} - reusable
    limit = asyncio.Semaphore(limits.max_concurrent_units)

    finished = 0

    async def bounded(sq: SubQuestion) -> UnitResult:
        nonlocal finished
        async with limit:
            started = time.monotonic()
            result = await _contained(
                ctx,
                sq,
                run_unit(
                    ctx,
                    reader,
                    sq,
                    state["question"],
                    seen_urls=seen_urls,
                    wave=wave,
                    shelved=shelved,
                ),
                wave=wave,
            )
            duration = time.monotonic() - started
        finished += 1  # how far the wave is: the job's progress moves with it
        _announce(ctx, result, wave=wave, done=finished, units=len(pending), duration=duration)
        return result

    return list(await asyncio.gather(*(bounded(sq) for sq in pending)))


def _library(ctx: RunContext, state: RunState) -> LibraryPages | None:
    """The owner's library, whose fresh pages the units read from their stored text, as
    of the time the library stage looked in it (None: no library, ``--no-library``)."""
    checked = state.get("library_checked")
    if ctx.library is None or not checked:
        return None
    days = ctx.fetch_policy.library_fresh_days
    return LibraryPages(ctx.library, datetime.fromisoformat(checked), days)


async def _contained(
    ctx: RunContext, sq: SubQuestion, unit: Awaitable[UnitResult], *, wave: int
) -> UnitResult:
    """``unit``'s result, or, when it raises something of its own (``core.units.owns``)
    or runs past ``unit_timeout_s``, the empty result of a failed unit with its reason."""
    timer = asyncio.timeout(ctx.limits.unit_timeout_s)
    try:
        async with timer:
            return await unit
    except Exception as exc:
        if not owns(exc):
            raise
        if timer.expired():  # where it was cut depends on the machine: no exact replay
            ctx.cut(f"research unit {sq.id} of wave {wave}")
        return failed_unit(sq, unit_outcome(exc))


def _announce(
    ctx: RunContext, result: UnitResult, *, wave: int, done: int, units: int, duration: float
) -> None:
    """The unit's summary (seed 004): what it found, how it ended and how long it ran."""
    sq, outcome = result.sub_question, result.outcome
    found = f"{len(result.evidence)} verified quotes"
    ctx.bus.emit(
        EvidenceAdded(
            sub_question=sq.id,
            wave=wave,
            count=len(result.evidence),
            sources=len(result.sources),
            done=done,
            units=units,
            max_waves=ctx.limits.max_waves,
            status=outcome.status,
            topic=sq.text,
            duration_s=round(duration, 3),
            failure_reason=outcome.reason,
        ),
        stage=STAGE,
        message=f"{sq.id}: {outcome.reason if outcome.failed else found} ({duration:.1f} s)",
    )


def _raise_if_search_is_broken(results: list[UnitResult], *, first_wave: bool) -> None:
    """A refused key, or a provider that failed every query of the first wave, is a
    configuration problem: stop with a clear message instead of an empty report."""
    culprit = search_failure(results, first_wave=first_wave)
    if culprit is not None:
        raise ConfigError(
            culprit.message,
            hint="nothing more was researched; check the search settings with `deepresearch doctor`",
        ) from culprit
