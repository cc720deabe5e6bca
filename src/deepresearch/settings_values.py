"""The value sets and presets that settings take, owned here so that the engine can name a
role or a depth without importing ``Settings`` (only the composition root reads that):
the model roles, the depths and their presets, and the environment variables each setting
is read from."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Depth = Literal["quick", "standard", "deep"]
Role = Literal["planner", "researcher", "summarizer", "writer", "judge"]
ROLES: tuple[Role, ...] = ("planner", "researcher", "summarizer", "writer", "judge")


@dataclass(frozen=True)
class DepthPreset:
    max_sub_questions: int
    queries_per_question: int
    results_per_query: int
    sources_per_question: int
    max_waves: int
    max_units_total: int
    max_concurrent_units: int
    evidence_per_question: int
    #: sources a run reads before it stops widening (reflect follows leads until then)
    min_sources_read: int = 0
    #: the notes (verified quotes) the writer is given at most, and their words at most
    writer_max_notes: int = 60
    writer_word_budget: int = 6_000
    #: the sources the claim ledger keeps for one claim (seed 004: MAX_SOURCE_URLS_PER_CLAIM)
    sources_per_claim: int = 10


DEPTHS: dict[str, DepthPreset] = {
    "quick": DepthPreset(3, 3, 5, 3, 2, 6, 3, 4),
    "standard": DepthPreset(
        5, 3, 8, 5, 3, 12, 4, 6, writer_word_budget=8_000, sources_per_claim=15
    ),
    "deep": DepthPreset(
        8,
        4,
        10,
        8,
        5,
        30,
        6,
        8,
        min_sources_read=20,
        writer_word_budget=12_000,
        sources_per_claim=20,
    ),
}


@dataclass(frozen=True)
class Bounds:
    """The values a per-run limit may take, owned here so that the settings and the API's
    job options share them (``Settings`` and ``service.schemas.RunOptions`` both read it)."""

    low: int
    high: int
    description: str


#: the bounds of the limits the ``depth`` preset fills (seed 004 makes each a setting);
#: unset, a limit takes the preset's value
LIMIT_BOUNDS: dict[str, Bounds] = {
    "queries_per_question": Bounds(1, 8, "search queries per sub-question"),
    "results_per_query": Bounds(1, 50, "search results asked for per query"),
    "evidence_per_question": Bounds(
        1, 50, "verified quotes one research unit (a sub-question) keeps"
    ),
    "writer_max_notes": Bounds(1, 200, "verified quotes the writer is given at most"),
    "writer_word_budget": Bounds(
        100, 100_000, "words of claims and quotes the writer is given at most"
    ),
    "sources_per_claim": Bounds(1, 50, "sources the claim ledger keeps for one claim"),
}


#: the names other tools use for a setting, read beside ``DEEPRESEARCH_<NAME>`` (which wins
#: when both are set); .env.example and docs/configuration.md list them
ECOSYSTEM_ENV: dict[str, tuple[str, ...]] = {
    "searxng_url": ("SEARXNG_URL", "SEARX_HOST"),
    "tavily_api_key": ("TAVILY_API_KEY",),
    "exa_api_key": ("EXA_API_KEY",),
    "brave_api_key": ("BRAVE_API_KEY", "BRAVE_SEARCH_API_KEY"),
    "google_api_key": ("GOOGLE_API_KEY",),
    "google_cse_id": ("GOOGLE_CSE_ID",),
    "serper_api_key": ("SERPER_API_KEY",),
    "semantic_scholar_api_key": ("S2_API_KEY", "SEMANTIC_SCHOLAR_API_KEY"),
    "ncbi_api_key": ("NCBI_API_KEY",),
    "openai_api_key": ("OPENAI_API_KEY",),
    "anthropic_api_key": ("ANTHROPIC_API_KEY",),
}


def env_names(field: str) -> tuple[str, ...]:
    """Every environment variable that sets ``field``, the one that wins first."""
    return (f"DEEPRESEARCH_{field.upper()}", *ECOSYSTEM_ENV.get(field, ()))
