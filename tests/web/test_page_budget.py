"""The page's budget inputs in headless chromium, against the real service over the
offline web with the scripted model (issue 19): a bad budget is refused in the form, a
good one is sent as a number, and the report shows which budget ended the run and the
cost beside the tokens."""

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


def test_budgets_from_the_page(
    page: Page, offline_web: OfflineWeb, questions: list[str], tmp_path: Path
) -> None:
    settings = service_settings(
        offline_web,
        tmp_path,
        f"sqlite:///{tmp_path / 's.db'}",
        prices={"scripted": {"input": 0.4, "output": 1.6}},
    )
    with running_service(settings) as service:
        open_page(page, service.url)
        page.fill("#question", questions[0])
        page.fill("#max_tokens", "2.5")
        page.click("#ask-submit")
        expect(page.locator("#max_tokens-error")).to_have_text(
            "Enter a whole number above 0, or leave it empty."
        )
        expect(page.locator("#max_tokens")).to_have_attribute("aria-invalid", "true")
        assert "#/runs/" not in page.url  # nothing was sent
        assert_accessible(page, "ask with a bad budget")

        page.fill("#max_tokens", "4000")
        page.fill("#max_time", "600")
        job_id = submit(page, questions[0], depth="quick", search="searxng")
        assert service.job(job_id)["options"] == {
            "depth": "quick",
            "search": "searxng",
            "max_tokens": 4000,
            "max_time": 600,
        }
        page.wait_for_selector("article.report")
        report = service.client.get(f"/v1/research/{job_id}/report").json()
        assert report["limitations"][0].startswith("Budget reached: the token budget")
        expect(page.locator("article.report")).to_contain_text("Budget reached: the token budget")
        cost = report["usage"]["cost_usd"]
        assert cost > 0
        expect(page.locator("p.usage")).to_contain_text(f"cost ${cost:.4f}")
        screenshot(page, "budget-01-report", full_page=True)
