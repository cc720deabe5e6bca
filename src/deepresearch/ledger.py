"""The run's ledger: what every node of every recipe records in checkpointed state besides
its own work, so a resumed run reports the same numbers as one that never stopped.

- ``usage``: the model gateway's token and call counts (``Usage``);
- ``fetches``: the pages the run asked the fetcher for (``run_completed`` reports it);
- ``model_errors``: the gateway's user-facing messages about failed model calls (the
  report's limitations and the employer's warnings name them);
- ``search_errors``: the search providers that failed while others answered (the
  report's limitations name them).

The gateway and the run context's ``RunLedger`` keep the live counts while a process runs. ``recorded``
wraps each node: after the node returns, the counts go into its state update (one place,
instead of every node copying them). ``restore`` puts a checkpoint's counts back into a
new process's gateway and context, once, when the runner resumes a run."""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, Protocol, TypeVar, cast, get_type_hints

from langgraph.runtime import Runtime
from langgraph.types import Command
from langgraph.typing import ContextT

from deepresearch.context import RunContext
from deepresearch.models import Usage

S = TypeVar("S")
S_contra = TypeVar("S_contra", contravariant=True)
U = TypeVar("U")


class RecordedNode(Protocol[S_contra, ContextT]):
    """A node as LangGraph calls it (``runtime`` by keyword too)."""

    def __call__(self, state: S_contra, runtime: Runtime[ContextT]) -> Awaitable[Any]: ...


#: the state keys the ledger owns (every recipe's state declares them)
KEYS = ("usage", "fetches", "model_errors", "search_errors")


def entries(run: RunContext) -> dict[str, Any]:
    """The ledger as a state update: copies, so later calls do not change a checkpoint."""
    return {
        "usage": run.gateway.usage.model_copy(deep=True),
        "fetches": run.ledger.fetches,
        "model_errors": list(run.gateway.errors),
        "search_errors": list(run.ledger.search_errors),
    }


def restore(run: RunContext, values: Mapping[str, Any]) -> None:
    """Continue counting from a checkpoint's ledger (a resumed run, in a new process)."""
    usage = values.get("usage")
    if isinstance(usage, Usage):
        run.gateway.usage.merge(usage)
    run.ledger.fetches += int(values.get("fetches") or 0)
    known = run.gateway.errors
    known.extend(message for message in values.get("model_errors") or () if message not in known)
    failed = run.ledger.search_errors
    failed.extend(problem for problem in values.get("search_errors") or () if problem not in failed)


def recorded(
    node: Callable[[S, Runtime[ContextT]], Awaitable[U]],
    run_of: Callable[[ContextT], RunContext],
) -> RecordedNode[S, ContextT]:
    """``node`` with the ledger added to its state update (a dict, or a ``Command``'s
    update). ``run_of`` finds the run's context in the graph's context."""

    @functools.wraps(node)
    async def wrapper(state: S, runtime: Runtime[ContextT]) -> U:
        update = await node(state, runtime)
        return _with_ledger(update, entries(run_of(runtime.context)))

    # resolved annotations: LangGraph reads a routing node's destinations from its
    # ``Command[Literal[...]]`` return type, and would resolve strings in this module
    wrapper.__annotations__ = get_type_hints(node)
    return wrapper


def _with_ledger(update: U, ledger: dict[str, Any]) -> U:
    if isinstance(update, Command):
        own = update.update
        if own is not None and not isinstance(own, dict):
            raise TypeError(f"a node's Command update must be a dict, not {type(own).__name__}")
        return cast(U, dataclasses.replace(update, update={**(own or {}), **ledger}))
    if isinstance(update, dict):
        return cast(U, {**update, **ledger})
    raise TypeError(f"a node must return a dict or a Command, not {type(update).__name__}")
