"""Hostile requests (issue 13): oversized bodies, declared or streamed, with no key, a bad
key or a good one; event ids out of range or malformed in the header and the query; HEAD;
security headers; clients that drop an event stream mid-replay; jobs the server could not
run. The real app under uvicorn on loopback, on SQLite and PostgreSQL where it stores."""

from __future__ import annotations

import json
import logging
import select
import socket
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from deepresearch.models import Report, RunEvent
from deepresearch.models.event_payloads import RunCompleted
from deepresearch.service.app import create_app
from deepresearch.service.client import ServiceClient, ServiceRequestError
from deepresearch.service.db import make_engine
from deepresearch.service.jobs import Outcome
from deepresearch.service.keys import create_key
from deepresearch.service.server import BackgroundServer
from deepresearch.service.store import JobStore, Limits, utcnow
from deepresearch.settings import load_settings

MB = 1024 * 1024
HUGE = 300 * MB
LIMITS = Limits(window_s=900, per_window=1000, ttl_s=3600)


@dataclass
class Bare:
    """The service without workers (jobs stay where the test puts them) and its store."""

    url: str
    store: JobStore
    client: httpx.Client

    @property
    def address(self) -> tuple[str, int]:
        host, port = self.url.removeprefix("http://").split(":")
        return host, int(port)


@contextmanager
def bare_service(tmp_path: Path, database_url: str, **extra: Any) -> Iterator[Bare]:
    options: dict[str, Any] = {
        "data_dir": tmp_path / "data",
        "database_url": database_url,
        "model": "none",
        "search": "duckduckgo",
        "active_runs_per_key": 100,
        **extra,
    }
    app = create_app(load_settings(**options), start_workers=False)
    with BackgroundServer(app) as server, httpx.Client(base_url=server.url, timeout=10) as client:
        store = JobStore(make_engine(database_url))
        try:
            yield Bare(server.url, store, client)
        finally:
            store.engine.dispose()


def finished_job(store: JobStore, events: int = 3, message: str = "") -> str:
    """A completed job with ``events`` stored events (then its terminal one) and a report."""
    job = store.submit(
        owner="local",
        question="q",
        recipe="research",
        options={},
        request_hash=f"h{time.monotonic_ns()}",
        idempotency_key=None,
        max_active_runs=1000,
        limits=LIMITS,
    ).job
    store.append_events(
        [
            (job.id, RunEvent(run_id=job.id, ts=utcnow(), type="warning", message=message))
            for _ in range(events)
        ]
    )
    assert store.claim("test-worker", 60) is not None
    report = Report(run_id=job.id, question="q", title="A report", kind="synthesized")
    document = report.model_dump(mode="json")
    store.save_result(job.id, Outcome("synthesized", document, "# A report\n", [], report))
    done = RunCompleted(
        kind="synthesized", sources=0, evidence=0, fetches=0, input_tokens=0, output_tokens=0
    )
    assert store.finish(
        job.id, "test-worker", "COMPLETED", message="done", ttl_s=3600, completed=done
    )
    return job.id


# raw HTTP: what a hostile client sends, and when the answer comes ------------------------
def _head(method: str, path: str, headers: dict[str, str]) -> bytes:
    lines = [f"{method} {path} HTTP/1.1", "Host: test", *(f"{k}: {v}" for k, v in headers.items())]
    return ("\r\n".join(lines) + "\r\n\r\n").encode()


@dataclass
class RawResponse:
    status: int
    headers: dict[str, str]
    body: bytes
    closed: bool  # the server closed the connection after it

    def json(self) -> dict[str, Any]:
        value: dict[str, Any] = json.loads(self.body)
        return value


