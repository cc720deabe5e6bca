"""A research wave's bookkeeping, pure: what a research unit hands back, how its reads
become sources and decisions, and how a wave's units merge into the run's state.

- ``drop_flagged`` is the one place the "drop a page that tries to instruct the model"
  decision is made: it takes the reader's findings (url -> what the page tried) and
  returns the decisions, each flagged page dropped with the reason "Sources considered"
  shows. A unit applies it to its own candidates (``screen_reads``, which also says
  which sources it may quote), the wave merge once more over every unit's decisions,
  because another unit may have decided on the same page without reading it.
- ``merge_wave`` folds the units' results into the state's sub-questions, sources,
  evidence, decisions and warnings: a source read by several units keeps the union of its
  sub-questions and its first summary; evidence is added once per id; a read decision is
  never undone by another unit's "dropped", but a flagged page is always dropped; each
  unit's sub-question becomes covered or weak.
- A unit that failed (``core.units``: it raised something unexpected, or ran past its
  time limit) hands back an empty result with its outcome: its sub-question is marked
  failed with the reason, and the wave's other units merge as usual.
- ``search_failure`` says when the search itself is broken (a refused key, or nothing at
  all from the first wave), which stops the run instead of writing an empty report."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from deepresearch.core.units import COMPLETED, UnitOutcome
from deepresearch.errors import ProviderAuthError, ProviderError
from deepresearch.injection import Finding, flag_reason
from deepresearch.models import Evidence, Source, SubQuestion
from deepresearch.models.scores import SourceScores


@dataclass
class UnitResult:
    """What one research unit found, as data: nothing in it points back at the unit."""

    sub_question: SubQuestion
    sources: list[Source] = field(default_factory=list)
    evidence: list[Evidence] = field(default_factory=list)
    searched: int = 0
    hits: int = 0
    warnings: list[str] = field(default_factory=list)
    errors: list[ProviderError] = field(default_factory=list)
    considered: list[SourceScores] = field(default_factory=list)
    passing: int = 0
    #: the pages this unit read that try to instruct the model: url -> the findings
    flagged: dict[str, list[Finding]] = field(default_factory=dict)
    #: how the unit ended (a failed one found nothing: its partial work is not kept)
    outcome: UnitOutcome = COMPLETED


def failed_unit(sub_question: SubQuestion, outcome: UnitOutcome) -> UnitResult:
    """The result of a unit that ended with ``outcome`` (failed or timed out): nothing
    found, nothing read; only the outcome."""
    return UnitResult(sub_question=sub_question, outcome=outcome)


@dataclass(frozen=True)
class Reading:
    """A page as the reader read it: the source, and what its text tries to make a model
    do (empty for an ordinary page; a page read in an earlier wave was screened then)."""

    source: Source
    findings: tuple[Finding, ...] = ()


@dataclass(frozen=True)
class UnitReads:
    """A unit's reads, screened: every source read with its best rank score and the
    unit's decision; those it may summarize and quote (``usable``: not flagged); every
    candidate's decision; the flagged pages; how many read sources passed."""

    sources: list[Source]
    usable: list[Source]
    decisions: list[SourceScores]
    flagged: dict[str, list[Finding]]
    passing: int


@dataclass(frozen=True)
class WaveState:
    """The part of the run's state a wave changes."""

    sub_questions: list[SubQuestion]
    sources: dict[str, Source]
    evidence: list[Evidence]
    considered: dict[str, SourceScores]
    warnings: list[str]


def drop_flagged(
    decisions: Iterable[SourceScores], flagged: Mapping[str, Sequence[Finding]]
) -> list[SourceScores]:
    """``decisions`` with every flagged page dropped, saying what it tried (never the
    attacker's words): it is never summarized, quoted or cited."""
    return [
        scores.model_copy(
            update={"decision": "dropped", "reason": flag_reason(list(flagged[scores.url]))}
        )
        if scores.url in flagged
        else scores
        for scores in decisions
    ]


def passing_sources(decisions: Iterable[SourceScores]) -> int:
    """How many sources a unit read at or above the threshold (a flagged page, dropped,
    does not count; nor does one read only because too few passed)."""
    return sum(
        1
        for s in decisions
        if s.decision == "read" and s.threshold is not None and s.final >= s.threshold
    )


