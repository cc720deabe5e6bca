"""The page draws a planned report's layouts in headless chromium, against the real
service over the offline web with the scripted model: a timeline as a table whose rows
carry their citations, a list as a bulleted list of cited items; and a disagreement only
the model sees, labelled as such."""

from __future__ import annotations

from pathlib import Path

import pytest

from deepresearch.testing.corpus import CorpusDocument
from deepresearch.testing.research_script import research_script
from deepresearch.testing.scripted import ScriptedChatModel
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


def test_the_page_draws_planned_tables_and_lists(
    page: Page, offline_web: OfflineWeb, questions: list[str], tmp_path: Path
) -> None:
    settings = service_settings(offline_web, tmp_path, f"sqlite:///{tmp_path / 's.db'}")
    model = ScriptedChatModel(research_script(prose_as="list"))  # it lists its points
    with running_service(settings, model=model) as service:
        open_page(page, service.url)
        job_id = submit(page, questions[1], depth="standard", search="searxng")
        page.wait_for_selector("article.report")
        report = service.client.get(f"/v1/research/{job_id}/report").json()
        layouts = {s["heading"]: s["layout"] for s in report["sections"]}
        assert "timeline" in layouts.values() and "list" in layouts.values()
        timeline = next(s for s in report["sections"] if s["layout"] == "timeline")
        table = page.locator("table.report-table").first
        expect(table.locator("thead th")).to_have_text(["Date", "Event", "Source"])
        expect(table.locator("tbody tr")).to_have_count(len(timeline["table"]["rows"]))
        expect(
            table.locator("tbody tr").first.locator("td").last.locator("button.cite").first
        ).to_be_visible()
        listed = next(s for s in report["sections"] if s["layout"] == "list")
        items = page.locator("ul.report-list > li")
        expect(items).to_have_count(len(listed["paragraphs"]))
        first = listed["paragraphs"][0]["sentences"][0]["text"]
        expect(items.first).to_contain_text(first[:40])
        assert_accessible(page, "planned report")
        screenshot(page, "sections-01-planned-report", full_page=True)


def test_the_page_says_which_disagreements_only_the_model_sees(page: Page, tmp_path: Path) -> None:
    """Two pages word the same fact too differently for the rule-based detector; the
    judge's claims call sees the disagreement. The page says so, as the Markdown does."""
    opened = (
        "The Millau Viaduct in southern France was opened to traffic in December 2004, after "
        "three years of construction over the valley of the river Tarn."
    )
    crossed = (
        "Cars first crossed the Millau Viaduct bridge in 2005, once the toll plaza north of "
        "the town had been finished by the motorway company."
    )
    documents = [
        CorpusDocument(id="opened", title="Millau Viaduct history", text=opened),
        CorpusDocument(id="crossed", title="Millau Viaduct traffic", text=crossed),
    ]
    with OfflineWeb(documents) as web:
        settings = service_settings(web, tmp_path, f"sqlite:///{tmp_path / 's.db'}")
        with running_service(settings) as service:
            open_page(page, service.url)
            job_id = submit(page, "When did the Millau Viaduct open to traffic?")
            page.wait_for_selector("article.report")
            report = service.client.get(f"/v1/research/{job_id}/report").json()
            bases = [c["contradiction_basis"] for c in report["claims"]["claims"]]
            assert {"model"} in [set(b.values()) for b in bases if b]
            notice = page.locator("p.disagree")
            expect(notice).to_contain_text("Sources disagree on")
            expect(notice.locator(".model-only")).to_contain_text(
                "only the model's reading finds the disagreement"
            )
            assert_accessible(page, "model-only disagreement")
