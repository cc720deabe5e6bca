"""A PDF page is fetched, its text extracted, and quoted like any other source."""

from __future__ import annotations

from pathlib import Path

from deepresearch.core.verify import verify_quote
from deepresearch.models import SearchHit
from deepresearch.runner import run_research
from deepresearch.settings import load_settings
from deepresearch.testing.corpus import CorpusDocument
from deepresearch.testing.static_search import StaticSearch
from deepresearch.testing.web import OfflineWeb

TEXT = (
    "The Rosetta Stone is a stele of granodiorite inscribed with three versions of a decree "
    "issued in 196 BC during the Ptolemaic dynasty of Egypt. The top and middle texts are in "
    "Ancient Egyptian using hieroglyphic and Demotic scripts, and the bottom is in Ancient Greek."
)


async def test_pdf_source_is_read_and_quoted(tmp_path: Path) -> None:
    document = CorpusDocument(id="rosetta", title="The Rosetta Stone", text=TEXT, format="pdf")
    with OfflineWeb([document]) as web:
        url = web.page_url("rosetta")
        hit = SearchHit(url=url, title="Rosetta Stone", snippet=TEXT[:60], provider="static")
        settings = load_settings(
            model="none",
            allow_hosts=[web.base_url.removeprefix("http://")],
            data_dir=tmp_path / "data",
            depth="quick",
            min_domains=1,
        )
        report = await run_research(
            "What scripts are inscribed on the Rosetta Stone decree?",
            settings,
            search=StaticSearch([hit]),
        )
        assert web.page_hits("rosetta") == 1
    assert report is not None and report.kind == "extractive"
    assert [ref.url for ref in report.sources] == [url]
    for item in report.evidence:
        assert verify_quote(item.quote, TEXT).status == "PASS"


async def test_long_provider_text_is_cut_without_adding_words(tmp_path: Path) -> None:
    """Stored text is what the source says: a cut never appends an ellipsis that a quote
    could then carry."""
    body = " ".join(
        f"Sentence number {i} says that the Rosetta Stone has three scripts." for i in range(400)
    )
    hit = SearchHit(
        url="file:///corpus/rosetta.md",
        title="Rosetta",
        snippet=body[:60],
        provider="local",
        content=body,
    )
    settings = load_settings(
        model="none", data_dir=tmp_path / "data", depth="quick", min_domains=1, max_text_chars=1000
    )
    report = await run_research(
        "Which scripts are on the Rosetta Stone?", settings, search=StaticSearch([hit])
    )
    assert report is not None and report.evidence
    for item in report.evidence:
        assert "…" not in item.quote
        assert item.quote in body
