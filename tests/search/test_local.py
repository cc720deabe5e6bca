"""LocalSearch: indexing a folder of md/txt/html/pdf into SQLite FTS5, bm25 ranking,
incremental re-indexing, and hostile query strings."""

from __future__ import annotations

import io
import os
from pathlib import Path

import pytest
from reportlab.pdfgen import canvas

from deepresearch.errors import ConfigError, ProviderUnavailable
from deepresearch.search import SearchProvider
from deepresearch.search.local import IndexStats, LocalSearch, fts_query

HTML = """<html><head><title>Volcanoes of Iceland</title></head><body>
<nav>Home | About</nav>
<article><h1>Volcanoes of Iceland</h1>
<p>Iceland sits on the Mid-Atlantic Ridge, where volcanoes erupt every few years.</p>
<p>The eruption of Eyjafjallajökull in 2010 grounded flights across Europe for days.</p>
<p>Geologists monitor magma movement with seismometers and satellite radar.</p>
</article></body></html>"""

MARKDOWN = """Some preamble.

# Glaciers and climate

Glaciers in Iceland are shrinking as the climate warms. Volcanoes under the ice can
melt it from below and cause floods called jökulhlaups.
"""

TEXT = "Notes on bread baking: flour, water, salt and yeast. Proofing takes hours.\n"


def _pdf(title: str, lines: list[str]) -> bytes:
    buffer = io.BytesIO()
    pdf = canvas.Canvas(buffer)
    pdf.setTitle(title)
    for n, line in enumerate(lines):
        pdf.drawString(72, 780 - 16 * n, line)
    pdf.showPage()
    pdf.save()
    return buffer.getvalue()


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    root = tmp_path / "corpus"
    (root / "sub" / "deeper").mkdir(parents=True)
    (root / ".hidden").mkdir()
    (root / "iceland.html").write_text(HTML, encoding="utf-8")
    (root / "sub" / "glaciers.md").write_text(MARKDOWN, encoding="utf-8")
    (root / "sub" / "deeper" / "bread.txt").write_text(TEXT, encoding="utf-8")
    (root / "sub" / "report.pdf").write_bytes(
        _pdf("Sourdough Report", ["Sourdough bread uses a wild yeast starter.", "Flour matters."])
    )
    (root / "ignored.json").write_text('{"volcano": "volcano volcano"}')
    (root / ".hidden" / "secret.md").write_text("# Volcano volcano volcano")
    return root


@pytest.fixture
def search(corpus: Path, tmp_path: Path) -> LocalSearch:
    return LocalSearch(corpus, tmp_path / "index" / "local.sqlite")


def _touch(path: Path, text: str) -> None:
    stat = path.stat()
    path.write_text(text, encoding="utf-8")
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))


def test_is_a_search_provider(search: LocalSearch) -> None:
    assert isinstance(search, SearchProvider)
    assert search.name == "local"
    assert search.supports_operators is False


async def test_first_search_builds_the_index(search: LocalSearch, corpus: Path) -> None:
    hits = await search.search("volcanoes erupt in Iceland", limit=10)
    assert search.index_path.is_file()
    assert [hit.url for hit in hits] == [
        (corpus / "iceland.html").resolve().as_uri(),
        (corpus / "sub" / "glaciers.md").resolve().as_uri(),
    ]
    top = hits[0]
    assert top.title == "Volcanoes of Iceland"
    assert top.provider == "local"
    assert top.query == "volcanoes erupt in Iceland"
    assert [hit.rank for hit in hits] == [0, 1]
    assert top.score == 1.0
    assert hits[1].score is not None and 0 < hits[1].score < 1
    assert top.content is not None and "Eyjafjallajökull in 2010" in top.content
    assert "Home | About" not in top.content  # stored text is the extracted main text
    assert "volcano" in top.snippet.lower()
    assert hits[1].title == "Glaciers and climate"


async def test_titles_by_file_kind(search: LocalSearch) -> None:
    hits = await search.search("bread flour yeast", limit=5)
    titles = {hit.title for hit in hits}
    assert titles == {"Sourdough Report", "bread.txt"}
    pdf_hit = next(hit for hit in hits if hit.title == "Sourdough Report")
    assert pdf_hit.url.endswith("/sub/report.pdf")
    assert pdf_hit.content is not None and "wild yeast starter" in pdf_hit.content
    assert pdf_hit.published is not None


async def test_bm25_prefers_more_and_rarer_matches(search: LocalSearch) -> None:
    hits = await search.search("sourdough", limit=5)
    assert [hit.title for hit in hits] == ["Sourdough Report"]
    hits = await search.search("glaciers", limit=5)
    assert hits[0].title == "Glaciers and climate"
    limited = await search.search("iceland volcanoes glaciers bread", limit=1)
    assert len(limited) == 1


