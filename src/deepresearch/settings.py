"""One typed Settings, built at the edge (CLI ``main``, ``research()``) and passed down.

Precedence: explicit arguments (flags) > TOML file > environment variables > the ``.env``
file > defaults. Validated once, at start. Per-run limits come from the ``depth`` preset,
each overridable on its own.

This flat model is what users configure; the engine reads it through the frozen typed
groups ``deepresearch.settings_groups`` derives from it (run limits resolved from the
preset once, models, search, fetch policy, storage, service...).

Each setting is read from ``DEEPRESEARCH_<NAME>``; a few are also read under the name the
rest of the ecosystem uses (``ECOSYSTEM_ENV``: ``TAVILY_API_KEY``, ``SEARXNG_URL``...),
the ``DEEPRESEARCH_`` name winning when both are set. A variable in the real environment
wins over the ``.env`` file whatever its name. The ``.env`` file is found from the working
folder upward (``deepresearch.envfile``).
"""

from __future__ import annotations

import contextlib
import difflib
import json
import os
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import AliasChoices, Field, SecretStr, ValidationError, field_validator
from pydantic_settings import (
    BaseSettings,
    DotEnvSettingsSource,
    EnvSettingsSource,
    NoDecode,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
    TomlConfigSettingsSource,
)

from deepresearch.envfile import find_env_file, load_env_file, loaded_from_file
from deepresearch.errors import ConfigError
from deepresearch.search.registry import URL_PROVIDERS, is_http_url, parse_search
from deepresearch.settings_values import (
    LIMIT_BOUNDS,
    Depth,
    Role,
    env_names,
)


def _config_file() -> Path | None:
    explicit = os.environ.get("DEEPRESEARCH_CONFIG")
    if explicit:
        path = Path(explicit)
        if not path.is_file():
            raise ConfigError(
                f"configuration file {path} does not exist (from DEEPRESEARCH_CONFIG)",
                hint="point DEEPRESEARCH_CONFIG or --config at a deepresearch.toml file",
            )
        return path
    local = Path("deepresearch.toml")
    return local if local.is_file() else None


def _env(field: str) -> AliasChoices:
    return AliasChoices(*env_names(field))


def _limit(field: str) -> Any:
    """A limit the ``depth`` preset fills when it is unset, bounded by ``LIMIT_BOUNDS``."""
    bounds = LIMIT_BOUNDS[field]
    return Field(
        default=None,
        ge=bounds.low,
        le=bounds.high,
        description=f"{bounds.description} (default: the depth preset's)",
    )


class _RealEnvSource(EnvSettingsSource):
    """The process environment less what a ``.env`` file put there: the file is a source
    of its own, below this one, so a real variable wins over the file whatever its name
    (``TAVILY_API_KEY`` exported in the shell beats ``DEEPRESEARCH_TAVILY_API_KEY`` in
    ``.env``)."""

    def _load_env_vars(self) -> Mapping[str, str | None]:
        from_file = {
            name if self.case_sensitive else name.lower()
            for name in os.environ
            if loaded_from_file(name)
        }
        return {k: v for k, v in super()._load_env_vars().items() if k not in from_file}


class _CheckedTomlSource(TomlConfigSettingsSource):
    """The TOML file, refused when it cannot be used: not TOML (the error names the file,
    line and column), or a key that is not a setting (named, with the closest setting), so
    a typo such as ``dept = "deep"`` is never silently ignored."""

    def _read_file(self, file_path: Any) -> dict[str, Any]:
        hint = "see docs/configuration.md for the settings and their names"
        try:
            data = super()._read_file(file_path)
        except tomllib.TOMLDecodeError as exc:
            raise ConfigError(f"{file_path} is not valid TOML: {exc}", hint=hint) from None
        except (OSError, UnicodeDecodeError) as exc:
            raise ConfigError(f"cannot read {file_path}: {exc}", hint=hint) from None
        known = list(Settings.model_fields)
        unknown = [key for key in data if key not in Settings.model_fields]
        if unknown:
            problems = []
            for key in unknown:
                close = difflib.get_close_matches(key, known, n=1)
                problems.append(f"{key!r}" + (f" (did you mean {close[0]!r}?)" if close else ""))
            raise ConfigError(
                f"{file_path}: unknown setting {', '.join(problems)}",
                hint="settings are top-level keys named as in docs/configuration.md",
            )
        return data


