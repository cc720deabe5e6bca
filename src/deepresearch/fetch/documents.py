"""Reading a document file of your own (.md, .txt, .html, .pdf, .docx) into clean text:
the one reader of the local corpus (``search/local.py``) and of ``library import``, so
both accept the same files. The extractors are ``fetch/extract.py``'s."""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from deepresearch.errors import FetchError, InvalidInput
from deepresearch.fetch.extract import (
    ExtractedDoc,
    decode_html,
    decode_text,
    extract_docx,
    extract_html,
    extract_pdf,
    extract_plain,
)
from deepresearch.models.library import LibraryDocument

#: text kept of one document, in characters (what the local corpus keeps too)
MAX_DOCUMENT_CHARS = 200_000
#: files larger than this are not read (a document of your own, not an archive)
MAX_FILE_BYTES = 50 * 1024 * 1024
#: the most documents one import reads
MAX_DOCUMENTS = 5_000

#: the file kinds read, by suffix (lowercased)
DOCUMENT_SUFFIXES = frozenset({".md", ".markdown", ".txt", ".html", ".htm", ".pdf", ".docx"})


def document_kind(path: Path) -> str:
    """What ``path`` holds, by its suffix: pdf, html, docx or text."""
    suffix = path.suffix.lower()
    if suffix in (".pdf", ".docx"):
        return suffix[1:]
    return "html" if suffix in (".html", ".htm") else "text"


def read_document(path: Path, max_chars: int) -> ExtractedDoc | None:
    """The document's text and title (at most ``max_chars`` characters), or None when it
    cannot be read or has no text."""
    try:
        data = path.read_bytes()
        kind = document_kind(path)
        if kind == "pdf":
            doc = extract_pdf(data, max_chars)
        elif kind == "docx":
            doc = extract_docx(data, max_chars)
        elif kind == "html":
            doc = extract_html(decode_html(data), None, max_chars)
        else:
            doc = extract_plain(decode_text(data), max_chars)
    except (OSError, FetchError):
        return None
    return doc if doc.text else None


@dataclass
class Folder:
    """What reading a folder found: the documents, and the files skipped (unreadable,
    empty or too large)."""

    documents: list[LibraryDocument] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)


def read_folder(directory: Path) -> Folder:
    """Every document under ``directory`` (hidden files and folders skipped, symlinked
    folders not followed), read. ``InvalidInput`` when ``directory`` is not a folder, has
    more than ``MAX_DOCUMENTS`` documents, or none of them could be read."""
    folder = Path(directory).expanduser()
    if not folder.is_dir():
        raise InvalidInput(
            f"{folder} is not a folder", hint="give a folder of .md, .txt, .html, .pdf or .docx"
        )
    root = folder.resolve()
    found = Folder()
    for path in _documents(root):
        if len(found.documents) + len(found.skipped) >= MAX_DOCUMENTS:
            raise InvalidInput(
                f"{folder} holds more than {MAX_DOCUMENTS} documents",
                hint="import it in smaller folders, as several collections",
            )
        doc = None
        try:
            small = path.stat().st_size <= MAX_FILE_BYTES
        except OSError:
            small = False
        if small:
            doc = read_document(path, MAX_DOCUMENT_CHARS)
        if doc is None:
            found.skipped.append(str(path))
            continue
        title = doc.title or path.stem
        found.documents.append(
            LibraryDocument(path=str(path), title=title, kind=document_kind(path), text=doc.text)
        )
    if not found.documents:
        raise InvalidInput(
            f"no readable document in {folder}",
            hint="a collection is made of .md, .txt, .html, .pdf or .docx files with text",
        )
    return found


def _documents(root: Path) -> Iterator[Path]:
    for base, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for name in sorted(files):
            path = Path(base, name)
            if not name.startswith(".") and path.suffix.lower() in DOCUMENT_SUFFIXES:
                yield path
