"""End-to-end runs over the offline web with the real search adapter, fetcher, extractor,
checkpointer and graph; only the model's words are scripted."""

from __future__ import annotations

from pathlib import Path

import pytest

from deepresearch.models import Report, RunEvent
from deepresearch.runner import run_research
from deepresearch.settings import load_settings
from deepresearch.settings_values import ROLES
from deepresearch.testing.research_script import (
    BAD_INVENTED,
    BAD_UNCITED,
    BAD_WRONG_SOURCE,
    research_script,
)
from deepresearch.testing.scripted import ScriptedChatModel
from deepresearch.testing.web import OfflineWeb

from ..event_schema import assert_events_match_schema
from .helpers import assert_citations_hold, offline_settings


async def test_scripted_model_run_cites_only_fetched_sources(
    offline_web: OfflineWeb, hotpot_question: str, tmp_path: Path
) -> None:
    events: list[RunEvent] = []
    model = ScriptedChatModel(research_script(bad_citations=True))
    report = await run_research(
        hotpot_question,
        offline_settings(offline_web, tmp_path),
        models=dict.fromkeys(ROLES, model),
        sinks=[events.append],
    )
    assert isinstance(report, Report)
    assert report.kind == "synthesized"
    assert_citations_hold(report, offline_web)
    # the writer's invented citation, its uncited fact and its wrong-source sentence were
    # caught by the audit: removed (strict policy) and counted
    texts = [sentence.text for sentence in report.all_sentences()]
    assert not {BAD_INVENTED, BAD_UNCITED, BAD_WRONG_SOURCE} & set(texts)
    audit = report.audit
    assert audit is not None and audit.policy == "strict" and audit.method == "judge"
    assert audit.invented_citations == 1
    assert audit.uncited_factual == 2  # the invented one lost its only citation
    assert audit.unsupported >= 1 and audit.removed >= 3
    assert audit.citation_precision is not None and audit.citation_precision < 1
    assert any("removed 3 sentence(s)" in item for item in report.limitations)
    # usage is counted per stage
    assert report.usage.calls == len(model.calls)
    assert {"intake", "plan", "summarize", "write"} <= set(report.usage.by_stage)
    # the Verified Findings come first and are the exact quotes they cite
    findings = report.sections[0]
    assert findings.kind == "verified_findings"
    by_id = {item.id: item for item in report.evidence}
    for paragraph in findings.paragraphs:
        (sentence,) = paragraph.sentences
        assert sentence.text == f"“{by_id[sentence.citations[0]].quote}”"
    kinds = [event.type for event in events]
    assert kinds[0] == "run_started" and kinds[-1] == "run_completed"
    assert "plan_ready" in kinds and "gate_evaluated" in kinds and "source_fetched" in kinds
    assert [event.seq for event in events] == list(range(1, len(events) + 1))
    # every event is typed, and is what docs/events.schema.json says
    seen = assert_events_match_schema(events)
    assert {"model_call", "sources_ranked", "reflection", "audit_completed"} <= seen


async def test_model_none_run_is_extractive_and_verified(
    offline_web: OfflineWeb, hotpot_question: str, tmp_path: Path
) -> None:
    report = await run_research(
        hotpot_question,
        offline_settings(offline_web, tmp_path, model="none"),
    )
    assert report is not None
    assert report.kind == "extractive"
    assert report.notice and "Extractive report" in report.notice
    assert report.usage.calls == 0
    assert_citations_hold(report, offline_web)
    # an extractive report says nothing but verified quotes
    quotes = {f"“{item.quote}”" for item in report.evidence}
    assert all(sentence.text in quotes for sentence in report.all_sentences())
    # and its key facts are the quotes' own words, from evidence the report cites
    by_id = {item.id: item for item in report.evidence}
    facts = [s for s in report.sections if s.kind == "key_facts"]
    assert facts, "a HotpotQA answer states a date, a number or a name"
    assert facts[0].table is not None
    for row in facts[0].table.rows:
        (cited,) = row.citations
        assert cited in report.cited_evidence_ids()
        fact, _, words = row.cells
        quote = " ".join(by_id[cited].quote.split())
        assert fact in words and words.strip("…") in quote


