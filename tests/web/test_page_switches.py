"""The page's switches for what a run does by default (issues 25 and 26), in headless
chromium against the real service: "No pre-search", "Read every page afresh" and "No
figures from the sources" send ``presearch``, ``use_library`` and ``images`` false;
left alone, none is sent (the server's settings hold)."""

from __future__ import annotations

from pathlib import Path

import pytest

from deepresearch.testing.web import OfflineWeb

from ..service.helpers import running_service, service_settings
from .conftest import REQUIRE_BROWSER, why_no_browser

WHY_NOT = why_no_browser()
if WHY_NOT:
    if REQUIRE_BROWSER:
        pytest.fail(f"a browser is required here (DEEPRESEARCH_REQUIRE_BROWSER=1): {WHY_NOT}")
    pytest.skip(WHY_NOT, allow_module_level=True)

from playwright.sync_api import Page  # noqa: E402

from .test_page import assert_accessible, open_page, submit  # noqa: E402


def test_the_switches_turn_off_what_is_on_by_default(
    page: Page, offline_web: OfflineWeb, questions: list[str], tmp_path: Path
) -> None:
    settings = service_settings(offline_web, tmp_path, f"sqlite:///{tmp_path / 's.db'}")
    with running_service(settings) as service:
        open_page(page, service.url)
        plain = submit(page, questions[0], depth="quick", search="searxng")
        assert service.job(plain)["options"] == {"depth": "quick", "search": "searxng"}
        service.wait_for(plain, "COMPLETED", "FAILED")
        open_page(page, service.url)
        for switch in ("#no-presearch", "#no-library", "#no-images"):
            page.check(switch)
        assert_accessible(page, "ask with the switches")
        job_id = submit(page, questions[1], depth="quick", search="searxng")
        assert service.job(job_id)["options"] == {
            "depth": "quick",
            "search": "searxng",
            "presearch": False,
            "use_library": False,
            "images": False,
        }
        service.wait_for(job_id, "COMPLETED", "FAILED")
