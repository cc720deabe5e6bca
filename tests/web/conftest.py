"""The web page's tests run in a real headless browser: Debian's chromium driven by
Playwright for Python (its bundled driver; no browser is downloaded). Without either they
are skipped, unless DEEPRESEARCH_REQUIRE_BROWSER=1 (CI), which turns the skip into a
failure. Screenshots of each state go to build/screenshots/."""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from deepresearch.testing.web import OfflineWeb

if TYPE_CHECKING:
    from playwright.sync_api import Browser, BrowserContext, Page

# read before the autouse fixture clears DEEPRESEARCH_* variables for each test
REQUIRE_BROWSER = os.environ.get("DEEPRESEARCH_REQUIRE_BROWSER") == "1"
CHROMIUM = Path("/usr/bin/chromium")
ROOT = Path(__file__).resolve().parents[2]
SCREENSHOTS = ROOT / "build" / "screenshots"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def why_no_browser() -> str | None:
    if not CHROMIUM.exists():
        return f"Debian's chromium is not installed ({CHROMIUM}; apt-get install chromium)"
    if importlib.util.find_spec("playwright") is None:
        return "Playwright for Python is not installed (pip install playwright)"
    return None


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    why = why_no_browser()
    if why:
        if REQUIRE_BROWSER:
            pytest.fail(f"a browser is required here (DEEPRESEARCH_REQUIRE_BROWSER=1): {why}")
        pytest.skip(why)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(
            executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, timeout=60_000
        )
        try:
            yield launched
        finally:
            launched.close()


class PageErrors:
    """Script errors and console errors (a CSP violation is one) seen by a page."""

    def __init__(self) -> None:
        self.items: list[str] = []

    def watch(self, page: Page) -> None:
        page.on("pageerror", lambda error: self.items.append(f"pageerror: {error}"))
        page.on(
            "console",
            lambda message: (
                self.items.append(f"console: {message.text}")
                if message.type == "error" and not _expected_console_error(message.text)
                else None
            ),
        )


def _expected_console_error(text: str) -> bool:
    # the browser logs every failed request: refused connections while the network is
    # cut, and the 401/409/429 answers the tests provoke on purpose
    return "Failed to load resource" in text or "net::ERR_" in text


@pytest.fixture
def page_errors() -> PageErrors:
    return PageErrors()


@pytest.fixture
def context(browser: Browser, page_errors: PageErrors) -> Iterator[BrowserContext]:
    ctx = browser.new_context(viewport={"width": 1200, "height": 900}, accept_downloads=True)
    ctx.set_default_timeout(60_000)
    ctx.on("page", page_errors.watch)
    try:
        yield ctx
    finally:
        ctx.close()
    assert not page_errors.items, page_errors.items


@pytest.fixture
def page(context: BrowserContext) -> Page:
    return context.new_page()


@pytest.fixture(scope="session")
def offline_web(service_web: OfflineWeb) -> OfflineWeb:
    return service_web


def screenshot(page: Page, name: str, **options: Any) -> Path:
    """Save a screenshot of the page's current state as a test artifact."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / f"{name}.png"
    page.screenshot(path=str(path), **options)
    return path