async def test_nothing_found_ends_in_an_honest_abort(
    offline_web: OfflineWeb, tmp_path: Path
) -> None:
    report = await run_research(
        "zxqv wplmk qqqj vrrrt?",
        offline_settings(offline_web, tmp_path, model="none"),
    )
    assert report is not None
    assert report.kind == "abort"
    assert report.sources == [] and report.evidence == []
    assert report.suggestions
    assert report.title.startswith("Unable to research")


@pytest.mark.parametrize("model", ["none", "scripted"])
async def test_a_question_about_something_no_page_names_aborts(
    offline_web: OfflineWeb, tmp_path: Path, model: str
) -> None:
    """Search finds pages for the question's other words, and their quotes verify, but
    not one page read names the made-up foundation: the run says it found nothing about
    it instead of reporting quotes about other foundations."""
    question = "What did the Zorblat Quenton Foundation announce about river dams in 2019?"
    if model == "none":
        settings, models = offline_settings(offline_web, tmp_path, model="none"), None
    else:
        settings = offline_settings(offline_web, tmp_path)
        models = dict.fromkeys(ROLES, ScriptedChatModel(research_script()))
    report = await run_research(question, settings, models=models)
    assert report is not None
    assert report.kind == "abort" and report.evidence == []
    why = report.sections[0].paragraphs[0].sentences[0].text
    assert "no page read names Zorblat Quenton Foundation" in why
    assert report.considered, "the pages it read are still listed, with why none was kept"


async def test_resume_after_research_wave_does_not_fetch_again(
    offline_web: OfflineWeb, hotpot_question: str, tmp_path: Path
) -> None:
    settings = offline_settings(offline_web, tmp_path, model="none")
    offline_web.reset_log()
    paused = await run_research(
        hotpot_question,
        settings,
        run_id="run-resume",
        stop_after="research",
    )
    assert paused is None
    pages_before = [r.path for r in offline_web.requests if r.path.startswith("/page/")]
    assert pages_before, "the first wave fetched nothing"

    events: list[RunEvent] = []
    report = await run_research(
        None,
        settings,
        run_id="run-resume",
        resume=True,
        sinks=[events.append],
    )
    assert report is not None and report.kind in ("extractive", "abort")
    assert events[0].type == "run_resumed"
    # the first wave's pages were not fetched a second time
    pages_after = [r.path for r in offline_web.requests if r.path.startswith("/page/")]
    refetched = [p for p in pages_after[len(pages_before) :] if p in pages_before]
    assert refetched == []
    assert report.kind == "extractive"
    assert_citations_hold(report, offline_web)


async def test_resume_unknown_run_is_a_clear_error(tmp_path: Path) -> None:
    from deepresearch.errors import RunNotFound

    settings = load_settings(model="none", search="none", data_dir=tmp_path / "data")
    with pytest.raises(RunNotFound, match="no run 'run-nope'"):
        await run_research(None, settings, run_id="run-nope", resume=True)


async def test_a_repeated_run_reads_its_pages_from_the_page_cache(
    offline_web: OfflineWeb, hotpot_question: str, tmp_path: Path
) -> None:
    settings = offline_settings(offline_web, tmp_path, model="none")
    offline_web.reset_log()
    first = await run_research(hotpot_question, settings)
    fetched = [r.path for r in offline_web.requests if r.path.startswith("/page/")]
    assert first is not None and fetched
    second = await run_research(hotpot_question, settings)
    again = [r.path for r in offline_web.requests if r.path.startswith("/page/")][len(fetched) :]
    assert second is not None and again == []
    assert [s.url for s in second.sources] == [s.url for s in first.sources]
