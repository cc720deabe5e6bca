"""The audit and the Verified Findings, end to end with a scripted writer that misbehaves:
it invents a citation, states a fact without one, cites the wrong source, and edits a
Verified Finding. Each is caught: removed or flagged per policy, and counted."""

from __future__ import annotations

from pathlib import Path

from langchain_core.language_models import BaseChatModel

from deepresearch.export.report_render import to_html, to_markdown
from deepresearch.models import Report
from deepresearch.runner import run_research
from deepresearch.settings_values import ROLES, Role
from deepresearch.testing.research_script import (
    BAD_INVENTED,
    BAD_UNCITED,
    BAD_WRONG_SOURCE,
    research_script,
)
from deepresearch.testing.scripted import ScriptedChatModel
from deepresearch.testing.web import OfflineWeb

from .helpers import assert_citations_hold, offline_settings


async def _run(
    web: OfflineWeb, question: str, tmp_path: Path, *, judge: bool = True, **extra: object
) -> Report:
    model = ScriptedChatModel(research_script(bad_citations=True, alter_findings=True))
    models: dict[Role, BaseChatModel | None] = dict.fromkeys(ROLES, model)
    if not judge:
        models["judge"] = None
    settings = offline_settings(web, tmp_path, **extra)
    report = await run_research(question, settings, models=models)
    assert report is not None
    return report


async def test_an_edited_finding_is_restored_to_the_exact_quote(
    offline_web: OfflineWeb, hotpot_question: str, tmp_path: Path
) -> None:
    report = await _run(offline_web, hotpot_question, tmp_path)
    assert report.audit is not None and report.audit.findings_restored == 1
    by_id = {item.id: item for item in report.evidence}
    findings = [s for s in report.sections if s.kind == "verified_findings"]
    assert len(findings) == 1
    for paragraph in findings[0].paragraphs:
        for sentence in paragraph.sentences:
            assert "Notably" not in sentence.text
            assert sentence.text == f"“{by_id[sentence.citations[0]].quote}”"
    assert any("restored to the exact quote" in item for item in report.limitations)
    assert_citations_hold(report, offline_web)


async def test_mark_keeps_unsupported_sentences_with_a_visible_flag(
    offline_web: OfflineWeb, hotpot_question: str, tmp_path: Path
) -> None:
    report = await _run(offline_web, hotpot_question, tmp_path, audit="mark")
    audit = report.audit
    assert audit is not None and audit.policy == "mark" and audit.removed == 0
    verdicts = {s.text: s.audit for s in report.all_sentences()}
    assert verdicts[BAD_UNCITED] == "uncited"
    assert verdicts[BAD_INVENTED] == "uncited"
    assert verdicts[BAD_WRONG_SOURCE] == "unsupported"
    markdown = to_markdown(report)
    assert "⚠ [no citation" in markdown and "⚠ [not supported" in markdown
    assert '<mark class="audit">' in to_html(report)
    assert "Audit (mark, judge)" in markdown


async def test_audit_off_checks_nothing(
    offline_web: OfflineWeb, hotpot_question: str, tmp_path: Path
) -> None:
    report = await _run(offline_web, hotpot_question, tmp_path, audit="off")
    assert report.audit is not None and report.audit.policy == "off" and report.audit.checked == 0
    assert all(sentence.audit is None for sentence in report.all_sentences())


async def test_extractive_reports_pass_their_own_audit(
    offline_web: OfflineWeb, hotpot_question: str, tmp_path: Path
) -> None:
    settings = offline_settings(offline_web, tmp_path, model="none")
    report = await run_research(hotpot_question, settings)
    assert report is not None and report.audit is not None
    assert report.audit.checked == report.audit.supported == report.audit.sentences > 0
    assert report.audit.citation_precision == 1.0
    assert report.sections[0].kind == "verified_findings"


async def test_without_a_judge_the_deterministic_checker_catches_the_same(
    offline_web: OfflineWeb, hotpot_question: str, tmp_path: Path
) -> None:
    report = await _run(offline_web, hotpot_question, tmp_path, judge=False, audit="mark")
    assert report.audit is not None and report.audit.method == "deterministic"
    verdicts = {s.text: s.audit for s in report.all_sentences()}
    assert verdicts[BAD_WRONG_SOURCE] == "unsupported"
    assert verdicts[BAD_UNCITED] == verdicts[BAD_INVENTED] == "uncited"
