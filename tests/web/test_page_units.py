"""The page shows each research unit's summary from its ``evidence_added`` event (seed
004): a unit cut at ``unit_timeout_s`` is "Timed out" on its sub-question, with the reason
and how long it ran, in headless chromium against the real service over the offline web."""

from __future__ import annotations

from pathlib import Path

import pytest

from deepresearch.core.units import TIMED_OUT
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


def test_a_unit_cut_at_its_time_limit_shows_timed_out_with_its_reason(
    page: Page, offline_web: OfflineWeb, questions: list[str], tmp_path: Path
) -> None:
    # every summary takes 0.5 s, so a unit that reads a page runs past its 0.2 s
    settings = service_settings(
        offline_web, tmp_path, f"sqlite:///{tmp_path / 's.db'}", unit_timeout_s=0.2
    )
    with running_service(settings, latency_s=0.5) as service:
        open_page(page, service.url)
        job_id = submit(page, questions[0], depth="quick", search="searxng")
        page.wait_for_selector("article.report")
        # the run's live panel folds away when the report is there: open it again
        page.locator("details.watch-panel > summary").click()
        cut = page.locator('ol.subqs li[data-status="timed_out"]')
        expect(cut.first).to_be_visible()
        expect(cut.first.locator(".subq-status")).to_have_text("Timed out")
        expect(cut.first.locator(".subq-detail")).to_contain_text(TIMED_OUT)
        expect(cut.first.locator(".subq-detail")).to_contain_text("unit ran 0.")
        report = service.client.get(f"/v1/research/{job_id}/report").json()
        assert any(TIMED_OUT in line for line in report["limitations"])
        assert_accessible(page, "a unit timed out")
        screenshot(page, "units-01-timed-out", full_page=True)
