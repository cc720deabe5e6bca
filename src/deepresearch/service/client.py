"""A typed client for the service's HTTP API: one method per endpoint, our error tree
instead of HTTP statuses, and a live event reader that reconnects by itself.

    with ServiceClient("http://127.0.0.1:8000", api_key) as client:
        job = client.submit("How do generators work in Python?", options={"depth": "quick"})
        for event in client.events(job.id):   # resumes with Last-Event-ID after a drop
            print(event.type, event.message)
        markdown = client.report(job.id, "md")

Errors (all ``DeepResearchError``s whose message and hint are safe to show):

* ``ServiceUnreachable`` (a ``ConfigError``): nothing answers at the URL.
* ``ServiceAuthError`` (``ConfigError``): 401/403, the API key is missing or refused.
* ``JobNotFound`` (``ConfigError``): 404, no such job, or not this key's.
* ``ServiceRequestError`` (``ConfigError``): 400/422 and other refusals of the request.
* ``ServiceFailure`` (a ``RunError``): 409, 410, 429 (``retry_after_s``), 5xx, timeouts,
  a stream that could not be resumed (``ServiceConnectionLost``), answers that are not
  the service's.

The API key is sent as ``Authorization: Bearer`` and appears in no message, log or repr.
"""

from __future__ import annotations

import contextlib
import logging
import time
from collections.abc import Generator, Iterable, Iterator
from dataclasses import dataclass
from datetime import datetime
from types import TracebackType
from typing import Any, TypeVar
from urllib.parse import quote

import httpx
from pydantic import BaseModel, ValidationError

from deepresearch.errors import ConfigError, DeepResearchError, RunError
from deepresearch.export.formats import TextFormat
from deepresearch.models import Report, RunEvent
from deepresearch.resilience import backoff_delay, parse_retry_after
from deepresearch.service import DEFAULT_SERVER
from deepresearch.service.jobs import TERMINAL, TERMINAL_EVENTS
from deepresearch.service.schemas import JobPage, JobView, QueueView, SourcesView, SubmitView

log = logging.getLogger(__name__)

_M = TypeVar("_M", bound=BaseModel)


# errors ---------------------------------------------------------------------------------
class ServiceError(DeepResearchError):
    """The service refused a request, failed, or could not be reached. ``status`` is the
    HTTP status (None when no answer came) and ``kind`` the problem's type, e.g.
    ``not-found`` (from ``/problems/not-found``)."""

    def __init__(
        self, message: str, *, hint: str = "", status: int | None = None, kind: str = ""
    ) -> None:
        super().__init__(message, hint=hint)
        self.status = status
        self.kind = kind


class ServiceUnreachable(ServiceError, ConfigError):
    """Nothing answers at the server URL."""


class ServiceAuthError(ServiceError, ConfigError):
    """The API key is missing, unknown or revoked (401/403)."""


class JobNotFound(ServiceError, ConfigError):
    """No such job, or it belongs to another key (404)."""


class ServiceRequestError(ServiceError, ConfigError):
    """The service refused the request as invalid (400, 422, ...)."""


class ServiceFailure(ServiceError, RunError):
    """The request was valid but could not be done: conflict with the job's state (409),
    expired results (410), rate limited (429), server errors, timeouts."""

    def __init__(
        self,
        message: str,
        *,
        hint: str = "",
        status: int | None = None,
        kind: str = "",
        retry_after_s: float | None = None,
    ) -> None:
        super().__init__(message, hint=hint, status=status, kind=kind)
        self.retry_after_s = retry_after_s


class ServiceConnectionLost(ServiceFailure):
    """The event stream dropped and could not be resumed within the retries."""


# server-sent events --------------------------------------------------------------------
@dataclass(frozen=True)
class SseMessage:
    """One dispatched server-sent event: ``event`` is "message" when the block named none,
    ``id`` None when it carried no ``id:`` field."""

    event: str
    data: str
    id: str | None = None


def parse_sse(lines: Iterable[str]) -> Iterator[SseMessage]:
    """Server-sent events from the stream's lines (WHATWG HTML, "event stream
    interpretation"): ``:`` comments and unknown fields are ignored, ``data:`` lines are
    joined with newlines, a blank line dispatches, and a block cut off by the end of the
    stream is dropped (the reconnect asks for it again)."""
    data: list[str] = []
    event = ""
    event_id: str | None = None
    seen = False
    for raw in lines:
        line = raw.rstrip("\r\n")
        if not line:
            if seen:
                yield SseMessage(event or "message", "\n".join(data), event_id)
            data, event, event_id, seen = [], "", None, False
            continue
        if line.startswith(":"):
            continue
        name, colon, value = line.partition(":")
        if colon:
            value = value.removeprefix(" ")
        if name == "data":
            data.append(value)
        elif name == "event":
            event = value
        elif name == "id":
            if "\0" in value:
                continue
            event_id = value
        else:
            continue  # "retry" and unknown fields: the client keeps its own backoff
        seen = True