async def test_stemming_and_case(search: LocalSearch) -> None:
    hits = await search.search("VOLCANO eruptions", limit=5)
    assert hits[0].title == "Volcanoes of Iceland"


async def test_hidden_and_unsupported_files_are_skipped(search: LocalSearch) -> None:
    stats = await search.index()
    assert stats == IndexStats(added=4)
    hits = await search.search("volcano", limit=10)
    assert hits
    assert all("/.hidden/" not in hit.url and not hit.url.endswith(".json") for hit in hits)


async def test_incremental_reindex(search: LocalSearch, corpus: Path) -> None:
    assert search.build_index() == IndexStats(added=4)
    assert search.build_index() == IndexStats(unchanged=4)

    _touch(corpus / "sub" / "deeper" / "bread.txt", "Now about kayaking on fjords.\n")
    (corpus / "iceland.html").unlink()
    (corpus / "new.md").write_text("# Kayaks\n\nSea kayaks are long and narrow.\n")
    stats = await search.index()
    assert stats == IndexStats(added=1, updated=1, removed=1, unchanged=2)
    assert stats.indexed == 4

    assert await search.search("Eyjafjallajökull", limit=5) == []
    kayak = await search.search("kayaking", limit=5)
    assert {hit.title for hit in kayak} == {"bread.txt", "Kayaks"}
    assert await search.search("proofing", limit=5) == []


async def test_damaged_pdf_is_skipped_until_it_changes(search: LocalSearch, corpus: Path) -> None:
    broken = corpus / "broken.pdf"
    broken.write_bytes(b"%PDF-1.7 this is not a pdf")
    assert search.build_index() == IndexStats(added=4, skipped=1)
    assert search.build_index() == IndexStats(unchanged=4, skipped=1)
    broken.unlink()
    assert search.build_index() == IndexStats(unchanged=4, removed=1)


async def test_index_persists_across_instances(search: LocalSearch, corpus: Path) -> None:
    search.build_index()
    again = LocalSearch(corpus, search.index_path)
    assert again.build_index() == IndexStats(unchanged=4)
    assert (await again.search("glaciers", limit=3))[0].title == "Glaciers and climate"


@pytest.mark.parametrize(
    "query",
    [
        '"AND OR NEAR( * ^ -',
        "NOT",
        "a AND",
        'title:"x',
        "(((",
        "col:volcano",
        "volcano*",
        "{title text}: iceland",
        "'; DROP TABLE docs; --",
        "\0\x01 \u200b",
        "",
        "   ",
        "+ - ^ : * \" ' ( )",
    ],
)
async def test_hostile_queries_do_not_raise(search: LocalSearch, query: str) -> None:
    hits = await search.search(query, limit=5)
    assert isinstance(hits, list)
    assert (await search.search("volcanoes", limit=5))[0].title == "Volcanoes of Iceland"


def test_fts_query() -> None:
    assert fts_query('"AND OR NEAR( * ^ -') == '"and" OR "or" OR "near"'
    assert fts_query("Volcano volcano ICELAND") == '"volcano" OR "iceland"'
    assert fts_query("*^-()") == ""
    assert fts_query(" ".join(f"w{n}" for n in range(100))).count(" OR ") == 31


async def test_limit_below_one(search: LocalSearch) -> None:
    assert await search.search("volcano", limit=0) == []


async def test_missing_corpus_folder(tmp_path: Path) -> None:
    missing = LocalSearch(tmp_path / "nope", tmp_path / "index.sqlite")
    with pytest.raises(ConfigError, match="corpus folder not found"):
        await missing.search("anything", limit=3)


async def test_unwritable_index_is_provider_unavailable(corpus: Path, tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    broken = LocalSearch(corpus, blocker / "index.sqlite")
    with pytest.raises(ProviderUnavailable, match="could not update the local search index"):
        await broken.search("volcano", limit=3)


async def test_a_docx_in_the_corpus_is_indexed_and_found(tmp_path: Path) -> None:
    """It was skipped silently before (issue 25): the corpus now reads Word documents."""
    import docx

    root = tmp_path / "words"
    root.mkdir()
    document = docx.Document()
    document.add_heading("Harbour survey", 1)
    document.add_paragraph("The harbour silted up after the breakwater was extended.")
    document.save(str(root / "survey.docx"))
    search = LocalSearch(root, tmp_path / "index.sqlite3")
    assert search.build_index().added == 1
    hits = await search.search("breakwater silted", limit=5)
    assert [hit.title for hit in hits] == ["Harbour survey"]
    assert hits[0].url.endswith("survey.docx") and "breakwater" in (hits[0].content or "")
