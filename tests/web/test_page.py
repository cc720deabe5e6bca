"""The web page end to end in headless chromium: the real service (uvicorn on loopback)
over the offline web with the scripted model, slowed down so a run can be watched. Each
test leaves screenshots of the states it reaches in build/screenshots/."""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Any

import bibtexparser
import pytest

from deepresearch.export.formats import FORMATS
from deepresearch.service.db import make_engine
from deepresearch.service.keys import create_key
from deepresearch.service.store import JobStore
from deepresearch.testing.web import OfflineWeb

from ..export.reading import cited_quotes, docx_text, pdf_text
from ..service.helpers import Service, read_sse, running_service, service_settings
from .conftest import REQUIRE_BROWSER, screenshot, why_no_browser
from .proxy import DroppableProxy

WHY_NOT = why_no_browser()
if WHY_NOT:
    if REQUIRE_BROWSER:
        pytest.fail(f"a browser is required here (DEEPRESEARCH_REQUIRE_BROWSER=1): {WHY_NOT}")
    pytest.skip(WHY_NOT, allow_module_level=True)

from playwright.sync_api import BrowserContext, Page, expect  # noqa: E402

# WCAG 2.x contrast of every visible piece of text against what is behind it
CONTRAST_JS = """
() => {
  const parse = (c) => {
    const m = /rgba?\\(([^)]+)\\)/.exec(c || "");
    if (!m) return null;
    const p = m[1].split(/[\\s,/]+/).filter(Boolean).map(Number);
    return [p[0], p[1], p[2], p.length > 3 ? p[3] : 1];
  };
  const blend = (top, under) => {
    const a = top[3];
    return [0, 1, 2].map((i) => top[i] * a + under[i] * (1 - a)).concat([1]);
  };
  const lum = (rgb) => {
    const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
    return 0.2126 * f(rgb[0]) + 0.7152 * f(rgb[1]) + 0.0722 * f(rgb[2]);
  };
  const backdrop = (el) => {
    const layers = [];
    for (let e = el; e; e = e.parentElement) {
      const c = parse(getComputedStyle(e).backgroundColor);
      if (c && c[3] > 0) { layers.push(c); if (c[3] >= 1) break; }
    }
    let bg = matchMedia("(prefers-color-scheme: dark)").matches ? [0, 0, 0, 1] : [255, 255, 255, 1];
    for (const layer of layers.reverse()) bg = blend(layer, bg);
    return bg;
  };
  const bad = [];
  for (const el of document.querySelectorAll("body *")) {
    if (!el.checkVisibility({ opacityProperty: true, visibilityProperty: true })) continue;
    if (el.closest(".visually-hidden, :disabled")) continue;
    if (![...el.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim())) continue;
    const style = getComputedStyle(el);
    const bg = backdrop(el);
    const fg = blend(parse(style.color), bg);
    const [hi, lo] = [lum(fg), lum(bg)].sort((a, b) => b - a);
    const ratio = (hi + 0.05) / (lo + 0.05);
    const size = parseFloat(style.fontSize);
    const large = size >= 24 || (Number(style.fontWeight) >= 700 && size >= 18.66);
    if (ratio < (large ? 3 : 4.5)) {
      bad.push(`${el.tagName}.${el.className} "${el.textContent.trim().slice(0, 30)}" ${ratio.toFixed(2)}`);
    }
  }
  return bad;
}
"""

UNLABELLED_CONTROLS_JS = """
() => [...document.querySelectorAll("input, select, textarea, button")]
  .filter((el) => el.checkVisibility())
  .filter((el) => !(el.labels && el.labels.length) && !el.getAttribute("aria-label")
    && !(el.textContent || "").trim())
  .map((el) => el.outerHTML.slice(0, 80))
"""


# ---- helpers ------------------------------------------------------------------------------


def open_page(page: Page, url: str, route: str = "") -> None:
    page.goto(f"{url}/{route}")
    page.wait_for_selector("html[data-ready=true]", state="attached")


def run_id(page: Page) -> str:
    page.wait_for_url("**/#/runs/*")
    return page.url.split("#/runs/", 1)[1]


def rendered_events(page: Page) -> list[tuple[int, str]]:
    items: list[list[Any]] = page.eval_on_selector_all(
        ".event-log li", "els => els.map(e => [Number(e.dataset.seq), e.dataset.type])"
    )
    return [(int(seq), str(kind)) for seq, kind in items]


def stored_events(
    service: Service, job_id: str, headers: dict[str, str] | None = None
) -> list[tuple[int, str]]:
    messages = read_sse(service.client, f"/v1/research/{job_id}/events", headers=headers)
    return [(int(m.id), str(m.event)) for m in messages if m.id is not None]