class EventStream:
    """A job's ``RunEvent``s over SSE, each exactly once and in order, until the terminal
    event (``run_completed``, ``run_failed`` or ``run_cancelled``), which it yields last.

    Heartbeats and comments are skipped. When the connection drops (a network error, a
    read timeout, a 502/503/504 or a stream that ends before the terminal event) it
    reconnects with ``Last-Event-ID`` after a backoff; ``max_retries`` failures in a row
    without a new event raise ``ServiceConnectionLost``. Nothing listening at the first
    attempt raises ``ServiceUnreachable`` at once. A job that ended without a terminal
    event (it expired while queued) ends the stream after one last look: ``terminal``
    stays None."""

    def __init__(self, client: ServiceClient, job_id: str, last_event_id: int = 0) -> None:
        self.client = client
        self.job_id = job_id
        self.last_id = last_event_id
        self.reconnects = 0
        self.terminal: RunEvent | None = None
        self._connected = False

    def __iter__(self) -> Iterator[RunEvent]:
        failures = 0
        last_look = False
        while True:
            why: str
            try:
                with contextlib.closing(self._connect()) as events:
                    for event in events:
                        failures = 0
                        yield event
                        if event.type in TERMINAL_EVENTS:
                            self.terminal = event
                            return
                if self._job_finished():
                    if last_look:
                        return
                    # its terminal event may have been stored just after the stream
                    # looked: ask once more, at once
                    last_look = True
                    continue
                why = "the stream ended before the job did"
            except httpx.ConnectError as exc:
                if not self._connected:
                    raise self.client.unreachable() from exc
                why = "the service refused the connection"
            except httpx.TimeoutException:
                why = "the service sent nothing for too long"
            except httpx.TransportError as exc:
                why = f"the connection dropped ({type(exc).__name__})"
            except ServiceUnreachable:
                why = "the service refused the connection"
            except ServiceFailure as exc:
                if exc.kind or exc.status not in (None, 502, 503, 504):
                    raise  # only a failed connection or a gateway's 5xx is worth a retry
                why = exc.message if exc.status is None else f"the service answered {exc.status}"
            failures += 1
            if failures > self.client.max_retries:
                raise ServiceConnectionLost(
                    f"lost the event stream of job {self.job_id}: {why}; "
                    f"gave up after {self.client.max_retries} retries",
                    hint=f"the job runs on in the service; 'deepresearch jobs watch {self.job_id}'"
                    " picks up where this stopped",
                )
            delay = backoff_delay(
                failures - 1,
                base_s=self.client.backoff_s,
                cap_s=self.client.max_backoff_s,
                jitter=1.0,
            )
            log.info("event stream of %s: %s; reconnecting in %.1f s", self.job_id, why, delay)
            time.sleep(delay)
            self.reconnects += 1

    def _connect(self) -> Generator[RunEvent, None, None]:
        headers = {"Accept": "text/event-stream", "Cache-Control": "no-cache"}
        if self.last_id:
            headers["Last-Event-ID"] = str(self.last_id)
        path = f"{self.client.job_path(self.job_id)}/events"
        with self.client.http.stream(
            "GET", path, headers=headers, timeout=self.client.stream_timeout
        ) as response:
            if response.status_code >= 400:
                response.read()
                raise self.client.problem(response, self.job_id)
            self._connected = True
            for message in parse_sse(response.iter_lines()):
                if message.event == "heartbeat" or not message.data:
                    continue
                try:
                    event = RunEvent.model_validate_json(message.data)
                except ValidationError as exc:
                    raise ServiceFailure(
                        f"the service sent an event this client cannot read ({message.event})",
                        hint="is the client older than the server? update deepresearch",
                        kind="unreadable-event",
                    ) from exc
                seq = int(message.id) if message.id and message.id.isdigit() else event.seq
                if seq <= self.last_id:
                    continue  # already delivered before a reconnect
                self.last_id = seq
                yield event

    def _job_finished(self) -> bool:
        return self.client.get(self.job_id).status in TERMINAL


