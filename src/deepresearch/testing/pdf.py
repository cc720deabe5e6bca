"""A small PDF 1.4 writer for text documents, so the offline web can serve real PDFs.

Helvetica and Helvetica-Bold (standard Type 1 fonts, WinAnsiEncoding), lines wrapped with
the fonts' real widths, as many US Letter pages as the text needs, literal strings escaped.
Paragraphs are separated by blank lines; a paragraph starting with ``#`` is a bold heading;
a paragraph whose lines are indented keeps its line breaks. Characters outside WinAnsi are
transliterated where Unicode decomposition allows, else written as ``?``. Output is
deterministic (no dates, no ids).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

PAGE_WIDTH = 612.0
PAGE_HEIGHT = 792.0
MARGIN = 72.0
BODY_SIZE = 11.0
HEADING_SIZE = 13.0
TITLE_SIZE = 16.0

# Advance widths (1/1000 em) of ASCII 32..126 from the Adobe AFM files.
_HELVETICA = (
    "278 278 355 556 556 889 667 191 333 333 389 584 278 333 278 278 556 556 556 556 556 556 "
    "556 556 556 556 278 278 584 584 584 556 1015 667 667 722 722 667 611 778 722 278 500 667 "
    "556 833 722 778 667 778 722 667 611 722 667 944 667 667 611 278 278 278 469 556 333 556 "
    "556 500 556 556 278 556 556 222 222 500 222 833 556 556 556 556 333 500 278 556 500 722 "
    "500 500 500 334 260 334 584"
)
_HELVETICA_BOLD = (
    "278 333 474 556 556 889 722 238 333 333 389 584 278 333 278 278 556 556 556 556 556 556 "
    "556 556 556 556 333 333 584 584 584 611 975 722 722 722 722 667 611 778 722 278 556 722 "
    "611 833 722 778 667 778 722 667 611 722 667 944 667 667 611 333 278 333 584 556 333 556 "
    "611 556 611 556 333 611 611 278 278 556 278 889 611 611 611 611 389 556 333 611 556 778 "
    "556 556 500 389 280 389 584"
)
_WIDTHS = {
    "F1": [int(width) for width in _HELVETICA.split()],
    "F2": [int(width) for width in _HELVETICA_BOLD.split()],
}
_DEFAULT_WIDTH = 600


def to_winansi(text: str) -> bytes:
    """``text`` as WinAnsi (cp1252) bytes: transliterated where possible, else ``?``."""
    out = bytearray()
    for char in text:
        if char == "\t":
            out += b"    "
            continue
        if unicodedata.category(char) in ("Cc", "Cf", "Zl", "Zp"):
            continue
        try:
            out += char.encode("cp1252")
            continue
        except UnicodeEncodeError:
            pass
        decomposed = unicodedata.normalize("NFKD", char)
        folded = decomposed.encode("cp1252", "ignore")
        out += folded if folded.strip() else b"?"
    return bytes(out)


def escape_string(data: bytes) -> bytes:
    """A PDF literal string body: ``( ) \\`` escaped, non-printable bytes as octal."""
    out = bytearray()
    for byte in data:
        if byte in b"()\\":
            out += b"\\" + bytes([byte])
        elif 32 <= byte < 127:
            out.append(byte)
        else:
            out += b"\\%03o" % byte
    return bytes(out)


def text_width(data: bytes, font: str, size: float) -> float:
    """Width in points of WinAnsi ``data`` set in ``font`` ("F1" or "F2") at ``size``."""
    widths = _WIDTHS[font]
    total = sum(widths[b - 32] if 32 <= b < 127 else _DEFAULT_WIDTH for b in data)
    return total * size / 1000.0


def wrap(data: bytes, font: str, size: float, width: float) -> list[bytes]:
    """Break one line of WinAnsi bytes into lines no wider than ``width`` points."""
    lines: list[bytes] = []
    current = b""
    for word in data.split(b" "):
        if not word:
            continue
        candidate = current + b" " + word if current else word
        if text_width(candidate, font, size) <= width:
            current = candidate
            continue
        if current:
            lines.append(current)
        current = b""
        while text_width(word, font, size) > width:
            cut = len(word) - 1
            while cut > 1 and text_width(word[:cut], font, size) > width:
                cut -= 1
            lines.append(word[:cut])
            word = word[cut:]
        current = word
    if current:
        lines.append(current)
    return lines


@dataclass(frozen=True)
class _Line:
    font: str
    size: float
    data: bytes
    space_before: float


def _layout(text: str, title: str | None) -> list[_Line]:
    usable = PAGE_WIDTH - 2 * MARGIN
    lines: list[_Line] = []
    if title and title.strip():
        for data in wrap(to_winansi(" ".join(title.split())), "F2", TITLE_SIZE, usable):
            lines.append(_Line("F2", TITLE_SIZE, data, 0.0))
    for paragraph in re.split(r"\n[ \t]*\n", text.replace("\r\n", "\n").strip("\n")):
        if not paragraph.strip():
            continue
        gap = BODY_SIZE * 0.6 if lines else 0.0
        heading = re.match(r"#{1,6}\s+(.*)", paragraph.strip(), re.DOTALL)
        if heading:
            font, size, sources = "F2", HEADING_SIZE, [" ".join(heading.group(1).split())]
            gap = HEADING_SIZE * 0.8 if lines else 0.0
        elif any(line[:1].isspace() for line in paragraph.split("\n")):
            font, size, sources = "F1", BODY_SIZE, paragraph.split("\n")
        else:
            font, size, sources = "F1", BODY_SIZE, [" ".join(paragraph.split())]
        for source in sources:
            for data in wrap(to_winansi(source.rstrip()), font, size, usable) or [b""]:
                lines.append(_Line(font, size, data, gap))
                gap = 0.0
    return lines


def _paginate(lines: list[_Line]) -> list[bytes]:
    pages: list[bytes] = []
    ops: list[bytes] = []
    y = PAGE_HEIGHT - MARGIN
    for line in lines:
        advance = line.size * 1.3 + (line.space_before if ops else 0.0)
        if ops and y - advance < MARGIN:
            pages.append(b"BT\n" + b"".join(ops) + b"ET\n")
            ops, y = [], PAGE_HEIGHT - MARGIN
            advance = line.size * 1.3
        y -= advance
        if line.data:
            ops.append(
                b"/%s %.1f Tf 1 0 0 1 %.2f %.2f Tm (%s) Tj\n"
                % (line.font.encode(), line.size, MARGIN, y, escape_string(line.data))
            )
        else:
            ops.append(b"")
    pages.append(b"BT\n" + b"".join(ops) + b"ET\n")
    return pages


def _utf16_string(text: str) -> bytes:
    return b"<FEFF" + text.encode("utf-16-be").hex().upper().encode("ascii") + b">"


def make_pdf(text: str, *, title: str | None = None) -> bytes:
    """A complete PDF 1.4 file showing ``title`` (bold) and then ``text``."""
    streams = _paginate(_layout(text, title))
    first_page = 6
    objects: list[bytes] = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids ["
        + b" ".join(b"%d 0 R" % (first_page + 2 * i) for i in range(len(streams)))
        + b"] /Count %d >>" % len(streams),
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica-Bold /Encoding /WinAnsiEncoding >>",
        b"<< /Title "
        + _utf16_string(" ".join((title or "").split()))
        + b" /Producer (deepresearch offline web) >>",
    ]
    for index, stream in enumerate(streams):
        content_ref = first_page + 2 * index + 1
        objects.append(
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 %d %d] "
            b"/Resources << /Font << /F1 3 0 R /F2 4 0 R >> >> /Contents %d 0 R >>"
            % (int(PAGE_WIDTH), int(PAGE_HEIGHT), content_ref)
        )
        objects.append(b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream")
    return assemble(objects, info=5)


def assemble(objects: Sequence[bytes], *, info: int | None = None) -> bytes:
    """A PDF file from its numbered objects (1-based; object 1 is the catalog): header,
    objects, cross-reference table and trailer."""
    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets: list[int] = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    for offset in offsets:
        out += b"%010d 00000 n \n" % offset
    extra = b" /Info %d 0 R" % info if info is not None else b""
    out += b"trailer\n<< /Size %d /Root 1 0 R%s >>\n" % (len(objects) + 1, extra)
    out += b"startxref\n%d\n%%%%EOF\n" % xref
    return bytes(out)
