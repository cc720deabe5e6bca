"""A watch's change reports as a live stream (server-sent events, issue 25): every
report written so far (after ``Last-Event-ID`` or ``?after=``), then each new one as the
scheduler of any process writes it, a ``heartbeat`` while nothing happens. An event's id
is the report's number in the watch's history (1 the first), its type
``watch_report``, its data the run, its due time and the report's one-line summary
(the report itself: ``GET /v1/watches/{id}/report``). The stream ends when the watch is
removed or the client leaves."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator

from fastapi import Request
from fastapi.sse import format_sse_event
from starlette.concurrency import run_in_threadpool

from deepresearch.service.sse import RETRY_MS
from deepresearch.service.state import ServiceState
from deepresearch.service.store import WatchRun

#: how often the database is asked for new reports (they may be written by any process)
POLL_S = 1.0


def _reported(runs: list[WatchRun]) -> list[WatchRun]:
    """The watch's written reports, oldest first."""
    return [run for run in reversed(runs) if run.status == "reported"]


async def watch_events(
    state: ServiceState, request: Request, watch_id: str, after: int, *, poll_s: float = POLL_S
) -> AsyncIterator[bytes]:
    yield format_sse_event(comment="deepresearch watch", retry=RETRY_MS)
    loop = asyncio.get_running_loop()
    last_sent = loop.time()
    sent = after
    while True:
        if await run_in_threadpool(state.store.get_watch, watch_id) is None:
            return
        runs = _reported(await run_in_threadpool(state.store.watch_runs, watch_id, 1000))
        for number, run in enumerate(runs[sent:], start=sent + 1):
            data = {
                "watch_id": watch_id,
                "run_id": run.job_id,
                "due_at": run.due_at.isoformat(),
                "summary": run.summary,
                "unchanged": bool(run.report and run.report.unchanged),
            }
            yield format_sse_event(data_str=json.dumps(data), event="watch_report", id=str(number))
            sent, last_sent = number, loop.time()
        if await request.is_disconnected():
            return
        if loop.time() - last_sent >= state.service.sse_heartbeat_s:
            last_sent = loop.time()
            yield format_sse_event(data_str=json.dumps({"watch_id": watch_id}), event="heartbeat")
        await asyncio.sleep(poll_s)
