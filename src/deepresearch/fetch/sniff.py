"""Which bodies the fetcher accepts: a content-type allowlist checked against magic bytes.

* The declared media type must be one of ``ALLOWED_TYPES`` (HTML, XHTML, plain text,
  PDF). A missing header, or a generic ``application/octet-stream``, is decided by
  sniffing the body instead.
* The first ``SNIFF_BYTES`` decoded bytes must agree with the declaration: a declared
  PDF must carry ``%PDF-``; declared or sniffed text must not start with the magic
  bytes of an image, archive, compressed stream or executable, nor contain a NUL byte
  (UTF-16 and UTF-32 text, recognised by its byte-order mark, is exempt from the NUL
  rule).

An image (a report's figure, ``HttpFetcher.fetch_image``) has rules of its own: the
declared type must be PNG, JPEG, WebP or GIF (or undeclared), and the first bytes must
be one of those four whatever was declared; SVG (a document that can hold scripts and
fetch other addresses) is refused, and so is anything else served as an image.

Refusals are ``FetchBlocked`` with a fixed message; a declared type is named in it
only when it is a plain ``type/subtype`` token.
"""

from __future__ import annotations

import re

from deepresearch.errors import FetchBlocked

ALLOWED_TYPES = frozenset({"text/html", "application/xhtml+xml", "text/plain", "application/pdf"})
#: how much of the decoded body the magic-byte check looks at
SNIFF_BYTES = 1024
_UNDECLARED = frozenset({"", "application/octet-stream", "binary/octet-stream"})
_PDF_MAGIC = b"%PDF-"
_BINARY_MAGIC = (
    b"\x89PNG\r\n\x1a\n",
    b"GIF87a",
    b"GIF89a",
    b"\xff\xd8\xff",  # JPEG
    b"PK\x03\x04",  # ZIP (and docx, jar, apk ...)
    b"PK\x05\x06",  # empty ZIP
    b"PK\x07\x08",  # spanned ZIP
    b"\x1f\x8b",  # gzip
    b"\x28\xb5\x2f\xfd",  # zstd
    b"\xfd7zXZ\x00",  # xz
    b"7z\xbc\xaf\x27\x1c",
    b"Rar!\x1a\x07",
    b"\x7fELF",
    b"\xcf\xfa\xed\xfe",  # Mach-O
    b"\xfe\xed\xfa\xce",
    b"\xca\xfe\xba\xbe",  # Java class, Mach-O fat
    b"\x00asm",  # WebAssembly
    b"SQLite format 3\x00",
)
_TEXT_BOMS = (b"\xff\xfe", b"\xfe\xff", b"\x00\x00\xfe\xff")
#: the image types a figure may be, and what an image is served as
IMAGE_TYPES = frozenset({"image/png", "image/jpeg", "image/webp", "image/gif"})
_IMAGE_REFUSED = "refused: the body is not a PNG, JPEG, WebP or GIF image"
_SAFE_TOKEN = re.compile(r"[a-z0-9][a-z0-9.+-]{0,40}/[a-z0-9][a-z0-9.+-]{0,60}")


def media_type(content_type: str) -> str:
    """``"Text/HTML; charset=utf-8"`` → ``"text/html"``."""
    return content_type.split(";", 1)[0].strip().lower()


def check_declared(content_type: str) -> None:
    """Refuse a declared media type outside the allowlist before reading the body."""
    declared = media_type(content_type)
    if declared in ALLOWED_TYPES or declared in _UNDECLARED:
        return
    if _SAFE_TOKEN.fullmatch(declared):
        raise FetchBlocked(f"unsupported content type: {declared}")
    raise FetchBlocked("unsupported content type")


def check_head(content_type: str, head: bytes) -> None:
    """Refuse a body whose first bytes contradict its (declared or sniffed) type."""
    declared = media_type(content_type)
    head = head[:SNIFF_BYTES]
    is_pdf = _PDF_MAGIC in head
    if declared == "application/pdf":
        if not is_pdf:
            raise FetchBlocked("refused: the body is not the PDF its content type declares")
        return
    if declared in _UNDECLARED and is_pdf:
        return
    if looks_binary(head):
        raise FetchBlocked("refused: the body is binary data, not a page or document")


def looks_binary(head: bytes) -> bool:
    """Magic bytes of a binary format, or a NUL byte in text without a UTF-16/32 BOM."""
    if head.startswith(_BINARY_MAGIC):
        return True
    if head.startswith(_TEXT_BOMS):
        return False
    return b"\x00" in head


def check_image_declared(content_type: str) -> None:
    """Refuse a declared type that is not a PNG, JPEG, WebP or GIF image (SVG too)."""
    declared = media_type(content_type)
    if declared in IMAGE_TYPES or declared in _UNDECLARED:
        return
    if declared == "image/svg+xml":
        raise FetchBlocked("refused: SVG images are not embedded")
    if _SAFE_TOKEN.fullmatch(declared):
        raise FetchBlocked(f"unsupported image type: {declared}")
    raise FetchBlocked("unsupported image type")


def image_type(head: bytes) -> str | None:
    """The image type the first bytes are (PNG, JPEG, WebP, GIF), else None."""
    if head.startswith(b"\x89PNG\r\n\x1a\n"):
        return "image/png"
    if head.startswith(b"\xff\xd8\xff"):
        return "image/jpeg"
    if head.startswith((b"GIF87a", b"GIF89a")):
        return "image/gif"
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return "image/webp"
    return None


def check_image_head(content_type: str, head: bytes) -> None:
    """Refuse a body that is not an image of an allowed type, whatever it was served as."""
    if image_type(head[:SNIFF_BYTES]) is None:
        raise FetchBlocked(_IMAGE_REFUSED)
