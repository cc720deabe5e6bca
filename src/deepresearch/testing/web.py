"""The offline web: a loopback HTTP server with the corpus as pages and a SearXNG endpoint.

Routes::

    GET /page/<id>                        the document as an HTML page (or a PDF)
    GET /search?q=..&format=json[&pageno=N]  SearXNG-style JSON, BM25-ranked, 10 per page
    GET /healthz                          "ok"
    GET /                                 a small front page
    GET /robots.txt                       allows everything

Every request is logged (thread-safe) so tests can assert what a run fetched and searched.
As a command::

    python -m deepresearch.testing.web --corpus corpus.json --port 0 [--host 127.0.0.1]

prints the base URL on the first line of stdout and serves until Ctrl-C or SIGTERM.
"""

from __future__ import annotations

import argparse
import json
import signal
import socket
import socketserver
import subprocess
import sys
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from email.utils import format_datetime
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import FrameType, TracebackType
from typing import Any, cast
from urllib.parse import parse_qs, quote, unquote, urlsplit

from deepresearch.testing.corpus import CorpusDocument, CorpusError, load_corpus
from deepresearch.testing.htmlpage import render_home, render_page
from deepresearch.testing.pdf import make_pdf
from deepresearch.testing.searchindex import OfflineIndex, SearchPage

RESULTS_PER_PAGE = 10
ENGINE = "offline"
HTML_TYPE = "text/html; charset=utf-8"
JSON_TYPE = "application/json"


@dataclass(frozen=True)
class RequestRecord:
    """One request the offline web answered."""

    method: str
    #: the percent-decoded path, e.g. ``/page/fw-2022-afl-grand-final``
    path: str
    #: the raw query string (without ``?``)
    query: str
    status: int = 0

    def params(self) -> dict[str, str]:
        """The query parameters, first value of each."""
        parsed = parse_qs(self.query, keep_blank_values=True, errors="replace")
        return {key: values[0] for key, values in parsed.items() if values}


@dataclass(frozen=True)
class _Response:
    status: int
    content_type: str
    body: bytes
    headers: dict[str, str] = field(default_factory=dict)


def _json(status: int, payload: Any) -> _Response:
    body = json.dumps(payload, ensure_ascii=False).encode("utf-8")
    return _Response(status, JSON_TYPE, body)


def _error(status: HTTPStatus, message: str) -> _Response:
    return _json(status.value, {"error": message, "status": status.value})


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, address: tuple[str, int], web: OfflineWeb) -> None:
        self.web = web
        if ":" in address[0]:
            self.address_family = socket.AF_INET6
        super().__init__(address, _Handler)

    def handle_error(self, request: Any, client_address: Any) -> None:
        # a client that hung up mid-answer (a fetch given up, a run cancelled or done) is
        # not the web's error: no traceback on whatever stderr the test is capturing
        if isinstance(sys.exc_info()[1], ConnectionError):
            return
        super().handle_error(request, client_address)

    def server_bind(self) -> None:
        # HTTPServer.server_bind calls socket.getfqdn(), a DNS lookup: skip it.
        socketserver.TCPServer.server_bind(self)
        self.server_name = str(self.server_address[0])
        self.server_port = int(self.server_address[1])


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "OfflineWeb/1.0"
    timeout = 30

    def do_GET(self) -> None:
        self._answer(head_only=False)

    def do_HEAD(self) -> None:
        self._answer(head_only=True)

    def log_message(self, format: str, *args: Any) -> None:
        """Silence the default stderr access log; requests are recorded instead."""

    def _answer(self, *, head_only: bool) -> None:
        web = cast(_Server, self.server).web
        path, query = "/", ""
        try:
            parts = urlsplit(self.path)
            path, query = unquote(parts.path, errors="replace") or "/", parts.query
            if path.startswith("/page/"):
                web.page_started()
                if web.page_delay_s:
                    time.sleep(web.page_delay_s)
            response = web.respond(path, query)
        except Exception as exc:  # a bug must not take the server down
            response = _error(HTTPStatus.INTERNAL_SERVER_ERROR, f"{type(exc).__name__}")
        web.record(RequestRecord(self.command, path, query, response.status))
        try:
            self.send_response(response.status)
            self.send_header("Content-Type", response.content_type)
            self.send_header("Content-Length", str(len(response.body)))
            for name, value in response.headers.items():
                self.send_header(name, value)
            self.end_headers()
            if not head_only:
                self.wfile.write(response.body)
        except OSError:
            self.close_connection = True