def _read_response(sock: socket.socket, timeout: float = 10) -> RawResponse:
    sock.settimeout(timeout)
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        assert chunk, f"the connection closed without an answer: {data!r}"
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    status_line, *header_lines = head.decode("latin-1").split("\r\n")
    headers = {}
    for line in header_lines:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    length = int(headers.get("content-length", "0"))
    while len(body) < length:
        chunk = sock.recv(65536)
        assert chunk, "the body was cut short"
        body += chunk
    closed = False
    try:
        closed = sock.recv(1) == b""
    except (TimeoutError, ConnectionResetError):
        closed = True  # reset: closed while the client still had bytes on their way
    return RawResponse(int(status_line.split()[1]), headers, body[:length], closed)


def declared_upload(bare: Bare, method: str, path: str, headers: dict[str, str]) -> RawResponse:
    """Declare a 300 MB body and send none of it: the answer must come anyway."""
    with socket.create_connection(bare.address, timeout=10) as sock:
        sock.sendall(_head(method, path, {**headers, "Content-Length": str(HUGE)}))
        return _read_response(sock)


def chunked_upload(
    bare: Bare, path: str, headers: dict[str, str], total: int = 64 * MB
) -> tuple[RawResponse, int]:
    """Stream a chunked body of ``total`` bytes, looking for an answer after every chunk;
    the answer and how much had been sent when it came."""
    chunk = b"x" * (64 * 1024)
    framed = f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n"
    sent = 0
    with socket.create_connection(bare.address, timeout=10) as sock:
        sock.sendall(_head("POST", path, {**headers, "Transfer-Encoding": "chunked"}))
        try:
            while sent < total:
                if select.select([sock], [], [], 0)[0]:
                    break  # an answer before the upload is done
                sock.sendall(framed)
                sent += len(chunk)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the server stopped listening: its answer is already here
        return _read_response(sock), sent


def _is_too_large(response: RawResponse) -> None:
    assert response.status == 413, response
    assert response.headers["content-type"] == "application/problem+json"
    problem = response.json()
    assert problem["type"] == "/problems/too-large" and problem["status"] == 413
    assert "65536 bytes" in problem["detail"]
    assert response.headers["connection"] == "close" and response.closed


AUTH = {
    "no key": {},
    "bad key": {"Authorization": "Bearer dr_not-a-key"},
    "valid key": None,  # filled in with a real key
}


@pytest.mark.parametrize("who", list(AUTH))
def test_an_oversized_body_is_refused_before_auth_and_before_it_is_read(
    who: str, tmp_path: Path
) -> None:
    with bare_service(tmp_path, f"sqlite:///{tmp_path / 's.db'}") as bare:
        _, token = create_key(bare.store, "alice")
        given = AUTH[who]
        headers = given if given is not None else {"Authorization": f"Bearer {token}"}
        job_id = finished_job(bare.store)
        json_type = {**headers, "Content-Type": "application/json"}
        # declared: answered at once, though not a byte of the 300 MB was sent
        for method, path in (
            ("POST", "/v1/research"),
            ("POST", f"/v1/research/{job_id}/cancel"),
            ("GET", "/v1/queue"),
            ("GET", "/healthz"),
        ):
            _is_too_large(declared_upload(bare, method, path, json_type))
        # streamed without a length: cut off once the cap is passed, long before the end
        response, sent = chunked_upload(bare, "/v1/research", json_type)
        _is_too_large(response)
        assert sent < 16 * MB, sent
        # and the service is fine
        assert bare.client.get("/healthz").json() == {"status": "ok"}


def test_the_cap_is_a_setting_and_bodies_under_it_are_accepted(tmp_path: Path) -> None:
    with bare_service(tmp_path, f"sqlite:///{tmp_path / 's.db'}", max_request_bytes=2048) as bare:
        big = bare.client.post("/v1/research", json={"question": "q" * 3000})
        assert big.status_code == 413 and "2048 bytes" in big.json()["detail"]
        small = bare.client.post("/v1/research", json={"question": "q" * 1000})
        assert small.status_code == 201, small.text


MALFORMED = ["x", "-1", "+5", "1_0", "5.0", "1e3", "0x10", "٣", "5 6"]
OUT_OF_RANGE = ["99999999999999999999999", "9223372036854775808", "2147483648", "4"]


