"""Assertions shared by the end-to-end tests."""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

from deepresearch.core.verify import verify_quote
from deepresearch.models import Report, SearchHit
from deepresearch.settings import Settings, load_settings
from deepresearch.testing.web import OfflineWeb


def doc_id_of(url: str) -> str:
    return unquote(urlsplit(url).path.removeprefix("/page/"))


def assert_citations_hold(report: Report, web: OfflineWeb) -> None:
    """Every cited source was fetched from the offline web, carries the content-quality
    tier of what was read (seed 001), and every quote shown is in the text of the page it
    cites."""
    assert report.sources, "the report cites no sources"
    cited_ids = set(report.cited_evidence_ids())
    evidence = {item.id: item for item in report.evidence}
    assert cited_ids <= set(evidence), "a sentence cites evidence the report does not carry"
    for ref in report.sources:
        assert web.hits_for_path(urlsplit(ref.url).path) > 0, (
            f"{ref.url} was cited but never fetched"
        )
        assert ref.content_quality in ("HIGH", "MEDIUM", "LOW"), (ref.url, ref.content_quality)
    for item in report.evidence:
        document = web.document(doc_id_of(item.source_url))
        assert document is not None, f"evidence from unknown page {item.source_url}"
        check = verify_quote(item.quote, document.text)
        assert check.status == "PASS" and check.method in ("exact", "normalized"), (
            f"quote not found in {item.source_url}: {item.quote!r}"
        )
        assert item.verified


def offline_settings(web: OfflineWeb, tmp_path: Path, **extra: Any) -> Settings:
    """Settings for a quick run over ``web``: its SearXNG endpoint, its host allowed, a
    fresh data folder, and a gate that accepts one domain (the offline web is one host)."""
    options: dict[str, Any] = {
        "search": "searxng",
        "searxng_url": web.base_url,
        "allow_hosts": [web.base_url.removeprefix("http://")],
        "data_dir": tmp_path / "data",
        "depth": "quick",
        "min_domains": 1,
    }
    return load_settings(**{**options, **extra})


class Canary:
    """A loopback server that counts every request it gets."""

    def __init__(self) -> None:
        self.requests: list[str] = []
        canary = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                canary.requests.append(self.path)
                self.send_response(200)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def __enter__(self) -> Canary:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()


class AllHits:
    """A search engine that answers every query with every page, whatever the limit."""

    name = "static"
    supports_operators = False

    def __init__(self, hits: list[SearchHit]) -> None:
        self.hits = hits

    async def search(self, query: str, *, limit: int) -> list[SearchHit]:
        return [hit.model_copy(update={"query": query}) for hit in self.hits]
