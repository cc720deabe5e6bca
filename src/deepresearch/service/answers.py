"""Answering a job that waits for a person, the one way: ``POST
/v1/research/{id}/input`` and the MCP server's ``reply`` tool both come through
``answer_job``, so both check the answer alike (its shape, then ``core.review`` for what
was asked), obey the same answer rate limit and idempotency (the same answer again is
harmless, another one a conflict), and refuse with the same problems. ``owned_job`` is
how every route and tool finds a caller's job: another key's job is a 404, exactly like
one that does not exist."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from starlette.concurrency import run_in_threadpool

from deepresearch.core.ids import run_id_problem
from deepresearch.core.review import check_reply
from deepresearch.errors import InvalidInput, InvalidReply
from deepresearch.service.auth import Caller
from deepresearch.service.jobs import WRONG_REPLY, Job
from deepresearch.service.problems import ApiProblem
from deepresearch.service.schemas import InputReply
from deepresearch.service.state import ServiceState
from deepresearch.service.store import SubmissionRateLimited
from deepresearch.service.submission import rate_limited


async def owned_job(state: ServiceState, who: Caller, job_id: str) -> Job:
    """``who``'s job ``job_id``: a 422 for what is not a job id (checked before the store
    is asked), a 404 for a job that is not there or is another key's."""
    problem = run_id_problem(job_id)
    if problem is not None:
        raise ApiProblem(422, problem, kind="invalid-job-id")
    job = await run_in_threadpool(state.store.get, job_id, who.owner)
    if job is None:
        raise ApiProblem(404, f"no job {job_id!r}", kind="not-found")
    return job


@dataclass(frozen=True)
class Answer:
    """What an answer did: ``accepted`` (the job is queued again and goes on with it),
    ``repeated`` (that answer was already given: nothing changes), or ``cancelled`` (a
    plan review's cancel: the job ends)."""

    outcome: Literal["accepted", "repeated", "cancelled"]
    job: Job


async def answer_job(state: ServiceState, who: Caller, job_id: str, body: InputReply) -> Answer:
    """Give ``body`` to ``who``'s job ``job_id``; raises ``ApiProblem`` when it is refused
    (not found, not waiting, a bad answer, another answer already given, rate limited)."""
    job = await owned_job(state, who, job_id)
    if body.action == "cancel":
        if job.status != "AWAITING_INPUT":
            raise ApiProblem(409, f"the job is {job.status}; it asks nothing", kind="not-waiting")
        updated = await run_in_threadpool(state.store.request_cancel, job_id, who.owner)
        state.notifier.publish(job_id)
        assert updated is not None
        return Answer("cancelled", updated)
    asked = await run_in_threadpool(state.store.pending_input, job_id)
    if asked is None:
        asked = await run_in_threadpool(state.store.last_request, job_id)
    if asked is None:
        raise ApiProblem(409, f"the job is {job.status}; it asks nothing", kind="not-waiting")
    request_id = asked.id
    try:
        reply = check_reply(asked, body.reply())
    except InvalidReply as exc:  # the wrong kind of answer: the hint (the API's JSON) apart,
        # so a front end can say it in its own words (the CLI its flags)
        raise ApiProblem(422, exc.message, kind=WRONG_REPLY, hint=exc.hint) from None
    except InvalidInput as exc:
        raise ApiProblem(
            422, f"{exc.message} ({exc.hint})" if exc.hint else exc.message, kind="invalid-input"
        ) from None
    try:
        answered = await run_in_threadpool(
            lambda: state.store.answer(job_id, who.owner, request_id, reply, state.limits)
        )
    except SubmissionRateLimited as exc:
        raise rate_limited(state, exc, "answers") from None
    if answered.outcome == "conflict" or answered.job is None:
        raise ApiProblem(409, answered.reason, kind="input-conflict")
    if answered.outcome == "repeated":
        return Answer("repeated", answered.job)
    state.workers.wake()
    state.notifier.publish(job_id)
    return Answer("accepted", answered.job)
