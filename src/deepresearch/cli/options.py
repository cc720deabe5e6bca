"""Options shared by the commands that run research (``run``, ``employer``, ``serve``):
one definition each, so their flags and help read the same everywhere."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from deepresearch.search.registry import PROVIDER_NAMES

#: the --search help, from the registry's list of providers
SEARCH_HELP = (
    f"A search provider, or several comma-separated (local,searxng): {', '.join(PROVIDER_NAMES)}."
)
Model = Annotated[str | None, typer.Option(help="provider:model for every role, or 'none'.")]
PlannerModel = Annotated[str | None, typer.Option(help="Model for planning and intake.")]
ResearcherModel = Annotated[str | None, typer.Option(help="Model for reflection and synthesis.")]
SummarizerModel = Annotated[str | None, typer.Option(help="Model for per-source summaries.")]
WriterModel = Annotated[str | None, typer.Option(help="Model that writes the report.")]
JudgeModel = Annotated[str | None, typer.Option(help="Model that judges sources and claims.")]
ModelBaseUrl = Annotated[
    str | None, typer.Option(help="OpenAI-compatible server (vLLM, llama.cpp, LM Studio).")
]
Search = Annotated[
    str | None,
    typer.Option(help=SEARCH_HELP),
]
SearxngUrl = Annotated[str | None, typer.Option(help="Base URL of a SearXNG instance.")]
Corpus = Annotated[
    Path | None,
    typer.Option(help="Folder of md, txt, html and pdf files (for --search local)."),
]
JsonEvents = Annotated[bool, typer.Option(help="Print NDJSON events on stdout.")]
AllowHost = Annotated[
    list[str] | None,
    typer.Option(
        help="Let the fetcher reach this loopback/private HOST[:PORT] (repeatable).",
        metavar="HOST[:PORT]",
    ),
]
Config = Annotated[Path | None, typer.Option(help="A deepresearch.toml configuration file.")]

# hard budgets (core/budget.py has the rule; docs/configuration.md the price table)
MaxTokens = Annotated[
    int | None,
    typer.Option(
        "--max-tokens", min=1, help="Stop starting model calls past this many tokens (in + out)."
    ),
]
MaxCost = Annotated[
    float | None,
    typer.Option(
        "--max-cost",
        help="Stop starting model calls past this many US dollars (the price table's rates).",
    ),
]
MaxTime = Annotated[
    float | None,
    typer.Option("--max-time", help="Stop starting new work after this many seconds of wall time."),
]


def model_and_search_overrides(
    *,
    model: str | None,
    planner_model: str | None = None,
    researcher_model: str | None = None,
    summarizer_model: str | None = None,
    writer_model: str | None = None,
    judge_model: str | None = None,
    model_base_url: str | None,
    search: str | None,
    searxng_url: str | None,
    corpus: Path | None,
    allow_host: list[str] | None,
) -> dict[str, Any]:
    """The Settings fields these shared options set (None: not given)."""
    return {
        "model": model,
        "planner_model": planner_model,
        "researcher_model": researcher_model,
        "summarizer_model": summarizer_model,
        "writer_model": writer_model,
        "judge_model": judge_model,
        "model_base_url": model_base_url,
        "search": search,
        "searxng_url": searxng_url,
        "corpus_dir": corpus,
        "allow_hosts": allow_host or None,
    }


ReviewPlan = Annotated[
    bool,
    typer.Option("--review-plan", help="Pause after planning: approve or edit the plan first."),
]
ReviewFindings = Annotated[
    bool,
    typer.Option(
        "--review-findings",
        help="Pause before writing: drop findings, or name a gap for one more wave.",
    ),
]
NoClarify = Annotated[bool, typer.Option(help="Never stop to ask a clarifying question.")]
