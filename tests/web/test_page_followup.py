"""A follow-up from the page, in headless chromium, against the real service over the
offline web with the scripted model: under a finished report a box asks a follow-up, which
opens as a run of its own; its report shows what it reused and the thread's turns, each a
link to its run; an empty question is refused on the page."""

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

from .test_page import assert_accessible, open_page, run_id, submit  # noqa: E402

FIRST = "Are Christopher Nolan and Sathish Kalathil both film directors?"
FOLLOW = "Which films has Christopher Nolan directed?"


def test_ask_a_followup_under_a_report_and_see_the_thread(
    page: Page, offline_web: OfflineWeb, tmp_path: Path
) -> None:
    settings = service_settings(offline_web, tmp_path, f"sqlite:///{tmp_path / 's.db'}")
    with running_service(settings) as service:
        open_page(page, service.url)
        first = submit(page, FIRST, depth="quick", search="searxng")
        page.wait_for_selector("article.report")
        box = page.locator("section.thread")
        expect(box.locator("[data-el=followup-question]")).to_be_visible()
        expect(box.locator("[data-el=turns]")).to_have_count(0)  # one turn: no list yet
        assert_accessible(page, "a report with its follow-up box")

        box.locator("[data-el=followup-submit]").click()  # empty: refused on the page
        expect(box.locator("[data-el=followup-status]")).to_have_text(
            "Write a follow-up question first."
        )
        box.locator("[data-el=followup-question]").fill(FOLLOW)
        box.locator("[data-el=followup-submit]").click()
        page.wait_for_url(lambda url: "#/runs/" in url and not url.endswith(first))
        second = run_id(page)
        assert second != first
        assert service.job(second)["options"]["followup_of"] == first
        page.wait_for_selector("article.report")
        thread = page.locator("section.thread")
        expect(thread.locator("[data-el=reuse]")).to_contain_text("reused")
        turns = thread.locator("[data-el=turns] li")
        expect(turns).to_have_count(2)
        expect(turns.nth(0).locator("a")).to_have_text(FIRST)
        expect(turns.nth(1).locator("[aria-current=page]")).to_have_text(FOLLOW)
        assert_accessible(page, "a follow-up's report with its thread")
        screenshot(page, "followup-01-thread", full_page=True)

        turns.nth(0).locator("a").click()  # back to the first turn, which lists both too
        page.wait_for_url(f"**/#/runs/{first}")
        page.wait_for_selector("section.thread [data-el=turns] li >> nth=1")
        expect(page.locator("section.thread [data-el=turns] li").nth(1).locator("a")).to_have_text(
            FOLLOW
        )
