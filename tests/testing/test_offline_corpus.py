"""The JSON corpus format, folder corpora and their loader."""

from __future__ import annotations

import gzip
import json
from datetime import date
from pathlib import Path

import pytest

from deepresearch.testing.corpus import (
    CorpusDocument,
    CorpusError,
    load_corpus,
    save_corpus,
    slugify,
    unique_ids,
)
from deepresearch.testing.pdf import make_pdf

DOCS = [
    {
        "id": "a",
        "title": "Alpha",
        "text": "First.",
        "url": "https://example.org/a",
        "published": "2023-04-05",
    },
    {"id": "b", "title": "Beta", "text": "Second.", "format": "pdf"},
]


def test_json_list(tmp_path: Path) -> None:
    path = tmp_path / "corpus.json"
    path.write_text(json.dumps(DOCS), encoding="utf-8")
    docs = load_corpus(path)
    assert [doc.id for doc in docs] == ["a", "b"]
    assert docs[0].published == date(2023, 4, 5)
    assert docs[0].format == "html" and docs[1].format == "pdf"
    assert docs[1].url is None and docs[1].published is None


def test_json_object_with_documents(tmp_path: Path) -> None:
    path = tmp_path / "corpus.json"
    path.write_text(json.dumps({"documents": DOCS}), encoding="utf-8")
    assert [doc.title for doc in load_corpus(str(path))] == ["Alpha", "Beta"]


def test_save_and_load_round_trip(tmp_path: Path) -> None:
    docs = [CorpusDocument.model_validate(item) for item in DOCS]
    path = tmp_path / "out.json"
    assert save_corpus(docs, path) == path.stat().st_size
    assert load_corpus(path) == docs
    assert "url" not in json.loads(path.read_text())[1]


@pytest.mark.parametrize(
    "payload",
    [
        "{not json",
        json.dumps({"docs": []}),
        json.dumps([1]),
        json.dumps([{"id": "", "title": "t", "text": "x"}]),
        json.dumps([{"id": "x", "title": "t", "text": "x", "format": "docx"}]),
        json.dumps([{"id": "x", "title": "t", "text": "x"}, {"id": "x", "title": "u", "text": ""}]),
    ],
)
def test_bad_corpora_raise_corpus_error(tmp_path: Path, payload: str) -> None:
    path = tmp_path / "bad.json"
    path.write_text(payload, encoding="utf-8")
    with pytest.raises(CorpusError):
        load_corpus(path)


def test_missing_corpus_raises(tmp_path: Path) -> None:
    with pytest.raises(CorpusError):
        load_corpus(tmp_path / "nowhere.json")


def test_folder_corpus(tmp_path: Path) -> None:
    root = tmp_path / "site"
    (root / "guides").mkdir(parents=True)
    (root / ".hidden").mkdir()
    (root / "guides" / "Getting Started.md").write_text(
        "Intro line\n\n# Getting started with X\n\nBody text.\n", encoding="utf-8"
    )
    (root / "notes.txt").write_text("Plain notes.\n", encoding="utf-8")
    (root / "page.html").write_text(
        "<html><head><title> A  Page </title><style>p{}</style></head>"
        "<body><p>Hello &amp; welcome</p><script>var x=1</script><div>Second</div></body></html>",
        encoding="utf-8",
    )
    (root / "old.htm.gz").write_bytes(
        gzip.compress("<title>Zipped</title><p>caf\xe9</p>".encode("latin-1"))
    )
    (root / "paper.pdf").write_bytes(make_pdf("Portable words here.", title="A Paper"))
    (root / "image.png").write_bytes(b"\x89PNG")
    (root / ".hidden" / "secret.md").write_text("# Secret", encoding="utf-8")
    docs = {doc.id: doc for doc in load_corpus(root)}
    assert sorted(docs) == ["guides-getting-started", "notes", "old", "page", "paper"]
    assert docs["guides-getting-started"].title == "Getting started with X"
    assert docs["notes"].title == "notes" and docs["notes"].text == "Plain notes."
    assert docs["page"].title == "A Page"
    assert docs["page"].text == "Hello & welcome\n\nSecond"
    assert docs["page"].source == root / "page.html"
    assert docs["old"].raw_bytes() is not None and docs["old"].title == "Zipped"
    assert docs["paper"].format == "pdf" and docs["paper"].title == "A Paper"
    assert "Portable words here." in docs["paper"].text
    assert docs["paper"].raw_bytes() == (root / "paper.pdf").read_bytes()
    assert docs["notes"].raw_bytes() is None


def test_slugs_and_unique_ids() -> None:
    assert slugify("Alû (mythology)") == "alu-mythology"
    assert slugify("中文") == ""
    assert unique_ids("hp-", ["Arthur? Arthur!", "Arthur Arthur", "中文", "??"]) == [
        "hp-arthur-arthur",
        "hp-arthur-arthur-2",
        "hp-untitled",
        "hp-untitled-2",
    ]