def assert_caught_up_exactly(
    page: Page, service: Service, job_id: str, headers: dict[str, str] | None = None
) -> list[tuple[int, str]]:
    """The events the page rendered are exactly the stored ones: no gap, no duplicate."""
    stored = stored_events(service, job_id, headers)
    assert [seq for seq, _ in stored] == list(range(1, len(stored) + 1))
    expect(page.locator(".event-log li")).to_have_count(len(stored))
    assert rendered_events(page) == stored
    connection = page.locator(".connection")
    assert connection.get_attribute("data-duplicates") == "0"
    assert connection.get_attribute("data-gaps") == "0"
    return stored


def submit(page: Page, question: str, **choices: str) -> str:
    page.fill("#question", question)
    for name, value in choices.items():
        page.select_option(f"#{name}", value)
    page.click("#ask-submit")
    return run_id(page)


def assert_accessible(page: Page, where: str) -> None:
    assert page.evaluate(UNLABELLED_CONTROLS_JS) == [], where
    assert page.evaluate(CONTRAST_JS) == [], where


def wait_until(condition: Any, timeout: float = 60, what: str = "condition") -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)


# ---- tests --------------------------------------------------------------------------------


def test_ask_watch_live_and_read_a_report_with_checkable_citations(
    page: Page, offline_web: OfflineWeb, questions: list[str], tmp_path: Path
) -> None:
    settings = service_settings(offline_web, tmp_path, f"sqlite:///{tmp_path / 's.db'}")
    with running_service(settings, latency_s=0.3) as service:
        open_page(page, service.url)
        expect(page.locator("#view-ask")).to_be_visible()
        # the recipes are the service's (GET /v1/recipes), the default one chosen
        expect(page.locator("#recipe option")).to_have_text(["Research", "Employer"])
        expect(page.locator("#recipe")).to_have_value("research")
        page.select_option("#recipe", "employer")
        expect(page.locator("#recipe-help")).to_contain_text("Employer: A profile")
        page.select_option("#recipe", "research")
        assert_accessible(page, "ask")
        screenshot(page, "01-ask")

        job_id = submit(page, questions[0], depth="quick", search="searxng")
        # stages and sources appear while the run is still running
        page.wait_for_selector(".timeline .step[data-stage=plan]")
        page.wait_for_selector(".live-sources tbody[data-el=sources] tr")
        assert service.job(job_id)["status"] == "RUNNING"
        expect(page.locator("#run-status")).to_have_text("Running")
        first = page.locator(".live-sources tbody[data-el=sources] tr").first
        expect(first.locator(".src-tier")).not_to_be_empty()
        expect(first.locator(".src-score")).to_have_text(re.compile(r"^\d\.\d\d$"))
        expect(page.locator(".subqs li").first).to_be_visible()
        assert page.locator("[data-el=stat-tokens]").inner_text() != "0 / 0"
        assert_accessible(page, "watch")
        screenshot(page, "02-watch-live", full_page=True)

        page.wait_for_selector("article.report")
        expect(page.locator("#run-status")).to_have_text("Completed")
        assert_caught_up_exactly(page, service, job_id)
        report = service.client.get(f"/v1/research/{job_id}/report").json()
        sources = service.client.get(f"/v1/research/{job_id}/sources").json()["sources"]

        # the audit summary says how many sentences were checked and supported
        audit = report["audit"]
        expect(page.locator(".audit-line")).to_contain_text(
            f"{audit['checked']} of {audit['sentences']} sentences checked"
        )
        expect(page.locator(".audit-line")).to_contain_text(f"{audit['supported']} supported")
        # the cited sources, and every source considered with its scores and reason
        expect(page.locator(".cited-sources li")).to_have_count(len(report["sources"]))
        rows = page.locator(".considered-table tbody tr")
        expect(rows).to_have_count(len(sources))
        for index, source in enumerate(
            sorted(sources, key=lambda s: (-s["cited"], -(s["decision"] == "read"), -s["final"]))
        ):
            expect(rows.nth(index).locator(".reason")).to_have_text(source["reason"])
        # links go only to cited sources, in a new tab with no opener and no referrer
        cited_urls = {ref["url"] for ref in report["sources"]}
        links = page.eval_on_selector_all(
            "a[target=_blank]", "els => els.map(a => [a.href, a.rel])"
        )
        assert links and all(rel == "noopener noreferrer" for _, rel in links)
        assert {href for href, _ in links} <= cited_urls
        for fmt in FORMATS:
            link = page.locator(f".downloads a[data-format={fmt}]")
            assert link.get_attribute("href") == f"v1/research/{job_id}/report?format={fmt}"
        with page.expect_download() as download:
            page.click(".downloads a[data-format=md]")
        assert Path(download.value.path()).read_text().startswith("# ")
        # the PDF and Word downloads are real documents that carry the verified quotes
        first_quote = " ".join(cited_quotes(report)[0].split()[:4])
        with page.expect_download() as download:
            page.click(".downloads a[data-format=pdf]")
        assert download.value.suggested_filename == f"{job_id}.pdf"
        assert first_quote in pdf_text(Path(download.value.path()))
        with page.expect_download() as download:
            page.click(".downloads a[data-format=docx]")
        assert download.value.suggested_filename == f"{job_id}.docx"
        assert first_quote in docx_text(Path(download.value.path()))
        # the cited sources as BibTeX, saved as a .bib file
        with page.expect_download() as download:
            page.click(".downloads a[data-format=bibtex]")
        assert download.value.suggested_filename == f"{job_id}.bib"
        entries = bibtexparser.parse_file(download.value.path()).entries
        assert [entry["url"] for entry in entries] == [ref["url"] for ref in report["sources"]]
        assert_accessible(page, "report")
        screenshot(page, "03-report", full_page=True)

        # a citation shows its verified quote on hover, on keyboard focus and on click
        verified = {
            item["quote"]
            for item in report["evidence"]
            if item["verification"] and item["verification"]["status"] == "PASS"
        }
        cite = page.locator("button.cite").first
        cite.hover()
        popover = page.locator(".cite-pop:not([hidden])")
        expect(popover).to_have_count(1)
        assert popover.locator(".pop-quote").first.inner_text() in verified
        expect(popover.locator(".pop-verified").first).to_contain_text("Verified")
        page.mouse.move(0, 0)
        expect(page.locator(".cite-pop:not([hidden])")).to_have_count(0)

        second = page.locator("button.cite").nth(1)
        second.focus()
        expect(second).to_have_attribute("aria-expanded", "true")
        pop_id = second.get_attribute("aria-controls")
        quote_box = page.locator(f"#{pop_id}")
        expect(quote_box).to_be_visible()
        page.keyboard.press("Tab")  # into the quote box: its link to the source
        link = quote_box.locator("a.pop-link")
        expect(link).to_be_focused()
        assert link.get_attribute("rel") == "noopener noreferrer"
        assert link.get_attribute("href") in cited_urls
        page.keyboard.press("Escape")
        expect(quote_box).to_be_hidden()
        expect(second).to_be_focused()

        cite.click()
        expect(page.locator(".cite-pop:not([hidden])")).to_have_count(1)
        page.mouse.move(0, 0)
        expect(page.locator(".cite-pop:not([hidden])")).to_have_count(1)  # pinned by the click
        screenshot(page, "04-citation-quote")
        page.keyboard.press("Escape")

        # usable on a phone: nothing wider than the screen
        page.set_viewport_size({"width": 390, "height": 844})
        assert page.evaluate("document.documentElement.scrollWidth <= innerWidth")
        page.locator("button.cite").first.click()
        box = page.locator(".cite-pop:not([hidden])").bounding_box()
        assert box and box["x"] >= 0 and box["x"] + box["width"] <= 390
        screenshot(page, "05-report-phone")
        page.keyboard.press("Escape")
        page.emulate_media(color_scheme="dark")
        assert_accessible(page, "report, dark")
        screenshot(page, "06-report-phone-dark", full_page=True)


