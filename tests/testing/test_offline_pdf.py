"""The PDF 1.4 writer, checked by reading its output back with pypdf."""

from __future__ import annotations

import io

from pypdf import PdfReader

from deepresearch.testing.pdf import escape_string, make_pdf, to_winansi, wrap


def _read(data: bytes) -> tuple[PdfReader, str]:
    reader = PdfReader(io.BytesIO(data), strict=True)
    return reader, "\n".join(page.extract_text() for page in reader.pages)


def test_round_trip_keeps_words_escapes_and_winansi_characters() -> None:
    text = (
        "Parentheses (like these) and a back\\slash survive.\n\n"
        "## A heading\n\n"
        "Café – “quoted” € 5.\n\n"
        "    indented code(line)\n    second line"
    )
    reader, extracted = _read(make_pdf(text, title="Tïtle (1)"))
    assert reader.metadata is not None and reader.metadata.title == "Tïtle (1)"
    flat = " ".join(extracted.split())
    assert flat.startswith("Tïtle (1) Parentheses (like these) and a back\\slash survive.")
    for expected in ["A heading", "Café – “quoted” € 5.", "indented code(line)", "second line"]:
        assert expected in flat


def test_long_text_wraps_onto_several_pages_without_losing_words() -> None:
    source = " ".join(f"word{i}" for i in range(4000))
    reader, extracted = _read(make_pdf(source))
    assert len(reader.pages) > 3
    assert extracted.split() == source.split()
    assert all(len(line) < 120 for line in extracted.splitlines())


def test_empty_text_is_still_a_valid_one_page_pdf() -> None:
    data = make_pdf("")
    assert data.startswith(b"%PDF-1.4") and data.rstrip().endswith(b"%%EOF")
    reader, _ = _read(data)
    assert len(reader.pages) == 1


def test_output_is_deterministic_and_ascii_safe() -> None:
    data = make_pdf("Same text, ünïcode ✓ 中文", title="T")
    assert data == make_pdf("Same text, ünïcode ✓ 中文", title="T")
    body = data.split(b"\n", 2)[2]
    assert all(byte < 128 for byte in body)


def test_helpers() -> None:
    assert escape_string(b"a(b)c\\d\xe9") == b"a\\(b\\)c\\\\d\\351"
    assert to_winansi("é✓\tﬁ") == b"\xe9?    fi"
    lines = wrap(b"x" * 500, "F1", 11, 100)
    assert len(lines) > 1 and b"".join(lines) == b"x" * 500
