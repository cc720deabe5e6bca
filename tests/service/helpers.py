"""Starting the real service in-process (uvicorn on loopback) over the offline web, with
the scripted model, and reading its SSE stream."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

import httpx

from deepresearch.models.watch import Watch
from deepresearch.service.app import create_app
from deepresearch.service.app.jobs import Runtime
from deepresearch.service.jobs import Submission, request_hash
from deepresearch.service.server import BackgroundServer
from deepresearch.service.store import JobStore, Limits
from deepresearch.settings import Settings, load_settings
from deepresearch.settings_values import ROLES
from deepresearch.testing.research_script import research_script
from deepresearch.testing.scripted import ScriptedChatModel
from deepresearch.testing.web import OfflineWeb

#: a window no test's few jobs fill
ROOMY = Limits(window_s=900, per_window=100, ttl_s=3600)


def queue_job(
    store: JobStore,
    question: str = "q",
    *,
    owner: str = "alice",
    options: dict[str, Any] | None = None,
    limits: Limits = ROOMY,
) -> Submission:
    """A research job submitted straight to the store, as the API would (no service)."""
    chosen = options or {}
    return store.submit(
        owner=owner,
        question=question,
        recipe="research",
        options=chosen,
        request_hash=request_hash(question, "research", chosen),
        idempotency_key=None,
        max_active_runs=100,
        limits=limits,
    )


def new_watch(
    store: JobStore,
    first_due: datetime,
    *,
    question: str = "What changed?",
    schedule: str = "every 3600s",
    webhook: str | None = None,
) -> Watch:
    """Owner "o"'s watch added straight to the store, first due at ``first_due``."""
    return store.add_watch(
        owner="o",
        question=question,
        schedule=schedule,
        options={},
        first_due=first_due,
        thread=None,
        max_watches=10,
        webhook_url=webhook,
    )


@dataclass
class Service:
    url: str
    client: httpx.Client
    model: ScriptedChatModel
    settings: Settings
    server: BackgroundServer

    def submit(self, question: str, **body: Any) -> httpx.Response:
        headers = body.pop("headers", None)
        return self.client.post(
            "/v1/research", json={"question": question, **body}, headers=headers
        )

    def job(self, job_id: str, **kwargs: Any) -> dict[str, Any]:
        response = self.client.get(f"/v1/research/{job_id}", **kwargs)
        assert response.status_code == 200, response.text
        data: dict[str, Any] = response.json()
        return data

    def wait_for(
        self, job_id: str, *statuses: str, timeout: float = 60, **kw: Any
    ) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while True:
            job = self.job(job_id, **kw)
            if job["status"] in statuses:
                return job
            assert time.monotonic() < deadline, f"job stayed {job['status']}"
            time.sleep(0.1)


def service_settings(web: OfflineWeb, tmp_path: Path, database_url: str, **extra: Any) -> Settings:
    options: dict[str, Any] = {
        "search": "searxng",
        "searxng_url": web.base_url,
        "allow_hosts": [web.base_url.removeprefix("http://")],
        "data_dir": tmp_path / "data",
        "database_url": database_url,
        "depth": "quick",
        "min_domains": 1,
        "fetch_min_interval_s": 0.0,
    }
    return load_settings(**{**options, **extra})


@contextmanager
def running_service(
    settings: Settings, *, latency_s: float = 0.0, model: ScriptedChatModel | None = None
) -> Iterator[Service]:
    model = model or ScriptedChatModel(research_script(), latency_s=latency_s)
    app = create_app(settings, runtime=Runtime(models=dict.fromkeys(ROLES, model)))
    with BackgroundServer(app) as server, httpx.Client(base_url=server.url, timeout=30) as client:
        yield Service(server.url, client, model, settings, server)


@dataclass
class SseMessage:
    event: str | None
    id: str | None
    data: str

    def json(self) -> dict[str, Any]:
        value: dict[str, Any] = json.loads(self.data)
        return value


def read_sse(
    client: httpx.Client,
    path: str,
    *,
    last_event_id: str | None = None,
    stop_after: int | None = None,
    timeout: float = 60,
    headers: dict[str, str] | None = None,
) -> list[SseMessage]:
    """Messages of an SSE stream (comments skipped) until it ends, or until
    ``stop_after`` messages with an id have been read (then the connection is dropped)."""
    sent = dict(headers or {})
    if last_event_id is not None:
        sent["Last-Event-ID"] = last_event_id
    out: list[SseMessage] = []
    with client.stream("GET", path, headers=sent, timeout=timeout) as response:
        assert response.status_code == 200, response.read()
        assert response.headers["content-type"].startswith("text/event-stream")
        fields: dict[str, str] = {}
        for line in response.iter_lines():
            if line == "":
                if "data" in fields:
                    out.append(SseMessage(fields.get("event"), fields.get("id"), fields["data"]))
                    with_id = sum(1 for m in out if m.id is not None)
                    if stop_after is not None and with_id >= stop_after:
                        break
                fields = {}
                continue
            if line.startswith(":"):
                continue
            name, _, value = line.partition(":")
            fields[name] = value.removeprefix(" ")
    return out