def test_a_dropped_connection_is_restored_and_the_view_catches_up_exactly(
    context: BrowserContext,
    page: Page,
    offline_web: OfflineWeb,
    questions: list[str],
    tmp_path: Path,
) -> None:
    settings = service_settings(offline_web, tmp_path, f"sqlite:///{tmp_path / 's.db'}")
    with (
        running_service(settings, latency_s=1.2) as service,
        DroppableProxy(service.url) as proxy,
    ):
        open_page(page, proxy.url)
        job_id = submit(page, questions[1])
        connection = page.locator(".connection")
        page.wait_for_selector(".event-log li[data-seq='4']", state="attached")
        expect(connection).to_have_attribute("data-state", "live")

        store = JobStore(make_engine(settings.database_url or ""))

        def stored_count() -> int:  # what the service has stored so far (not following it)
            return len(store.events_after(job_id, 0, limit=10_000))

        # 1: the browser goes offline, events are stored meanwhile, then it comes back
        context.set_offline(True)
        expect(connection).to_have_attribute("data-state", "waiting")
        assert service.job(job_id)["status"] == "RUNNING"
        seen = len(rendered_events(page))
        wait_until(lambda: stored_count() > seen, what="events stored while offline")
        screenshot(page, "07-offline")
        context.set_offline(False)
        wait_until(lambda: len(rendered_events(page)) > seen, what="the view to catch up")

        # 2: the network path breaks (every connection reset, new ones refused) and heals
        assert service.job(job_id)["status"] == "RUNNING"
        proxy.drop()
        expect(connection).to_have_attribute("data-state", "waiting")
        expect(connection).to_contain_text("Connection lost")
        seen = len(rendered_events(page))
        wait_until(lambda: stored_count() > seen + 1, what="events stored while cut off")
        screenshot(page, "08-connection-lost")
        proxy.restore()

        page.wait_for_selector("article.report")
        stored = assert_caught_up_exactly(page, service, job_id)
        assert stored[-1][1] == "run_completed"
        assert int(connection.get_attribute("data-connections") or 0) >= 3
        assert int(connection.get_attribute("data-drops") or 0) >= 2
        screenshot(page, "09-caught-up", full_page=True)
        store.engine.dispose()


