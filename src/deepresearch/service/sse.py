"""A job's live event stream (server-sent events) and where it starts.

Where a stream starts comes from ``Last-Event-ID`` or ``?after=``, read by one strict
rule: ASCII digits naming an event the stream has (0 to its last id); anything else is
400, never a database error and never a silently cut stream.

The stream is a plain ``StreamingResponse`` over our own generator rather than FastAPI's
generator endpoints: those feed the response through a keep-alive task that raises
``BrokenResourceError`` (logged as an ``ExceptionGroup`` traceback) whenever a client
disconnects while events are still being sent. Here a disconnect just ends the stream.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncGenerator, AsyncIterator, Callable

from fastapi import Request
from fastapi.sse import format_sse_event
from starlette.concurrency import run_in_threadpool
from starlette.requests import ClientDisconnect
from starlette.responses import StreamingResponse
from starlette.types import Receive, Scope, Send

from deepresearch.service.jobs import TERMINAL, TERMINAL_EVENTS, Job
from deepresearch.service.problems import ApiProblem
from deepresearch.service.state import ServiceState
from deepresearch.service.store import StoredEvent

#: ``job_events.seq`` is a 32-bit integer on PostgreSQL
MAX_EVENT_ID = 2**31 - 1
RETRY_MS = 2000


def parse_event_id(value: str | None, name: str) -> int | None:
    """The event id in a ``Last-Event-ID`` header or ``after`` parameter; None if absent."""
    text = (value or "").strip(" \t")
    if not text:
        return None
    if not (text.isascii() and text.isdigit()) or len(text) > 20:
        raise ApiProblem(
            400,
            f"{name} must be the id of an event of this stream: a whole number from 0 "
            f"to {MAX_EVENT_ID}",
            kind="bad-event-id",
        )
    event_id = int(text)
    if event_id > MAX_EVENT_ID:
        raise ApiProblem(
            400, f"{name} {text} is out of range (at most {MAX_EVENT_ID})", kind="bad-event-id"
        )
    return event_id


def check_in_stream(event_id: int, name: str, last: int) -> None:
    """A client can only have seen events that are stored: a later id is not of this stream."""
    if event_id > last:
        raise ApiProblem(
            400,
            f"{name} {event_id} is not an event of this stream (its last event is {last}); "
            "reconnect with the last id you received, or without one to replay it all",
            kind="bad-event-id",
        )


class EventStream(StreamingResponse):
    """``text/event-stream`` that ends quietly when the client goes away."""

    media_type = "text/event-stream"

    def __init__(self, content: AsyncIterator[bytes], status_code: int = 200) -> None:
        # no-cache: never replayed from a cache; X-Accel-Buffering: proxies pass it at once
        headers = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}
        super().__init__(content, status_code=status_code, headers=headers)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        # servers speaking ASGI 2.4 report a gone client as an error on send
        with contextlib.suppress(ClientDisconnect, OSError):
            await super().__call__(scope, receive, send)


async def follow_job(
    state: ServiceState, job_id: str, start: int = 0, *, quiet_s: Callable[[], float]
) -> AsyncGenerator[StoredEvent | Job, None]:
    """Every stored event of a job after ``start``, then each new one as it is stored,
    until its terminal event (or the job ends without one: expired, or stopped before it
    wrote one). While nothing happens it yields the job as it is then (a quiet moment, for
    a heartbeat or to stop following) and waits up to ``quiet_s()`` seconds for news.
    The SSE stream and the MCP server's research tool both follow a job through this."""
    last = start
    while True:
        version = state.notifier.version(job_id)  # before the read: no wake-up is missed
        # the events after the last one, or when there are none the job: one trip
        stored, current = await run_in_threadpool(state.store.news, job_id, last)
        for item in stored:
            last = item.seq
            yield item
            if item.event.type in TERMINAL_EVENTS:
                return
        if stored:
            continue
        if current is None or current.status in TERMINAL:
            # its terminal event may have been stored after the read above: one last look
            if await run_in_threadpool(state.store.events_after, job_id, last):
                continue
            return
        yield current
        await state.notifier.wait(job_id, version, quiet_s())


async def job_events(
    state: ServiceState, request: Request, job_id: str, start: int
) -> AsyncIterator[bytes]:
    """Every stored event after ``start``, then each new one as it is stored, heartbeats
    (no id) while nothing happens; ends after the terminal event."""
    yield format_sse_event(comment="deepresearch events", retry=RETRY_MS)
    clock = asyncio.get_running_loop().time
    heartbeat_s = state.service.sse_heartbeat_s
    last_sent = clock()

    def quiet_s() -> float:  # wake in time for the next heartbeat
        return max(0.05, min(state.notifier.poll_s(), heartbeat_s - (clock() - last_sent)))

    async with contextlib.aclosing(follow_job(state, job_id, start, quiet_s=quiet_s)) as items:
        async for item in items:
            if isinstance(item, StoredEvent):
                last_sent = clock()
                yield format_sse_event(
                    data_str=item.event.model_dump_json(), event=item.event.type, id=str(item.seq)
                )
            # after every event too: a replay writes event after event without waiting,
            # and the news that the client left (a failed write, a reset) only arrives
            # when the loop runs; checking lets it run and ends the stream at once,
            # rather than writing the rest of the replay to a closed socket
            if await request.is_disconnected():
                return
            if isinstance(item, Job) and clock() - last_sent >= heartbeat_s:
                last_sent = clock()
                beat = {"job_id": job_id, "status": item.status, "stage": item.stage}
                yield format_sse_event(data_str=json.dumps(beat), event="heartbeat")
