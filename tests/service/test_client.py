"""The typed client against the real service on loopback: every endpoint, problems turned
into our errors, and the SSE reader resuming with Last-Event-ID after dropped connections
(a loopback proxy cuts the stream mid-event)."""

from __future__ import annotations

import contextlib
import json
import re
import socket
import threading
from collections.abc import Iterator
from pathlib import Path
from types import TracebackType

import httpx
import pytest

from deepresearch.errors import ConfigError, RunError
from deepresearch.models import Report
from deepresearch.service.client import (
    JobNotFound,
    ServiceAuthError,
    ServiceClient,
    ServiceConnectionLost,
    ServiceFailure,
    ServiceRequestError,
    ServiceUnreachable,
    SseMessage,
    parse_sse,
)
from deepresearch.service.db import make_engine
from deepresearch.service.keys import create_key
from deepresearch.service.store import JobStore
from deepresearch.testing.web import OfflineWeb

from .helpers import running_service, service_settings


class CuttingProxy:
    """A loopback TCP proxy in front of the service. The first ``len(cuts)`` connections
    that ask for an event stream are cut after ``cuts[i]`` bytes of its response (so
    mid-event, as a dropped network would); with ``refuse_after_cuts`` it stops listening
    once every cut is spent (the service is gone for good)."""

    def __init__(self, target: str, cuts: list[int], *, refuse_after_cuts: bool = False) -> None:
        host, port = target.removeprefix("http://").rsplit(":", 1)
        self.target = (host, int(port))
        self.cuts = list(cuts)
        self.cut = 0
        self.refuse_after_cuts = refuse_after_cuts
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.listener.settimeout(0.05)
        self.url = f"http://127.0.0.1:{self.listener.getsockname()[1]}"
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._sockets: list[socket.socket] = []

    def __enter__(self) -> CuttingProxy:
        threading.Thread(target=self._accept, daemon=True).start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._stop.set()
        self.listener.close()
        for sock in self._sockets:
            sock.close()

    def _accept(self) -> None:
        while not self._stop.is_set():
            try:
                client, _ = self.listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            threading.Thread(target=self._serve, args=(client,), daemon=True).start()

    def _serve(self, client: socket.socket) -> None:
        upstream = socket.create_connection(self.target)
        self._sockets += [client, upstream]
        state: dict[str, int | None] = {"sent": 0, "limit": None}

        def forward_requests() -> None:
            try:
                while data := client.recv(65536):
                    if b"/events" in data and state["limit"] is None:
                        with self._lock:
                            if self.cuts:
                                state["limit"] = (state["sent"] or 0) + self.cuts.pop(0)
                    upstream.sendall(data)
            except OSError:
                pass

        threading.Thread(target=forward_requests, daemon=True).start()
        try:
            while data := upstream.recv(65536):
                sent, limit = state["sent"] or 0, state["limit"]
                if limit is not None and sent + len(data) >= limit:
                    client.sendall(data[: limit - sent])
                    with self._lock:
                        self.cut += 1
                        if self.refuse_after_cuts and not self.cuts:
                            self._stop.set()
                            self.listener.close()
                    break
                client.sendall(data)
                state["sent"] = sent + len(data)
        except OSError:
            pass
        finally:
            for sock in (client, upstream):
                with contextlib.suppress(OSError):
                    sock.shutdown(socket.SHUT_RDWR)
                sock.close()


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def sqlite(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'service.sqlite3'}"


# the SSE parser ---------------------------------------------------------------------------
def test_parse_sse_follows_the_event_stream_format() -> None:
    lines = [
        ": deepresearch events",
        "retry: 2000",
        "",
        "id: 1",
        "event: run_started",
        "data: {",
        'data:"a": 1}',
        "",
        "event: heartbeat",
        "data: {}",
        "",
        "data",
        "",
        "id: 2\r",
        "data: x",
        "unknown: field",
        "",
        "id: bad\0id",
        "data: y",
        "",
        "id: 3",
        "data: cut off by the end of the stream",
    ]
    assert list(parse_sse(lines)) == [
        SseMessage("run_started", '{\n"a": 1}', "1"),
        SseMessage("heartbeat", "{}", None),
        SseMessage("message", "", None),
        SseMessage("message", "x", "2"),
        SseMessage("message", "y", None),
    ]