def screen_reads(
    decisions: Sequence[SourceScores], chosen: Sequence[SourceScores], read: Sequence[Reading]
) -> UnitReads:
    """A unit's candidates (``decisions``), those it chose to read (``chosen``) and what
    the reader returned for each of them, in order: a flagged page is dropped."""
    flagged = {r.source.url: list(r.findings) for r in read if r.findings}
    decided = {s.url: s for s in drop_flagged(decisions, flagged)}
    sources = [
        r.source.model_copy(
            update={
                "rank_score": max(r.source.rank_score, scores.final),
                "scores": decided[scores.url],
            }
        )
        for r, scores in zip(read, chosen, strict=True)
    ]
    return UnitReads(
        sources=sources,
        usable=[s for s in sources if s.url not in flagged],
        decisions=list(decided.values()),
        flagged=flagged,
        passing=passing_sources(decided[s.url] for s in chosen),
    )


def with_unit(source: Source, sub_question_id: str, summary: str | None) -> Source:
    """``source`` as one more unit used it: its sub-questions include the unit's, and
    it keeps the summary it had (else the unit's)."""
    return source.model_copy(
        update={
            "sub_question_ids": sorted({*source.sub_question_ids, sub_question_id}),
            "summary": source.summary or summary,
        }
    )


def merge_source(previous: Source | None, source: Source) -> Source:
    """``source`` as another unit (or wave) read it, merged with what was known: the union
    of the sub-questions, the first summary."""
    if previous is None:
        return source
    return source.model_copy(
        update={
            "sub_question_ids": sorted({*previous.sub_question_ids, *source.sub_question_ids}),
            "summary": previous.summary or source.summary,
        }
    )


def merge_considered(
    known: Mapping[str, SourceScores],
    decisions: Iterable[SourceScores],
    flagged: Mapping[str, Sequence[Finding]],
) -> dict[str, SourceScores]:
    """Every candidate's decision, by URL: a later decision replaces an earlier one,
    except that a read decision is never undone; then every flagged page is dropped,
    whichever unit decided last."""
    considered = dict(known)
    for scores in decisions:
        previous = considered.get(scores.url)
        if previous is None or previous.decision != "read":
            considered[scores.url] = scores
    hit = [considered[url] for url in flagged if url in considered]
    considered.update({scores.url: scores for scores in drop_flagged(hit, flagged)})
    return considered


def unit_status(
    sub_question: SubQuestion, result: UnitResult, *, wave: int, min_passing: int
) -> SubQuestion:
    """The sub-question after its unit ran: covered with verified evidence from at least
    ``min_passing`` sources above the threshold, else weak (reflect may retry it). A
    widened one was covered already: its further results only add to it. A unit that
    failed marks its sub-question failed with the reason (reflect does not retry it: a
    unit that timed out or broke would most likely do so again)."""
    enough = bool(result.evidence) and result.passing >= min_passing
    if result.outcome.failed:
        status = "covered" if sub_question.widened else "failed"
    else:
        status = "covered" if enough or sub_question.widened else "weak"
    return sub_question.model_copy(
        update={
            "status": status,
            "failure": result.outcome.reason,
            "wave": wave,
            "attempts": sub_question.attempts + 1,
            "passing": result.passing,
        }
    )


def merge_wave(
    before: WaveState, results: Sequence[UnitResult], *, wave: int, min_passing: int
) -> WaveState:
    """The state after wave ``wave``: every unit's sources, evidence, decisions, warnings
    and sub-question status folded in, in the units' order."""
    sources = dict(before.sources)
    evidence = list(before.evidence)
    known_ids = {item.id for item in evidence}
    warnings = list(before.warnings)
    flagged: dict[str, list[Finding]] = {}
    done: dict[str, SubQuestion] = {}
    for result in results:
        for source in result.sources:
            sources[source.id] = merge_source(sources.get(source.id), source)
        for item in result.evidence:
            if item.id not in known_ids:
                known_ids.add(item.id)
                evidence.append(item)
        warnings.extend(result.warnings)
        flagged.update(result.flagged)
        sq = result.sub_question
        if result.outcome.failed:  # an abort report's limitations are the warnings
            warnings.append(f"Research failed for: {sq.text} ({result.outcome.reason}).")
        done[sq.id] = unit_status(sq, result, wave=wave, min_passing=min_passing)
    considered = merge_considered(
        before.considered, (s for result in results for s in result.considered), flagged
    )
    return WaveState(
        sub_questions=[done.get(sq.id, sq) for sq in before.sub_questions],
        sources=sources,
        evidence=evidence,
        considered=considered,
        warnings=warnings,
    )


def search_failure(results: Sequence[UnitResult], *, first_wave: bool) -> ProviderError | None:
    """The error that shows the search is misconfigured, or None: a refused key, or a
    provider that failed every query of the first wave and returned nothing."""
    errors = [error for result in results for error in result.errors]
    auth = next((error for error in errors if isinstance(error, ProviderAuthError)), None)
    nothing = sum(result.hits for result in results) == 0
    return auth or (errors[0] if errors and first_wave and nothing else None)