def test_event_ids_out_of_range_or_malformed_get_400_in_the_header_and_the_query(
    database_url: str, tmp_path: Path
) -> None:
    with bare_service(tmp_path, database_url) as bare:
        job_id = finished_job(bare.store, events=2)  # ids 1, 2 and the terminal 3
        path = f"/v1/research/{job_id}/events"
        for value in MALFORMED + OUT_OF_RANGE:
            answers = [bare.client.get(path, params={"after": value})]
            if value.isascii():  # a header value is ASCII
                answers.append(bare.client.get(path, headers={"Last-Event-ID": value}))
            for response in answers:
                assert response.status_code == 400, (value, response.text)
                assert response.headers["content-type"] == "application/problem+json"
                assert response.json()["type"] == "/problems/bad-event-id"
        # the ones the stream has are fine, in both places
        for value in ("0", "2", "3"):
            for kwargs in ({"params": {"after": value}}, {"headers": {"Last-Event-ID": value}}):
                response = bare.client.get(path, **kwargs)  # type: ignore[arg-type]
                assert response.status_code == 200
                assert response.text.count("\nid: ") == 3 - int(value)
        # ids that cannot be run ids never reach the database (NUL bytes, huge ones): 422
        for bad in ("%00", "run-" + "a" * 5000, "a%20b"):
            response = bare.client.get(f"/v1/research/{bad}")
            assert response.status_code == 422
            assert response.json()["type"] == "/problems/invalid-job-id"


def test_listing_parameters_out_of_range_are_refused_never_a_server_error(
    database_url: str, tmp_path: Path
) -> None:
    with bare_service(tmp_path, database_url) as bare:
        finished_job(bare.store)
        for query in (
            "limit=0",
            "limit=-1",
            "limit=101",
            "limit=99999999999999999999999",
            "limit=x",
            "before=x",
            "before=99999999999999999999",
            "before=10000-01-01T00:00:00Z",
            "before=0001-01-01T00:00:00%2B14:00",
            "before=9999-12-31T23:59:59-14:00",
            "before=%00",
        ):
            response = bare.client.get(f"/v1/research?{query}")
            assert response.status_code in (200, 422), (query, response.text)
            if response.status_code == 422:
                assert response.json()["type"] == "/problems/invalid-request"


def test_head_answers_every_get_route_with_its_headers_and_no_body(tmp_path: Path) -> None:
    with bare_service(tmp_path, f"sqlite:///{tmp_path / 's.db'}") as bare:
        job_id = finished_job(bare.store)
        for path in (
            "/healthz",
            "/readyz",
            "/",
            "/v1/queue",
            "/v1/research",
            f"/v1/research/{job_id}",
            f"/v1/research/{job_id}/report?format=html",
            f"/v1/research/{job_id}/sources",
            "/v1/research/run-unknown",
        ):
            got = bare.client.get(path)
            head = bare.client.head(path)
            assert head.status_code == got.status_code, path
            assert head.content == b""
            assert head.headers["content-type"] == got.headers["content-type"], path
        # a live stream: the headers, then the answer ends (it does not wait for the job)
        queued = bare.client.post("/v1/research", json={"question": "q"}).json()["id"]
        head = bare.client.head(f"/v1/research/{queued}/events", timeout=5)
        assert head.status_code == 200
        assert head.headers["content-type"].startswith("text/event-stream")
        assert bare.client.head(f"/v1/research/{queued}/cancel").status_code == 405


