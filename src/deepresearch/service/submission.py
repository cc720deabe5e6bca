"""Submitting a research job, the one way: ``POST /v1/research`` and the MCP server's
``research`` tool both call ``submit_job``, so both obey the same checks (the job must be
runnable with the server's keys, Idempotency-Key replays, the per-key active-run limit,
the submission rate limit) and refuse with the same problems."""

from __future__ import annotations

import math

from starlette.concurrency import run_in_threadpool

from deepresearch.service.auth import Caller
from deepresearch.service.jobs import Submission, request_hash
from deepresearch.service.problems import ApiProblem
from deepresearch.service.schemas import ResearchRequest
from deepresearch.service.state import ServiceState
from deepresearch.service.store import (
    IdempotencyInFlight,
    IdempotencyMismatch,
    SubmissionRateLimited,
)
from deepresearch.service.worker import job_settings


async def submit_job(
    state: ServiceState,
    who: Caller,
    body: ResearchRequest,
    idempotency_key: str | None = None,
) -> Submission:
    """Queue ``body`` for ``who`` (or return the job an idempotent retry or the active-run
    limit points at); raises ``ApiProblem`` when the job is refused."""
    options = body.options.settings_update()
    # a job the server could not run (no key for its model or search) is refused now
    await run_in_threadpool(
        state.preflight.check, job_settings(state.settings, body.recipe, options)
    )
    fingerprint = request_hash(body.question, body.recipe, options)
    try:
        result = await run_in_threadpool(
            lambda: state.store.submit(
                owner=who.owner,
                question=body.question,
                recipe=body.recipe,
                options=options,
                request_hash=fingerprint,
                idempotency_key=idempotency_key,
                max_active_runs=who.max_active_runs,
                limits=state.limits,
            )
        )
    except IdempotencyMismatch:
        raise ApiProblem(
            422,
            "this Idempotency-Key was used with a different request body",
            kind="idempotency-mismatch",
        ) from None
    except IdempotencyInFlight:
        raise ApiProblem(
            409,
            "a request with this Idempotency-Key is still being processed; retry shortly",
            headers={"Retry-After": "1"},
            kind="idempotency-in-flight",
        ) from None
    except SubmissionRateLimited as exc:
        wait = math.ceil(exc.retry_after_s)
        raise ApiProblem(
            429,
            f"at most {state.settings.submissions_per_window} submissions per "
            f"{state.settings.submission_window_s:g} s; retry in {wait} s",
            headers={"Retry-After": str(wait)},
            kind="rate-limited",
        ) from None
    if result.created:
        state.workers.wake()
    return result
