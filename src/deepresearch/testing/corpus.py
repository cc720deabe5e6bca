"""The offline web's corpus: the JSON format, its loader and writer, and folder corpora.

A corpus file is a JSON list of documents (or an object ``{"documents": [...]}``)::

    {"id": "fw-2022-afl-grand-final", "title": "2022 AFL Grand Final",
     "text": "paragraphs separated by blank lines; '## ' starts a heading paragraph",
     "url": "https://en.wikipedia.org/wiki/2022_AFL_Grand_Final",   (optional)
     "published": "2022-09-24",                                    (optional)
     "format": "html"}                                             ("html" or "pdf")

A folder corpus is a directory of ``.html``/``.htm`` (also gzipped), ``.md``, ``.txt`` and
``.pdf`` files. Ids are slugs of the relative paths; titles come from the HTML ``<title>``,
the first Markdown heading or the file name. HTML and PDF files are served as they are;
Markdown and text files are rendered like JSON documents.
"""

from __future__ import annotations

import gzip
import json
import re
import unicodedata
from collections.abc import Iterable, Sequence
from datetime import date
from html.parser import HTMLParser
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

HTML_SUFFIXES = (".html", ".htm", ".html.gz", ".htm.gz")
TEXT_SUFFIXES = (".md", ".markdown", ".txt")
PDF_SUFFIXES = (".pdf",)


class CorpusError(ValueError):
    """A corpus file or folder cannot be read."""


class CorpusDocument(BaseModel):
    """One document of the offline web."""

    model_config = ConfigDict(frozen=True, extra="ignore")

    id: str = Field(min_length=1, max_length=300)
    title: str
    text: str
    url: str | None = Field(default=None, description="where the text originally came from")
    published: date | None = None
    format: Literal["html", "pdf"] = "html"
    source: Path | None = Field(
        default=None,
        exclude=True,
        description="a file served byte for byte instead of rendering (folder corpora)",
    )

    def raw_bytes(self) -> bytes | None:
        """The source file's bytes (gunzipped), or None when the page is rendered."""
        if self.source is None:
            return None
        data = self.source.read_bytes()
        return gzip.decompress(data) if self.source.name.lower().endswith(".gz") else data


def slugify(text: str, *, max_length: int = 80) -> str:
    """A lowercase ASCII slug of ``text`` (``"Alû (mythology)"`` -> ``"alu-mythology"``)."""
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    slug = re.sub(r"[^a-z0-9]+", "-", ascii_text.lower()).strip("-")
    return slug[:max_length].rstrip("-")


def unique_ids(prefix: str, names: Iterable[str]) -> list[str]:
    """``prefix`` + slug of each name, made unique with ``-2``, ``-3``... in order."""
    seen: set[str] = set()
    ids: list[str] = []
    for name in names:
        base = prefix + (slugify(name) or "untitled")
        candidate, counter = base, 1
        while candidate in seen:
            counter += 1
            candidate = f"{base}-{counter}"
        seen.add(candidate)
        ids.append(candidate)
    return ids


def load_corpus(path: str | Path) -> list[CorpusDocument]:
    """Load a JSON corpus file or a folder corpus. Raises ``CorpusError``."""
    path = Path(path)
    if path.is_dir():
        documents = _load_folder(path)
    elif path.is_file():
        documents = _load_json(path)
    else:
        raise CorpusError(f"corpus not found: {path}")
    _check_unique(documents)
    return documents


def parse_corpus(data: Any) -> list[CorpusDocument]:
    """Validate already-decoded corpus JSON. Raises ``CorpusError``."""
    if isinstance(data, dict) and "documents" in data:
        data = data["documents"]
    if not isinstance(data, list):
        raise CorpusError("a corpus is a JSON list of documents or {'documents': [...]}")
    documents: list[CorpusDocument] = []
    for position, item in enumerate(data):
        if not isinstance(item, dict):
            raise CorpusError(f"document {position} is not a JSON object")
        clean = {key: value for key, value in item.items() if key != "source"}
        try:
            documents.append(CorpusDocument.model_validate(clean))
        except ValidationError as exc:
            raise CorpusError(f"document {position} is invalid: {exc}") from exc
    _check_unique(documents)
    return documents


def dump_corpus(documents: Sequence[CorpusDocument]) -> list[dict[str, Any]]:
    """The JSON-ready form of ``documents`` (unset optional fields left out)."""
    return [document.model_dump(mode="json", exclude_none=True) for document in documents]


def save_corpus(documents: Sequence[CorpusDocument], path: str | Path) -> int:
    """Write ``documents`` as a JSON corpus file; returns the number of bytes written."""
    payload = json.dumps(dump_corpus(documents), ensure_ascii=False, indent=1) + "\n"
    data = payload.encode("utf-8")
    Path(path).write_bytes(data)
    return len(data)


def _check_unique(documents: Sequence[CorpusDocument]) -> None:
    seen: set[str] = set()
    for document in documents:
        if document.id in seen:
            raise CorpusError(f"duplicate document id: {document.id!r}")
        seen.add(document.id)


