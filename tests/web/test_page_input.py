"""A run that waits for a person, on the page (issue 15), in headless chromium against the
real service over the offline web with the scripted model: the run view shows the
clarifying question with an answer box and the run goes on to its report once answered;
with "Review the plan first" it shows the plan editor, a bad edit shows the service's
reason, and the edited plan is what is researched."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from langchain_core.messages import BaseMessage

from deepresearch.recipes.research.stages import intake
from deepresearch.testing.research_script import research_script
from deepresearch.testing.scripted import ScriptedChatModel
from deepresearch.testing.web import OfflineWeb

from ..service.helpers import read_sse, running_service, service_settings
from .conftest import REQUIRE_BROWSER, screenshot, why_no_browser

WHY_NOT = why_no_browser()
if WHY_NOT:
    if REQUIRE_BROWSER:
        pytest.fail(f"a browser is required here (DEEPRESEARCH_REQUIRE_BROWSER=1): {WHY_NOT}")
    pytest.skip(WHY_NOT, allow_module_level=True)

from playwright.sync_api import Page, expect  # noqa: E402

from .test_page import assert_accessible, open_page, submit  # noqa: E402

ASKED = "Do you mean the people or the places?"


def clarifying_model() -> ScriptedChatModel:
    research = research_script()

    def reply(messages: list[BaseMessage]) -> str:
        if str(messages[0].content).startswith(intake.SYSTEM.splitlines()[0]):
            return json.dumps({"intent": "clarify", "reply": ASKED})
        return research(messages)

    return ScriptedChatModel(reply)


def test_clarify_on_the_page_then_the_report(
    page: Page, offline_web: OfflineWeb, questions: list[str], tmp_path: Path
) -> None:
    settings = service_settings(offline_web, tmp_path, f"sqlite:///{tmp_path / 's.db'}")
    with running_service(settings, model=clarifying_model()) as service:
        open_page(page, service.url)
        job_id = submit(page, questions[0], depth="quick", search="searxng")
        box = page.locator("#ask-back form[data-kind=clarification]")
        expect(box.locator(".asked")).to_have_text(ASKED)
        expect(page.locator("#run-status")).to_have_text("Waiting for you")
        assert_accessible(page, "the run asks")
        screenshot(page, "input-01-clarify")
        box.locator("textarea").fill("   ")
        box.locator("button[type=submit]").click()
        expect(box.locator(".field-error")).to_contain_text("the answer is empty")
        box.locator("textarea").fill("The people involved")
        box.locator("button[type=submit]").click()
        expect(page.locator("#ask-back")).to_be_hidden()
        page.wait_for_selector("article.report")
        assert service.job(job_id)["status"] == "COMPLETED"
        events = [
            m.json() for m in read_sse(service.client, f"/v1/research/{job_id}/events") if m.id
        ]
        received = next(e for e in events if e["type"] == "input_received")
        assert received["data"]["answer"] == "The people involved"
        screenshot(page, "input-02-report", full_page=True)

        # a waiting run opened later (from History) shows its question too
        open_page(page, service.url)
        other = submit(page, questions[1], depth="quick", search="searxng")
        service.wait_for(other, "AWAITING_INPUT")
        open_page(page, service.url, "#/history")
        expect(page.locator(f"li[data-job='{other}']")).to_contain_text("waiting for your answer")
        open_page(page, service.url, f"#/runs/{other}")
        expect(page.locator("#ask-back form[data-kind=clarification] .asked")).to_have_text(ASKED)


def test_review_and_edit_the_plan_on_the_page(
    page: Page, offline_web: OfflineWeb, questions: list[str], tmp_path: Path
) -> None:
    settings = service_settings(offline_web, tmp_path, f"sqlite:///{tmp_path / 's.db'}")
    with running_service(settings) as service:
        open_page(page, service.url)
        page.check("#review-plan")
        assert_accessible(page, "ask with review")
        job_id = submit(page, questions[0], depth="quick", search="searxng")
        assert service.job(job_id)["options"]["review_plan"] is True
        editor = page.locator("#ask-back form[data-kind=plan]")
        expect(editor.locator(".plan-item").first).to_be_visible()
        planned = service.wait_for(job_id, "AWAITING_INPUT")["input_request"]
        expect(editor.locator("#ask-back textarea, textarea").first).to_have_value(planned["brief"])
        expect(editor.locator(".plan-item input")).to_have_count(len(planned["sub_questions"]))
        # seed 004: the plan's scope, evidence strategy and output format are shown with it
        outline = editor.locator("dl.plan-outline")
        for name, field in (
            ("Scope", "scope"),
            ("Evidence strategy", "evidence_strategy"),
            ("Output format", "output_format"),
        ):
            assert planned[field]
            expect(outline).to_contain_text(name)
            expect(outline).to_contain_text(planned[field])
        assert_accessible(page, "the plan editor")
        screenshot(page, "input-03-plan", full_page=True)

        # remove every sub-question: the service says why that cannot be researched
        while editor.locator(".plan-item").count():
            editor.locator(".plan-item button").first.click()
        editor.locator("button[type=submit]").click()
        expect(editor.locator(".field-error")).to_contain_text("1 to 8 sub-questions")
        assert service.job(job_id)["status"] == "AWAITING_INPUT"

        edited = ["Where was Christopher Nolan born?", "Which films did Sathish Kalathil direct?"]
        for text in edited:
            editor.locator("button", has_text="Add a sub-question").click()
            editor.locator(".plan-item input").last.fill(text)
        editor.locator("button[type=submit]").click()
        expect(page.locator("#ask-back")).to_be_hidden()
        page.wait_for_selector("article.report")
        events = [
            m.json() for m in read_sse(service.client, f"/v1/research/{job_id}/events") if m.id
        ]
        wave = next(e for e in events if e["type"] == "wave_started")
        assert [unit["text"] for unit in wave["data"]["units"]] == edited
        screenshot(page, "input-04-edited-plan-report", full_page=True)

        # the plan editor's cancel ends the run
        open_page(page, service.url)
        page.check("#review-plan")
        cancelled = submit(page, questions[1], depth="quick", search="searxng")
        page.locator("#ask-back form[data-kind=plan] button[data-action=cancel]").click()
        expect(page.locator("#ask-back")).to_be_hidden()
        assert service.wait_for(cancelled, "CANCELLED")["status"] == "CANCELLED"
