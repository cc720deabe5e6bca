"""The watches view of the page (issue 25), in headless chromium against the real service
over the offline web: a watch added with the form is listed with its schedule, state and
next due time; its first run's change report is shown as the API renders it, its run
linked; pause, resume and remove act through the API; refused input shows the API's
problem detail on the page."""

from __future__ import annotations

import time
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


def _add(page: Page, question: str, kind: str, schedule: str) -> None:
    page.fill("#watch-question", question)
    page.select_option("#watch-kind", kind)
    page.fill("#watch-schedule", schedule)
    page.click("#watch-add")


def test_add_watch_read_its_report_pause_resume_and_remove(
    page: Page, offline_web: OfflineWeb, questions: list[str], tmp_path: Path
) -> None:
    settings = service_settings(
        offline_web, tmp_path, f"sqlite:///{tmp_path / 's.db'}", watch_tick_s=0.2
    )
    with running_service(settings) as service:
        open_page(page, service.url, "#/watches")
        expect(page.locator("#watches-empty")).to_be_visible()
        refused = service.client.post("/v1/watches", json={"question": "q?", "every": "1s"})
        assert refused.status_code == 422
        _add(page, "q?", "every", "1s")
        expect(page.locator("#watches-problem")).to_contain_text(refused.json()["detail"])
        _add(page, "q?", "cron", "* * * * * *")
        expect(page.locator("#watches-problem")).to_be_visible()
        assert service.client.get("/v1/watches").json() == []  # nothing stored

        _add(page, questions[0], "every", "1d")
        item = page.locator("#watches-list li.watch-item")
        expect(item).to_have_count(1)
        expect(page.locator("#watches-problem")).to_be_hidden()
        expect(item.locator(".watch-question")).to_have_text(questions[0])
        expect(item.locator(".watch-meta")).to_contain_text("active")
        (watch,) = service.client.get("/v1/watches").json()

        deadline = time.monotonic() + 120
        while not service.client.get(f"/v1/watches/{watch['id']}").json()["runs"] or not all(
            r["summary"] for r in service.client.get(f"/v1/watches/{watch['id']}").json()["runs"]
        ):
            assert time.monotonic() < deadline
            time.sleep(0.3)
        shown = service.client.get(f"/v1/watches/{watch['id']}").json()
        [run] = shown["runs"]
        open_page(page, service.url, "#/")
        page.goto(f"{service.url}/#/watches")
        expect(item.locator(".watch-summary")).to_have_text(run["summary"])
        item.locator('button[data-action="reports"]').click()
        detail = page.locator("#watch-detail")
        md = service.client.get(f"/v1/watches/{watch['id']}/report").text
        expect(detail.locator("pre.watch-report")).to_have_text(md)
        expect(detail.locator(".watch-runs a")).to_have_attribute("href", f"#/runs/{run['job_id']}")
        assert_accessible(page, "watches")
        screenshot(page, "watches-01-report", full_page=True)

        item.locator('button[data-action="pause"]').click()
        expect(item).to_have_attribute("data-state", "paused")
        expect(item.locator('button[data-action="run-now"]')).to_be_disabled()
        item.locator('button[data-action="resume"]').click()
        expect(item).to_have_attribute("data-state", "active")
        item.locator('button[data-action="run-now"]').click()
        expect(page.locator("#watches-problem")).to_be_hidden()
        item.locator('button[data-action="remove"]').click()
        expect(page.locator("#watches-empty")).to_be_visible()
        expect(detail).to_be_hidden()
        assert service.client.get("/v1/watches").json() == []
