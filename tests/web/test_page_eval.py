"""The page's council and evaluation controls in headless chromium, against the real
service over the offline web with the scripted model: the Ask form sends ``council`` and
``evaluate``, the Read view shows the evaluation (the figures and the judge's four scores
with reasons), and a report read without one can be evaluated from the page."""

from __future__ import annotations

from pathlib import Path

import pytest

from deepresearch.testing.web import OfflineWeb

from ..service.helpers import running_service, service_settings
from .conftest import REQUIRE_BROWSER, screenshot, why_no_browser

WHY_NOT = why_no_browser()
if WHY_NOT:
    if REQUIRE_BROWSER:
        pytest.fail(f"a browser is required here (DEEPRESEARCH_REQUIRE_BROWSER=1): {WHY_NOT}")
    pytest.skip(WHY_NOT, allow_module_level=True)

from playwright.sync_api import Page, expect  # noqa: E402

from .test_page import assert_accessible, open_page, submit  # noqa: E402

DIMENSIONS = ["Comprehensiveness", "Insight", "Instruction following", "Readability"]


def test_council_and_eval_from_the_page(
    page: Page, offline_web: OfflineWeb, questions: list[str], tmp_path: Path
) -> None:
    settings = service_settings(offline_web, tmp_path, f"sqlite:///{tmp_path / 's.db'}")
    with running_service(settings) as service:
        open_page(page, service.url)
        # choosing Deep checks the council box (the server's default there) until it is touched
        expect(page.locator("#council")).not_to_be_checked()
        page.select_option("#depth", "deep")
        expect(page.locator("#council")).to_be_checked()
        page.select_option("#depth", "quick")
        expect(page.locator("#council")).not_to_be_checked()
        page.check("#council")
        page.check("#evaluate")
        assert_accessible(page, "ask with checks")
        job_id = submit(page, questions[0], search="searxng")
        assert service.job(job_id)["options"] == {
            "depth": "quick",
            "search": "searxng",
            "council": True,
            "evaluate": True,
        }
        page.wait_for_selector("article.report")
        evaluation = service.job(job_id)["evaluation"]
        box = page.locator("section.evaluation")
        expect(box.locator(".eval-scores tbody tr th")).to_have_text(DIMENSIONS)
        for score in evaluation["scores"]:
            row = box.locator(f"tr[data-dimension={score['dimension']}]")
            expect(row.locator(".num")).to_have_text(f"{score['score']:.1f}")
            expect(row.locator(".reason")).to_have_text(score["reason"])
        expect(box.locator(".eval-facts")).to_contain_text(
            f"{evaluation['supported_cited']} of {evaluation['cited_sentences']} cited sentences"
        )
        assert_accessible(page, "report with its evaluation")
        screenshot(page, "eval-01-report", full_page=True)

        # a report read without an evaluation gets one from the page
        open_page(page, service.url)
        plain = submit(page, questions[1], depth="quick", search="searxng")
        assert "evaluate" not in service.job(plain)["options"]
        page.wait_for_selector("article.report")
        button = page.locator("section.evaluation button[data-el=evaluate]")
        expect(button).to_be_visible()
        button.click()
        expect(page.locator("section.evaluation .eval-scores tbody tr")).to_have_count(4)
        assert service.job(plain)["evaluation"]["scores"]
        screenshot(page, "eval-02-evaluated-from-the-page", full_page=True)
