"""What a run needs that cannot live in checkpointed state: the ports, the gateway, the
event bus and the settings groups. Built by the runner and handed to every stage through
LangGraph's Runtime.

Stages read the typed groups (``ctx.limits``, ``ctx.policy``, ``ctx.fetch_policy``,
``ctx.models``, ``ctx.storage``: ``deepresearch.settings_groups``), taken from the
``SettingsGroups`` the composition root derived once from ``Settings``; no stage reads a
setting by its name (``tests/test_settings_groups.py``)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import cached_property
from typing import Protocol

from langchain_core.language_models import BaseChatModel

from deepresearch.core.support import Embedder
from deepresearch.core.tiers import DomainRules, with_local_hosts
from deepresearch.domain_rules import load_domain_rules
from deepresearch.events import EventBus
from deepresearch.fetch.base import Fetcher, ImageFetcher
from deepresearch.librarydb.shelf import Shelf
from deepresearch.llm.gateway import Gateway
from deepresearch.models.plan import PlanDraft
from deepresearch.models.thread import ParentTurn, Turn
from deepresearch.search.base import SearchProvider
from deepresearch.settings_groups import (
    FetchPolicy,
    ModelSettings,
    RunLimits,
    RunPolicy,
    SettingsGroups,
    StorageSettings,
)


class ThreadStore(Protocol):
    """Where a follow-up reads the run it follows and lists itself as a turn of its thread
    (``threads.StoredThreads``; a recording keeps what was read, a replay serves it)."""

    async def parent(self, run_id: str) -> ParentTurn: ...

    async def record_turn(self, root: str, turn: Turn) -> None: ...


def utc_now() -> datetime:
    """The time now, in UTC: a run's clock unless its tape replays the recorded one."""
    return datetime.now(UTC)


def not_kept(what: str) -> None:
    """A part of the run was cut at a time limit, and no recording is made."""


@dataclass(frozen=True)
class PlannedAhead:
    """The planner's draft, asked for by intake at the same time as its own call (both
    read only the question), with the prompt it answered: the plan stage uses it when
    its own prompt is the same, else asks again (a clarified question, a resumed run)."""

    prompt: tuple[str, str]
    draft: PlanDraft | None
    #: the pre-search's lines the prompt holds (None: no pre-search was made)
    presearch: list[str] | None = None


@dataclass
class RunLedger:
    """What changes while a run runs, beside the gateway's usage: held by the (immutable)
    context by reference, written into every node's state update and restored from a
    checkpoint on resume (``deepresearch.ledger``)."""

    #: pages asked of the fetcher, this run (restored on resume: ``ledger.restore``)
    fetches: int = 0
    #: search providers that failed while others answered, "provider: problem" (the
    #: report's limitations name them; restored on resume)
    search_errors: list[str] = field(default_factory=list)
    #: the plan drafted during intake (never checkpointed: a resumed run plans again)
    planned_ahead: PlannedAhead | None = None


@dataclass(frozen=True)
class RunContext:
    """The run's dependencies: its ports, the event bus and its settings' groups, fixed
    when the run starts; what changes during the run is its ``ledger``."""

    #: the run's settings, in their groups (``SettingsGroups.of(settings)``)
    groups: SettingsGroups
    gateway: Gateway
    search: SearchProvider
    fetcher: Fetcher
    bus: EventBus
    embedder_factory: Callable[[], Embedder | None] | None = None
    #: where a report's figures are fetched (None: no figures; ``fetch.base.ImageFetcher``)
    images: ImageFetcher | None = None
    #: ``--council-models``: each member's spec and model (``llm.council``)
    council_models: dict[str, BaseChatModel | None] = field(default_factory=dict)
    #: the time a stage stamps a report with or ranks by (a replay's is the recorded run's)
    clock: Callable[[], datetime] = utc_now
    #: a follow-up's thread (None: the checkpoint store's, ``threads.StoredThreads``)
    threads: ThreadStore | None = None
    #: the owner's library, which a new run looks in first (None: not used, ``--no-library``)
    library: Shelf | None = None
    #: every configured secret, for redacting an error before it is shown
    secrets: tuple[str, ...] = ()
    #: the run's changing counts (fetches, failed search providers, the plan drafted
    #: ahead), one object shared by reference
    ledger: RunLedger = field(default_factory=RunLedger)
    #: told when a part of the run is cut at a time limit (a research unit past
    #: ``unit_timeout_s``): where it was cut depends on the machine's speed, so the run's
    #: recording notes it (``RunTape.cut``) and a replay refuses instead of differing
    cut: Callable[[str], None] = not_kept
    #: how far the run goes, every limit resolved from ``depth`` once
    limits: RunLimits = field(init=False)
    #: which stages run and how strict they are (clarify, plan review, audit, council...)
    policy: RunPolicy = field(init=False)
    #: what is fetched and how much of a page is kept
    fetch_policy: FetchPolicy = field(init=False)
    #: the models' settings (timeouts a stage caps its own by)
    models: ModelSettings = field(init=False)
    #: where checkpoints live (a follow-up reads the run it follows there)
    storage: StorageSettings = field(init=False)
    fetch_semaphore: asyncio.Semaphore = field(init=False)
    domain_rules: DomainRules = field(init=False)
    summarizer_semaphore: asyncio.Semaphore = field(init=False)

    def __post_init__(self) -> None:
        groups = self.groups
        rules = load_domain_rules(groups.fetch.domain_rules_file)
        derived = {
            "limits": groups.limits,
            "policy": groups.policy,
            "fetch_policy": groups.fetch,
            "models": groups.models,
            "storage": groups.storage,
            "fetch_semaphore": asyncio.Semaphore(groups.fetch.fetch_concurrency),
            "summarizer_semaphore": asyncio.Semaphore(groups.limits.summarizer_concurrency),
            "domain_rules": with_local_hosts(rules, groups.fetch.allow_hosts),
        }
        for name, value in derived.items():  # frozen: set once, here
            object.__setattr__(self, name, value)

    @cached_property
    def embedder(self) -> Embedder | None:
        """The embedding model for the deterministic audit, loaded on first use."""
        return self.embedder_factory() if self.embedder_factory is not None else None
