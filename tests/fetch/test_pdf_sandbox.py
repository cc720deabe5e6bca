"""PDF parsing in a limited child process: text and title, page and character caps,
damaged and encrypted files, and memory, CPU and wall-clock limits."""

from __future__ import annotations

import io
import time
import zlib
from functools import cache

import pytest
from reportlab.pdfgen import canvas

from deepresearch.errors import FetchError
from deepresearch.fetch.extract import extract_pdf
from deepresearch.fetch.pdf_sandbox import (
    DAMAGED_MESSAGE,
    LIMITS_MESSAGE,
    pdf_text,
    read_pdf,
)
from deepresearch.testing.pdf import assemble


def _pdf(pages: list[str], title: str = "", encrypt: str | None = None) -> bytes:
    buffer = io.BytesIO()
    pdf = canvas.Canvas(buffer, encrypt=encrypt)
    if title:
        pdf.setTitle(title)
    for line in pages:
        pdf.drawString(72, 720, line)
        pdf.showPage()
    pdf.save()
    return buffer.getvalue()


def _one_page_pdf(content: bytes) -> bytes:
    """A minimal one-page PDF whose content stream is ``content``, Flate-compressed: a
    few kilobytes on the wire that inflate to ``len(content)`` bytes in the parser."""
    stream = zlib.compress(content, 9)
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R"
        b" /Resources << /Font << /F1 5 0 R >> >> >>",
        b"<< /Length %d /Filter /FlateDecode >>\nstream\n" % len(stream) + stream + b"\nendstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    return assemble(objects)


@cache
def _cpu_bomb() -> bytes:
    """2 million tiny text operators: slow to interpret, ~55 kB compressed."""
    return _one_page_pdf(b"BT /F1 12 Tf 72 720 Td " + b"(x) Tj 1 0 Td " * 2_000_000 + b"ET")


@cache
def _memory_bomb() -> bytes:
    """One 60 MB string: far more than a 64 MB address-space limit allows."""
    return _one_page_pdf(b"BT /F1 12 Tf 72 720 Td (" + b"A" * 60_000_000 + b") Tj ET")


def test_normal_pdf_is_read_in_the_child() -> None:
    data = _pdf(["The first page says hello.", "The second page says goodbye."], title="Report")
    text, title = pdf_text(data, max_chars=10_000)
    assert "The first page says hello." in text
    assert "The second page says goodbye." in text
    assert title == "Report"
    assert read_pdf(data, max_chars=10_000).published is not None  # reportlab sets it


def test_missing_title_is_none() -> None:
    _, title = pdf_text(_pdf(["No title here."]), max_chars=1_000)
    assert title is None


def test_page_cap_is_applied_in_the_child() -> None:
    data = _pdf([f"Page {n} marker." for n in range(1, 61)])
    text, _ = pdf_text(data, max_chars=100_000)
    assert "Page 50 marker." in text
    assert "Page 51 marker." not in text
    assert "Page 60 marker." not in text
    text, _ = pdf_text(data, max_pages=3, max_chars=100_000)
    assert "Page 3 marker." in text
    assert "Page 4 marker." not in text


def test_char_cap_is_applied_in_the_child() -> None:
    data = _pdf([f"Page {n} has a fairly long sentence of text." for n in range(1, 11)])
    text, _ = pdf_text(data, max_chars=60)
    assert 0 < len(text) <= 60
    assert text.startswith("Page 1 has")


def test_extract_pdf_uses_the_sandbox_and_keeps_its_shape() -> None:
    data = _pdf([f"Page {n} marker." for n in range(1, 61)], title="Sixty Pages")
    doc = extract_pdf(data, 100_000)
    assert doc.kind == "pdf"
    assert doc.title == "Sixty Pages"
    assert "Page 50 marker." in doc.text
    assert "Page 51 marker." not in doc.text
    assert doc.published is not None
    assert len(extract_pdf(data, 40).text) <= 40


@pytest.mark.parametrize(
    "data",
    [b"%PDF-1.7\n garbage garbage", b"", b"not a pdf at all", _pdf(["x"])[:200]],
)
def test_malformed_pdf_is_a_fetch_error(data: bytes) -> None:
    with pytest.raises(FetchError, match=DAMAGED_MESSAGE):
        pdf_text(data, max_chars=1_000)


def test_encrypted_pdf_is_a_fetch_error() -> None:
    data = _pdf(["A secret page."], encrypt="hunter2")
    with pytest.raises(FetchError, match=DAMAGED_MESSAGE):
        pdf_text(data, max_chars=1_000)


def test_memory_limit_stops_a_decompression_bomb() -> None:
    # the same small limit is plenty for an ordinary PDF: the bomb is what trips it
    assert pdf_text(_pdf(["Small."]), max_chars=100, memory_mb=64)[0].strip() == "Small."
    started = time.monotonic()
    with pytest.raises(FetchError, match=LIMITS_MESSAGE):
        pdf_text(_memory_bomb(), max_chars=100, memory_mb=64, timeout_s=15)
    assert time.monotonic() - started < 15


def test_cpu_limit_stops_a_slow_pdf() -> None:
    started = time.monotonic()
    with pytest.raises(FetchError, match=LIMITS_MESSAGE):
        pdf_text(_cpu_bomb(), max_chars=100, cpu_s=1, timeout_s=15)
    assert time.monotonic() - started < 10  # the CPU limit, not the wall clock, fired


def test_wall_clock_timeout_kills_the_child() -> None:
    started = time.monotonic()
    with pytest.raises(FetchError, match=LIMITS_MESSAGE):
        pdf_text(_cpu_bomb(), max_chars=100, timeout_s=0.3)
    assert time.monotonic() - started < 3


def test_parent_survives_failures_and_keeps_working() -> None:
    for bad in (_memory_bomb(), b"%PDF-1.4 broken"):
        with pytest.raises(FetchError):
            pdf_text(bad, max_chars=100, memory_mb=64, cpu_s=2, timeout_s=5)
    text, title = pdf_text(_pdf(["Still alive."], title="After"), max_chars=100)
    assert "Still alive." in text
    assert title == "After"


def test_bad_caps_are_refused() -> None:
    with pytest.raises(ValueError):
        pdf_text(b"%PDF-1.4", max_chars=0)
    with pytest.raises(ValueError):
        pdf_text(b"%PDF-1.4", max_chars=10, max_pages=0)
