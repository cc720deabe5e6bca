"""One run over local documents and the web (seed 003's RAG + web): ``search =
"local,searxng"`` queries the corpus folder and the offline web's SearXNG endpoint, fuses
their lists, and the report cites a local document and a web page. Real local index,
search adapter, fetcher, extractor and graph; no model."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import unquote

from deepresearch.core.verify import verify_quote
from deepresearch.export.report_render import to_markdown
from deepresearch.models import RunEvent
from deepresearch.models.event_payloads import SearchCompleted, SearchProviderFailedWarning
from deepresearch.runner import run_research
from deepresearch.settings import load_settings
from deepresearch.testing.corpora import hotpotqa_questions
from deepresearch.testing.corpus import CorpusDocument
from deepresearch.testing.web import OfflineWeb

from .conftest import SHARED_DATA


async def test_a_mixed_local_and_web_run_cites_both(
    web_documents: list[CorpusDocument], tmp_path: Path
) -> None:
    question = hotpotqa_questions(SHARED_DATA)[0]
    first, second = question.supporting_titles[:2]
    # the first gold paragraph exists only in the local folder, the second only on the web
    local_doc = next(doc for doc in web_documents if doc.title == first)
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "notes.md").write_text(f"# {local_doc.title}\n\n{local_doc.text}\n")
    (corpus / "unrelated.md").write_text("# Gardening\n\nTomatoes need sun and water.\n")
    web_only = [doc for doc in web_documents if doc.title != first]
    assert any(doc.title == second for doc in web_only)

    events: list[RunEvent] = []
    with OfflineWeb(web_only) as web:
        base_url = web.base_url
        settings = load_settings(
            search="local,searxng",
            searxng_url=web.base_url,
            corpus_dir=corpus,
            allow_hosts=[web.base_url.removeprefix("http://")],
            data_dir=tmp_path / "data",
            depth="quick",
            model="none",
            min_domains=1,
        )
        report = await run_research(question.question, settings, sinks=[events.append])
        searched = web.search_queries()
        pages = {doc.id: doc for doc in web_only}

    assert report is not None and report.kind == "extractive"
    cited = {ref.url for ref in report.sources}
    local_cited = {url for url in cited if url.startswith("file://")}
    web_cited = {url for url in cited if url.startswith(base_url)}
    assert local_cited == {(corpus / "notes.md").resolve().as_uri()}
    assert web_cited, f"no web page cited: {sorted(cited)}"
    assert searched, "the web provider was asked"
    # every quote is in the text it cites: the local file's, or the web page's
    for item in report.evidence:
        if item.source_url.startswith("file://"):
            text = local_doc.text
        else:
            text = pages[unquote(item.source_url.removeprefix(f"{base_url}/page/"))].text
        assert verify_quote(item.quote, text).status == "PASS", item.quote

    # per-provider counts: in each search_completed event and in "Sources considered"
    completed = [event.data for event in events if isinstance(event.data, SearchCompleted)]
    assert completed
    totals: dict[str, int] = {}
    for data in completed:
        for name, count in data.providers.items():
            totals[name] = totals.get(name, 0) + count
    assert totals.get("local", 0) > 0 and totals.get("searxng", 0) > 0
    assert set(totals) == {"local", "searxng"}
    found_by = {name for scores in report.considered for name in scores.providers}
    assert found_by == {"local", "searxng"}
    assert "Found by: local " in to_markdown(report)


async def test_a_provider_that_fails_is_named_in_the_reports_limitations(
    web_documents: list[CorpusDocument], tmp_path: Path
) -> None:
    question = hotpotqa_questions(SHARED_DATA)[0]
    titles = set(question.supporting_titles)
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    for i, doc in enumerate(d for d in web_documents if d.title in titles):
        (corpus / f"doc{i}.md").write_text(f"# {doc.title}\n\n{doc.text}\n")
    events: list[RunEvent] = []
    settings = load_settings(
        search="local,searxng",
        searxng_url="http://127.0.0.1:9",  # nothing listens: every query to it fails
        corpus_dir=corpus,
        data_dir=tmp_path / "data",
        depth="quick",
        model="none",
        min_domains=1,
    )
    report = await run_research(question.question, settings, sinks=[events.append])
    assert report is not None and report.kind == "extractive"
    warned = [e.data for e in events if isinstance(e.data, SearchProviderFailedWarning)]
    assert [warning.provider for warning in warned] == ["searxng"]
    (problem,) = [line for line in report.limitations if line.startswith("Search problems")]
    assert "searxng" in problem and "other providers' results were used" in problem
    assert "Search problems" in to_markdown(report)