class Settings(BaseSettings):
    """Everything a run can be configured with. See docs/configuration.md."""

    model_config = SettingsConfigDict(
        env_prefix="DEEPRESEARCH_",
        env_file_encoding="utf-8",
        extra="ignore",
        frozen=True,
        # a setting is given by its name (flags, TOML) or by any of its env_names()
        validate_by_name=True,
        validate_by_alias=True,
    )

    # models
    model: str = Field(default="openai:gpt-4.1-mini", description="provider:model, or 'none'")
    planner_model: str | None = None
    researcher_model: str | None = None
    summarizer_model: str | None = None
    writer_model: str | None = None
    judge_model: str | None = None
    model_base_url: str | None = Field(default=None, description="OpenAI-compatible server URL")
    model_api_key: SecretStr | None = None
    model_timeout_s: float = Field(default=60.0, gt=0)
    model_max_retries: int = Field(default=3, ge=0, le=10)
    model_temperature: float = Field(default=0.0, ge=0.0, le=2.0)
    # a role's own temperature; unset: the recipe's for that role, else model_temperature
    planner_temperature: float | None = Field(default=None, ge=0.0, le=2.0)
    researcher_temperature: float | None = Field(default=None, ge=0.0, le=2.0)
    summarizer_temperature: float | None = Field(default=None, ge=0.0, le=2.0)
    writer_temperature: float | None = Field(default=None, ge=0.0, le=2.0)
    judge_temperature: float | None = Field(default=None, ge=0.0, le=2.0)
    model_concurrency: int | None = Field(
        default=None,
        ge=1,
        le=64,
        description="model calls in flight per endpoint (default: 1 for --model-base-url "
        "servers and Ollama, 8 for hosted APIs)",
    )
    model_wait_timeout_s: float = Field(
        default=900.0, gt=0, description="how long a call may wait for a free slot"
    )
    on_model_unavailable: Literal["fail", "extractive"] = Field(
        default="fail",
        description="a model server unreachable at start: stop (fail) or run without it",
    )

    # search
    search: str = Field(
        default="duckduckgo",
        description="a provider, or several comma-separated (a list in TOML): local,searxng",
    )
    searxng_url: str | None = Field(default=None, validation_alias=_env("searxng_url"))
    tavily_api_key: SecretStr | None = Field(default=None, validation_alias=_env("tavily_api_key"))
    exa_api_key: SecretStr | None = Field(default=None, validation_alias=_env("exa_api_key"))
    brave_api_key: SecretStr | None = Field(default=None, validation_alias=_env("brave_api_key"))
    google_api_key: SecretStr | None = Field(default=None, validation_alias=_env("google_api_key"))
    google_cse_id: str | None = Field(default=None, validation_alias=_env("google_cse_id"))
    serper_api_key: SecretStr | None = Field(default=None, validation_alias=_env("serper_api_key"))
    semantic_scholar_api_key: SecretStr | None = Field(
        default=None, validation_alias=_env("semantic_scholar_api_key")
    )
    ncbi_api_key: SecretStr | None = Field(default=None, validation_alias=_env("ncbi_api_key"))
    ncbi_email: str | None = Field(default=None, description="contact address NCBI asks for")
    # the provider-native web searches (openai_web, anthropic_web): the model that searches
    openai_api_key: SecretStr | None = Field(default=None, validation_alias=_env("openai_api_key"))
    anthropic_api_key: SecretStr | None = Field(
        default=None, validation_alias=_env("anthropic_api_key")
    )
    openai_web_model: str = Field(default="gpt-4.1-mini", description="openai_web's model")
    anthropic_web_model: str = Field(
        default="claude-sonnet-4-5", description="anthropic_web's model"
    )
    arxiv_interval_s: float = Field(
        default=3.0, ge=0.0, le=60.0, description="gap between arXiv requests (arXiv asks 3 s)"
    )
    search_urls: dict[str, str] = Field(
        default_factory=dict, description="provider -> API address, replacing its default"
    )
    search_rrf_k: float = Field(
        default=60.0, gt=0, description="reciprocal rank fusion constant for several providers"
    )
    corpus_dir: Path | None = None
    search_timeout_s: float = Field(default=8.0, gt=0)
    search_max_retries: int = Field(
        default=4,
        ge=0,
        le=10,
        description="retries of a search call that timed out, was reset or answered 429/5xx "
        "(seed 001: 4, with backoff from 0.5 s to 4 s)",
    )

    # fetching
    allow_hosts: list[str] = Field(default_factory=list)
    fetch_timeout_s: float = Field(default=10.0, gt=0)
    fetch_concurrency: int = Field(default=5, ge=1, le=64)
    fetch_per_host: int = Field(default=2, ge=1, le=16, description="requests in flight per host")
    fetch_min_interval_s: float = Field(
        default=0.25, ge=0.0, le=30.0, description="minimum gap between request starts to one host"
    )
    respect_robots: bool = Field(default=True, description="obey each site's robots.txt (RFC 9309)")
    record_runs: bool = Field(
        default=True,
        description="keep each run's model replies, search results and pages in "
        "data_dir/recordings/<run id>, so `deepresearch replay` reproduces it offline",
    )
    page_cache_ttl_s: float = Field(
        default=86_400, ge=0, description="how long a fetched page is reused (0: no page cache)"
    )
    library_fresh_days: float = Field(
        default=7.0,
        ge=0,
        description="a page the library read less than this many days ago is reused "
        "without fetching it again; an older one is fetched again (0: always refetch)",
    )
    max_page_bytes: int = Field(default=5_000_000, ge=1_000)
    max_text_chars: int = Field(default=8_000, ge=500)
    extract_workers: int = Field(
        default_factory=lambda: min(os.cpu_count() or 1, 4),
        ge=0,
        le=32,
        description="processes that extract fetched pages (0: a thread of the run)",
    )
    user_agent: str = "deepresearch/0.1 (+https://github.com/deepresearch/deepresearch)"
    debug_log: Path | None = Field(
        default=None,
        description="append the fetcher's DEBUG log (resolved addresses, error details) here",
    )
    pdf_fonts: list[Path] = Field(
        default_factory=list,
        description="TrueType fonts for PDF reports: the main one first, then fallbacks for "
        "scripts it lacks (CJK...); system fonts such as DejaVu Sans are used after these",
    )

    # the run
    depth: Depth = "standard"
    no_clarify: bool = False
    review_plan: bool = Field(
        default=False, description="pause after planning so a person approves or edits the plan"
    )
    presearch: bool = Field(
        default=True,
        description="before planning, one quick search on the question's names gives the "
        "planner recent entities and events (when a model plans and a source is searched)",
    )
    review_findings: bool = Field(
        default=False,
        description="pause before writing so a person reviews the verified findings "
        "(drop some, or name a gap researched in one more wave)",
    )
    review_report: bool = Field(
        default=False,
        description="pause after writing so a person approves the report, edits its "
        "sentences (audited again) or gives feedback for one rewrite",
    )
    use_library: bool = Field(
        default=True,
        description="look in your library first: verified quotes of earlier runs are "
        "reused (--no-library turns it off for a run)",
    )
    audit: Literal["strict", "mark", "off"] = "strict"
    images: bool = Field(
        default=True,
        description="show captioned figures from the cited sources in the report "
        "(off: text and tables only)",
    )
    domain_rules_file: Path | None = Field(
        default=None, description="a TOML file of your own trusted, blocked and tiered domains"
    )
    max_sub_questions: int | None = Field(default=None, ge=1, le=8)
    max_waves: int | None = Field(default=None, ge=1, le=10)
    max_units_total: int | None = Field(default=None, ge=1, le=100)
    max_concurrent_units: int | None = Field(default=None, ge=1, le=16)
    unit_timeout_s: float | None = Field(
        default=None,
        gt=0,
        description="seconds one research unit may run; past it the unit is marked timed "
        "out and the run goes on without it (none: no limit)",
    )
    sources_per_question: int | None = Field(default=None, ge=1, le=20)
    min_sources_read: int | None = Field(default=None, ge=0, le=200)
    # seed 004's limits, each its own setting (the depth preset fills the unset ones)
    queries_per_question: int | None = _limit("queries_per_question")
    results_per_query: int | None = _limit("results_per_query")
    evidence_per_question: int | None = _limit("evidence_per_question")
    writer_max_notes: int | None = _limit("writer_max_notes")
    writer_word_budget: int | None = _limit("writer_word_budget")
    sources_per_claim: int | None = _limit("sources_per_claim")
    min_evidence: int = Field(default=5, ge=0)
    min_cited_evidence: int = Field(default=5, ge=0)
    min_domains: int = Field(default=3, ge=0)
    min_evidence_per_question: int = Field(default=1, ge=0)
    min_passing_sources: int = Field(
        default=1, ge=0, description="sources above the threshold a sub-question needs"
    )
    apply_threshold: Literal["auto", "always", "never"] = Field(
        default="auto",
        description="filter sources by seed 001's adaptive threshold: with a model (auto), always, never",
    )
    max_refinements: int = Field(
        default=3,
        ge=0,
        le=6,
        description="retries of a weak sub-question (broaden, narrow, synonyms)",
    )
    summarizer_concurrency: int = Field(default=16, ge=1, le=64)
    # the council (seed 002): several research briefs, scored by the judge
    council: bool | None = Field(
        default=None,
        description="several planners propose briefs, the judge scores them; "
        "unset: on at depth deep or when council_models is given",
    )
    council_models: Annotated[list[str], NoDecode] = Field(
        default_factory=list,
        description="provider:model of each council member, comma-separated "
        "(default: the planner in several personas)",
    )
    council_min_consensus: float = Field(
        default=0.7,
        ge=0.0,
        le=1.0,
        description="at or above: the best brief, and the members' votes approve the plan; "
        "below: the top two merged, and the planner revises",
    )
    council_max_revisions: int = Field(
        default=3,
        ge=0,
        le=10,
        description="revisions of the plan when the members' votes fall below the consensus",
    )
    evaluate: bool = Field(
        default=False, description="evaluate the report when the run ends (deepresearch eval)"
    )
    # hard budgets (issue 19; core/budget.py has the rule)
    max_tokens: int | None = Field(default=None, ge=1, description="model tokens, in and out")
    max_cost: float | None = Field(default=None, gt=0, description="US dollars of model calls")
    max_time: float | None = Field(default=None, gt=0, description="seconds of wall time")
    budget_output_reserve: int = Field(
        default=1_000, ge=1, description="output tokens a call is assumed to take, at most"
    )
    prices: dict[str, dict[str, float]] = Field(
        default_factory=dict,
        description="provider:model -> {input, output} US dollars per million tokens, "
        "over the package's price table",
    )

    # storage
    data_dir: Path = Field(default_factory=lambda: Path.home() / ".deepresearch")
    database_url: str | None = Field(
        default=None,
        description="SQLAlchemy URL for the service's jobs and the run checkpoints "
        "(postgresql+psycopg://...); default: SQLite files in data_dir",
    )

    # retention (deepresearch gc, and the service's periodic pass)
    compact_checkpoints: bool = Field(
        default=True,
        description="keep only the last checkpoint of a finished run: all its report, "
        "follow-ups, replay and evaluation read",
    )
    retain_jobs_days: float = Field(
        default=30,
        ge=0,
        description="the service forgets a finished job (its row, events and results) "
        "this long after it ended (0: never)",
    )
    gc_every_s: float = Field(
        default=3_600,
        ge=0,
        description="how often the service compacts checkpoints and applies retention "
        "(0: only when `deepresearch gc` runs)",
    )

    # the service (deepresearch serve)
    serve_host: str = "127.0.0.1"
    serve_port: int = Field(default=8000, ge=0, le=65535)
    max_concurrent_jobs: int = Field(default=3, ge=1, le=64, description="runs at once")
    run_workers: bool = Field(
        default=True,
        description="serve runs jobs itself; false: an API only, 'deepresearch worker' "
        "processes sharing its database run them",
    )
    worker_nice: int = Field(
        default=10,
        ge=0,
        le=19,
        description="the CPU niceness a 'deepresearch worker' process adds to its own: "
        "where workers share cores with the API, requests go first; 0 leaves it",
    )
    job_ttl_s: float = Field(default=86_400, gt=0, description="results expire after this")
    job_lease_s: float = Field(
        default=30.0, ge=1.0, description="a running job unclaimed this long is taken over"
    )
    input_timeout_s: float = Field(
        default=86_400,
        gt=0,
        description="a job waiting for a person's answer (a clarification, a plan review) "
        "this long expires",
    )
    submissions_per_window: int = Field(default=10, ge=1, description="per key")
    submission_window_s: float = Field(default=900.0, gt=0)
    active_runs_per_key: int = Field(
        default=1, ge=1, description="more submissions attach to the active run"
    )
    sse_heartbeat_s: float = Field(default=10.0, gt=0)
    # watches (issue 25, docs/watches.md)
    max_watches_per_key: int = Field(default=20, ge=0, description="watches one key may keep")
    watch_min_interval_s: float = Field(
        default=900.0,
        ge=60.0,
        description="the shortest time a watch's schedule may leave between two runs",
    )
    watch_tick_s: float = Field(
        default=30.0,
        ge=0,
        description="how often the service looks for due watches (0: never, in this process)",
    )
    watch_webhook_attempts: int = Field(
        default=8,
        ge=1,
        le=50,
        description="POSTs of one change report to its webhook before it is marked failed",
    )
    watch_webhook_backoff_s: float = Field(
        default=10.0,
        gt=0,
        le=3600,
        description="the wait before a webhook's second attempt, doubling each time after",
    )
    max_request_bytes: int = Field(
        default=65_536,
        ge=1_024,
        le=16_777_216,
        description="largest request body the service reads (job submissions); larger: 413",
    )

    @field_validator("search", mode="before")
    @classmethod
    def _known_search(cls, value: Any) -> Any:
        """One name, "a,b", or a list (TOML, the API): the canonical "a,b"."""
        if isinstance(value, str) and value.strip().startswith("["):
            with contextlib.suppress(ValueError):  # a JSON list in an environment variable
                value = json.loads(value)
        if isinstance(value, str | list | tuple):
            return ",".join(parse_search(value))
        return value

    @field_validator("search_urls")
    @classmethod
    def _known_urls(cls, value: dict[str, str]) -> dict[str, str]:
        for name, url in value.items():
            if name not in URL_PROVIDERS:
                raise ValueError(
                    f"search_urls: {name!r} has no API address to change; "
                    f"choose from: {', '.join(URL_PROVIDERS)}"
                    + (" (SearXNG's is searxng_url)" if name == "searxng" else "")
                )
            if not is_http_url(url):
                raise ValueError(f"search_urls.{name} must be an http(s) URL, not {url!r}")
        return {name: url.strip() for name, url in value.items()}

    @field_validator("council_models", mode="before")
    @classmethod
    def _split_council(cls, value: Any) -> Any:
        if isinstance(value, str):
            value = value.split(",")
        if isinstance(value, list | tuple):
            specs = [str(part).strip() for part in value if str(part).strip()]
            for spec in specs:
                if ":" not in spec:
                    raise ValueError(f"{spec!r} is not of the form provider:model")
            return specs
        return value

    @field_validator("prices")
    @classmethod
    def _known_prices(cls, value: dict[str, dict[str, float]]) -> dict[str, dict[str, float]]:
        from deepresearch.core.budget import parse_prices

        parse_prices(value)  # a ValueError names the entry
        return value

    @field_validator("allow_hosts", mode="before")
    @classmethod
    def _split_hosts(cls, value: Any) -> Any:
        if isinstance(value, str):
            return [part.strip() for part in value.split(",") if part.strip()]
        return value

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        sources: list[PydanticBaseSettingsSource] = [init_settings]
        path = _config_file()
        if path is not None:
            sources.append(_CheckedTomlSource(settings_cls, toml_file=path))
        sources.append(_RealEnvSource(settings_cls))
        env_file = find_env_file()
        if env_file is not None:
            sources.append(DotEnvSettingsSource(settings_cls, env_file=env_file))
        return tuple(sources)

    # derived values (the run's limits resolved from ``depth``: ``settings_groups.RunLimits``)
    @property
    def council_on(self) -> bool:
        """Whether the council plans the run: as set, else at depth deep or when its
        members are named."""
        if self.council is not None:
            return self.council
        return self.depth == "deep" or bool(self.council_models)

    def with_role_temperatures(self, defaults: Mapping[Role, float]) -> Settings:
        """These settings with a recipe's per-role temperatures (seed 000: synthesis 0.3,
        judging 0.1) for every role whose temperature the user left alone: neither the
        role's own nor ``model_temperature`` was set (flag, TOML, environment)."""
        chosen = self.model_fields_set
        if "model_temperature" in chosen:
            return self
        update = {
            f"{role}_temperature": value
            for role, value in defaults.items()
            if f"{role}_temperature" not in chosen
        }
        return self.model_copy(update=update) if update else self

    def secrets(self) -> list[str]:
        """Every configured secret, for redaction."""
        out = []
        for value in (
            self.model_api_key,
            self.tavily_api_key,
            self.exa_api_key,
            self.brave_api_key,
            self.google_api_key,
            self.serper_api_key,
            self.semantic_scholar_api_key,
            self.ncbi_api_key,
            self.openai_api_key,
            self.anthropic_api_key,
        ):
            if value is not None and value.get_secret_value():
                out.append(value.get_secret_value())
        return out


def load_settings(**overrides: Any) -> Settings:
    """Build Settings from overrides (flags) > TOML > env > .env, or raise ConfigError
    (also for a TOML file that is not valid or names an unknown setting). The ``.env``
    file's variables are put into the environment too (never replacing one that is set),
    for the model SDKs that read their own (``OPENAI_API_KEY``, ``OLLAMA_HOST``...)."""
    load_env_file()
    clean = {key: value for key, value in overrides.items() if value is not None}
    try:
        return Settings(**clean)
    except ValidationError as exc:
        problems = []
        for error in exc.errors():
            where = ".".join(str(part) for part in error["loc"]) or "settings"
            msg = error["msg"].removeprefix("Value error, ")
            problems.append(f"{where}: {msg}")
        raise ConfigError(
            "invalid configuration: " + "; ".join(problems),
            hint="check your flags, deepresearch.toml and DEEPRESEARCH_* variables",
        ) from None