class OfflineWeb:
    """A loopback web server over a list of corpus documents.

    Use as a context manager, or call ``start()`` and ``stop()``. The index is built in
    the constructor; the server runs in a daemon thread.
    """

    def __init__(
        self,
        documents: Sequence[CorpusDocument],
        *,
        host: str = "127.0.0.1",
        port: int = 0,
    ) -> None:
        self.documents = list(documents)
        self._by_id: dict[str, CorpusDocument] = {}
        for document in self.documents:
            if document.id in self._by_id:
                raise ValueError(f"duplicate document id: {document.id!r}")
            self._by_id[document.id] = document
        self.host = host
        self.port = port
        self.index = OfflineIndex(self.documents)
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()
        self._requests: list[RequestRecord] = []
        self._pdfs: dict[str, bytes] = {}
        #: seconds every page (not search) answer waits: slow sites for cancellation tests
        self.page_delay_s = 0.0
        #: page requests received, counted when they arrive (records come after the answer)
        self.page_starts = 0

    # lifecycle ---------------------------------------------------------------------------

    def start(self) -> OfflineWeb:
        """Bind and serve in a daemon thread. Returns self."""
        if self._server is not None:
            raise RuntimeError("the offline web is already running")
        server = _Server((self.host, self.port), self)
        self.port = int(server.server_address[1])
        self._server = server
        self._thread = threading.Thread(
            target=server.serve_forever,
            kwargs={"poll_interval": 0.1},
            name=f"offline-web-{self.port}",
            daemon=True,
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving and release the port. Safe to call twice."""
        server, thread = self._server, self._thread
        self._server, self._thread = None, None
        if server is None:
            return
        server.shutdown()
        server.server_close()
        if thread is not None:
            thread.join(timeout=5)

    def __enter__(self) -> OfflineWeb:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.stop()

    @property
    def running(self) -> bool:
        """True between ``start()`` and ``stop()``."""
        return self._server is not None

    @property
    def base_url(self) -> str:
        """``http://host:port`` of the running server."""
        if self._server is None:
            raise RuntimeError("the offline web is not running; call start()")
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}"

    @property
    def search_url(self) -> str:
        """The SearXNG endpoint (``{base_url}/search``)."""
        return f"{self.base_url}/search"

    def page_url(self, doc_id: str) -> str:
        """The served URL of a document."""
        return f"{self.base_url}/page/{quote(doc_id, safe='')}"

    def document(self, doc_id: str) -> CorpusDocument | None:
        """The document with ``doc_id``, if any."""
        return self._by_id.get(doc_id)

    def document_for_url(self, url: str) -> CorpusDocument | None:
        """The document a served page URL shows, if any."""
        try:
            path = unquote(urlsplit(url).path)
        except ValueError:
            return None
        if not path.startswith("/page/"):
            return None
        return self._by_id.get(path.removeprefix("/page/").rstrip("/"))

    def revise(self, document: CorpusDocument) -> None:
        """Serve ``document`` as the new version of the page with its id from now on (a
        page that changed since a run read it); the search index keeps the words it had."""
        with self._lock:
            if document.id not in self._by_id:
                raise ValueError(f"no document {document.id!r} to revise")
            self._by_id[document.id] = document
            self.documents = [document if d.id == document.id else d for d in self.documents]
            self._pdfs.pop(document.id, None)

    # request log -------------------------------------------------------------------------

    def page_started(self) -> None:
        with self._lock:
            self.page_starts += 1

    def record(self, record: RequestRecord) -> None:
        """Append to the request log (called by the handler before it replies)."""
        with self._lock:
            self._requests.append(record)

    @property
    def requests(self) -> list[RequestRecord]:
        """A snapshot of the request log, oldest first."""
        with self._lock:
            return list(self._requests)

    def hits_for_path(self, path: str) -> int:
        """How many requests had exactly this (decoded) path."""
        with self._lock:
            return sum(1 for record in self._requests if record.path == path)

    def page_hits(self, doc_id: str) -> int:
        """How many times ``/page/<doc_id>`` was fetched (GET requests only)."""
        path = f"/page/{doc_id}"
        with self._lock:
            return sum(1 for r in self._requests if r.path == path and r.method == "GET")

    def search_queries(self) -> list[str]:
        """The ``q`` of every ``/search`` request, in order."""
        with self._lock:
            records = [record for record in self._requests if record.path == "/search"]
        return [record.params().get("q", "") for record in records]

    def reset_log(self) -> None:
        """Forget every logged request."""
        with self._lock:
            self._requests.clear()

    # content -----------------------------------------------------------------------------

    def search(self, query: str, *, pageno: int = 1) -> dict[str, Any]:
        """The SearXNG JSON answer for ``query`` (what ``/search`` serves)."""
        return self._searxng_payload(
            self.index.search(query, page=pageno, per_page=RESULTS_PER_PAGE)
        )

    def _searxng_payload(self, page: SearchPage) -> dict[str, Any]:
        results = []
        for ranked in page.results:
            document = ranked.document
            url = self.page_url(document.id)
            parts = urlsplit(url)
            published = document.published
            results.append(
                {
                    "url": url,
                    "title": document.title,
                    "content": ranked.snippet,
                    "engine": ENGINE,
                    "engines": [ENGINE],
                    "parsed_url": [parts.scheme, parts.netloc, parts.path, "", "", ""],
                    "template": "default.html",
                    "score": round(ranked.score, 4),
                    "category": "general",
                    "publishedDate": f"{published.isoformat()}T00:00:00" if published else None,
                    "positions": [ranked.position],
                    "priority": "",
                }
            )
        return {
            "query": page.query,
            "number_of_results": page.total,
            "results": results,
            "answers": [],
            "corrections": [],
            "infoboxes": [],
            "suggestions": [],
            "unresponsive_engines": [],
        }

    def _pdf_bytes(self, document: CorpusDocument) -> bytes:
        raw = document.raw_bytes()
        if raw is not None:
            return raw
        with self._lock:
            cached = self._pdfs.get(document.id)
        if cached is None:
            cached = make_pdf(document.text, title=document.title)
            with self._lock:
                self._pdfs[document.id] = cached
        return cached

    def _page(self, doc_id: str) -> _Response:
        document = self._by_id.get(doc_id)
        if document is None:
            return _Response(404, HTML_TYPE, b"<!doctype html><title>Not found</title>404")
        headers: dict[str, str] = {}
        if document.published is not None:
            day = datetime(*document.published.timetuple()[:3], tzinfo=UTC)
            headers["Last-Modified"] = format_datetime(day, usegmt=True)
        if document.format == "pdf":
            return _Response(200, "application/pdf", self._pdf_bytes(document), headers)
        raw = document.raw_bytes()
        if raw is not None:
            return _Response(200, "text/html", raw, headers)
        return _Response(200, HTML_TYPE, render_page(document).encode("utf-8"), headers)

    def _search(self, query: str) -> _Response:
        try:
            params = parse_qs(query, keep_blank_values=True, max_num_fields=100, errors="replace")
        except ValueError:
            return _error(HTTPStatus.BAD_REQUEST, "too many query parameters")
        fmt = (params.get("format") or [""])[0]
        if fmt != "json":
            return _error(HTTPStatus.BAD_REQUEST, "only format=json is supported")
        q = (params.get("q") or [""])[0]
        if not q.strip():
            return _error(HTTPStatus.BAD_REQUEST, "missing q")
        raw_page = (params.get("pageno") or ["1"])[0].strip()
        if not (raw_page.isdecimal() and len(raw_page) <= 6 and 1 <= int(raw_page) <= 10_000):
            return _error(HTTPStatus.BAD_REQUEST, "pageno must be an integer from 1")
        return _json(200, self.search(q, pageno=int(raw_page)))

    def respond(self, path: str, query: str) -> _Response:
        """Route one GET request (already percent-decoded path)."""
        if path.startswith("/page/"):
            return self._page(path.removeprefix("/page/").rstrip("/"))
        if path == "/search":
            return self._search(query)
        if path == "/healthz":
            return _Response(200, "text/plain; charset=utf-8", b"ok")
        if path == "/":
            return _Response(200, HTML_TYPE, render_home(len(self.documents)).encode())
        if path == "/robots.txt":
            return _Response(200, "text/plain; charset=utf-8", b"User-agent: *\nAllow: /\n")
        return _error(HTTPStatus.NOT_FOUND, "not found")


