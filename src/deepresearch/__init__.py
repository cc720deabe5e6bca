"""deepresearch: a deep research engine whose every cited claim traces to a verified quote.

Ownership map (dependencies point down only):

- ``models``   plain pydantic data shared by every layer. No I/O.
- ``core``     pure, deterministic functions: planning rules, preprocessing, ranking,
               passages, quote verification, the quality gate, query reformulation,
               report rendering. No network, no model.
- ``llm``      the one model gateway: role -> chat model, structured output with repair,
               retries, timeouts, usage accounting. Nothing else talks to a model.
- ``search``   search providers behind ``SearchProvider.search(query, limit=)``.
- ``fetch``    the fetcher (HTTP with guards) and extractors (HTML, PDF).
- ``stages``   one module per pipeline stage: thin nodes around ``core`` and the ports.
- ``graph``    wires the stages into the one LangGraph run path; holds no logic.
- ``recipes``  the research flows, peers on one runner: ``research`` (the graph above) and
               ``employer`` (seed 000), behind one protocol and one registry.
- ``runner``   starts and resumes any recipe's runs, owns checkpoints and the event stream.
- ``cli``      the command-line front end. It renders events; it holds no research logic.
- ``testing``  the offline world: loopback web + SearXNG endpoint, scripted chat model.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from deepresearch.api import (
        ask,
        ask_async,
        evaluate,
        evaluate_async,
        reply,
        reply_async,
        research,
        research_async,
        research_employer,
        research_employer_async,
        research_events,
        run_recipe,
        run_recipe_async,
        thread,
        thread_async,
    )

__all__ = [
    "ask",
    "ask_async",
    "evaluate",
    "evaluate_async",
    "reply",
    "reply_async",
    "research",
    "research_async",
    "research_employer",
    "research_employer_async",
    "research_events",
    "run_recipe",
    "run_recipe_async",
    "thread",
    "thread_async",
]


def __getattr__(name: str) -> Any:
    """The entry points load on first use: ``import deepresearch`` (and the CLI's
    ``--help``) must not pay for LangChain, LangGraph and the recipes (issue 19).
    ``tests/test_startup.py`` guards it."""
    if name == "__version__":  # its owner is deepresearch.version
        from deepresearch.version import __version__

        return __version__
    if name in __all__:
        from deepresearch import api

        value = getattr(api, name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'deepresearch' has no attribute {name!r}")
