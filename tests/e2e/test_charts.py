"""Charts from verified numbers end to end (issue 26, item 2): a loopback page stating an
amount a year gives, offline, a report whose timeline is charted in HTML, PDF and DOCX,
each point citing the quote it was read from; the prose section gets no chart; the
replay draws the same bytes."""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from pathlib import Path

import docx
import pytest
from pypdf import PdfReader

from deepresearch.compose.replay import replay_run
from deepresearch.export.formats import render_bytes
from deepresearch.models import Report
from deepresearch.recipes.registry import get_recipe
from deepresearch.runner import run_research
from deepresearch.settings_values import ROLES
from deepresearch.testing.corpus import CorpusDocument
from deepresearch.testing.research_script import research_script
from deepresearch.testing.scripted import ScriptedChatModel
from deepresearch.testing.web import OfflineWeb

from .helpers import offline_settings

QUESTION = "How did Acme Robotics revenue grow from 2019 to 2022?"
YEARS = {
    "2019": "In 2019 Acme Robotics revenue was $1.2 billion, the first year of its robot arms.",
    "2020": "In 2020 Acme Robotics revenue rose to $1.5 billion as warehouses bought more robots.",
    "2021": "In 2021 Acme Robotics revenue reached $2.1 billion after its factory in Ohio opened.",
    "2022": "In 2022 Acme Robotics revenue grew to $2.8 billion with new customers in Europe.",
}
PAGE = """<!doctype html><html><head><title>Acme Robotics annual revenue</title></head>
<body><article><h1>Acme Robotics annual revenue</h1>
<p>Acme Robotics revenue grew every year since the company listed its shares.</p>
{paragraphs}
<table><thead><tr><th>Year</th><th>Revenue</th></tr></thead><tbody>{rows}</tbody></table>
</article></body></html>"""


@pytest.fixture(scope="module")
def acme_web(tmp_path_factory: pytest.TempPathFactory) -> Iterator[OfflineWeb]:
    page = tmp_path_factory.mktemp("acme") / "acme.html"
    # the page's table repeats the amounts; its rows are quotes too (``core.table_rows``),
    # ranked with the sentences above it (tests/e2e/test_table_chart.py: a table alone)
    amounts = ("$1.2 billion", "$1.5 billion", "$2.1 billion", "$2.8 billion")
    rows = "".join(
        f"<tr><td>{year}</td><td>{amount}</td></tr>"
        for year, amount in zip(YEARS, amounts, strict=True)
    )
    paragraphs = "\n".join(f"<p>{text}</p>" for text in YEARS.values())
    page.write_text(PAGE.format(paragraphs=paragraphs, rows=rows), encoding="utf-8")
    doc = CorpusDocument(id="acme", title="Acme Robotics annual revenue", text="-", source=page)
    with OfflineWeb([doc]) as web:
        yield web


async def test_a_timeline_of_yearly_amounts_is_charted_in_every_format_with_its_quotes(
    acme_web: OfflineWeb, tmp_path: Path
) -> None:
    settings = offline_settings(acme_web, tmp_path, depth="standard")
    model = ScriptedChatModel(research_script())
    report = await run_research(QUESTION, settings, models=dict.fromkeys(ROLES, model))
    assert isinstance(report, Report)
    recipe = get_recipe("research")
    verified = {e.id: e for e in report.evidence if e.verified}

    charts = json.loads(render_bytes(recipe, report, "json"))["charts"]
    assert len(charts) == 1  # the timeline; the prose section states numbers too, uncharted
    points = charts[0]["points"]
    assert len(points) >= 3 and charts[0]["unit"] == "$ billion"
    for point in points:  # each point is a number its verified quote states
        quote = verified[point["evidence_id"]].quote
        assert point["text"] in quote and point["label"] in quote

    page = render_bytes(recipe, report, "html").decode()
    # the one image block of the Document (a figure from a page is one too)
    assert page.count('<figure class="report-figure"') == 1
    assert page.count('<img src="data:image/png;base64,') == 1
    caption = page.split("<figcaption", 1)[1].split(">", 1)[1].split("</figcaption>", 1)[0]
    for point in points:  # the caption cites each point's quote
        quote = verified[point["evidence_id"]].quote
        assert f'{point["text"]}<a class="cite" href="#src-1" title="{quote}">[1]</a>' in caption
    assert (
        "http" not in page.split("<figure", 1)[1].split("</figure>", 1)[0].split("<figcaption")[0]
    )

    pdf = PdfReader(io.BytesIO(render_bytes(recipe, report, "pdf")))
    assert sum(len(p.images) for p in pdf.pages) == 1
    text = " ".join(" ".join(p.extract_text() for p in pdf.pages).split())
    # (pypdf may split a link's text from the stop after it: "[1 ].")
    assert all(f"{point['label']}: {point['text']} [1" in text for point in points)

    document = docx.Document(io.BytesIO(render_bytes(recipe, report, "docx")))
    assert len(document.inline_shapes) == 1
    paragraphs = " ".join(p.text for p in document.paragraphs)
    assert all(f"{point['label']}: {point['text']} [1]" in paragraphs for point in points)

    _, replayed = await replay_run(settings, report.run_id)
    for fmt in ("html", "pdf", "docx", "json"):
        assert render_bytes(recipe, replayed, fmt) == render_bytes(recipe, report, fmt), fmt