def test_every_response_carries_the_security_headers(tmp_path: Path) -> None:
    with bare_service(tmp_path, f"sqlite:///{tmp_path / 's.db'}") as bare:
        job_id = finished_job(bare.store)
        client = bare.client
        responses = {
            "json": client.get(f"/v1/research/{job_id}"),
            "report json": client.get(f"/v1/research/{job_id}/report"),
            "report md": client.get(f"/v1/research/{job_id}/report?format=md"),
            "report html": client.get(f"/v1/research/{job_id}/report?format=html"),
            "events": client.get(f"/v1/research/{job_id}/events"),
            "404": client.get("/v1/research/run-unknown"),
            "422": client.post("/v1/research", json={"question": " "}),
            "405": client.put("/v1/queue"),
            "413": client.post("/v1/research", content=b"{}" * 40_000),
            "health": client.get("/healthz"),
            "openapi": client.get("/openapi.json"),
        }
        for name, response in responses.items():
            assert response.headers["x-content-type-options"] == "nosniff", name
            assert response.headers["referrer-policy"] == "no-referrer", name
            policy = response.headers["content-security-policy"]
            assert "default-src 'none'" in policy and "frame-ancestors 'none'" in policy, name
            assert "script-src" not in policy, name
        assert responses["report html"].headers["content-type"].startswith("text/html")
        report_policy = responses["report html"].headers["content-security-policy"]
        assert "style-src 'unsafe-inline'" in report_policy
        # a report's figures are embedded: data: images only, nothing fetched
        assert "img-src data:;" in report_policy
        # the web page keeps its own policy, which lets its scripts run
        page = client.get("/")
        assert "script-src 'self'" in page.headers["content-security-policy"]
        assert page.headers["x-content-type-options"] == "nosniff"


