"""A loopback HTTP server that plays a search provider: it answers with scripted replies
and records every request, so adapter tests run over real HTTP without the internet.

Also the one table of web adapters the tests build (``ADAPTERS``, the ``connect`` fixture)
and ``results_body``, a reply listing given hits in any adapter's wire format.
"""

from __future__ import annotations

import json
import socket
import ssl
import threading
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest

from deepresearch.models import SearchHit
from deepresearch.search.adapter import HttpSearchAdapter
from deepresearch.search.anthropic_web import AnthropicWebSearch
from deepresearch.search.arxiv import ArxivSearch
from deepresearch.search.brave import BraveSearch
from deepresearch.search.duckduckgo import DuckDuckGoSearch
from deepresearch.search.exa import ExaSearch
from deepresearch.search.google_cse import GoogleSearch
from deepresearch.search.http import RetryPolicy
from deepresearch.search.openai_web import OpenAIWebSearch
from deepresearch.search.pubmed import PubmedSearch
from deepresearch.search.searxng import SearxngSearch
from deepresearch.search.semantic_scholar import SemanticScholarSearch
from deepresearch.search.serper import SerperSearch
from deepresearch.search.tavily import TavilySearch
from deepresearch.search.wikipedia import WikipediaSearch

API_KEY = "sk-test-SECRET-4f1c9a"
#: built once: creating a TLS context per test costs more than the test itself
_TLS = ssl.create_default_context()
FAST_RETRY = RetryPolicy(max_retries=2, base_delay_s=0.0, max_delay_s=0.0, max_retry_after_s=0.0)

#: the Programmable Search Engine id ("cx") the google adapter is built with
CSE_ID = "017576662512468239146:omuauf_lfve"
Build = Callable[[httpx.AsyncClient, str, str, RetryPolicy], HttpSearchAdapter]
#: every web adapter, built against ``base_url`` with ``key`` and a 2 s timeout
ADAPTERS: dict[str, Build] = {
    "searxng": lambda c, url, key, r: SearxngSearch(c, url, timeout_s=2, retry=r),
    "tavily": lambda c, url, key, r: TavilySearch(c, key, base_url=url, timeout_s=2, retry=r),
    "exa": lambda c, url, key, r: ExaSearch(c, key, base_url=url, timeout_s=2, retry=r),
    "brave": lambda c, url, key, r: BraveSearch(c, key, base_url=url, timeout_s=2, retry=r),
    "google": lambda c, url, key, r: GoogleSearch(
        c, key, CSE_ID, base_url=url, timeout_s=2, retry=r
    ),
    "duckduckgo": lambda c, url, key, r: DuckDuckGoSearch(c, base_url=url, timeout_s=2, retry=r),
    "serper": lambda c, url, key, r: SerperSearch(c, key, base_url=url, timeout_s=2, retry=r),
    "wikipedia": lambda c, url, key, r: WikipediaSearch(c, base_url=url, timeout_s=2, retry=r),
    # the polite pacing is tested on its own; here requests go out at once
    "arxiv": lambda c, url, key, r: ArxivSearch(
        c, base_url=url, min_interval_s=0, timeout_s=2, retry=r
    ),
    "pubmed": lambda c, url, key, r: PubmedSearch(
        c,
        api_key=key,
        email="dev@lab.example",
        base_url=url,
        min_interval_s=0,
        timeout_s=2,
        retry=r,
    ),
    "semantic_scholar": lambda c, url, key, r: SemanticScholarSearch(
        c, api_key=key, base_url=url, min_interval_s=0, timeout_s=2, retry=r
    ),
    "openai_web": lambda c, url, key, r: OpenAIWebSearch(
        c, key, base_url=url, timeout_s=2, retry=r
    ),
    "anthropic_web": lambda c, url, key, r: AnthropicWebSearch(
        c, key, base_url=url, timeout_s=2, retry=r
    ),
}
#: adapters whose hits keep the URL the provider listed (the others build it: a wiki
#: page from its title, an arXiv abstract page from the entry id, a PubMed page from the PMID)
DIRECT_URL = [name for name in ADAPTERS if name not in ("wikipedia", "arxiv", "pubmed")]
JSON_ADAPTERS = [name for name in ADAPTERS if name not in ("duckduckgo", "arxiv")]
KEYED = [
    "tavily",
    "exa",
    "brave",
    "google",
    "serper",
    "pubmed",
    "semantic_scholar",
    "openai_web",
    "anthropic_web",
]
#: requests one successful search sends (PubMed: esearch, then esummary)
CALLS = {"pubmed": 2}

