"""The settings a part of the engine needs, as frozen typed groups derived from ``Settings``.

``Settings`` (``deepresearch.settings``) stays the one flat loader users configure: flags,
the TOML file, ``DEEPRESEARCH_*`` variables and ``load_settings(**kwargs)`` keep their
names. The engine does not pass that whole object around: ``SettingsGroups.of(settings)``
splits it once, at the start of a run, into the groups here, and each part reads the group
it needs (a stage reads ``ctx.limits.max_waves``, never a setting by its name as a string).

Every setting belongs to exactly one group, under its own name
(``tests/test_settings_groups.py`` checks it, so a new setting must be given a group).
Derived values are resolved here, once: ``RunLimits`` fills each limit the user left unset
from the ``depth`` preset, ``RunPolicy.council`` decides whether the council plans and
``SearchSettings.providers`` is the parsed provider list.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Literal, Protocol, Self

from pydantic import BaseModel, ConfigDict, SecretStr

from deepresearch.search.registry import parse_search
from deepresearch.settings_values import DEPTHS, Depth, Role

if TYPE_CHECKING:
    from deepresearch.settings import Settings


class _Group(BaseModel):
    """A frozen group of settings: each field is the setting of the same name, unless the
    group resolves it (``_resolved``)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    #: fields computed by the group, not copied from a setting of the same name
    derived: ClassVar[tuple[str, ...]] = ()

    @classmethod
    def of(cls, settings: Settings) -> Self:
        """This group of ``settings``: its fields copied, the derived ones resolved."""
        values: dict[str, Any] = {
            name: getattr(settings, name) for name in cls.model_fields if name not in cls.derived
        }
        values.update(cls._resolved(settings))
        return cls.model_validate(values)

    @classmethod
    def _resolved(cls, settings: Settings) -> dict[str, Any]:
        return {}


class ModelSettings(_Group):
    """Which model answers each role and how calls to it are made (``llm/``)."""

    model: str
    planner_model: str | None
    researcher_model: str | None
    summarizer_model: str | None
    writer_model: str | None
    judge_model: str | None
    model_base_url: str | None
    model_api_key: SecretStr | None
    model_timeout_s: float
    model_max_retries: int
    model_temperature: float
    planner_temperature: float | None
    researcher_temperature: float | None
    summarizer_temperature: float | None
    writer_temperature: float | None
    judge_temperature: float | None
    model_concurrency: int | None
    model_wait_timeout_s: float
    on_model_unavailable: Literal["fail", "extractive"]
    council_models: tuple[str, ...]

    def model_for(self, role: Role) -> str:
        """The role's own model, else ``model``."""
        specific: str | None = getattr(self, f"{role}_model")
        return specific or self.model

    def temperature_for(self, role: Role) -> float:
        """The role's own temperature, else ``model_temperature``."""
        specific: float | None = getattr(self, f"{role}_temperature")
        return self.model_temperature if specific is None else specific


class SearchSettings(_Group):
    """The search providers and what each needs (``search/``)."""

    derived = ("providers",)

    search: str
    #: ``search`` parsed: the providers' names, in order (``search.registry`` has them all)
    providers: tuple[str, ...]
    searxng_url: str | None
    tavily_api_key: SecretStr | None
    exa_api_key: SecretStr | None
    brave_api_key: SecretStr | None
    google_api_key: SecretStr | None
    google_cse_id: str | None
    serper_api_key: SecretStr | None
    semantic_scholar_api_key: SecretStr | None
    ncbi_api_key: SecretStr | None
    ncbi_email: str | None
    openai_api_key: SecretStr | None
    anthropic_api_key: SecretStr | None
    openai_web_model: str
    anthropic_web_model: str
    arxiv_interval_s: float
    search_urls: Mapping[str, str]
    search_rrf_k: float
    corpus_dir: Path | None
    search_timeout_s: float
    search_max_retries: int

    @classmethod
    def _resolved(cls, settings: Settings) -> dict[str, Any]:
        return {"providers": parse_search(settings.search)}


class FetchPolicy(_Group):
    """What may be fetched, how politely and how much of it is kept (``fetch/``, the
    reading of pages, the domain rules)."""

    allow_hosts: tuple[str, ...]
    fetch_timeout_s: float
    fetch_concurrency: int
    fetch_per_host: int
    fetch_min_interval_s: float
    respect_robots: bool
    page_cache_ttl_s: float
    #: the library's freshness window: a page read within it is reused, not fetched
    library_fresh_days: float
    max_page_bytes: int
    max_text_chars: int
    extract_workers: int
    user_agent: str
    debug_log: Path | None
    domain_rules_file: Path | None