class _Records(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


def test_clients_that_leave_in_the_middle_of_a_replay_leave_no_traceback(
    database_url: str, tmp_path: Path
) -> None:
    records = _Records()
    loggers = [logging.getLogger(name) for name in ("uvicorn", "uvicorn.error", "")]
    for logger in loggers:
        logger.addHandler(records)
    try:
        with bare_service(tmp_path, database_url) as bare:
            job_id = finished_job(bare.store, events=3000, message="x" * 300)
            request = _head("GET", f"/v1/research/{job_id}/events", {})
            for n in range(12):
                with socket.create_connection(bare.address, timeout=10) as sock:
                    sock.sendall(request)
                    got = 0
                    while got < 2_000 * (n + 1):
                        got += len(sock.recv(4096))
                    # closed with most of the replay unread
                time.sleep(0.05)
            time.sleep(1)  # the server notices the last ones
            assert bare.client.get("/healthz").status_code == 200
    finally:
        for logger in loggers:
            logger.removeHandler(records)
    problems = [f"{r.name}: {r.getMessage()}" for r in records.records]
    assert not [r for r in records.records if r.exc_info or r.levelno >= logging.ERROR], problems


def test_a_job_the_server_could_not_run_is_refused_at_submission(tmp_path: Path) -> None:
    secret = "exa-0123456789-SECRET"
    with bare_service(
        tmp_path,
        f"sqlite:///{tmp_path / 's.db'}",
        model="openai:gpt-4.1-mini",  # and no OPENAI_API_KEY here
        exa_api_key=secret,
    ) as bare:
        client = bare.client
        no_model_key = client.post("/v1/research", json={"question": "q"})
        no_search_key = client.post(
            "/v1/research", json={"question": "q", "options": {"model": "none", "search": "tavily"}}
        )
        no_searxng = client.post(
            "/v1/research",
            json={"question": "q", "options": {"model": "none", "search": "searxng"}},
        )
        for response, option, kind in (
            (no_model_key, "model", "missing-key"),
            (no_search_key, "search", "missing-key"),
            (no_searxng, "search", "not-configured"),
        ):
            assert response.status_code == 422, response.text
            problem = response.json()
            assert problem["type"] == f"/problems/{kind}"
            assert problem["errors"][0]["where"] == f"body.options.{option}"
            assert f"options.{option}" in problem["hint"]
            assert secret not in response.text
        # the CLI's own messages
        assert no_model_key.json()["detail"].startswith("model 'openai:gpt-4.1-mini' needs an API")
        assert no_search_key.json()["detail"] == "the tavily search provider needs an API key"
        assert bare.client.get("/v1/queue").json()["counts"]["QUEUED"] == 0  # nothing queued
        # the CLI client shows the service's hint
        with ServiceClient(bare.url) as service, pytest.raises(ServiceRequestError) as refused:
            service.submit("q", options={"model": "none", "search": "brave"})
        assert refused.value.message == "the brave search provider needs an API key"
        assert "options.search" in refused.value.hint
        runnable = client.post(
            "/v1/research",
            json={"question": "q", "options": {"model": "none", "search": "duckduckgo"}},
        )
        assert runnable.status_code == 201, runnable.text


def test_a_client_gone_mid_replay_is_not_written_to_again(tmp_path: Path) -> None:
    """A replay writes event after event; once the client has gone (read a little, then
    closed) the stream ends, instead of writing the rest to the closed socket (asyncio
    logs "socket.send() raised exception." for each such write after the fifth)."""
    records = _Records()
    asyncio_log = logging.getLogger("asyncio")
    asyncio_log.addHandler(records)
    try:
        with bare_service(tmp_path, f"sqlite:///{tmp_path / 's.db'}") as bare:
            job_id = finished_job(bare.store, events=3000, message="x" * 300)
            request = _head("GET", f"/v1/research/{job_id}/events", {})
            for n in range(6):
                with socket.create_connection(bare.address, timeout=10) as sock:
                    sock.sendall(request)
                    got = 0
                    while got < 2_000 * (n + 1):
                        got += len(sock.recv(4096))
                time.sleep(0.05)
            time.sleep(1)  # the server notices the last ones
            assert bare.client.get("/healthz").status_code == 200
    finally:
        asyncio_log.removeHandler(records)
    writes = [r for r in records.records if "socket.send() raised exception" in r.getMessage()]
    assert writes == [], f"{len(writes)} writes to a closed connection"


def _head_in_pieces(bare: Bare, head: bytes, piece: int = 4096) -> RawResponse:
    """Send ``head`` a piece at a time, as a slow client would, then read the answer."""
    with socket.create_connection(bare.address, timeout=10) as sock:
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        for start in range(0, len(head), piece):
            sock.sendall(head[start : start + piece])
            time.sleep(0.002)
        return _read_response(sock)


def _is_head_too_large(status: int, content_type: str, problem: dict[str, Any]) -> None:
    assert status == 431, problem
    assert content_type == "application/problem+json"
    assert problem["type"] == "/problems/header-too-large" and problem["status"] == 431
    assert "65536 bytes" in problem["detail"]


def test_a_request_head_over_the_limit_gets_a_431_problem_however_it_arrives(
    tmp_path: Path,
) -> None:
    with bare_service(tmp_path, f"sqlite:///{tmp_path / 's.db'}") as bare:
        # under the limit: served
        assert bare.client.get("/healthz", headers={"X-Big": "a" * 10_000}).status_code == 200
        # over it, sent whole (100 kB, 1 MB): the answer, never a reset
        for size in (100_000, 1_000_000):
            answer = httpx.get(f"{bare.url}/healthz", headers={"X-Big": "a" * size}, timeout=10)
            _is_head_too_large(answer.status_code, answer.headers["content-type"], answer.json())
            assert answer.headers["x-content-type-options"] == "nosniff"
        # over it, still arriving when the limit is passed: the same answer, then the end
        slow = _head_in_pieces(bare, _head("GET", "/healthz", {"X-Big": "a" * 100_000}))
        _is_head_too_large(slow.status, slow.headers["content-type"], slow.json())
        assert slow.headers["connection"] == "close" and slow.closed
        # a request that is not HTTP: a problem too, not uvicorn's plain text
        with socket.create_connection(bare.address, timeout=10) as sock:
            sock.sendall(b"NOT HTTP AT ALL\r\n\r\n")
            garbled = _read_response(sock)
        assert garbled.status == 400 and garbled.json()["type"] == "/problems/bad-http"
        assert garbled.headers["content-type"] == "application/problem+json"
        assert bare.client.get("/healthz").status_code == 200
