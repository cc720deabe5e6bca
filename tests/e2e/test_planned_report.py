"""Planned reports end to end (issue 16): the writer's outline picks sections and their
layouts, the sections are written in parallel and validated; a writer that breaks a
table, states a figure no quote holds or cites evidence it was not given is repaired once
or falls back to the section's verified quotes; table cells cite evidence and the audit
checks them; every format draws the tables and lists."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from langchain_core.messages import BaseMessage

from deepresearch.core.audit import is_quote
from deepresearch.export.docx import to_docx
from deepresearch.export.pdf import to_pdf
from deepresearch.export.report_document import report_document
from deepresearch.export.report_render import to_html, to_markdown
from deepresearch.models import Report, RunEvent
from deepresearch.models.event_payloads import ReportReady
from deepresearch.recipes.research.stages import sections
from deepresearch.runner import run_research
from deepresearch.settings_values import ROLES
from deepresearch.testing.corpora import hotpotqa_questions
from deepresearch.testing.research_script import (
    INVENTED_FIGURE,
    SECTION_FAULTS,
    research_script,
)
from deepresearch.testing.scripted import ScriptedChatModel
from deepresearch.testing.web import OfflineWeb

from .conftest import SHARED_DATA
from .helpers import assert_citations_hold, offline_settings

LATENCY_S = 0.2


@pytest.fixture(scope="module")
def dated_question() -> str:
    """A question whose quotes hold years: the outline plans a timeline."""
    if not SHARED_DATA.is_dir():
        pytest.skip(f"shared data folder not found at {SHARED_DATA}")
    return hotpotqa_questions(SHARED_DATA)[1].question


async def _run(
    web: OfflineWeb,
    question: str,
    tmp_path: Path,
    script: Callable[[list[BaseMessage]], str],
    **extra: object,
) -> tuple[Report, list[RunEvent], ScriptedChatModel]:
    model = ScriptedChatModel(script, latency_s=LATENCY_S)
    events: list[RunEvent] = []
    settings = offline_settings(web, tmp_path, depth="standard", **extra)
    report = await run_research(
        question, settings, models=dict.fromkeys(ROLES, model), sinks=[events.append]
    )
    assert isinstance(report, Report)
    return report, events, model


def _ready(events: list[RunEvent]) -> ReportReady:
    return next(e.data for e in events if isinstance(e.data, ReportReady))


def _body(report: Report) -> list[object]:
    return [s for s in report.sections if s.kind == "body"]


async def test_sections_are_planned_with_layouts_and_written_in_parallel(
    offline_web: OfflineWeb, dated_question: str, tmp_path: Path
) -> None:
    started: list[tuple[str, float]] = []
    careful = research_script()

    def timed(messages: list[BaseMessage]) -> str:
        started.append((str(messages[0].content).splitlines()[0], time.monotonic()))
        return careful(messages)

    report, events, _ = await _run(offline_web, dated_question, tmp_path, timed)
    ready = _ready(events)
    assert report.kind == "synthesized"
    assert ready.sections_planned == ready.sections_first_pass >= 2
    layouts = [s.layout for s in report.sections if s.kind == "body"]
    assert layouts == ["prose", "timeline"]
    # every section call began before the first of them had its answer: in parallel
    first_line = sections.SECTION_SYSTEM.splitlines()[0]
    starts = [at for line, at in started if line == first_line]
    assert len(starts) == ready.sections_planned
    assert max(starts) - min(starts) < LATENCY_S
    assert_citations_hold(report, offline_web)


async def test_table_cells_cite_evidence_and_the_audit_checks_them(
    offline_web: OfflineWeb, dated_question: str, tmp_path: Path
) -> None:
    report, _, _ = await _run(
        offline_web, dated_question, tmp_path, research_script(), audit="mark"
    )
    tables = [s.table for s in report.sections if s.kind == "body" and s.table is not None]
    assert tables, "the outline planned no table"
    evidence = {item.id: item for item in report.evidence}
    for table in tables:
        for row in table.rows:
            assert len(row.cell_citations) == len(row.cells)
            for text, cited in zip(row.cells, row.cell_citations, strict=True):
                assert cited and all(evidence[cid].verified for cid in cited)
                assert any(
                    text in evidence[cid].quote or text in evidence[cid].claim for cid in cited
                )
            assert row.audit is not None  # the audit read every row's cells
    audit = report.audit
    assert audit is not None
    rows = sum(len(t.rows) for t in tables)
    assert audit.sentences == len(report.all_sentences()) + rows


async def test_a_faulty_writer_is_repaired_once(
    offline_web: OfflineWeb, dated_question: str, tmp_path: Path
) -> None:
    script = research_script(section_faults=SECTION_FAULTS)
    report, events, model = await _run(offline_web, dated_question, tmp_path, script)
    ready = _ready(events)
    assert ready.sections_planned and ready.sections_first_pass == 0
    assert ready.sections_repaired == ready.sections_planned
    repairs = [c for c in model.calls if str(c[0].content).startswith(sections.REPAIR_SYSTEM[:40])]
    assert len(repairs) == ready.sections_planned  # once per section, never twice
    shown = str(repairs[0][-1].content)
    assert "which no quote it cites contains" in shown or "which is not evidence" in shown
    markdown = to_markdown(report)
    assert INVENTED_FIGURE not in markdown
    assert INVENTED_FIGURE not in json.dumps(report.model_dump(mode="json"))
    for section in report.sections:
        if section.table is not None:
            assert all(len(row.cells) == len(section.table.columns) for row in section.table.rows)
    assert report.audit is not None and report.audit.removed == 0
    assert_citations_hold(report, offline_web)


async def test_a_section_the_repair_cannot_fix_falls_back_to_its_verified_quotes(
    offline_web: OfflineWeb, dated_question: str, tmp_path: Path
) -> None:
    script = research_script(section_faults=SECTION_FAULTS, repair=False)
    report, events, _ = await _run(offline_web, dated_question, tmp_path, script)
    ready = _ready(events)
    assert ready.sections_planned and ready.sections_fallback == ready.sections_planned
    assert report.kind == "synthesized"
    evidence = {item.id: item for item in report.evidence}
    body = [s for s in report.sections if s.kind == "body"]
    assert body
    for section in body:
        assert section.table is None and section.layout == "prose"
        for paragraph in section.paragraphs:
            for sentence in paragraph.sentences:
                assert is_quote(sentence, evidence)  # verbatim, citing its PASS quote
    assert INVENTED_FIGURE not in to_markdown(report)


async def test_every_format_draws_the_planned_tables_and_lists(
    offline_web: OfflineWeb, dated_question: str, tmp_path: Path
) -> None:
    script = research_script(prose_as="list")  # a writer that lists its points
    report, _, _ = await _run(offline_web, dated_question, tmp_path, script)
    timeline = next(s for s in report.sections if s.layout == "timeline")
    listed = next(s for s in report.sections if s.layout == "list")
    assert timeline.table is not None
    first_item = listed.paragraphs[0].sentences[0].text
    markdown = to_markdown(report)
    assert "| Date | Event | Source |" in markdown
    assert any(line.startswith("- ") and first_item[:30] in line for line in markdown.splitlines())
    html = to_html(report)
    assert '<table class="report-table">' in html and '<ul class="report-list">' in html
    data = json.loads(report.model_dump_json())
    kinds = {s["heading"]: s["layout"] for s in data["sections"]}
    assert kinds[timeline.heading] == "timeline" and kinds[listed.heading] == "list"
    assert data["sections"][report.sections.index(timeline)]["table"]["rows"][0]["cell_citations"]
    # pdf and docx draw the report's Document: the list is a bulleted list there
    document = report_document(report)
    assert any(
        type(b).__name__ == "ItemList" and first_item[:30] in b.items[0][0].text
        for b in document.blocks
    )
    assert to_docx(document)[:2] == b"PK" and to_pdf(document)[:5] == b"%PDF-"


async def test_without_a_model_the_report_is_extractive_as_before(
    offline_web: OfflineWeb, dated_question: str, tmp_path: Path
) -> None:
    settings = offline_settings(offline_web, tmp_path, depth="standard", model="none")
    events: list[RunEvent] = []
    report = await run_research(dated_question, settings, sinks=[events.append])
    assert isinstance(report, Report) and report.kind == "extractive"
    assert all(s.layout == "prose" for s in report.sections)
    ready = _ready(events)
    assert ready.sections_planned is None