class DroppedStream(httpx.SyncByteStream):
    """A response body that breaks off after ``body``, as a dropped connection does."""

    def __init__(self, body: str) -> None:
        self.body = body.encode()

    def __iter__(self) -> Iterator[bytes]:
        yield self.body
        raise httpx.RemoteProtocolError("peer closed connection")


def sse_transport(*bodies: tuple[int, str]) -> tuple[httpx.MockTransport, list[httpx.Request]]:
    """An in-process transport answering event-stream requests with ``bodies`` in turn;
    every body but the last breaks off like a dropped connection."""
    seen: list[httpx.Request] = []

    def answer(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        status, body = bodies[min(len(seen), len(bodies)) - 1]
        if status != 200:
            return httpx.Response(status, text=body, headers={"content-type": "application/json"})
        headers = {"content-type": "text/event-stream"}
        if len(seen) < len(bodies):
            return httpx.Response(status, stream=DroppedStream(body), headers=headers)
        return httpx.Response(status, text=body, headers=headers)

    return httpx.MockTransport(answer), seen


def event_block(seq: int, kind: str) -> str:
    data = {"run_id": "run-x", "seq": seq, "ts": "2025-01-01T00:00:00Z", "type": kind}
    return f"id: {seq}\nevent: {kind}\ndata: {json.dumps(data)}\n\n"


def test_a_gateway_error_is_retried_and_an_unreadable_event_is_not() -> None:
    problem = json.dumps({"type": "about:blank", "title": "x", "status": 503, "detail": "busy"})
    transport, seen = sse_transport(
        (200, ": hi\n\n" + event_block(1, "run_started") + event_block(2, "stage_started")[:-9]),
        (503, problem),
        (200, event_block(2, "stage_started") + event_block(3, "run_completed")),
    )
    with ServiceClient(transport=transport, backoff_s=0.01) as client:
        stream = client.events("run-x")
        assert [event.seq for event in stream] == [1, 2, 3]
    assert stream.reconnects == 2 and stream.terminal is not None
    # event 2 was cut off mid-block: dropped, and asked for again
    assert [request.headers.get("last-event-id") for request in seen] == [None, "1", "1"]

    transport, seen = sse_transport((200, "id: 1\nevent: run_started\ndata: {oops\n\n"))
    with ServiceClient(transport=transport) as client, pytest.raises(ServiceFailure) as bad:
        list(client.events("run-x"))
    assert bad.value.kind == "unreadable-event" and len(seen) == 1


# every endpoint ---------------------------------------------------------------------------
def test_every_endpoint_through_the_client(
    service_web: OfflineWeb, questions: list[str], database_url: str, tmp_path: Path
) -> None:
    settings = service_settings(service_web, tmp_path, database_url)
    with running_service(settings) as service, ServiceClient(service.url) as client:
        assert client.health() == {"status": "ok"}
        assert client.ready()["status"] == "ready"
        job = client.submit(questions[0], options={"depth": "quick"}, idempotency_key="k1")
        assert job.created and job.status == "QUEUED" and job.options == {"depth": "quick"}
        again = client.submit(questions[0], options={"depth": "quick"}, idempotency_key="k1")
        assert again.replayed and again.id == job.id

        stream = client.events(job.id)
        events = list(stream)
        assert [event.seq for event in events] == list(range(1, len(events) + 1))
        assert events[0].type == "run_started" and events[-1].type == "run_completed"
        assert stream.terminal == events[-1] and stream.last_id == len(events)
        assert stream.reconnects == 0
        # resuming from an id yields exactly what came after it
        tail = list(client.events(job.id, last_event_id=10))
        assert [event.seq for event in tail] == list(range(11, len(events) + 1))

        done = client.get(job.id)
        assert done.status == "COMPLETED" and done.progress == 1.0
        assert done.usage["calls"] == len(service.model.calls)
        assert [item.id for item in client.list_jobs(limit=5).jobs] == [job.id]

        report = client.report_model(job.id)
        assert isinstance(report, Report) and report.kind == "synthesized"
        assert client.report(job.id, "md").startswith("# ")
        assert "<html" in client.report(job.id, "html")
        sources = client.sources(job.id).sources
        assert sum(source.cited for source in sources) == len(report.sources)
        assert client.queue().counts["COMPLETED"] == 1

        with pytest.raises(ServiceFailure) as finished:
            client.cancel(job.id)
        assert finished.value.status == 409 and finished.value.kind == "job-finished"
        assert "already COMPLETED" in finished.value.message
        with pytest.raises(ServiceRequestError) as mismatch:
            client.submit(questions[1], idempotency_key="k1")
        assert mismatch.value.status == 422 and "different request" in mismatch.value.message
        assert "--idempotency-key" in mismatch.value.hint


def test_problems_become_our_errors_with_hints(service_web: OfflineWeb, tmp_path: Path) -> None:
    settings = service_settings(
        service_web, tmp_path, sqlite(tmp_path), submissions_per_window=1, active_runs_per_key=5
    )
    with running_service(settings, latency_s=0.05) as service, ServiceClient(service.url) as client:
        with pytest.raises(JobNotFound) as missing:
            client.get("run-nope")
        assert isinstance(missing.value, ConfigError)
        assert missing.value.message == "no job 'run-nope'"
        assert "deepresearch jobs list" in missing.value.hint
        for call in (client.cancel, client.report, client.sources):
            with pytest.raises(JobNotFound):
                call("run-nope")
        with pytest.raises(JobNotFound):
            list(client.events("run-nope"))
        with pytest.raises(JobNotFound):  # ids are quoted into the path, not resolved
            client.get("../queue")

        with pytest.raises(ServiceRequestError) as invalid:
            client.submit("q", options={"depth": "huge"})
        assert isinstance(invalid.value, ConfigError) and "options.depth" in invalid.value.message

        job = client.submit("How do generators work?")
        with pytest.raises(ServiceFailure) as not_ready:
            client.report(job.id)
        assert isinstance(not_ready.value, RunError) and not_ready.value.kind == "not-ready"
        assert f"deepresearch jobs watch {job.id}" in not_ready.value.hint
        with pytest.raises(ServiceFailure) as limited:
            client.submit("Another question?")
        assert limited.value.status == 429 and limited.value.retry_after_s
        assert "retry in" in limited.value.message
        client.cancel(job.id)
        list(client.events(job.id))


def test_the_python_example_in_the_service_docs_runs(
    pydoc_web: OfflineWeb, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    doc = (Path(__file__).resolve().parents[2] / "docs" / "service.md").read_text()
    (example,) = [
        block for block in re.findall(r"```python\n(.*?)```", doc, re.S) if "ServiceClient" in block
    ]
    settings = service_settings(pydoc_web, tmp_path, sqlite(tmp_path))
    with running_service(settings) as service:
        exec(compile(example.replace("http://127.0.0.1:8000", service.url), "service.md", "exec"))
    out = capsys.readouterr().out
    assert re.search(r"^\d+ run_completed ", out, re.M) and "\n# Research report" in out


def test_nothing_listening_is_a_clear_error() -> None:
    url = f"http://127.0.0.1:{free_port()}"
    with ServiceClient(url) as client:
        for call in (client.health, lambda: client.get("run-x"), lambda: list(client.events("x"))):
            with pytest.raises(ServiceUnreachable) as refused:
                call()
            assert isinstance(refused.value, ConfigError)
            assert str(refused.value).startswith(f"no service at {url}")
            assert "deepresearch serve" in refused.value.hint
    with pytest.raises(ConfigError, match="not a server URL"):
        ServiceClient("127.0.0.1:8000")
    with pytest.raises(ConfigError, match="characters no key has") as odd_key:
        ServiceClient(url, "dr_ké y")
    assert "ké" not in str(odd_key.value)


def test_something_else_at_the_url_is_not_mistaken_for_the_service(
    service_web: OfflineWeb,
) -> None:
    with ServiceClient(service_web.base_url) as client, pytest.raises(ServiceFailure) as foreign:
        client.get("run-x")
    assert "not the deepresearch API" in foreign.value.message


def test_api_keys_are_sent_and_never_shown(
    service_web: OfflineWeb, questions: list[str], tmp_path: Path
) -> None:
    settings = service_settings(service_web, tmp_path, sqlite(tmp_path))
    with running_service(settings) as service:
        store = JobStore(make_engine(settings.database_url or ""))
        _, alice = create_key(store, "alice")
        _, bob = create_key(store, "bob")
        store.engine.dispose()
        with ServiceClient(service.url) as anonymous, pytest.raises(ServiceAuthError) as needed:
            anonymous.list_jobs()
        assert needed.value.status == 401 and "API key is required" in needed.value.message
        assert "DEEPRESEARCH_API_KEY" in needed.value.hint
        wrong = "dr_this-key-was-never-issued"
        with ServiceClient(service.url, wrong) as forged, pytest.raises(ServiceAuthError) as bad:
            forged.get("run-x")
        assert isinstance(bad.value, ConfigError) and "not valid" in bad.value.message
        assert wrong not in str(bad.value) and wrong not in repr(forged)

        with (
            ServiceClient(service.url, alice) as as_alice,
            ServiceClient(service.url, bob) as as_bob,
        ):
            job = as_alice.submit(questions[0])
            with pytest.raises(JobNotFound):
                as_bob.get(job.id)
            assert list(as_alice.events(job.id))[-1].type == "run_completed"
            assert as_bob.list_jobs().jobs == []


# the SSE reader resumes -------------------------------------------------------------------
def test_events_resume_after_dropped_connections_each_exactly_once(
    service_web: OfflineWeb, questions: list[str], tmp_path: Path
) -> None:
    settings = service_settings(service_web, tmp_path, sqlite(tmp_path))
    with running_service(settings, latency_s=0.02) as service:
        with ServiceClient(service.url) as direct:
            job_id = direct.submit(questions[1]).id
        cuts = [700, 1500, 2600, 1111]
        with (
            CuttingProxy(service.url, cuts) as proxy,
            ServiceClient(proxy.url, backoff_s=0.05) as client,
        ):
            stream = client.events(job_id)  # live: the job is running meanwhile
            seqs = [event.seq for event in stream]
        assert proxy.cut == len(cuts) and stream.reconnects == len(cuts)
        assert seqs == list(range(1, len(seqs) + 1))  # no gap, no duplicate, in order
        assert stream.terminal is not None and stream.terminal.type == "run_completed"
        with ServiceClient(service.url) as direct:
            assert [event.seq for event in direct.events(job_id)] == seqs
            # a finished job's replay is cut the same way
            with (
                CuttingProxy(service.url, [900, 333, 2048]) as proxy,
                ServiceClient(proxy.url, backoff_s=0.05) as client,
            ):
                replay = client.events(job_id)
                assert [event.seq for event in replay] == seqs
            assert proxy.cut == 3 and replay.reconnects == 3


def test_events_skip_heartbeats(
    service_web: OfflineWeb, questions: list[str], tmp_path: Path
) -> None:
    settings = service_settings(service_web, tmp_path, sqlite(tmp_path), sse_heartbeat_s=0.2)
    with running_service(settings, latency_s=0.4) as service, ServiceClient(service.url) as client:
        job_id = client.submit(questions[2]).id
        events = list(client.events(job_id))
        assert events[-1].type == "run_completed"
        assert [event.seq for event in events] == list(range(1, len(events) + 1))


def test_events_give_up_after_bounded_retries(
    service_web: OfflineWeb, questions: list[str], tmp_path: Path
) -> None:
    settings = service_settings(service_web, tmp_path, sqlite(tmp_path))
    with running_service(settings) as service:
        with ServiceClient(service.url) as direct:
            job_id = direct.submit(questions[0]).id
            list(direct.events(job_id))
        with (
            CuttingProxy(service.url, [800], refuse_after_cuts=True) as proxy,
            ServiceClient(proxy.url, max_retries=2, backoff_s=0.01) as client,
        ):
            stream = client.events(job_id)
            seen = []
            with pytest.raises(ServiceConnectionLost) as lost:
                for event in stream:
                    seen.append(event.seq)
        assert isinstance(lost.value, RunError)
        assert "gave up after 2 retries" in lost.value.message
        assert f"deepresearch jobs watch {job_id}" in lost.value.hint
        assert stream.reconnects == 2 and seen == list(range(1, stream.last_id + 1))
