"""The findings review on the page (issue 15, seed 002), in headless chromium against the
real service over the offline web with the scripted model: with "Review the findings
before writing" the run view lists the verified findings with a keep box each and a gap
box; dropping every finding without a gap shows the service's reason; unticking one and
naming a gap sends both, the report has no trace of the dropped finding and cites what
the gap's wave found. The panel's cancel ends the run."""

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

GAP = "Where was Ed Wood born?"


def test_review_the_findings_on_the_page(
    page: Page, offline_web: OfflineWeb, questions: list[str], tmp_path: Path
) -> None:
    settings = service_settings(offline_web, tmp_path, f"sqlite:///{tmp_path / 's.db'}")
    with running_service(settings) as service:
        open_page(page, service.url)
        page.check("#review-findings")
        job_id = submit(page, questions[0], depth="quick", search="searxng")
        assert service.job(job_id)["options"]["review_findings"] is True
        panel = page.locator("#ask-back form[data-kind=findings]")
        expect(panel.locator(".finding-item").first).to_be_visible()
        asked = service.wait_for(job_id, "AWAITING_INPUT")["input_request"]
        findings = asked["findings"]
        expect(panel.locator(".finding-item")).to_have_count(len(findings))
        expect(panel.locator(".finding-item blockquote").first).to_have_text(findings[0]["quote"])
        expect(page.locator("#run-status")).to_have_text("Waiting for you")
        assert_accessible(page, "the findings review")
        screenshot(page, "input-05-findings", full_page=True)

        # untick every finding, name no gap: nothing would be left to write from
        for box in panel.locator("input[name=keep]").all():
            box.uncheck()
        panel.locator("button[type=submit]").click()
        expect(panel.locator(".field-error")).to_contain_text("dropping every finding")
        assert service.job(job_id)["status"] == "AWAITING_INPUT"

        for box in panel.locator("input[name=keep]").all()[1:]:
            box.check()
        panel.locator("textarea[name=gap]").fill(GAP)
        panel.locator("button[type=submit]").click()
        expect(page.locator("#ask-back")).to_be_hidden()
        page.wait_for_selector("article.report")
        events = [
            m.json() for m in read_sse(service.client, f"/v1/research/{job_id}/events") if m.id
        ]
        received = next(e for e in events if e["type"] == "input_received")["data"]
        assert received["dropped"] == [findings[0]["id"]] and received["gap"] == GAP
        report = service.client.get(f"/v1/research/{job_id}/report").json()
        kept = {item["id"] for item in report["evidence"]}
        assert findings[0]["id"] not in kept
        gap_id = received["sub_questions"][0]["id"]
        assert any(item.startswith(f"{gap_id}-") for item in kept)
        expect(page.locator("article.report")).not_to_contain_text(findings[0]["quote"])
        kept_quote = next(f["quote"] for f in findings[1:] if f["id"] in kept)
        expect(page.locator("article.report")).to_contain_text(kept_quote)
        screenshot(page, "input-06-findings-report", full_page=True)

        # the panel's cancel ends the run
        open_page(page, service.url)
        page.check("#review-findings")
        cancelled = submit(page, questions[1], depth="quick", search="searxng")
        page.locator("#ask-back form[data-kind=findings] button[data-action=cancel]").click()
        expect(page.locator("#ask-back")).to_be_hidden()
        assert service.wait_for(cancelled, "CANCELLED")["status"] == "CANCELLED"