@contextmanager
def offline_web_process(corpus: str | Path) -> Iterator[str]:
    """``python -m deepresearch.testing.web --corpus CORPUS --port 0`` in a child process
    (so its work runs outside the caller's interpreter); yields its base URL and stops it."""
    command = [sys.executable, "-m", "deepresearch.testing.web", "--corpus", str(corpus)]
    server = subprocess.Popen(  # noqa: S603 (our own interpreter, fixed arguments)
        [*command, "--port", "0"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        assert server.stdout is not None
        line = server.stdout.readline().strip()
        if not line.startswith("http://"):
            server.wait(timeout=10)
            error = server.stderr.read() if server.stderr else ""
            raise RuntimeError(f"the offline web did not start: {error.strip()}")
        yield line
    finally:
        server.terminate()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


def main(argv: Sequence[str] | None = None) -> int:
    """Serve a corpus until Ctrl-C or SIGTERM."""
    parser = argparse.ArgumentParser(
        prog="python -m deepresearch.testing.web",
        description="Serve a corpus as an offline web with a SearXNG-style search endpoint.",
    )
    parser.add_argument("--corpus", required=True, help="a JSON corpus file or a folder")
    parser.add_argument("--port", type=int, default=8765, help="0 picks a free port")
    parser.add_argument("--host", default="127.0.0.1")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    try:
        web = OfflineWeb(load_corpus(args.corpus), host=args.host, port=args.port).start()
    except (CorpusError, OSError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    stop = threading.Event()

    def _on_signal(signum: int, frame: FrameType | None) -> None:
        stop.set()

    signal.signal(signal.SIGTERM, _on_signal)
    signal.signal(signal.SIGINT, _on_signal)
    print(web.base_url, flush=True)
    print(
        f"serving {len(web.documents)} documents (ready in {time.perf_counter() - started:.2f}s);"
        f" search: {web.search_url}?q=...&format=json; Ctrl-C to stop",
        file=sys.stderr,
        flush=True,
    )
    try:
        while not stop.wait(0.5):
            pass
    finally:
        web.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