class RunLimits(_Group):
    """How far a run goes: every limit resolved from the ``depth`` preset once, an explicit
    setting winning over the preset's value, and the quality gate's minimums."""

    derived = (
        "max_sub_questions",
        "queries_per_question",
        "results_per_query",
        "sources_per_question",
        "max_waves",
        "max_units_total",
        "max_concurrent_units",
        "evidence_per_question",
        "min_sources_read",
        "writer_max_notes",
        "writer_word_budget",
        "sources_per_claim",
    )

    depth: Depth
    max_sub_questions: int
    queries_per_question: int
    results_per_query: int
    sources_per_question: int
    max_waves: int
    max_units_total: int
    max_concurrent_units: int
    #: seconds one research unit may run before it is cut and marked timed out (None: no limit)
    unit_timeout_s: float | None
    evidence_per_question: int
    #: sources a run reads before it stops widening (reflect follows leads until then)
    min_sources_read: int
    #: the writer's notes at most, and their words at most (claims and quotes)
    writer_max_notes: int
    writer_word_budget: int
    #: the sources the claim ledger keeps for one claim
    sources_per_claim: int
    min_evidence: int
    min_cited_evidence: int
    min_domains: int
    min_evidence_per_question: int
    min_passing_sources: int
    max_refinements: int
    summarizer_concurrency: int

    @classmethod
    def _resolved(cls, settings: Settings) -> dict[str, Any]:
        preset = DEPTHS[settings.depth]
        out: dict[str, Any] = {}
        for name in cls.derived:
            explicit = getattr(settings, name)
            out[name] = explicit if explicit is not None else getattr(preset, name)
        return out


class RunPolicy(_Group):
    """The choices that change which stages run and how strict they are."""

    derived = ("council",)

    no_clarify: bool
    review_plan: bool
    presearch: bool
    review_findings: bool
    review_report: bool
    #: reuse what the owner's library verified (``stages/library.py``)
    use_library: bool
    audit: Literal["strict", "mark", "off"]
    apply_threshold: Literal["auto", "always", "never"]
    #: whether the council plans the run (``Settings.council_on``: as set, else at depth
    #: deep or when council members are named)
    council: bool
    council_min_consensus: float
    council_max_revisions: int
    evaluate: bool
    #: whether the report shows figures from the cited sources (issue 26)
    images: bool

    @classmethod
    def _resolved(cls, settings: Settings) -> dict[str, Any]:
        return {"council": settings.council_on}


class BudgetSettings(_Group):
    """The run's hard budgets and the price table they are counted with (``llm/budget``)."""

    max_tokens: int | None
    max_cost: float | None
    max_time: float | None
    budget_output_reserve: int
    prices: Mapping[str, Mapping[str, float]]


class StorageSettings(_Group):
    """Where runs, checkpoints, caches and recordings are kept."""

    data_dir: Path
    database_url: str | None
    record_runs: bool


class ExportSettings(_Group):
    """How reports are exported (``export/``)."""

    pdf_fonts: tuple[Path, ...]


class RetentionSettings(_Group):
    """What ``deepresearch gc`` and the service's periodic pass keep (``compose/gc.py``)."""

    compact_checkpoints: bool
    retain_jobs_days: float
    gc_every_s: float


class ServiceSettings(_Group):
    """The HTTP service and its workers (``deepresearch serve``, ``deepresearch worker``)."""

    serve_host: str
    serve_port: int
    max_concurrent_jobs: int
    run_workers: bool
    worker_nice: int
    job_ttl_s: float
    job_lease_s: float
    input_timeout_s: float
    submissions_per_window: int
    submission_window_s: float
    active_runs_per_key: int
    sse_heartbeat_s: float
    max_request_bytes: int
    max_watches_per_key: int
    watch_min_interval_s: float
    watch_tick_s: float
    watch_webhook_attempts: int
    watch_webhook_backoff_s: float


class Storage(Protocol):
    """Where checkpoints live: ``Settings`` and ``StorageSettings`` both answer it."""

    @property
    def data_dir(self) -> Path: ...

    @property
    def database_url(self) -> str | None: ...


#: every group, in the order ``SettingsGroups`` holds them
GROUPS: tuple[type[_Group], ...] = (
    ModelSettings,
    SearchSettings,
    FetchPolicy,
    RunLimits,
    RunPolicy,
    BudgetSettings,
    StorageSettings,
    ExportSettings,
    ServiceSettings,
    RetentionSettings,
)


@dataclass(frozen=True)
class SettingsGroups:
    """Every group of one ``Settings``, derived once."""

    models: ModelSettings
    search: SearchSettings
    fetch: FetchPolicy
    limits: RunLimits
    policy: RunPolicy
    budget: BudgetSettings
    storage: StorageSettings
    export: ExportSettings
    service: ServiceSettings
    retention: RetentionSettings

    @classmethod
    def of(cls, settings: Settings) -> SettingsGroups:
        return cls(
            models=ModelSettings.of(settings),
            search=SearchSettings.of(settings),
            fetch=FetchPolicy.of(settings),
            limits=RunLimits.of(settings),
            policy=RunPolicy.of(settings),
            budget=BudgetSettings.of(settings),
            storage=StorageSettings.of(settings),
            export=ExportSettings.of(settings),
            service=ServiceSettings.of(settings),
            retention=RetentionSettings.of(settings),
        )