#: one listed result: (url, title, snippet); None is an entry with no usable URL
Listed = tuple[str, str, str] | None


def results_body(name: str, listed: Sequence[Listed]) -> Any:
    """A 200 reply in ``name``'s wire format that lists ``listed`` in order."""
    if name == "duckduckgo":
        return "<html><body>" + "".join(map(_ddg_result, listed)) + "</body></html>"
    if name == "arxiv":
        return atom_feed(listed)
    if name == "pubmed":
        return pubmed_body(listed)
    if name == "openai_web":
        return openai_body(listed)
    if name == "anthropic_web":
        return anthropic_body(listed)
    if name == "wikipedia":
        entries = [
            {"ns": 0, "title": "", "snippet": ""}
            if hit is None
            else {"ns": 0, "title": hit[1], "pageid": 1000 + i, "snippet": hit[2]}
            for i, hit in enumerate(listed)
        ]
        return {"batchcomplete": True, "query": {"searchinfo": {"totalhits": 9}, "search": entries}}
    url_key, snippet_key, path = {
        "searxng": ("url", "content", ("results",)),
        "tavily": ("url", "content", ("results",)),
        "exa": ("url", "text", ("results",)),
        "brave": ("url", "description", ("web", "results")),
        "google": ("link", "snippet", ("items",)),
        "serper": ("link", "snippet", ("organic",)),
        "semantic_scholar": ("url", "abstract", ("data",)),
    }[name]
    entries = [
        {"title": "no url", snippet_key: "skipped"}
        if hit is None
        else {url_key: hit[0], "title": hit[1], snippet_key: hit[2]}
        for hit in listed
    ]
    body: Any = entries
    for key in reversed(path):
        body = {key: body}
    return body


def atom_feed(listed: Sequence[Listed]) -> bytes:
    """An arXiv API reply (Atom) listing ``listed``: each URL's last path part becomes the
    arXiv id, so ``https://a.example/2101.00001`` is ``https://arxiv.org/abs/2101.00001``."""
    entries = []
    for hit in listed:
        if hit is None:
            entries.append("<entry><title>no id</title><summary>skipped</summary></entry>")
            continue
        url, title, snippet = hit
        arxiv_id = url.rstrip("/").rsplit("/", 1)[-1]
        entries.append(
            f"<entry><id>http://arxiv.org/abs/{arxiv_id}v2</id>"
            "<published>2021-01-04T18:59:59Z</published><updated>2021-03-01T10:00:00Z</updated>"
            f"<title>{title}</title><summary>{snippet}</summary>"
            "<author><name>A. Author</name></author>"
            f'<link href="http://arxiv.org/abs/{arxiv_id}v2" rel="alternate" type="text/html"/>'
            f'<link title="pdf" href="http://arxiv.org/pdf/{arxiv_id}v2" rel="related"/>'
            "</entry>"
        )
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<feed xmlns="http://www.w3.org/2005/Atom" '
        'xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/">'
        "<title>ArXiv Query</title><id>http://arxiv.org/api/x</id>"
        f"<opensearch:totalResults>{len(listed)}</opensearch:totalResults>"
        + "".join(entries)
        + "</feed>"
    ).encode()


def pubmed_body(listed: Sequence[Listed]) -> dict[str, Any]:
    """One JSON document that answers both PubMed calls for ``listed``: ``esearchresult``
    (read from esearch) and ``result`` (read from esummary). Each URL's last path part is
    the PMID when it is a number (else one is made up); ``None`` is a PMID without a summary. ``test_pubmed`` serves the two calls
    separately."""
    pmids = [
        "9" * 8 if hit is None else _pmid(hit[0], 31_000_000 + i) for i, hit in enumerate(listed)
    ]
    result: dict[str, Any] = {"uids": pmids}
    for pmid, hit in zip(pmids, listed, strict=True):
        result[pmid] = (
            {"uid": pmid, "error": "cannot get document summary"}
            if hit is None
            else {"uid": pmid, "title": hit[1], "fulljournalname": hit[2], "pubdate": "2023"}
        )
    return {
        "header": {"type": "esearch", "version": "0.3"},
        "esearchresult": {"count": str(len(pmids)), "idlist": pmids},
        "result": result,
    }