def test_cancel_a_running_run(
    page: Page, offline_web: OfflineWeb, questions: list[str], tmp_path: Path
) -> None:
    settings = service_settings(offline_web, tmp_path, f"sqlite:///{tmp_path / 's.db'}")
    with running_service(settings, latency_s=1.5) as service:
        open_page(page, service.url)
        job_id = submit(page, questions[2])
        page.wait_for_selector(".timeline .step[data-stage=plan]")
        cancel = page.get_by_role("button", name="Cancel run")
        expect(cancel).to_be_enabled()
        cancel.click()
        expect(page.locator("#run-status")).to_have_text("Cancelled", timeout=30_000)
        expect(cancel).to_be_hidden()
        assert service.job(job_id)["status"] == "CANCELLED"
        expect(page.locator(".connection")).to_have_attribute("data-state", "ended")
        expect(page.locator("[data-el=stat-stage]")).to_have_text("Cancelled")
        stored = assert_caught_up_exactly(page, service, job_id)
        assert stored[-1][1] == "run_cancelled"
        expect(page.locator(".timeline .step").last).to_have_attribute("data-status", "stopped")
        expect(page.locator("article.report")).to_have_count(0)
        screenshot(page, "10-cancelled", full_page=True)


def test_history_reopens_a_finished_run_and_resumes_an_active_one(
    page: Page, offline_web: OfflineWeb, questions: list[str], tmp_path: Path
) -> None:
    settings = service_settings(offline_web, tmp_path, f"sqlite:///{tmp_path / 's.db'}")
    with running_service(settings, latency_s=0.05) as service:
        finished = service.submit(questions[3]).json()["id"]
        service.wait_for(finished, "COMPLETED")
        service.model.latency_s = 0.8  # the second run is still going when the page opens it
        active = service.submit(questions[4]).json()["id"]

        open_page(page, service.url, "#/history")
        items = page.locator(".history-item")
        expect(items).to_have_count(2)
        expect(items.nth(0)).to_have_attribute("data-job", active)  # newest first
        expect(items.nth(0).locator(".live-hint")).to_contain_text("watch live")
        expect(items.nth(1)).to_contain_text(questions[3])
        expect(items.nth(1).locator(".badge")).to_have_text("Completed")
        assert_accessible(page, "history")
        screenshot(page, "11-history")

        # one click on the active run: its live view resumes and follows it to the end
        items.nth(0).locator("a").click()
        assert run_id(page) == active
        expect(page.locator(".connection")).to_have_attribute("data-state", "live")
        page.wait_for_selector("article.report")
        assert_caught_up_exactly(page, service, active)

        # back to history, one click on the finished run: its report at once
        page.get_by_role("link", name="History").first.click()
        expect(items).to_have_count(2)
        expect(items.nth(0).locator(".badge")).to_have_text("Completed")
        items.nth(1).locator("a").click()
        assert run_id(page) == finished
        expect(page.locator("#run-heading")).to_have_text(questions[3])
        page.wait_for_selector("article.report")
        expect(page.locator("details.watch-panel")).not_to_have_attribute("open", "")
        assert_caught_up_exactly(page, service, finished)
        expect(page.locator("button.cite").first).to_be_visible()
        screenshot(page, "12-reopened-report")


