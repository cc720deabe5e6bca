"""Your own documents read once for the local corpus and ``library import``
(``fetch/documents.py``): .docx now too (paragraphs, tables and the title), a folder read
with its unreadable files skipped, and a clear error for a missing or empty folder."""

from __future__ import annotations

from pathlib import Path

import docx
import pytest

from deepresearch.errors import FetchError, InvalidInput
from deepresearch.fetch.base import FetchedPage
from deepresearch.fetch.documents import read_document, read_folder
from deepresearch.fetch.extract import DOCX_TYPE, extract, extract_docx


def _docx(path: Path) -> Path:
    document = docx.Document()
    document.add_heading("Stellarator notes", 1)
    document.add_paragraph("The stellarator twists its coils to hold the plasma.")
    table = document.add_table(rows=1, cols=2)
    table.rows[0].cells[0].text = "Wendelstein"
    table.rows[0].cells[1].text = "7-X"
    document.save(str(path))
    return path


def test_a_docx_is_read_with_its_title_and_tables(tmp_path: Path) -> None:
    doc = read_document(_docx(tmp_path / "notes.docx"), 10_000)
    assert doc is not None and doc.title == "Stellarator notes"
    assert "twists its coils" in doc.text and "Wendelstein | 7-X" in doc.text
    with pytest.raises(FetchError, match=r"not a readable \.docx"):
        extract_docx(b"PK\x03\x04 not really", 1_000)
    (tmp_path / "broken.docx").write_bytes(b"nope")
    assert read_document(tmp_path / "broken.docx", 1_000) is None


def test_a_fetched_docx_is_read_too(tmp_path: Path) -> None:
    data = _docx(tmp_path / "n.docx").read_bytes()
    page = FetchedPage(
        url="https://example.org/n.docx",
        final_url="https://example.org/n.docx",
        status=200,
        content_type=DOCX_TYPE,
        content=data,
    )
    assert "twists its coils" in extract(page, max_chars=10_000).text


def test_a_folder_is_read_and_its_unreadable_files_are_skipped(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    _docx(tmp_path / "sub" / "notes.docx")
    (tmp_path / "a.md").write_text("# Tokamak\n\nA torus of plasma.\n", encoding="utf-8")
    (tmp_path / "broken.pdf").write_bytes(b"not a pdf")
    (tmp_path / ".hidden.md").write_text("secret", encoding="utf-8")
    (tmp_path / "image.png").write_bytes(b"\x89PNG")
    found = read_folder(tmp_path)
    assert [(Path(d.path).name, d.title, d.kind) for d in found.documents] == [
        ("a.md", "Tokamak", "text"),
        ("notes.docx", "Stellarator notes", "docx"),
    ]
    assert [Path(p).name for p in found.skipped] == ["broken.pdf"]


def test_a_missing_or_empty_folder_is_one_clear_error(tmp_path: Path) -> None:
    with pytest.raises(InvalidInput, match="is not a folder"):
        read_folder(tmp_path / "nope")
    (tmp_path / "x.bin").write_bytes(b"\x00")
    (tmp_path / "empty.txt").write_text("   ", encoding="utf-8")
    with pytest.raises(InvalidInput, match="no readable document"):
        read_folder(tmp_path)
