"""PDF export: the file opens (pypdf), carries the verified quotes, links each citation to
its source, keeps the sources-considered table, and never fails on text it cannot draw.

The tests that need a Unicode TrueType font (DejaVu, Noto, Liberation...) are skipped on
a machine without one, unless DEEPRESEARCH_REQUIRE_FONTS=1 (CI installs
fonts-dejavu-core), which turns the skip into a failure."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from deepresearch.export import export_report
from deepresearch.export.fonts import find_fonts
from deepresearch.export.report_document import report_document
from deepresearch.export.report_text import citation_numbers
from deepresearch.models import Report

from ..core.test_render import make_report
from .reading import flat, pdf_links, pdf_text

UNICODE_FONTS = find_fonts()
# read before the autouse fixture clears DEEPRESEARCH_* variables for each test
REQUIRE_FONTS = os.environ.get("DEEPRESEARCH_REQUIRE_FONTS") == "1"
NO_FONT = "no TrueType font (DejaVu, Noto, Liberation...) on this machine"


@pytest.fixture
def unicode_font() -> None:
    if not UNICODE_FONTS:
        if REQUIRE_FONTS:
            pytest.fail(
                f"a Unicode font is required here (DEEPRESEARCH_REQUIRE_FONTS=1): {NO_FONT}"
            )
        pytest.skip(NO_FONT)


needs_unicode_font = pytest.mark.usefixtures("unicode_font")


def cited_quotes(report: Report) -> list[str]:
    cited = set(report.cited_evidence_ids())
    return [flat(item.quote) for item in report.evidence if item.id in cited and item.verified]


@needs_unicode_font
def test_the_pdf_carries_every_cited_quote_and_links_citations_to_their_sources(
    bee_report: Report,
) -> None:
    data = export_report(bee_report, "pdf", fonts=UNICODE_FONTS)
    assert data.startswith(b"%PDF-")
    text = pdf_text(data)
    assert flat(bee_report.title) in text
    quotes = cited_quotes(bee_report)
    assert any(re.search("[α-ω]", quote) for quote in quotes)  # a Greek quote is among them
    for quote in quotes:
        latin_and_greek = re.sub(r"[\u4e00-\u9fff。]+", "", quote).strip()
        assert flat(latin_and_greek) in text
    links = pdf_links(data)
    cited_urls = {ref.url for ref in bee_report.sources}
    # every link goes to a cited source, and every cited source is linked
    assert set(links) == cited_urls
    # each citation mark in the text is a link: at least one per mark, plus the titles
    marks = sum(
        len(
            {
                citation_numbers(bee_report)[c]
                for c in s.citations
                if c in citation_numbers(bee_report)
            }
        )
        for s in bee_report.all_sentences()
    )
    assert len(links) >= marks + len(bee_report.sources)


@needs_unicode_font
def test_the_sources_considered_table_is_kept(bee_report: Report) -> None:
    text = pdf_text(export_report(bee_report, "pdf", fonts=UNICODE_FONTS))
    assert "Sources considered" in text
    assert "source tier signal model final decision" in text  # the header row
    for row in bee_report.considered:
        assert f"{row.final:.2f}" in text
    uncited = [s for s in bee_report.considered if s.url not in {r.url for r in bee_report.sources}]
    assert uncited and all(
        s.url not in pdf_links(export_report(bee_report, "pdf")) for s in uncited
    )


@needs_unicode_font
def test_characters_no_font_covers_are_shown_as_question_marks_and_announced(
    bee_report: Report,
) -> None:
    dejavu_only = [UNICODE_FONTS[0]]  # no CJK fallback: the Chinese sentence cannot be drawn
    text = pdf_text(export_report(bee_report, "pdf", fonts=dejavu_only))
    missing = re.search(r"(\d+) character\(s\) of this report could not be shown", text)
    assert missing and int(missing.group(1)) > 0
    assert "Markdown, HTML and DOCX versions keep them" in text
    assert "蜜蜂" not in text


def test_without_any_truetype_font_the_builtin_latin_font_is_used(bee_report: Report) -> None:
    data = export_report(bee_report, "pdf", fonts=[])
    text = pdf_text(data)
    english = [q for q in cited_quotes(bee_report) if q.isascii()]
    assert english and all(quote in text for quote in english)
    assert "could not be shown in this PDF" in text  # the Greek and Chinese letters
    assert set(pdf_links(data)) == {ref.url for ref in bee_report.sources}


def test_a_broken_font_file_is_skipped(tmp_path: Path) -> None:
    broken = tmp_path / "broken.ttf"
    broken.write_bytes(b"not a font at all")
    data = export_report(make_report(), "pdf", fonts=[broken, *UNICODE_FONTS])
    assert "Bees pollinate many crops." in pdf_text(data)


def test_links_and_images_in_model_text_do_not_become_links() -> None:
    report = make_report(
        title="Bees [click here](https://evil.example/phish) ![x](https://evil.example/i.png)",
    )
    report.summary[0].text = "Bees pollinate crops, see https://evil.example/more for details."
    data = export_report(report, "pdf", fonts=UNICODE_FONTS)
    assert set(pdf_links(data)) == {"https://sb.example/", "https://sa.example/"}
    assert "evil.example" not in pdf_text(data)


def test_the_same_report_gives_the_same_document() -> None:
    report = make_report()
    assert report_document(report) == report_document(report.model_copy(deep=True))
    first = pdf_text(export_report(report, "pdf", fonts=UNICODE_FONTS))
    assert first == pdf_text(export_report(report, "pdf", fonts=UNICODE_FONTS))


def test_words_longer_than_a_line_or_a_cell_wrap(bee_report: Report) -> None:
    address = "http://127.0.0.1:1/" + "a" * 400
    row = bee_report.considered[-1].model_copy(update={"url": address, "reason": "x" * 300})
    report = bee_report.model_copy(
        update={"considered": [*bee_report.considered[:-1], row], "title": "T" + "y" * 500}
    )
    for fonts in (UNICODE_FONTS, []):
        text = pdf_text(export_report(report, "pdf", fonts=fonts)).replace(" ", "")
        assert "a" * 400 in text and "y" * 500 in text
