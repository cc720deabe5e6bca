"""Watches over HTTP (issue 25), on SQLite and PostgreSQL: a watch on the loopback web
runs on its schedule through the worker pool, and after its page changes the next run's
change report has the new finding and the vanished one (md, html, json, the Atom feed);
bad input (a schedule firing every second, too many watches, another key's watch or
thread) is a 4xx problem and stores nothing."""

from __future__ import annotations

import hmac
import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from hashlib import sha256
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
import pytest

from deepresearch.service.app.jobs import page_texts
from deepresearch.service.db import make_engine
from deepresearch.service.keys import create_key
from deepresearch.service.store import JobStore
from deepresearch.testing.corpora import hotpotqa_documents
from deepresearch.testing.corpus import CorpusDocument
from deepresearch.testing.web import OfflineWeb

from .conftest import SHARED_DATA
from .helpers import Service, read_sse, running_service, service_settings


def _problem(response: httpx.Response, status: int, *needles: str) -> None:
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith("application/problem+json")
    for needle in needles:
        assert needle in response.json()["detail"], response.json()


def _reported(service: Service, watch_id: str, runs: int, **kw: Any) -> dict[str, Any]:
    deadline = time.monotonic() + 90
    while True:
        watch: dict[str, Any] = service.client.get(f"/v1/watches/{watch_id}", **kw).json()
        done = [r for r in watch["runs"] if r["status"] == "reported"]
        if len(done) >= runs:
            return watch
        assert time.monotonic() < deadline, watch
        time.sleep(0.2)


@pytest.fixture
def changing_web() -> Any:
    """An offline web of its own: the test changes a page between two runs."""
    if not SHARED_DATA.is_dir():
        pytest.skip("shared data folder not found")
    with OfflineWeb(hotpotqa_documents(SHARED_DATA)) as web:
        yield web


@contextmanager
def receiver() -> Iterator[tuple[str, list[tuple[bytes, str]]]]:
    """A loopback webhook receiver: its URL and the (body, signature) of each POST."""
    seen: list[tuple[bytes, str]] = []

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers["Content-Length"]))
            seen.append((body, self.headers.get("X-Deepresearch-Signature", "")))
            self.send_response(204)
            self.end_headers()

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/in", seen
    finally:
        server.shutdown()
        server.server_close()


def _change_page(web: OfflineWeb, url: str, quote: str) -> str:
    """Replace ``quote`` on the page at ``url`` with a new sentence; the new sentence."""
    document = web.document_for_url(url)
    assert document is not None
    # the quote's last word gone: the old quote is no longer anywhere on the page
    words = quote.rstrip(".").split()
    new = " ".join(words[:-1]) + ", in a revised account."
    changed = CorpusDocument(**{**document.model_dump(), "text": document.text.replace(quote, new)})
    web._by_id[document.id] = changed
    return new


def test_a_watch_reports_what_changed(
    changing_web: OfflineWeb, questions: list[str], database_url: str, tmp_path: Path
) -> None:
    settings = service_settings(
        changing_web, tmp_path, database_url, watch_tick_s=0.2, page_cache_ttl_s=0
    )
    with running_service(settings) as service, receiver() as (hook, seen):
        client = service.client
        created = client.post(
            "/v1/watches", json={"question": questions[0], "every": "1d", "webhook": hook}
        )
        assert created.status_code == 201, created.text
        watch_id, secret = created.json()["id"], created.json()["signing_secret"]
        assert secret and "signing_secret" not in client.get(f"/v1/watches/{watch_id}").text
        first = _reported(service, watch_id, 1)
        [run] = first["runs"]
        report = client.get(f"/v1/research/{run['job_id']}/report").json()
        verified = [e for e in report["evidence"] if e["verification"]["status"] == "PASS"]
        assert verified
        old = verified[0]
        _change_page(changing_web, old["source_url"], old["quote"])
        # the next due time is a day away: run it now
        assert client.post(f"/v1/watches/{watch_id}/run-now").status_code == 200
        second = _reported(service, watch_id, 2)
        assert second["thread"] == second["runs"][0]["job_id"], second
        changes = client.get(f"/v1/watches/{watch_id}/report", params={"format": "json"}).json()
        assert changes["previous_run"] == run["job_id"]
        gone = [c for c in changes["changed_findings"] if c["reason"] == "gone_from_page"]
        assert old["quote"] in [c["finding"]["quote"] for c in gone], changes
        assert all(c["finding"]["fetched_at"] for c in gone)
        assert any("revised account" in f["quote"] for f in changes["new_findings"]), changes
        # the comparison read the pages' text from the run's checkpoint: the changed one too
        texts = page_texts(settings)(changes["run_id"])
        assert "revised account" in texts[old["source_url"]]
        md = client.get(f"/v1/watches/{watch_id}/report").text
        assert "Findings that no longer hold" in md and "New findings" in md
        html = client.get(f"/v1/watches/{watch_id}/report", params={"format": "html"})
        assert html.headers["content-type"].startswith("text/html")
        feed = client.get(f"/v1/watches/{watch_id}/feed.atom")
        assert feed.headers["content-type"].startswith("application/atom+xml")
        assert feed.text.count("<entry>") == 2
        # the live stream: both reports, then from an id on
        events = read_sse(client, f"/v1/watches/{watch_id}/events", stop_after=2, timeout=30)
        assert [(m.event, m.id) for m in events] == [("watch_report", "1"), ("watch_report", "2")]
        assert events[1].json()["summary"] == second["runs"][0]["summary"]
        later = read_sse(client, f"/v1/watches/{watch_id}/events?after=1", stop_after=1)
        assert [m.id for m in later] == ["2"]
        # the webhook got both reports, each signed over its exact body
        deadline = time.monotonic() + 30
        while len(seen) < 2:
            assert time.monotonic() < deadline, seen
            time.sleep(0.1)
        for body, signature in seen:
            assert signature == "sha256=" + hmac.new(secret.encode(), body, sha256).hexdigest()
        assert json.loads(seen[-1][0])["run_id"] == second["runs"][0]["job_id"]


