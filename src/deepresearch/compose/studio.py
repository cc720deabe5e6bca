"""The research graph for LangGraph Server and Studio (``langgraph dev``, ``langgraph.json``).

The server calls :func:`make_graph` with the run's config. The graph's nodes need a
:class:`~deepresearch.context.RunContext` (the ports: search, fetcher, model gateway, event
bus), which JSON cannot carry, so the factory builds it the way the runner does
(``compose.ports.open_context``) from Settings: the environment, ``.env`` and ``deepresearch.toml``
as everywhere, overridden by the Settings fields named in the config's ``configurable``
(``model``, ``search``, ``depth``, ``corpus_dir``...; API keys are refused there, they
belong in the environment). The graph it hands out is the research graph itself, bound to
that context: a run given no context of its own gets it, and an input that is just
``{"question": ...}`` is completed with the run id (the thread's, else a new one), the
recipe's name and the fence of untrusted text, as the runner's first state is. The run's
events go to LangGraph's ``custom`` stream and to the ``deepresearch.studio`` logger.

The server checkpoints with its own store. The ports open when a run streams and close
when it ends: the server also builds the graph to read a thread's state, with only the
thread in its config, and that needs no model, search or key. ``langgraph dev`` needs
``--allow-blocking``: the caches and the local index are SQLite, used synchronously."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Mapping
from contextlib import AsyncExitStack, asynccontextmanager
from typing import TYPE_CHECKING, Any, ClassVar

from langchain_core.runnables import RunnableConfig
from langgraph.graph.state import CompiledStateGraph
from pydantic import SecretStr

from deepresearch.compose.ports import open_context
from deepresearch.core.ids import check_run_id, new_run_id, run_id_problem
from deepresearch.errors import ConfigError
from deepresearch.events import EventBus
from deepresearch.models import RunEvent
from deepresearch.recipes.registry import DEFAULT_RECIPE, get_recipe
from deepresearch.settings import Settings, load_settings

if TYPE_CHECKING:
    from deepresearch.context import RunContext

log = logging.getLogger(__name__)

#: the default recipe's graph; its state type is the recipe's own (this module names none)
ResearchGraph = CompiledStateGraph[Any, "RunContext", Any, Any]


def _secret_fields() -> frozenset[str]:
    return frozenset(
        name
        for name, field in Settings.model_fields.items()
        if "SecretStr" in str(field.annotation) or field.annotation is SecretStr
    )


def settings_from_config(config: RunnableConfig | None) -> Settings:
    """Settings for a run: the usual sources, overridden by the Settings fields in the
    config's ``configurable`` (anything else there belongs to the server and is left)."""
    configurable: Mapping[str, Any] = (config or {}).get("configurable") or {}
    chosen = {key: value for key, value in configurable.items() if key in Settings.model_fields}
    secrets = sorted(set(chosen) & _secret_fields())
    if secrets:
        raise ConfigError(
            f"{', '.join(secrets)}: keys are not taken from the graph's configuration "
            "(it is stored and shown with the run)",
            hint="set them in the environment or the .env file that langgraph.json names",
        )
    return load_settings(**chosen)


def _thread_run_id(config: RunnableConfig | None) -> str:
    """The thread id when it can be a run id (LangGraph's are UUIDs), else a new one."""
    thread = str(((config or {}).get("configurable") or {}).get("thread_id") or "")
    return thread if thread and run_id_problem(thread) is None else new_run_id()


class _BoundGraph(ResearchGraph):
    """The research graph with the config its run's ports are built from (set per factory
    call on a subclass, so that the server's ``copy()`` of the graph keeps it). The ports
    open when a run streams, not when the server builds the graph: it also builds one to
    read a thread's state, with no run's configuration, and reading state needs no model,
    no search and no key."""

    run_config: ClassVar[RunnableConfig]

    async def astream(
        self,
        input: Any,
        config: RunnableConfig | None = None,
        *,
        context: Any = None,
        **kwargs: Any,
    ) -> AsyncIterator[Any]:
        async with _run_context(type(self).run_config) as bound:
            if isinstance(input, Mapping) and "question" in input and "run_id" not in input:
                input = _first_state(input, config, bound)
            # the server also passes the run's configurable values as its context (a
            # dict): the ports were built from them
            if not isinstance(context, type(bound)):
                context = bound
            async for chunk in super().astream(input, config, context=context, **kwargs):
                yield chunk


@asynccontextmanager
async def _run_context(config: RunnableConfig) -> AsyncIterator[RunContext]:
    """A run's context, its ports built from ``config`` as the runner builds them, closed
    when the run is done."""
    recipe = get_recipe(DEFAULT_RECIPE)
    # reading .env and deepresearch.toml is file I/O: off the server's event loop
    settings = await asyncio.to_thread(settings_from_config, config)
    settings = settings.with_role_temperatures(recipe.role_temperatures)
    await asyncio.to_thread(settings.data_dir.mkdir, parents=True, exist_ok=True)
    bus = EventBus(_thread_run_id(config), [_to_stream])
    async with AsyncExitStack() as stack:
        run = await open_context(stack, settings, bus, None, None, None, followups=recipe.followups)
        yield recipe.context(run, {})


def _first_state(
    given: Mapping[str, Any], config: RunnableConfig | None, run: RunContext
) -> dict[str, Any]:
    """A new run's state from ``{"question": ...}``: the recipe's first state (the question
    checked and normalised), with the fence the gateway uses."""
    recipe = get_recipe(DEFAULT_RECIPE)
    request = recipe.request(str(given["question"]), {})
    run_id = check_run_id(_thread_run_id(config))
    run.bus.run_id = run_id
    state = {**given, **recipe.initial_state(request, run_id)}
    state["boundary"] = run.gateway.boundary
    return state


def _to_stream(event: RunEvent) -> None:
    """A run event into LangGraph's ``custom`` stream (inside a node), and the log."""
    log.info("%s %s", event.type, event.message)
    try:
        from langgraph.config import get_stream_writer

        get_stream_writer()(event.model_dump(mode="json"))
    except RuntimeError:  # emitted outside a node (while the ports open)
        pass


@asynccontextmanager
async def make_graph(config: RunnableConfig) -> AsyncIterator[ResearchGraph]:
    """The research graph, whose runs get a context built from ``config`` (see the module
    docstring); ``langgraph.json`` names this factory."""
    graph = get_recipe(DEFAULT_RECIPE).build_graph(None)
    bound = type("ResearchGraph", (_BoundGraph,), {"run_config": config})
    attrs = {k: v for k, v in graph.__dict__.items() if k != "__orig_class__"}
    yield bound(**attrs)