def test_keys_required_the_page_asks_for_one_and_keeps_it_in_the_tab(
    page: Page, offline_web: OfflineWeb, questions: list[str], tmp_path: Path
) -> None:
    settings = service_settings(offline_web, tmp_path, f"sqlite:///{tmp_path / 's.db'}")
    with running_service(settings, latency_s=0.2) as service:
        store = JobStore(make_engine(settings.database_url or ""))
        _, token = create_key(store, "alice")
        store.engine.dispose()

        open_page(page, service.url)
        expect(page.locator("#view-key")).to_be_visible()
        expect(page.locator("#key-input")).to_be_focused()
        assert_accessible(page, "key")
        screenshot(page, "13-key-required")

        page.fill("#key-input", "dr_not-a-key")
        page.click("#key-form button[type=submit]")
        expect(page.locator("#key-error")).to_contain_text("not valid")
        expect(page.locator("#view-key")).to_be_visible()
        screenshot(page, "14-key-refused")

        page.fill("#key-input", token)
        page.press("#key-input", "Enter")
        expect(page.locator("#view-ask")).to_be_visible()
        expect(page.locator("#key-status")).to_be_visible()
        assert page.evaluate("sessionStorage.getItem('deepresearch.apiKey')") == token
        assert page.evaluate("localStorage.length") == 0

        job_id = submit(page, questions[5])
        page.wait_for_selector("article.report")
        auth = {"Authorization": f"Bearer {token}"}
        assert_caught_up_exactly(page, service, job_id, headers=auth)
        # a download needs the key too: it goes through fetch
        with page.expect_download() as download:
            page.click(".downloads a[data-format=json]")
        assert Path(download.value.path()).read_text().startswith("{")
        with page.expect_download() as download:
            page.click(".downloads a[data-format=pdf]")
        assert Path(download.value.path()).read_bytes().startswith(b"%PDF-")
        assert token not in page.content()  # kept in the tab's storage, not in the page

        page.click("#forget-key")
        expect(page.locator("#view-key")).to_be_visible()
        assert page.evaluate("sessionStorage.getItem('deepresearch.apiKey')") is None


def test_ask_validates_in_the_page_and_shows_why_the_service_refuses(
    page: Page, offline_web: OfflineWeb, questions: list[str], tmp_path: Path
) -> None:
    settings = service_settings(
        offline_web, tmp_path, f"sqlite:///{tmp_path / 's.db'}", submissions_per_window=1
    )
    with running_service(settings) as service:
        open_page(page, service.url)
        page.click("#ask-submit")
        expect(page.locator("#question-error")).to_have_text("Enter a question to research.")
        expect(page.locator("#question")).to_have_attribute("aria-invalid", "true")
        expect(page.locator("#question")).to_be_focused()
        page.fill("#question", questions[6])
        page.fill("#model", "gpt 4")
        page.click("#ask-submit")
        expect(page.locator("#question-error")).to_be_hidden()
        expect(page.locator("#model-error")).to_contain_text("provider:model")
        expect(page.locator("#model")).to_be_focused()
        screenshot(page, "15-validation")
        assert service.client.get("/v1/research").json()["jobs"] == []  # nothing was sent

        page.fill("#model", "")
        job_id = submit(page, questions[6])
        page.wait_for_selector("article.report")
        assert service.job(job_id)["status"] == "COMPLETED"

        page.get_by_role("link", name="Ask").click()
        page.fill("#question", questions[7])
        page.click("#ask-submit")
        problem = page.locator("#ask-problem")
        expect(problem).to_be_visible()
        expect(problem).to_contain_text("429")
        expect(problem).to_contain_text("at most 1 submissions per 900 s")
        expect(page.locator("#view-ask")).to_be_visible()
        assert_accessible(page, "refused")
        screenshot(page, "16-refused")


def test_a_refusal_shows_what_to_do_about_it(
    page: Page, offline_web: OfflineWeb, questions: list[str], tmp_path: Path
) -> None:
    settings = service_settings(offline_web, tmp_path, f"sqlite:///{tmp_path / 's.db'}")
    with running_service(settings) as service:
        open_page(page, service.url)
        page.fill("#question", questions[6])
        page.fill("#model", "none")
        page.select_option("#search", "tavily")  # the server has no Tavily key
        page.click("#ask-submit")
        problem = page.locator("#ask-problem")
        expect(problem).to_contain_text("422")
        # the detail says what is wrong, the hint what to do
        expect(problem.locator(".problem-detail")).to_contain_text("tavily")
        expect(problem.locator(".problem-hint")).to_contain_text("options.search")
        assert service.client.get("/v1/research").json()["jobs"] == []
