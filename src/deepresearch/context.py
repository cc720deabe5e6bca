"""What a run needs that cannot live in checkpointed state: the ports, the gateway and
the event bus. Built by the runner and handed to every stage through LangGraph's Runtime."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import cached_property
from typing import TYPE_CHECKING

from langchain_core.language_models import BaseChatModel

from deepresearch.core.support import Embedder
from deepresearch.core.tiers import DomainRules, load_domain_rules, with_local_hosts
from deepresearch.events import EventBus
from deepresearch.fetch.base import Fetcher
from deepresearch.llm.gateway import Gateway
from deepresearch.search.base import SearchProvider
from deepresearch.settings import Settings

if TYPE_CHECKING:
    from deepresearch.stages.council import PlanDraft


@dataclass(frozen=True)
class PlannedAhead:
    """The planner's draft, asked for by intake at the same time as its own call (both
    read only the question), with the prompt it answered: the plan stage uses it when
    its own prompt is the same, else asks again (a clarified question, a resumed run)."""

    prompt: tuple[str, str]
    draft: PlanDraft | None


@dataclass
class RunContext:
    settings: Settings
    gateway: Gateway
    search: SearchProvider
    fetcher: Fetcher
    bus: EventBus
    embedder_factory: Callable[[], Embedder | None] | None = None
    #: ``--council-models``: each member's spec and model (``llm.council``)
    council_models: dict[str, BaseChatModel | None] = field(default_factory=dict)
    #: the time a stage stamps a report with or ranks by (a replay's is the recorded run's)
    clock: Callable[[], datetime] = field(default=lambda: datetime.now(UTC))
    #: pages asked of the fetcher, this run (restored on resume: ``ledger.restore``)
    fetches: int = 0
    #: search providers that failed while others answered, "provider: problem" (the
    #: report's limitations name them; restored on resume)
    search_errors: list[str] = field(default_factory=list)
    #: the plan drafted during intake (never checkpointed: a resumed run plans again)
    planned_ahead: PlannedAhead | None = None
    fetch_semaphore: asyncio.Semaphore = field(init=False)
    domain_rules: DomainRules = field(init=False)
    summarizer_semaphore: asyncio.Semaphore = field(init=False)

    def __post_init__(self) -> None:
        self.fetch_semaphore = asyncio.Semaphore(self.settings.fetch_concurrency)
        self.summarizer_semaphore = asyncio.Semaphore(self.settings.summarizer_concurrency)
        rules = load_domain_rules(self.settings.domain_rules_file)
        self.domain_rules = with_local_hosts(rules, self.settings.allow_hosts)

    @cached_property
    def embedder(self) -> Embedder | None:
        """The embedding model for the deterministic audit, loaded on first use."""
        return self.embedder_factory() if self.embedder_factory is not None else None
