"""Seed 004's limits, each a setting of its own (issue 28): queries per sub-question,
results per query, evidence per research unit, the writer's notes cap and word budget and
sources per claim change what a run does, and an explicit value beats the depth preset
that fills the others. Every run here is replayed byte for byte (``conftest``)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from deepresearch.core import assemble
from deepresearch.core.model_claims import claim_ledger
from deepresearch.models import Report, RunEvent
from deepresearch.models.claims import ClaimLedger
from deepresearch.models.event_payloads import EvidenceAdded, PlanReady, SearchCompleted
from deepresearch.recipes.research.stages import write
from deepresearch.runner import run_research
from deepresearch.settings_values import DEPTHS, ROLES
from deepresearch.testing.research_script import research_script
from deepresearch.testing.scripted import ScriptedChatModel
from deepresearch.testing.web import OfflineWeb

from .helpers import assert_citations_hold, offline_settings

_LABEL = re.compile(r'label="E\d+"')


def _of(events: list[RunEvent], kind: type[Any]) -> list[Any]:
    return [event.data for event in events if isinstance(event.data, kind)]


async def _run(
    web: OfflineWeb, question: str, tmp_path: Path, **extra: Any
) -> tuple[Report, list[RunEvent], ScriptedChatModel]:
    model = ScriptedChatModel(research_script())
    events: list[RunEvent] = []
    report = await run_research(
        question,
        offline_settings(web, tmp_path, **extra),
        models=dict.fromkeys(ROLES, model),
        sinks=[events.append],
    )
    assert isinstance(report, Report)
    return report, events, model


def _writer_notes(model: ScriptedChatModel) -> list[int]:
    """How many notes each outline call of the writer was given."""
    head = write.SYSTEM.splitlines()[0]
    return [
        len(_LABEL.findall(str(messages[-1].content)))
        for messages in model.calls
        if str(messages[0].content).startswith(head)
    ]


async def test_search_and_evidence_limits_are_settings_beating_the_preset(
    offline_web: OfflineWeb, hotpot_question: str, tmp_path: Path
) -> None:
    preset = DEPTHS["quick"]
    assert preset.queries_per_question > 1 and preset.evidence_per_question > 1
    report, events, _ = await _run(
        offline_web,
        hotpot_question,
        tmp_path / "set",
        queries_per_question=1,
        results_per_query=2,
        evidence_per_question=1,
    )
    assert_citations_hold(report, offline_web)
    plan = _of(events, PlanReady)[0]
    assert plan.sub_questions and all(len(unit.queries) == 1 for unit in plan.sub_questions)
    searches = _of(events, SearchCompleted)
    assert searches and all(s.received <= 2 * len(s.queries) for s in searches)
    assert all(len(s.queries) == 1 for s in searches if s.wave == 1)
    units = _of(events, EvidenceAdded)
    assert units and all(unit.count <= 1 for unit in units)

    # unset, the depth preset fills them
    _, events, _ = await _run(offline_web, hotpot_question, tmp_path / "preset")
    plan = _of(events, PlanReady)[0]
    assert any(len(unit.queries) == preset.queries_per_question for unit in plan.sub_questions)
    assert any(s.received > 2 * len(s.queries) for s in _of(events, SearchCompleted))
    assert any(unit.count > 1 for unit in _of(events, EvidenceAdded))


async def test_the_writer_gets_at_most_its_notes_and_words(
    offline_web: OfflineWeb, hotpot_question: str, tmp_path: Path
) -> None:
    _, _, model = await _run(offline_web, hotpot_question, tmp_path / "preset")
    given = _writer_notes(model)
    assert given and max(given) > 3  # the preset's cap (60) lets more through

    _, _, model = await _run(offline_web, hotpot_question, tmp_path / "notes", writer_max_notes=3)
    given = _writer_notes(model)
    assert given and max(given) <= 3

    # a word budget below one note's words: the writer gets its first note alone
    _, _, model = await _run(
        offline_web, hotpot_question, tmp_path / "words", writer_word_budget=100
    )
    given = _writer_notes(model)
    assert given and max(given) < 5


async def test_sources_per_claim_reaches_the_reports_claim_ledger(
    offline_web: OfflineWeb,
    hotpot_question: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The cap itself is ``core.claims``' (tests/core/test_claims.py); the offline web's
    claims each rest on one page, so here: the run hands the setting to the ledger."""
    caps: list[int | None] = []

    def ledger(*args: Any, max_sources: int | None = None, **kwargs: Any) -> ClaimLedger:
        caps.append(max_sources)
        return claim_ledger(*args, max_sources=max_sources, **kwargs)

    monkeypatch.setattr(assemble, "claim_ledger", ledger)
    report, _, _ = await _run(offline_web, hotpot_question, tmp_path, sources_per_claim=1)
    assert caps == [1]
    assert report.claims is not None and report.claims.claims
    assert all(len(claim.source_ids) <= 1 for claim in report.claims.claims)
