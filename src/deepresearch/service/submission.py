"""Submitting a research job, the one way: ``POST /v1/research``, a follow-up
(``POST /v1/research/{id}/followups``, ``submit_followup``) and the MCP server's
``research`` and ``follow_up`` tools all come through ``queue_job``, so all obey the same checks (the job must be runnable with the
server's keys, a follow-up must continue the caller's own finished research job,
Idempotency-Key replays, the per-key active-run limit, the submission rate limit) and
refuse with the same problems."""

from __future__ import annotations

import math
from typing import Any

from starlette.concurrency import run_in_threadpool

from deepresearch.errors import DeepResearchError
from deepresearch.recipes.registry import DEFAULT_RECIPE
from deepresearch.service.auth import Caller
from deepresearch.service.jobs import Job, Submission, request_hash
from deepresearch.service.problems import ApiProblem
from deepresearch.service.schemas import FollowupRequest, ResearchRequest
from deepresearch.service.state import ServiceState
from deepresearch.service.store import (
    IdempotencyInFlight,
    IdempotencyMismatch,
    SubmissionRateLimited,
)


async def submit_job(
    state: ServiceState,
    who: Caller,
    body: ResearchRequest,
    idempotency_key: str | None = None,
) -> Submission:
    """Queue ``body`` for ``who`` (or return the job an idempotent retry or the active-run
    limit points at); raises ``ApiProblem`` when the job is refused."""
    options = body.options.settings_update()
    return await queue_job(state, who, body.recipe, body.question, options, idempotency_key)


async def submit_followup(
    state: ServiceState,
    who: Caller,
    job_id: str,
    body: FollowupRequest,
    idempotency_key: str | None = None,
) -> Submission:
    """Queue ``body`` as the next turn of the thread of ``who``'s finished research job
    ``job_id``: a research job with the followed job's options unless given again;
    raises ``ApiProblem`` as ``followable`` and ``queue_job`` do."""
    parent = await followable(state, who, job_id)
    options = {
        **{k: v for k, v in parent.options.items() if k != "followup_of"},
        **body.options.settings_update(),
        "followup_of": parent.id,
    }
    return await queue_job(state, who, DEFAULT_RECIPE, body.question, options, idempotency_key)


async def followable(state: ServiceState, who: Caller, job_id: str) -> Job:
    """The caller's finished research job ``job_id``, which a follow-up may continue:
    another key's job is a 404 (as if it did not exist), another recipe's a 422, an
    unfinished one (or one that ended in a reply, or lost its checkpoint) a 409."""
    parent = await run_in_threadpool(state.store.get, job_id, who.owner)
    if parent is None:
        raise ApiProblem(404, f"no job {job_id!r}", kind="not-found")
    if parent.recipe != DEFAULT_RECIPE:
        raise ApiProblem(
            422,
            f"job {job_id!r} is a {parent.recipe!r} job; only research takes follow-ups",
            kind="cannot-follow-up",
        )
    if parent.status != "COMPLETED":
        raise ApiProblem(
            409,
            f"the job is {parent.status}; ask a follow-up once its report is written",
            kind="not-ready",
        )
    try:
        await state.jobs.check_parent(parent.id)
    except DeepResearchError as exc:  # a reply rather than a report, a lost checkpoint
        raise ApiProblem(409, exc.message, kind="cannot-follow-up") from None
    return parent


async def queue_job(
    state: ServiceState,
    who: Caller,
    recipe: str,
    question: str,
    options: dict[str, Any],
    idempotency_key: str | None = None,
) -> Submission:
    """A checked request queued as a job for ``who`` (or the job an idempotent retry or
    the active-run limit points at); raises ``ApiProblem`` when the job is refused."""
    if options.get("followup_of") is not None:  # only the caller's own finished research
        await followable(state, who, str(options["followup_of"]))
    # a job the server could not run (no key for its model or search) is refused now
    await run_in_threadpool(state.jobs.refuse, recipe, options)
    fingerprint = request_hash(question, recipe, options)
    try:
        result = await run_in_threadpool(
            lambda: state.store.submit(
                owner=who.owner,
                question=question,
                recipe=recipe,
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
        raise rate_limited(state, exc, "submissions") from None
    if result.created:
        state.workers.wake()
    return result


def rate_limited(state: ServiceState, exc: SubmissionRateLimited, what: str) -> ApiProblem:
    """The 429 for a key past its limit of ``what`` (submissions, answers) per window."""
    wait = math.ceil(exc.retry_after_s)
    return ApiProblem(
        429,
        f"at most {state.service.submissions_per_window} {what} per "
        f"{state.service.submission_window_s:g} s; retry in {wait} s",
        headers={"Retry-After": str(wait)},
        kind="rate-limited",
    )