def openai_body(listed: Sequence[Listed], *, sources: Sequence[str] = ()) -> dict[str, Any]:
    """A Responses API reply (OpenAI's web search guide): one ``web_search_call`` that
    consulted ``sources``, then a message citing ``listed`` with ``url_citation``
    annotations over a text that quotes each snippet (the text the adapter must not keep)."""
    text, notes = "", []
    for hit in listed:
        start = len(text)
        text += f"{hit[2] if hit else 'uncited'}. "
        note = {"type": "url_citation", "start_index": start, "end_index": len(text) - 1}
        notes.append(note if hit is None else {**note, "url": hit[0], "title": hit[1]})
    return {
        "id": "resp_1",
        "object": "response",
        "status": "completed",
        "output": [
            {
                "type": "web_search_call",
                "id": "ws_1",
                "status": "completed",
                "action": {
                    "type": "search",
                    "query": "q",
                    "sources": [{"type": "url", "url": url} for url in sources],
                },
            },
            {
                "type": "message",
                "id": "msg_1",
                "status": "completed",
                "role": "assistant",
                "content": [{"type": "output_text", "text": text, "annotations": notes}],
            },
        ],
    }


def anthropic_body(listed: Sequence[Listed]) -> dict[str, Any]:
    """A Messages API reply (Anthropic's web search tool docs): the ``server_tool_use``
    block, its ``web_search_tool_result`` listing ``listed``, and Claude's cited text."""
    results = [
        {"type": "web_search_result", "title": "no url", "encrypted_content": "e"}
        if hit is None
        else {
            "type": "web_search_result",
            "url": hit[0],
            "title": hit[1],
            "encrypted_content": "EqgfCioIARgBIiQ3YTAwMjY1Mi1mZjM5",
            "page_age": "April 30, 2025",
        }
        for hit in listed
    ]
    cited = [hit for hit in listed if hit is not None]
    return {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": "claude-sonnet-4-5",
        "content": [
            {"type": "text", "text": "I'll search for that."},
            {
                "type": "server_tool_use",
                "id": "srvtoolu_1",
                "name": "web_search",
                "input": {"query": "q"},
            },
            {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_1", "content": results},
            {
                "type": "text",
                "text": " ".join(hit[2] for hit in cited),
                "citations": [
                    {
                        "type": "web_search_result_location",
                        "url": hit[0],
                        "title": hit[1],
                        "encrypted_index": "Eo8BCioIAhgBIiQyYjQ0",
                        "cited_text": hit[2],
                    }
                    for hit in cited
                ],
            },
        ],
        "stop_reason": "end_turn",
        "usage": {
            "input_tokens": 6039,
            "output_tokens": 931,
            "server_tool_use": {"web_search_requests": 1},
        },
    }


def _pmid(url: str, fallback: int) -> str:
    last = url.rstrip("/").rsplit("/", 1)[-1]
    return last if last.isdigit() else str(fallback)


def _ddg_result(hit: Listed) -> str:
    if hit is None:
        return (
            '<div class="result result--ad"><a class="result__a" href="https://ads.example/">'
            "Ad</a></div>"
        )
    url, title, snippet = hit
    return (
        f'<div class="result"><a class="result__a" href="{url}">{title}</a>'
        f'<a class="result__snippet">{snippet}</a></div>'
    )


@dataclass(frozen=True)
class Recorded:
    method: str
    path: str
    query: dict[str, list[str]]
    headers: dict[str, str]
    body: bytes
    #: when the server read the request (time.monotonic)
    received: float = 0.0

    def json(self) -> Any:
        return json.loads(self.body)

    def form(self) -> dict[str, list[str]]:
        return parse_qs(self.body.decode("utf-8"))

    def param(self, name: str) -> str:
        return self.query[name][0]


@dataclass
class Reply:
    status: int = 200
    body: Any = b""
    headers: dict[str, str] = field(default_factory=dict)
    delay_s: float = 0.0

    def encoded(self) -> tuple[bytes, str]:
        if isinstance(self.body, bytes):
            return self.body, "application/octet-stream"
        if isinstance(self.body, str):
            return self.body.encode("utf-8"), "text/html; charset=utf-8"
        return json.dumps(self.body).encode("utf-8"), "application/json"


class FakeProvider:
    """Answers with the queued replies in order, then with the default reply forever."""

    def __init__(self, base_url: str) -> None:
        self.base_url = base_url
        self.requests: list[Recorded] = []
        self.replies: list[Reply] = []
        self.default = Reply(200, {})
        #: path -> the reply every request to that path gets (before the queue)
        self.routes: dict[str, Reply] = {}
        self._lock = threading.Lock()

    def respond(
        self, status: int = 200, body: Any = b"", *, delay_s: float = 0.0, **headers: str
    ) -> None:
        """Queue one reply; a dict or list body is sent as JSON, a str as HTML."""
        self.replies.append(Reply(status, body, _header_names(headers), delay_s))

    def always(self, status: int = 200, body: Any = b"", **headers: str) -> None:
        """The reply once the queue is empty."""
        self.default = Reply(status, body, _header_names(headers))

    def route(self, path: str, status: int = 200, body: Any = b"", **headers: str) -> None:
        """Answer every request to ``path`` with this reply (a service with two endpoints)."""
        self.routes[path] = Reply(status, body, _header_names(headers))

    def next_reply(self, request: Recorded) -> Reply:
        with self._lock:
            self.requests.append(request)
            if request.path in self.routes:
                return self.routes[request.path]
            return self.replies.pop(0) if self.replies else self.default

    @property
    def last(self) -> Recorded:
        return self.requests[-1]


def _header_names(headers: dict[str, str]) -> dict[str, str]:
    return {name.replace("_", "-").title(): value for name, value in headers.items()}


def _handler(fake: FakeProvider) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def _serve(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            parts = urlsplit(self.path)
            recorded = Recorded(
                method=self.command,
                path=parts.path,
                query=parse_qs(parts.query, keep_blank_values=True),
                headers={key.lower(): value for key, value in self.headers.items()},
                body=self.rfile.read(length) if length else b"",
                received=time.monotonic(),
            )
            reply = fake.next_reply(recorded)
            if reply.delay_s:
                time.sleep(reply.delay_s)
            body, content_type = reply.encoded()
            self.send_response(reply.status)
            self.send_header("Content-Type", reply.headers.get("Content-Type", content_type))
            self.send_header("Content-Length", str(len(body)))
            for key, value in reply.headers.items():
                if key != "Content-Type":
                    self.send_header(key, value)
            self.end_headers()
            self.wfile.write(body)

        do_GET = _serve
        do_POST = _serve

        def log_message(self, format: str, *args: Any) -> None:
            return

    return Handler


class _QuietServer(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that gave up (the timeout tests) is expected, not worth a traceback."""


@contextmanager
def serving() -> Iterator[FakeProvider]:
    """A ``FakeProvider`` listening on a free loopback port until the block ends."""
    fake = FakeProvider("")
    server = _QuietServer(("127.0.0.1", 0), _handler(fake))
    fake.base_url = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, args=(0.01,), daemon=True)
    thread.start()
    try:
        yield fake
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


@pytest.fixture
def provider_server() -> Iterator[FakeProvider]:
    with serving() as fake:
        yield fake


@pytest.fixture
def second_server() -> Iterator[FakeProvider]:
    """Another provider, for searches that ask two at once."""
    with serving() as fake:
        yield fake


@pytest.fixture
def api_key() -> str:
    return API_KEY


@pytest.fixture
def fast_retry() -> RetryPolicy:
    return FAST_RETRY


@pytest.fixture
def dead_url() -> str:
    """A loopback address where nothing listens: connections are refused."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}"


@pytest.fixture
async def client() -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(verify=_TLS) as http:
        yield http


@pytest.fixture(params=sorted(ADAPTERS))
def adapter_name(request: pytest.FixtureRequest) -> str:
    """Each web adapter in turn; ``pytest.mark.parametrize("adapter_name", ...)`` narrows it."""
    return str(request.param)


@pytest.fixture
def connect(
    provider_server: FakeProvider, client: httpx.AsyncClient
) -> Callable[..., HttpSearchAdapter]:
    """``connect(name)``: that adapter pointed at the fake provider with the test key."""

    def build(
        name: str,
        *,
        base_url: str | None = None,
        key: str = API_KEY,
        retry: RetryPolicy = FAST_RETRY,
    ) -> HttpSearchAdapter:
        return ADAPTERS[name](client, base_url or provider_server.base_url, key, retry)

    return build


@pytest.fixture
def search_once(
    provider_server: FakeProvider, connect: Callable[..., HttpSearchAdapter]
) -> Callable[..., Awaitable[tuple[list[SearchHit], Recorded]]]:
    """``await search_once(name, reply, query, limit=n)``: the hits for one search answered
    with ``reply``, and the request the adapter sent."""

    async def run(
        name: str, reply: Any, query: str, *, limit: int
    ) -> tuple[list[SearchHit], Recorded]:
        provider_server.respond(200, reply)
        hits = await connect(name).search(query, limit=limit)
        return hits, provider_server.last

    return run
