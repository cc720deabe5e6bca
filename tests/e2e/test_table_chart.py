"""A chart from a page's table (issue 26): a loopback page with a captioned figure and a
table of yearly numbers, the numbers stated nowhere else, gives offline a report whose
html, pdf and docx hold the figure and a chart whose every point cites its quote: the
table's row, verified verbatim against the stored page text."""

from __future__ import annotations

import io
import json
from html import escape
from pathlib import Path

import docx
from pypdf import PdfReader

from deepresearch.export.formats import render_bytes
from deepresearch.models import Report, SearchHit
from deepresearch.recipes.registry import get_recipe
from deepresearch.runner import run_research
from deepresearch.settings import load_settings
from deepresearch.settings_values import ROLES
from deepresearch.testing.research_script import research_script
from deepresearch.testing.scripted import ScriptedChatModel
from deepresearch.testing.static_search import StaticSearch

from .test_figures import Site, _png

QUESTION = "How much revenue did Acme Robotics make each year?"
AMOUNTS = {
    "2019": "$1.2 billion",
    "2020": "$1.5 billion",
    "2021": "$2.1 billion",
    "2022": "$2.8 billion",
}
CAPTION = "Acme Robotics revenue by year, in billions of dollars"


def _page() -> bytes:
    rows = "".join(f"<tr><td>{year}</td><td>{amount}</td></tr>" for year, amount in AMOUNTS.items())
    return (
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        "<title>Acme Robotics annual revenue</title></head><body><article>"
        "<h1>Acme Robotics annual revenue</h1>"
        "<p>The company from Ohio listed its shares on the exchange and sells its robot "
        "arms to warehouses in Europe and America, where most of its customers are.</p>"
        f'<figure><img src="/img/acme.png" alt="Bar chart of Acme Robotics revenue">'
        f"<figcaption>{CAPTION}</figcaption></figure>"
        "<table><thead><tr><th>Year</th><th>Revenue</th></tr></thead>"
        f"<tbody>{rows}</tbody></table></article></body></html>"
    ).encode()


async def test_a_table_of_yearly_numbers_is_charted_with_its_rows_as_quotes(
    tmp_path: Path,
) -> None:
    files = {"/page/acme": ("text/html", _page()), "/img/acme.png": ("image/png", _png())}
    with Site(files) as site:
        hit = SearchHit(
            url=site.url("/page/acme"),
            title="Acme Robotics annual revenue",
            snippet="Acme Robotics revenue grew every year",
            provider="static",
            rank=0,
        )
        settings = load_settings(
            allow_hosts=[site.host],
            data_dir=tmp_path / "data",
            depth="standard",
            min_domains=1,
            min_evidence=1,
            min_cited_evidence=1,
        )
        model = ScriptedChatModel(research_script())
        report = await run_research(
            QUESTION, settings, search=StaticSearch([hit]), models=dict.fromkeys(ROLES, model)
        )
    assert isinstance(report, Report)
    recipe = get_recipe("research")
    (source,) = [s for s in report.sources if s.url == site.url("/page/acme")]
    verified = {e.id: e for e in report.evidence if e.verified}

    (chart,) = json.loads(render_bytes(recipe, report, "json"))["charts"]
    assert chart["unit"] == "$ billion" and len(chart["points"]) >= 3
    for point in chart["points"]:  # each point is its table row, quoted verbatim
        item = verified[point["evidence_id"]]
        assert item.quote == f"| {point['label']} | {AMOUNTS[point['label']]} |"
        assert point["text"] == AMOUNTS[point["label"]]
        assert item.verification is not None and item.verification.method == "exact"

    html = render_bytes(recipe, report, "html").decode()
    assert html.count('<figure class="report-figure"') == 2  # the page's figure, the chart
    assert CAPTION in html
    for point in chart["points"]:
        quote = verified[point["evidence_id"]].quote
        cite = f'<a class="cite" href="#src-{source.number}" title="{escape(quote)}">'
        assert f"{point['text']}{cite}[{source.number}]</a>" in html

    pdf = PdfReader(io.BytesIO(render_bytes(recipe, report, "pdf")))
    assert sum(len(p.images) for p in pdf.pages) == 2
    text = " ".join(" ".join(p.extract_text() for p in pdf.pages).split())
    assert CAPTION in text
    assert all(f"{p['label']}: {p['text']} [{source.number}" in text for p in chart["points"])

    document = docx.Document(io.BytesIO(render_bytes(recipe, report, "docx")))
    assert len(document.inline_shapes) == 2
    paragraphs = " ".join(p.text for p in document.paragraphs)
    assert CAPTION in paragraphs
    for point in chart["points"]:
        assert f"{point['label']}: {point['text']} [{source.number}]" in paragraphs
