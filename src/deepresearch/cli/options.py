"""Options shared by the commands (``run``, ``ask``, ``employer``, ``mcp``, ``serve``,
``worker``, ``jobs``, ``report``, ``replay``): one definition each, so their flags and
help read the same everywhere. The model and search options travel as one ``Backends``
group: a command declares a ``backends: Backends`` parameter and ``with_backends``
puts the options in its place."""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

import typer

from deepresearch.cli.choices import Depth, Format
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


@dataclass(frozen=True)
class Backends:
    """The models and search a command's runs use (None: not given; the config file,
    the environment or the default decides)."""

    model: str | None = None
    planner_model: str | None = None
    researcher_model: str | None = None
    summarizer_model: str | None = None
    writer_model: str | None = None
    judge_model: str | None = None
    model_base_url: str | None = None
    search: str | None = None
    searxng_url: str | None = None
    corpus: Path | None = None

    def overrides(self, allow_host: list[str] | None) -> dict[str, Any]:
        """The Settings fields these options (and ``--allow-host``) set."""
        return {
            "model": self.model,
            "planner_model": self.planner_model,
            "researcher_model": self.researcher_model,
            "summarizer_model": self.summarizer_model,
            "writer_model": self.writer_model,
            "judge_model": self.judge_model,
            "model_base_url": self.model_base_url,
            "search": self.search,
            "searxng_url": self.searxng_url,
            "corpus_dir": self.corpus,
            "allow_hosts": allow_host or None,
        }


#: each backend option's declaration, in the order ``--help`` lists them
BACKEND_OPTIONS: dict[str, Any] = {
    "model": Model,
    "planner_model": PlannerModel,
    "researcher_model": ResearcherModel,
    "summarizer_model": SummarizerModel,
    "writer_model": WriterModel,
    "judge_model": JudgeModel,
    "model_base_url": ModelBaseUrl,
    "search": Search,
    "searxng_url": SearxngUrl,
    "corpus": Corpus,
}
#: the per-role models: only the commands that run research in this process take them
ROLE_MODELS = (
    "planner_model",
    "researcher_model",
    "summarizer_model",
    "writer_model",
    "judge_model",
)


def with_backends(*, roles: bool) -> Callable[[Callable[..., None]], Callable[..., None]]:
    """Put the backend options (with the per-role models when ``roles``) where the
    command declares its ``backends: Backends`` parameter, and call it with one
    ``Backends`` built from them. Typer reads the command's signature, so the options
    appear in ``--help`` in that place."""
    names = [name for name in BACKEND_OPTIONS if roles or name not in ROLE_MODELS]

    def decorate(command: Callable[..., None]) -> Callable[..., None]:
        signature = inspect.signature(command, eval_str=True)
        parameters: list[inspect.Parameter] = []
        for parameter in signature.parameters.values():
            if parameter.name != "backends":
                parameters.append(parameter)
                continue
            parameters += [
                parameter.replace(name=name, annotation=BACKEND_OPTIONS[name], default=None)
                for name in names
            ]

        @functools.wraps(command)
        def wrapper(**given: Any) -> None:
            backends = Backends(**{name: given.pop(name) for name in names})
            command(backends=backends, **given)

        wrapper.__signature__ = signature.replace(parameters=parameters)  # type: ignore[attr-defined]
        wrapper.__annotations__ = {p.name: p.annotation for p in parameters}
        return wrapper

    return decorate


def given(overrides: dict[str, Any]) -> dict[str, Any]:
    """The overrides the user gave (a None value: not given)."""
    return {key: value for key, value in overrides.items() if value is not None}


def storable(given: dict[str, Any]) -> dict[str, Any]:
    """The given options as a run record keeps them (paths as text)."""
    return {key: str(value) if isinstance(value, Path) else value for key, value in given.items()}


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
ReviewReport = Annotated[
    bool,
    typer.Option(
        "--review-report",
        help="Pause after writing: approve the report, edit its sentences, or give "
        "feedback for one rewrite.",
    ),
]
NoClarify = Annotated[bool, typer.Option(help="Never stop to ask a clarifying question.")]
NoLibrary = Annotated[
    bool,
    typer.Option(
        "--no-library",
        help="Do not reuse what your library verified: read every page afresh.",
    ),
]
MinDomains = Annotated[int | None, typer.Option(help="Quality gate: distinct domains needed.")]
MinEvidence = Annotated[int | None, typer.Option(help="Quality gate: verified quotes needed.")]
DepthOption = Annotated[Depth | None, typer.Option(help="How much to research.")]
DatabaseUrl = Annotated[
    str | None, typer.Option(help="sqlite:///PATH or postgresql+psycopg://... URL.")
]
ReportFormat = Annotated[Format, typer.Option("--format", help="Report format.")]
OutFile = Annotated[
    Path | None,
    typer.Option(help="Write here instead of stdout (- is stdout; pdf, docx and odt need it)."),
]
#: the placeholder default of a ``backends`` parameter (``with_backends`` replaces it)
NOT_GIVEN = Backends()
