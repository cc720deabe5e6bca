"""The finished report's review on the page (issue 28, seed 002), in headless chromium
against the real service over the offline web with the scripted model: with "Review the
report before it is final" the run view lists the report's sentences, each in a box of
its own, and a feedback box (the run has a writer); edits and feedback together are
refused here; a refused edit shows the service's reason; an edit its citations do not
support is audited away and is not in the report shown."""

from __future__ import annotations

from pathlib import Path

import pytest

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

UNSUPPORTED = "The Eiffel Tower was painted green in 1999 by 4000 volunteers from Atlantis."


def test_review_the_report_on_the_page(
    page: Page, offline_web: OfflineWeb, questions: list[str], tmp_path: Path
) -> None:
    settings = service_settings(offline_web, tmp_path, f"sqlite:///{tmp_path / 's.db'}")
    with running_service(settings) as service:
        open_page(page, service.url)
        page.check("#review-report")
        job_id = submit(page, questions[0], depth="quick", search="searxng")
        assert service.job(job_id)["options"]["review_report"] is True
        panel = page.locator("#ask-back form[data-kind=report]")
        expect(panel.locator(".sentence-item").first).to_be_visible()
        asked = service.wait_for(job_id, "AWAITING_INPUT")["input_request"]
        sentences = asked["sentences"]
        expect(panel.locator(".sentence-item")).to_have_count(len(sentences))
        boxes = panel.locator("textarea[name=sentence]")
        expect(boxes.first).to_have_value(sentences[0]["text"])
        expect(panel.locator("textarea[name=feedback]")).to_be_visible()
        expect(page.locator("#run-status")).to_have_text("Waiting for you")
        assert_accessible(page, "the report review")
        screenshot(page, "input-07-report-review", full_page=True)

        # an edit and feedback together: the page asks for one
        boxes.first.fill(UNSUPPORTED)
        panel.locator("textarea[name=feedback]").fill("Shorter, please.")
        panel.locator("button[type=submit]").click()
        expect(panel.locator(".field-error")).to_contain_text("not both")
        panel.locator("textarea[name=feedback]").fill("")
        # every sentence emptied: the service's reason, and the run keeps waiting
        for box in boxes.all():
            box.fill("")
        panel.locator("button[type=submit]").click()
        expect(panel.locator(".field-error")).to_contain_text("removing every sentence")
        assert service.job(job_id)["status"] == "AWAITING_INPUT"

        for box, item in zip(boxes.all(), sentences, strict=True):
            box.fill(item["text"])
        boxes.first.fill(UNSUPPORTED)
        panel.locator("button[type=submit]").click()
        expect(page.locator("#ask-back")).to_be_hidden()
        page.wait_for_selector("article.report")
        events = [
            m.json() for m in read_sse(service.client, f"/v1/research/{job_id}/events") if m.id
        ]
        received = next(e for e in events if e["type"] == "input_received")["data"]
        assert received == {"kind": "report", "action": "edit", "edited": [sentences[0]["id"]]}
        audited = next(e for e in events if e["type"] == "edits_audited")["data"]
        assert audited["removed"] == 1
        expect(page.locator("article.report")).not_to_contain_text(UNSUPPORTED)
        expect(page.locator("article.report")).to_contain_text("review edited 1 sentence(s)")
        screenshot(page, "input-08-report-reviewed", full_page=True)