def test_bad_input_and_other_keys(
    service_web: OfflineWeb, questions: list[str], database_url: str, tmp_path: Path
) -> None:
    settings = service_settings(
        service_web, tmp_path, database_url, watch_tick_s=0, max_watches_per_key=1
    )
    with running_service(settings) as service:
        store = JobStore(make_engine(settings.database_url or ""))
        _, alice = create_key(store, "alice")
        _, bob = create_key(store, "bob")
        as_alice, as_bob = {"Authorization": f"Bearer {alice}"}, {"Authorization": f"Bearer {bob}"}
        client = service.client
        question = questions[0]

        def add(headers: dict[str, str], **body: Any) -> httpx.Response:
            return client.post("/v1/watches", json={"question": question, **body}, headers=headers)

        _problem(add(as_alice, cron="* * * * * *"), 422, "every 1 s", "watch_min_interval_s")
        _problem(add(as_alice, cron="*/5 * * * *"), 422, "every 300 s")
        _problem(add(as_alice, cron="not cron"), 422, "not a cron expression")
        _problem(add(as_alice, every="soon"), 422, "not a duration")
        _problem(add(as_alice), 422, "give a schedule")
        _problem(add(as_alice, every="1d", cron="0 7 * * *"), 422, "give a schedule")
        _problem(add(as_alice, every="1d", thread="run-000000000000"), 404, "no job")
        _problem(add(as_alice, every="1d", webhook="https://10.0.0.1/in"), 422, "private")
        _problem(add(as_alice, every="1d", webhook="https://[::1]:99999/in"), 422)
        _problem(add(as_alice, every="1d", webhook="http://example.com/in"), 422, "https")
        assert store.list_watches() == []  # nothing stored half-way

        mine = add(as_alice, cron="0 7 * * *")
        assert mine.status_code == 201, mine.text
        watch_id = mine.json()["id"]
        _problem(add(as_alice, every="1d"), 429, "1 watches already")
        assert len(store.list_watches()) == 1

        # bob sees none of alice's watch: each answer the 404 of a watch that is not there
        assert client.get("/v1/watches", headers=as_bob).json() == []
        for method, path in (
            ("GET", ""),
            ("DELETE", ""),
            ("POST", "/pause"),
            ("POST", "/resume"),
            ("POST", "/run-now"),
            ("GET", "/report"),
            ("GET", "/feed.atom"),
            ("GET", "/events"),
        ):
            theirs = client.request(method, f"/v1/watches/{watch_id}{path}", headers=as_bob)
            _problem(theirs, 404, "no watch")
        assert store.get_watch(watch_id) is not None

        paused = client.post(f"/v1/watches/{watch_id}/pause", headers=as_alice).json()
        assert paused["state"] == "paused"
        _problem(client.post(f"/v1/watches/{watch_id}/run-now", headers=as_alice), 409, "paused")
        resumed = client.post(f"/v1/watches/{watch_id}/resume", headers=as_alice).json()
        assert resumed["state"] == "active" and resumed["next_due"].startswith(
            resumed["next_due"][:10]
        )
        _problem(client.get(f"/v1/watches/{watch_id}/report", headers=as_alice), 404, "no change")
        assert client.delete(f"/v1/watches/{watch_id}", headers=as_alice).status_code == 204
        assert store.list_watches() == []
        store.engine.dispose()
