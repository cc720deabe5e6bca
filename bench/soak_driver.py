"""soak_driver: the soak's client side (bench/soak.py): jobs submitted and steered, and a
latency probe.

``Driver`` keeps ``in_flight`` jobs active until ``jobs`` were submitted, each of a kind:
``plain``; ``plan`` (``review_plan``: approved, or edited with a new brief);
``findings`` (``review_findings``: approved, or a gap named); ``followup`` (once it
completes, a follow-up question is asked: a ``turn`` job); ``cancel`` (cancelled 0-3 s
after submission). Every request goes to a random API and, when that one is down (killed),
to the other, again and again until one answers; a submission carries an
``Idempotency-Key`` so a retry cannot make a second job. Each new job's id is put on the
SSE clients' queue ``watchers`` times.

``Probe`` asks ``GET /healthz`` and ``GET /v1/research/{id}`` of a recent job, in turn,
of a random API every ``every_s``, over keep-alive connections, and times them; a request
that finds its API down is counted, not timed.
"""

from __future__ import annotations

import random
import threading
import time
import uuid
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from multiprocessing import Queue
from typing import Any

import httpx

from deepresearch.service.jobs import TERMINAL

KINDS = ("plain", "plan", "findings", "followup", "cancel")
WEIGHTS = (0.45, 0.15, 0.15, 0.15, 0.10)
PHRASES = ("How do {} work in Python?", "What do {} do in Python?", "Why use {} in Python?")
TOPICS = (
    ("generators", "A generator function uses yield to produce values lazily."),
    ("coroutines", "Coroutines are built on generators; send() passes a value back in."),
    ("iterators", "An iterator implements __next__ and raises StopIteration at its end."),
    ("decorators", "A decorator wraps a function and returns a new callable."),
    ("closures", "A closure keeps the variables of the scope where it was defined."),
)


class Apis:
    """One keep-alive client per API; a call goes to a random one, then to the others."""

    def __init__(self, urls: list[str], rng: random.Random) -> None:
        self.clients = [httpx.Client(base_url=url, timeout=60) for url in urls]
        self.rng = rng
        self.failovers = 0

    def call(self, method: str, path: str, **kwargs: Any) -> httpx.Response:
        deadline = time.monotonic() + 180
        while True:
            for client in self.rng.sample(self.clients, len(self.clients)):
                try:
                    return client.request(method, path, **kwargs)
                except httpx.TransportError:
                    self.failovers += 1
            if time.monotonic() > deadline:
                raise RuntimeError(f"no API answered {method} {path} for 180 s")
            time.sleep(0.2)

    def close(self) -> None:
        for client in self.clients:
            client.close()


@dataclass
class Tracked:
    id: str
    kind: str
    submitted: float
    cancel_at: float = 0.0
    status: str = "QUEUED"
    steered: list[str] = field(default_factory=list)  # what was done to it
    answered: set[str] = field(default_factory=set)  # pause ids answered


