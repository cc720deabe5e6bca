"""The library view of the page (issue 25), in headless chromium against the real service
over the offline web: a finished job's verified quotes are found with the search box,
each result links to its run and its source; the filters narrow the results; a refused
query shows the API's problem on the page."""

from __future__ import annotations

import re
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

from .test_page import assert_accessible, open_page  # noqa: E402


def test_search_the_library_and_follow_a_result_to_its_run(
    page: Page, offline_web: OfflineWeb, questions: list[str], tmp_path: Path
) -> None:
    settings = service_settings(offline_web, tmp_path, f"sqlite:///{tmp_path / 's.db'}")
    with running_service(settings) as service:
        job_id = service.submit(questions[0]).json()["id"]
        service.wait_for(job_id, "COMPLETED")
        report = service.client.get(f"/v1/research/{job_id}/report").json()
        quote = next(e for e in report["evidence"] if e["verification"]["status"] == "PASS")
        words = " ".join(re.findall(r"[A-Za-z]{6,}", quote["quote"])[:2])
        domain = re.sub(r"^https?://([^/:]+).*", r"\1", quote["source_url"])

        open_page(page, service.url, "#/library")
        expect(page.locator("#view-library")).to_be_visible()
        expect(page.locator("#library-recipe option")).to_have_count(3)  # Any + the recipes
        page.fill("#library-q", words)
        page.click("#library-submit")
        hits = page.locator("#library-results li.library-hit")
        expect(hits.first).to_be_visible()
        quotes = page.locator('#library-results li[data-kind="quote"]')
        expect(quotes.first.locator("a.library-run")).to_have_attribute("href", f"#/runs/{job_id}")
        expect(quotes.first.locator("a.library-source-link")).to_have_attribute(
            "href", re.compile(r"^https?://")
        )
        assert_accessible(page, "library results")
        screenshot(page, "library-01-results", full_page=True)

        page.fill("#library-domain", domain)
        page.select_option("#library-recipe", "research")
        page.click("#library-submit")
        expect(quotes.first).to_be_visible()
        page.fill("#library-domain", "example.invalid")
        page.click("#library-submit")
        expect(page.locator("#library-empty")).to_be_visible()
        expect(hits).to_have_count(0)

        page.fill("#library-domain", "")
        page.fill("#library-q", "")
        page.click("#library-submit")
        expect(page.locator("#library-problem")).to_contain_text("the search query is empty")
        page.fill("#library-q", words)
        page.fill("#library-since", "2001-01-02")
        page.fill("#library-until", "2001-01-01")
        page.click("#library-submit")
        expect(page.locator("#library-problem")).to_contain_text("--since is not before")
        screenshot(page, "library-02-problem", full_page=True)

        page.fill("#library-since", "")
        page.fill("#library-until", "")
        page.click("#library-submit")
        page.locator('#library-results li[data-kind="quote"] a.library-run').first.click()
        page.wait_for_url(f"**/#/runs/{job_id}")
        expect(page.locator("#view-run")).to_be_visible()
