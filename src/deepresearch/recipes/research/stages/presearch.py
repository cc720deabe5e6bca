"""The pre-search before planning (seed 002's brief context): one quick search on the
question's names, whose top results (titles and snippets, screened for injection) the
planner reads as data, so its plan knows recent entities and events. The rules are
``core.presearch``; this asks the search provider once and emits the ``presearch`` event.

Only when it can matter: the ``presearch`` setting is on, a model plans (the plan made
without one reads no context), and a source is searched (``--search none`` searches
nothing). A question that names nothing is not searched (the event says so). A search
that fails gives the planner no context and the run goes on: the pre-search is a hint,
never a reason to stop."""

from __future__ import annotations

import asyncio
import logging

from deepresearch.context import RunContext
from deepresearch.core.presearch import SEARCH_LIMIT, brief_context, presearch_query
from deepresearch.errors import ProviderError
from deepresearch.models.event_payloads import PresearchDone

log = logging.getLogger(__name__)

STAGE = "plan"
NOTHING_NAMED = "the question names nothing to search for"


def wanted(ctx: RunContext) -> bool:
    """Whether this run makes a pre-search at all."""
    return ctx.policy.presearch and ctx.search.name != "none" and ctx.gateway.has_model("planner")


async def presearch(ctx: RunContext, question: str) -> list[str] | None:
    """The pre-search's lines for the planner (empty: nothing named, nothing found or a
    failed search), or None when the run makes no pre-search."""
    if not wanted(ctx):
        return None
    query = presearch_query(question)
    if query is None:
        ctx.bus.emit(
            PresearchDone(query="", skipped=NOTHING_NAMED),
            stage=STAGE,
            message=f"Pre-search skipped: {NOTHING_NAMED}",
        )
        return []
    limit_s = ctx.limits.unit_timeout_s
    try:
        # no longer than a research unit may take: a stalled provider must not hold the
        # run before it has even planned
        async with asyncio.timeout(limit_s):
            hits = await ctx.search.search(query, limit=SEARCH_LIMIT)
    except Exception as exc:  # a hint, not a reason to stop (as a research unit's failure)
        log.info("pre-search failed: %r", exc)
        if isinstance(exc, ProviderError):
            failed = f"the search failed: {exc}"
        elif isinstance(exc, TimeoutError):
            failed = f"the search took longer than {limit_s:g} s"
        else:
            failed = f"the search failed unexpectedly ({type(exc).__name__})"
        ctx.bus.emit(
            PresearchDone(query=query, skipped=failed),
            stage=STAGE,
            message=f"Pre-search skipped: {failed}",
        )
        return []
    lines, dropped = brief_context(hits)
    ctx.bus.emit(
        PresearchDone(query=query, results=lines, dropped=dropped),
        stage=STAGE,
        message=f"Pre-search: {len(lines)} result(s) for {query}",
    )
    return lines
