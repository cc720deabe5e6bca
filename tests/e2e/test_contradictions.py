"""Two sources that disagree: the report shows both quotes under "Where sources disagree",
warns in its header, and the claim ledger carries the contradiction and its penalty."""

from __future__ import annotations

from pathlib import Path

from deepresearch.export.report_render import to_markdown
from deepresearch.models import SearchHit
from deepresearch.runner import run_research
from deepresearch.settings import load_settings
from deepresearch.testing.corpus import CorpusDocument
from deepresearch.testing.static_search import StaticSearch
from deepresearch.testing.web import OfflineWeb

ONE = (
    "The Eiffel Tower in Paris was completed in 1889 as the entrance arch to the World's Fair, "
    "after two years of construction work by the company of Gustave Eiffel."
)
OTHER = (
    "The Eiffel Tower in Paris was completed in 1887 as the entrance arch to the World's Fair, "
    "after two years of construction work by the company of Gustave Eiffel."
)


async def test_disagreeing_sources_are_shown_as_such(tmp_path: Path) -> None:
    documents = [
        CorpusDocument(id="one", title="Eiffel Tower history", text=ONE),
        CorpusDocument(id="other", title="Eiffel Tower facts", text=OTHER),
    ]
    with OfflineWeb(documents) as web:
        hits = [
            SearchHit(
                url=web.page_url(d.id),
                title=d.title,
                snippet=d.text[:60],
                provider="static",
                rank=i,
            )
            for i, d in enumerate(documents)
        ]
        settings = load_settings(
            model="none",
            allow_hosts=[web.base_url.removeprefix("http://")],
            data_dir=tmp_path / "data",
            depth="quick",
            min_domains=1,
        )
        report = await run_research(
            "When was the Eiffel Tower in Paris completed?", settings, search=StaticSearch(hits)
        )
    assert report is not None and report.claims is not None
    assert report.claims.has_contradictions
    disputed = report.claims.contradicted
    assert len(disputed) == 2 and all(
        claim.confidence < claim.support_strength + 0.06 for claim in disputed
    )
    section = next(s for s in report.sections if s.kind == "contradictions")
    quotes = {s.text for p in section.paragraphs for s in p.sentences}
    assert quotes == {f"“{ONE}”", f"“{OTHER}”"}
    markdown = to_markdown(report)
    assert "⚠ Sources disagree on 2 claim(s)" in markdown
    assert "## Where sources disagree" in markdown
