"""Read a PDF's text in a child process with memory and CPU limits.

PDFs come from the open web, and pypdf on a hostile file can allocate without bound
(decompression bombs), spin for minutes, or recurse until the interpreter dies. So the
parsing runs in a fresh ``python -I`` child that runs *this file as a script*: it imports
only the standard library and pypdf (about 0.1 s, against 1 s for the whole package),
reads the PDF bytes on stdin, sets ``RLIMIT_AS`` and ``RLIMIT_CPU`` before parsing,
applies the page and character caps itself, and writes one JSON object on stdout. The
parent kills it at a wall-clock timeout. Every failure becomes a FetchError with a short
message that is safe to show.
"""

from __future__ import annotations

import io
import json
import logging
import resource
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, NamedTuple

from pypdf import PdfReader

#: the message for a PDF that hit a limit: memory, CPU, wall clock, or a crash
LIMITS_MESSAGE = "PDF could not be read within its limits"
#: the message for bytes pypdf rejects (the old "could not read the PDF" prefix is kept)
DAMAGED_MESSAGE = "could not read the PDF: damaged or encrypted PDF"

_LOG = logging.getLogger(__name__)
_SCRIPT = str(Path(__file__).resolve())
# what a PDF's own tools write when there is no title
_PLACEHOLDER_TITLES = ("untitled", "untitled document")


class PdfText(NamedTuple):
    """What the child read: raw page text (capped), one-line title, creation date."""

    text: str
    title: str | None
    published: datetime | None


# --- parent side -----------------------------------------------------------------------


def pdf_text(
    data: bytes,
    *,
    max_pages: int = 50,
    max_chars: int,
    timeout_s: float = 20.0,
    memory_mb: int = 512,
    cpu_s: int = 15,
) -> tuple[str, str | None]:
    """Text of the first ``max_pages`` pages (at most ``max_chars`` characters, not
    cleaned) and the metadata title, read in a limited child process.

    Raises FetchError when the PDF is damaged or encrypted, or when reading it exceeds
    ``memory_mb`` of address space, ``cpu_s`` of CPU time or ``timeout_s`` of wall time.
    """
    result = read_pdf(
        data,
        max_pages=max_pages,
        max_chars=max_chars,
        timeout_s=timeout_s,
        memory_mb=memory_mb,
        cpu_s=cpu_s,
    )
    return result.text, result.title


def read_pdf(
    data: bytes,
    *,
    max_pages: int = 50,
    max_chars: int,
    timeout_s: float = 20.0,
    memory_mb: int = 512,
    cpu_s: int = 15,
) -> PdfText:
    """``pdf_text`` with the creation date too (see there)."""
    if max_chars < 1 or max_pages < 1:
        raise ValueError("max_chars and max_pages must be at least 1")
    command = [
        sys.executable,
        "-I",  # no PYTHON* variables, no user site, no script directory on sys.path
        _SCRIPT,
        str(max_pages),
        str(max_chars),
        str(memory_mb),
        str(cpu_s),
    ]
    try:
        done = subprocess.run(  # noqa: S603 - fixed interpreter and script, no shell
            command,
            input=data,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            timeout=timeout_s,
            check=False,
        )
    except subprocess.TimeoutExpired as exc:  # run() has already killed the child
        raise _fetch_error(LIMITS_MESSAGE) from exc
    except OSError as exc:  # could not start the interpreter
        raise _fetch_error(LIMITS_MESSAGE) from exc
    try:
        reply = json.loads(done.stdout)
    except ValueError:
        reply = None
    if done.returncode != 0 or not isinstance(reply, dict):
        # killed by SIGXCPU or SIGKILL, or died mid-write: a limit or a crash
        _LOG.debug("PDF child exited with %s", done.returncode)
        raise _fetch_error(LIMITS_MESSAGE)
    if reply.get("error") == "damaged":
        raise _fetch_error(DAMAGED_MESSAGE)
    if reply.get("error") is not None:
        raise _fetch_error(LIMITS_MESSAGE)
    published = reply.get("published")
    return PdfText(
        text=str(reply.get("text") or ""),
        title=str(reply["title"]) if reply.get("title") else None,
        published=datetime.fromisoformat(published) if isinstance(published, str) else None,
    )


def _fetch_error(message: str) -> Exception:
    # imported here: the child runs this file as a script and must not import the
    # deepresearch package, whose __init__ pulls in the whole engine
    from deepresearch.errors import FetchError

    return FetchError(message)


# --- child side ------------------------------------------------------------------------


def read_pdf_in_process(data: bytes, *, max_pages: int, max_chars: int) -> PdfText:
    """The pypdf reading itself, run inside the child: text of the first ``max_pages``
    pages, cut at ``max_chars`` characters, plus title and creation date.

    Raises ValueError when the PDF is encrypted with a non-empty password; pypdf raises
    many exception types on damaged files.
    """
    reader = PdfReader(io.BytesIO(data))
    if reader.is_encrypted and not reader.decrypt(""):
        raise ValueError("encrypted PDF")
    parts: list[str] = []
    length = 0
    for page in reader.pages[:max_pages]:
        page_text = page.extract_text() or ""
        parts.append(page_text)
        length += len(page_text) + 2
        if length >= max_chars:
            break
    text = "\n\n".join(parts)[:max_chars]
    title, published = _metadata(reader)
    return PdfText(text=text, title=title, published=published)


def _metadata(reader: PdfReader) -> tuple[str | None, datetime | None]:
    try:
        meta = reader.metadata
    except Exception:  # damaged info dictionary: the text is still worth having
        return None, None
    if meta is None:
        return None, None
    try:
        title = " ".join(str(meta.title or "").split())
    except Exception:  # undecodable title string
        title = ""
    if title.lower() in _PLACEHOLDER_TITLES:
        title = ""
    published: datetime | None = None
    try:
        created = meta.creation_date
    except Exception:  # unparsable date string
        created = None
    if isinstance(created, datetime):
        published = created if created.tzinfo else created.replace(tzinfo=UTC)
    return title or None, published


def _limit(which: int, value: int) -> None:
    """Lower the soft and hard limit ``which`` to ``value`` (never above the hard one)."""
    _soft, hard = resource.getrlimit(which)
    if hard != resource.RLIM_INFINITY:
        value = min(value, hard)
    resource.setrlimit(which, (value, value if which != resource.RLIMIT_CPU else value + 1))


def _child_main(argv: list[str]) -> int:
    max_pages, max_chars, memory_mb, cpu_s = (int(arg) for arg in argv)
    data = sys.stdin.buffer.read()
    out = sys.stdout
    sys.stdout = sys.stderr  # nothing the parser prints may corrupt the reply
    _limit(resource.RLIMIT_CORE, 0)
    _limit(resource.RLIMIT_CPU, cpu_s)  # SIGXCPU kills the child at the soft limit
    _limit(resource.RLIMIT_AS, memory_mb * 1024 * 1024)
    reply: dict[str, Any]
    try:
        result = read_pdf_in_process(data, max_pages=max_pages, max_chars=max_chars)
        published = result.published.isoformat() if result.published else None
        reply = {"text": result.text, "title": result.title, "published": published}
    except (MemoryError, RecursionError):
        reply = {"error": "limits"}
    except Exception:  # pypdf raises many types on damaged or encrypted files
        reply = {"error": "damaged"}
    try:
        out.write(json.dumps(reply))
        out.flush()
    except MemoryError:
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(_child_main(sys.argv[1:]))
