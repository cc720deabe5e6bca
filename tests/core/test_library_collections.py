"""The rules of collections (``core/library_query.py``): names like tags, the
``collection`` filter, the ``document`` kind, and documents cut into passages."""

from __future__ import annotations

import pytest

from deepresearch.core.library_query import (
    fts5_match,
    normalize_collection,
    parse_query,
    passages,
)
from deepresearch.errors import InvalidInput


def test_a_collection_name_is_normalised_like_a_tag() -> None:
    assert normalize_collection("  My   Papers ") == "my papers"
    for bad in ("", "   ", "x" * 65, "<script>", "-lead"):
        with pytest.raises(InvalidInput, match="collection"):
            normalize_collection(bad)


def test_the_collection_filter_and_the_document_kind() -> None:
    query = parse_query("stellarator", {"collection": "Papers", "kind": "document"})
    assert (query.collection, query.kind) == ("papers", "document")
    with pytest.raises(InvalidInput, match="not a collection name"):
        parse_query("stellarator", {"collection": "a;b"})


def test_any_word_matches_are_or_of_quoted_words() -> None:
    assert fts5_match(["a", "b"], any_word=True) == '"a" OR "b"'
    assert fts5_match(["a", "b"]) == '"a" "b"'


def test_passages_keep_paragraphs_together_up_to_the_size() -> None:
    text = "One.\n\nTwo.\n\n" + "word " * 100
    cut = passages(text, size=60)
    assert cut[0] == "One.\n\nTwo."
    assert all(len(piece) <= 60 for piece in cut)
    assert " ".join(cut[1:]).split() == ["word"] * 100  # nothing lost
    assert passages("") == []
    assert passages("x" * 130, size=60) == ["x" * 60, "x" * 60, "x" * 10]  # no space: cut