def _load_json(path: Path) -> list[CorpusDocument]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise CorpusError(f"cannot read corpus {path}: {exc}") from exc
    return parse_corpus(data)


def _suffix(path: Path) -> str | None:
    name = path.name.lower()
    for suffix in HTML_SUFFIXES + TEXT_SUFFIXES + PDF_SUFFIXES:
        if name.endswith(suffix):
            return suffix
    return None


def _load_folder(root: Path) -> list[CorpusDocument]:
    files = sorted(
        path
        for path in root.rglob("*")
        if path.is_file()
        and _suffix(path) is not None
        and not any(part.startswith(".") for part in path.relative_to(root).parts)
    )
    stems = [_relative_stem(path, root) for path in files]
    ids = unique_ids("", stems)
    documents: list[CorpusDocument] = []
    for doc_id, path, stem in zip(ids, files, stems, strict=True):
        try:
            documents.append(_load_file(doc_id, path, stem))
        except (OSError, ValueError) as exc:
            raise CorpusError(f"cannot read {path}: {exc}") from exc
    return documents


def _relative_stem(path: Path, root: Path) -> str:
    relative = path.relative_to(root).as_posix()
    suffix = _suffix(path) or ""
    return relative[: len(relative) - len(suffix)]


def _name_title(stem: str) -> str:
    name = stem.rsplit("/", 1)[-1]
    return re.sub(r"[-_]+", " ", name).strip() or name


def _load_file(doc_id: str, path: Path, stem: str) -> CorpusDocument:
    suffix = _suffix(path)
    if suffix in PDF_SUFFIXES:
        title, text = _pdf_title_and_text(path)
        return CorpusDocument(
            id=doc_id, title=title or _name_title(stem), text=text, format="pdf", source=path
        )
    if suffix in HTML_SUFFIXES:
        raw = path.read_bytes()
        if suffix.endswith(".gz"):
            raw = gzip.decompress(raw)
        title, text = html_title_and_text(decode_html(raw))
        return CorpusDocument(id=doc_id, title=title or _name_title(stem), text=text, source=path)
    text = path.read_text(encoding="utf-8", errors="replace").replace("\r\n", "\n")
    title = _markdown_title(text) if suffix != ".txt" else None
    return CorpusDocument(id=doc_id, title=title or _name_title(stem), text=text.strip())


def _markdown_title(text: str) -> str | None:
    for line in text.splitlines():
        match = re.match(r"#{1,6}\s+(.+?)\s*#*\s*$", line)
        if match:
            return match.group(1)
    return None


def _pdf_title_and_text(path: Path) -> tuple[str | None, str]:
    from pypdf import PdfReader

    reader = PdfReader(str(path))
    pages = [page.extract_text() or "" for page in reader.pages]
    metadata = reader.metadata
    title = metadata.title if metadata is not None else None
    return (str(title).strip() or None) if title else None, "\n\n".join(pages).strip()


_CHARSET = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?\s*([A-Za-z0-9_.:-]+)""", re.IGNORECASE)


def decode_html(raw: bytes) -> str:
    """Decode HTML bytes by BOM, ``<meta charset>``, then UTF-8 with replacement."""
    if raw.startswith(b"\xef\xbb\xbf"):
        return raw[3:].decode("utf-8", errors="replace")
    match = _CHARSET.search(raw[:4096])
    if match:
        try:
            return raw.decode(match.group(1).decode("ascii"), errors="replace")
        except LookupError:
            pass
    return raw.decode("utf-8", errors="replace")


_SKIP_TAGS = frozenset({"script", "style", "noscript", "template", "svg"})
_BLOCK_TAG_TEXT = """address article aside blockquote br dd div dl dt figcaption figure footer form
h1 h2 h3 h4 h5 h6 header hr li main nav ol p pre section table td th tr ul"""
_BLOCK_TAGS = frozenset(_BLOCK_TAG_TEXT.split())


class _TextParser(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.title: list[str] = []
        self.blocks: list[str] = []
        self._current: list[str] = []
        self._skip = 0
        self._in_title = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "title":
            self._in_title = True
        elif tag in _SKIP_TAGS:
            self._skip += 1
        elif tag in _BLOCK_TAGS:
            self._flush()

    def handle_endtag(self, tag: str) -> None:
        if tag == "title":
            self._in_title = False
        elif tag in _SKIP_TAGS:
            self._skip = max(0, self._skip - 1)
        elif tag in _BLOCK_TAGS:
            self._flush()

    def handle_data(self, data: str) -> None:
        if self._in_title:
            self.title.append(data)
        elif not self._skip:
            self._current.append(data)

    def _flush(self) -> None:
        block = " ".join("".join(self._current).split())
        if block:
            self.blocks.append(block)
        self._current = []

    def close(self) -> None:
        super().close()
        self._flush()


def html_title_and_text(html: str) -> tuple[str | None, str]:
    """The ``<title>`` and the visible text (one paragraph per block) of an HTML page."""
    parser = _TextParser()
    parser.feed(html)
    parser.close()
    title = " ".join("".join(parser.title).split())
    return title or None, "\n\n".join(parser.blocks)
