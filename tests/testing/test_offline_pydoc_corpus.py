"""The demo corpus built from the interpreter's own documentation."""

from __future__ import annotations

import time
from pathlib import Path

from deepresearch.testing.corpus import load_corpus
from deepresearch.testing.pydoc_corpus import MODULES, build_pages, topic_markdown, write_corpus
from deepresearch.testing.searchindex import OfflineIndex


def test_topic_markdown_turns_underlines_into_headings() -> None:
    text = 'The "x" statement\n*****************\n\nBody.\n\nPart\n====\n\n   code\n'
    assert topic_markdown(text, "x") == '# The "x" statement\n\nBody.\n\n## Part\n\n   code\n'
    assert topic_markdown("No heading here.", "key").startswith("# key\n\nNo heading here.")


def test_pydoc_corpus_is_big_deterministic_and_searchable(tmp_path: Path) -> None:
    started = time.perf_counter()
    files, size = write_corpus(tmp_path / "demo")
    assert time.perf_counter() - started < 20
    assert files > 100 and size > 100_000
    assert len(MODULES) >= 40
    pages = build_pages()
    assert len(pages) == files
    assert all(
        (tmp_path / "demo" / path).read_text(encoding="utf-8") == text
        for path, text in pages.items()
    )
    assert "topics/assert.md" in pages and "modules/asyncio.md" in pages
    assert " at 0x" not in "".join(pages.values())
    docs = load_corpus(tmp_path / "demo")
    by_id = {doc.id: doc for doc in docs}
    assert by_id["topics-assert"].title == 'The "assert" statement'
    assert by_id["modules-itertools"].title == "The itertools module"
    index = OfflineIndex(docs)
    top = index.search("itertools groupby consecutive keys").results[0].document
    assert top.id.startswith("modules-itertools")