# the client ------------------------------------------------------------------------------
class ServiceClient:
    """One method per endpoint of ``/v1``. Thread-compatible like ``httpx.Client``: share it
    within a thread, make one per thread otherwise."""

    def __init__(
        self,
        server: str = DEFAULT_SERVER,
        api_key: str | None = None,
        *,
        timeout_s: float = 30.0,
        stream_read_timeout_s: float = 60.0,
        max_retries: int = 8,
        backoff_s: float = 0.5,
        max_backoff_s: float = 8.0,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        self.server = _check_url(server)
        self.max_retries = max_retries
        self.backoff_s = backoff_s
        self.max_backoff_s = max_backoff_s
        # reads of a live stream wait for heartbeats (every 10 s by default), not replies
        self.stream_timeout = httpx.Timeout(timeout_s, read=stream_read_timeout_s)
        headers = {"Accept": "application/json"}
        if api_key:
            if not (api_key.isascii() and api_key.isprintable()) or " " in api_key:
                raise ConfigError(
                    "the API key contains characters no key has",
                    hint="check --api-key or DEEPRESEARCH_API_KEY (keys look like dr_...)",
                )
            headers["Authorization"] = f"Bearer {api_key}"
        self.http = httpx.Client(
            base_url=self.server,
            headers=headers,
            timeout=timeout_s,
            transport=transport,
            follow_redirects=False,
        )

    def __repr__(self) -> str:
        return f"ServiceClient({self.server!r})"

    def __enter__(self) -> ServiceClient:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def close(self) -> None:
        self.http.close()

    # endpoints ------------------------------------------------------------------------
    def health(self) -> dict[str, Any]:
        """``GET /healthz``."""
        return self._json("GET", "/healthz")

    def ready(self) -> dict[str, Any]:
        """``GET /readyz`` (a 503 raises ``ServiceFailure``)."""
        return self._json("GET", "/readyz")

    def submit(
        self,
        question: str,
        *,
        recipe: str = "research",
        options: dict[str, Any] | None = None,
        idempotency_key: str | None = None,
    ) -> SubmitView:
        """``POST /v1/research``: a new job, the job this Idempotency-Key made before
        (``replayed``), or the caller's active run (``attached``)."""
        headers = {"Idempotency-Key": idempotency_key} if idempotency_key else None
        body = {"question": question, "recipe": recipe, "options": options or {}}
        data = self._json("POST", "/v1/research", json=body, headers=headers)
        return self._model(SubmitView, data)

    def list_jobs(self, *, limit: int = 20, before: datetime | None = None) -> JobPage:
        """``GET /v1/research``: the caller's jobs, newest first."""
        params: dict[str, Any] = {"limit": limit}
        if before is not None:
            params["before"] = before.isoformat()
        return self._model(JobPage, self._json("GET", "/v1/research", params=params))

    def get(self, job_id: str) -> JobView:
        """``GET /v1/research/{id}``."""
        return self._model(JobView, self._json("GET", self.job_path(job_id), job_id=job_id))

    def cancel(self, job_id: str) -> JobView:
        """``POST /v1/research/{id}/cancel``: a queued job is cancelled at once, a running
        one within seconds (watch for ``run_cancelled``)."""
        data = self._json("POST", f"{self.job_path(job_id)}/cancel", job_id=job_id)
        return self._model(JobView, data)

    def answer(self, job_id: str, body: dict[str, Any]) -> JobView:
        """``POST /v1/research/{id}/input``: answer what a waiting job asks (``{"answer":
        ...}`` or ``{"action": ...}``, as ``InputReply``); the job goes on, or ends when
        the action is ``cancel``."""
        data = self._json("POST", f"{self.job_path(job_id)}/input", json=body, job_id=job_id)
        return self._model(JobView, data)

    def report(self, job_id: str, fmt: TextFormat = "md") -> str:
        """``GET /v1/research/{id}/report?format=``: the report as the service renders it."""
        response = self._send(
            "GET", f"{self.job_path(job_id)}/report", params={"format": fmt}, job_id=job_id
        )
        return response.text

    def report_model(self, job_id: str) -> Report:
        """The report as a ``Report``, to render locally like ``deepresearch report``."""
        return self.document(job_id, Report)

    def document(self, job_id: str, model: type[_M]) -> _M:
        """A finished job's document as ``model`` (its recipe's ``result_model``)."""
        text = self.report(job_id, "json")
        try:
            return model.model_validate_json(text)
        except ValidationError as exc:
            raise ServiceFailure(
                f"the report of job {job_id} is not one this client can read",
                hint="the client and the service may be different versions of deepresearch",
                kind="unreadable-answer",
            ) from exc

    def sources(self, job_id: str) -> SourcesView:
        """``GET /v1/research/{id}/sources``: every candidate source with its scores."""
        data = self._json("GET", f"{self.job_path(job_id)}/sources", job_id=job_id)
        return self._model(SourcesView, data)

    def queue(self) -> QueueView:
        """``GET /v1/queue``: jobs per state."""
        return self._model(QueueView, self._json("GET", "/v1/queue"))

    def events(self, job_id: str, *, last_event_id: int = 0) -> EventStream:
        """``GET /v1/research/{id}/events``: iterate for the job's events after
        ``last_event_id`` (0: all of them), reconnecting by itself."""
        return EventStream(self, job_id, last_event_id)

    # plumbing -------------------------------------------------------------------------
    def _model(self, model: type[_M], data: dict[str, Any]) -> _M:
        try:
            return model.model_validate(data)
        except ValidationError as exc:
            raise ServiceFailure(
                f"{self.server} answered with a {model.__name__} this client cannot read",
                hint="the client and the service may be different versions of deepresearch",
                kind="unreadable-answer",
            ) from exc

    @staticmethod
    def job_path(job_id: str) -> str:
        return f"/v1/research/{quote(job_id, safe='')}"

    def _json(self, method: str, path: str, **kwargs: Any) -> dict[str, Any]:
        response = self._send(method, path, **kwargs)
        try:
            data = response.json()
        except ValueError:
            data = None
        if not isinstance(data, dict):
            raise self._foreign(response)
        return data

    def _send(
        self, method: str, path: str, *, job_id: str | None = None, **kwargs: Any
    ) -> httpx.Response:
        try:
            response = self.http.request(method, path, **kwargs)
        except httpx.ConnectError as exc:
            raise self.unreachable() from exc
        except httpx.TimeoutException as exc:
            raise ServiceFailure(
                f"the service at {self.server} did not answer in time",
                hint="it may be overloaded; try again",
            ) from exc
        except httpx.TransportError as exc:
            raise ServiceFailure(
                f"the connection to {self.server} failed ({type(exc).__name__})",
                hint="try again",
            ) from exc
        if response.status_code >= 400:
            raise self.problem(response, job_id)
        return response

    def unreachable(self) -> ServiceUnreachable:
        return ServiceUnreachable(
            f"no service at {self.server}",
            hint="start it with 'deepresearch serve', or point --server "
            "(DEEPRESEARCH_SERVER) at the one you use",
        )

    def _foreign(self, response: httpx.Response) -> ServiceFailure:
        return ServiceFailure(
            f"{self.server} answered {response.status_code} with something that is not the "
            "deepresearch API",
            hint="is --server the URL of 'deepresearch serve'?",
            status=response.status_code,
        )

    def problem(self, response: httpx.Response, job_id: str | None = None) -> ServiceError:
        """The error for an error response: RFC 9457 problem details become our errors
        with the problem's ``detail`` and a hint on what to do."""
        status = response.status_code
        try:
            body = response.json()
        except ValueError:
            body = None
        if not isinstance(body, dict) or not isinstance(body.get("detail"), str):
            if status >= 500:
                return ServiceFailure(
                    f"the service failed ({status})", hint="its log says why", status=status
                )
            return self._foreign(response)
        detail: str = body["detail"]
        kind = str(body.get("type") or "").removeprefix("/problems/")
        kind = "" if kind == "about:blank" else kind
        given = body.get("hint")  # the service's own hint, when it has one
        hint = given if isinstance(given, str) and given else _hint(status, kind, job_id)
        if status in (401, 403):
            return ServiceAuthError(detail, hint=hint, status=status, kind=kind)
        if status == 404:
            return JobNotFound(detail, hint=hint, status=status, kind=kind)
        if status in (409, 410, 429) or status >= 500:
            return ServiceFailure(
                detail,
                hint=hint,
                status=status,
                kind=kind,
                retry_after_s=_retry_after(response),
            )
        return ServiceRequestError(detail, hint=hint, status=status, kind=kind)


def _hint(status: int, kind: str, job_id: str | None) -> str:
    job = job_id or "JOB_ID"
    if status in (401, 403):
        return (
            "pass --api-key or set DEEPRESEARCH_API_KEY; the service's operator makes keys "
            "with 'deepresearch keys create NAME'"
        )
    hints = {
        "not-found": "'deepresearch jobs list' shows your jobs",
        "not-ready": f"wait for it with 'deepresearch jobs watch {job}'",
        "expired": "results are kept for a limited time; submit the question again",
        "idempotency-mismatch": "use a new --idempotency-key for a different request",
        "idempotency-in-flight": "retry in a moment",
        "rate-limited": "wait, then submit again",
        "invalid-request": "check the question and the options",
    }
    if kind in hints:
        return hints[kind]
    if status == 404:
        return "is --server the URL of 'deepresearch serve'?"
    if status >= 500:
        return "the service's log says why"
    return ""


def _retry_after(response: httpx.Response) -> float | None:
    return parse_retry_after(response.headers.get("retry-after"))


def _check_url(server: str) -> str:
    url = server.strip().rstrip("/")
    try:
        parsed = httpx.URL(url)
    except httpx.InvalidURL:
        parsed = None
    if parsed is None or parsed.scheme not in ("http", "https") or not parsed.host:
        raise ConfigError(
            f"{server!r} is not a server URL",
            hint="give one like http://127.0.0.1:8000 (--server or DEEPRESEARCH_SERVER)",
        )
    return url