@dataclass
class Driver:
    apis: Apis
    streams: Queue[str | None]
    rng: random.Random
    jobs: int
    in_flight: int
    watchers: int
    submit_until: float  # monotonic: no submission after it
    tracked: dict[str, Tracked] = field(default_factory=dict)
    order: list[str] = field(default_factory=list)  # ids as submitted (the probe reads it)
    statuses: Counter[int] = field(default_factory=Counter)
    refused: list[str] = field(default_factory=list)

    @property
    def active(self) -> list[Tracked]:
        return [job for job in self.tracked.values() if job.status not in TERMINAL]

    def submitting(self) -> bool:
        return len(self.tracked) < self.jobs and time.monotonic() < self.submit_until

    def run(self, *, drain_s: float, on_drain: Callable[[], None]) -> None:
        """Submit and steer until every job was submitted, then (``on_drain`` called)
        until none is active or ``drain_s`` passed."""
        drain_until = 0.0
        while True:
            while self.submitting() and len(self.active) < self.in_flight:
                self._submit()
            self._poll()
            if not self.submitting():
                if not drain_until:
                    drain_until = time.monotonic() + drain_s
                    on_drain()
                if not self.active or time.monotonic() > drain_until:
                    return
            time.sleep(0.5)

    def _post_job(self, path: str, body: dict[str, Any], kind: str) -> None:
        key = {"Idempotency-Key": uuid.uuid4().hex}  # a retry on the other API: the same job
        response = self.apis.call("POST", path, json=body, headers=key)
        self.statuses[response.status_code] += 1
        if response.status_code not in (200, 201):
            self.refused.append(f"{path} {response.status_code} {response.text[:200]}")
            return
        job_id = str(response.json()["id"])
        now = time.monotonic()
        self.tracked[job_id] = Tracked(job_id, kind, now, now + self.rng.uniform(0, 3))
        self.order.append(job_id)
        for _ in range(self.watchers):
            self.streams.put(job_id)

    def _submit(self) -> None:
        kind = self.rng.choices(KINDS, WEIGHTS)[0]
        n = len(self.tracked)
        name = TOPICS[n % len(TOPICS)][0]
        # words the corpus answers (an odd one, a number say, leaves nothing to verify)
        question = PHRASES[n // len(TOPICS) % len(PHRASES)].format(name)
        options: dict[str, Any] = {"depth": "quick"}
        if kind == "plan":
            options["review_plan"] = True
        elif kind == "findings":
            options["review_findings"] = True
        self._post_job("/v1/research", {"question": question, "options": options}, kind)

    def _poll(self) -> None:
        listed = self.apis.call("GET", "/v1/research", params={"limit": 100}).json()["jobs"]
        seen = {str(view["id"]): str(view["status"]) for view in listed}
        for job in self.active:
            status = seen.get(job.id)
            if status is None:
                status = str(self.apis.call("GET", f"/v1/research/{job.id}").json()["status"])
            job.status = status
            self._steer(job)

    def _steer(self, job: Tracked) -> None:
        if job.status == "AWAITING_INPUT":
            self._answer(job)
        elif job.kind == "cancel" and "cancel" not in job.steered and job.status not in TERMINAL:
            if time.monotonic() >= job.cancel_at:
                response = self.apis.call("POST", f"/v1/research/{job.id}/cancel")
                job.steered.append("cancel" if response.status_code == 202 else "cancel-late")
        elif job.kind == "followup" and job.status == "COMPLETED" and not job.steered:
            job.steered.append("followup")
            body = {"question": "And how do they compare with lists in Python?"}
            self._post_job(f"/v1/research/{job.id}/followups", body, "turn")

    def _answer(self, job: Tracked) -> None:
        view = self.apis.call("GET", f"/v1/research/{job.id}").json()
        request = view.get("input_request") or {}
        pause = str(request.get("id", ""))
        if not pause or pause in job.answered:
            return
        odd = self.rng.random() < 0.5  # half approved, half edited or given a gap
        if request.get("kind") == "plan":
            reply: dict[str, Any] = {"action": "approve"}
            if odd:
                reply = {"action": "edit", "brief": "How these work in Python, with examples."}
        else:
            reply = {"action": "approve"}
            if odd:
                reply = {"action": "gap", "gap": "How are they used in the standard library?"}
        response = self.apis.call("POST", f"/v1/research/{job.id}/input", json=reply)
        job.answered.add(pause)
        job.steered.append(f"{request.get('kind')}:{reply['action']}:{response.status_code}")


@dataclass
class Probe:
    """``/healthz`` and ``GET`` of a job, timed, over keep-alive connections."""

    urls: list[str]
    driver: Driver
    rng: random.Random
    every_s: float = 0.1
    health_ms: list[float] = field(default_factory=list)
    job_ms: list[float] = field(default_factory=list)
    down: int = 0
    errors: Counter[str] = field(default_factory=Counter)
    _stop: threading.Event = field(default_factory=threading.Event)

    def run(self) -> None:
        clients = [httpx.Client(base_url=url, timeout=60) for url in self.urls]
        try:
            while not self._stop.is_set():
                client = self.rng.choice(clients)
                self._timed(client, "/healthz", self.health_ms)
                recent = self.driver.order[-50:]
                if recent:
                    self._timed(client, f"/v1/research/{self.rng.choice(recent)}", self.job_ms)
                self._stop.wait(self.every_s)
        finally:
            for client in clients:
                client.close()

    def _timed(self, client: httpx.Client, path: str, into: list[float]) -> None:
        started = time.perf_counter()
        try:
            response = client.get(path)
        except httpx.TransportError:
            self.down += 1
            return
        into.append((time.perf_counter() - started) * 1000)
        if response.status_code != 200:
            self.errors[f"{path.split('/')[1]} {response.status_code}"] += 1

    def stop(self) -> None:
        self._stop.set()
