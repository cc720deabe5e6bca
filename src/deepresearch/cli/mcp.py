"""``deepresearch mcp``: the MCP server on standard input and output, for MCP clients that
start it as a subprocess (see docs/mcp.md). Research runs in this process with the local
data folder, with the model and search options given here (each run's Settings are built
from them as ``deepresearch run`` builds its own: flags over the config file and the
environment, validated); standard output carries the protocol only, logs go to standard
error."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Annotated, Any

import typer

from deepresearch.cli import options
from deepresearch.cli.common import error, settings_from, use_config_file
from deepresearch.mcp import INSTALL_HINT, MISSING_SDK


def mcp(
    model: options.Model = None,
    planner_model: options.PlannerModel = None,
    researcher_model: options.ResearcherModel = None,
    summarizer_model: options.SummarizerModel = None,
    writer_model: options.WriterModel = None,
    judge_model: options.JudgeModel = None,
    model_base_url: options.ModelBaseUrl = None,
    search: options.Search = None,
    searxng_url: options.SearxngUrl = None,
    corpus: options.Corpus = None,
    allow_host: options.AllowHost = None,
    min_domains: Annotated[
        int | None, typer.Option(help="Quality gate: distinct domains needed.")
    ] = None,
    min_evidence: Annotated[
        int | None, typer.Option(help="Quality gate: verified quotes needed.")
    ] = None,
    no_clarify: Annotated[
        bool,
        typer.Option(
            help="Runs never stop to ask a clarifying question (a tool call's no_clarify "
            "still decides for its run)."
        ),
    ] = False,
    config: options.Config = None,
) -> None:
    """Serve research tools to an MCP client over stdio (research, reply, follow_up,
    get_report, list_runs)."""
    use_config_file(config)
    overrides: dict[str, Any] = {
        **options.model_and_search_overrides(
            model=model,
            planner_model=planner_model,
            researcher_model=researcher_model,
            summarizer_model=summarizer_model,
            writer_model=writer_model,
            judge_model=judge_model,
            model_base_url=model_base_url,
            search=search,
            searxng_url=searxng_url,
            corpus=corpus,
            allow_host=allow_host,
        ),
        "min_domains": min_domains,
        "min_evidence": min_evidence,
        "no_clarify": no_clarify or None,
    }
    given = {key: value for key, value in overrides.items() if value is not None}
    settings = settings_from(given)
    try:
        from deepresearch.mcp.local import LocalBackend
        from deepresearch.mcp.server import build_server
    except ImportError:
        error(MISSING_SDK, INSTALL_HINT)
    remembered = {k: str(v) if isinstance(v, Path) else v for k, v in given.items()}
    server = build_server(LocalBackend(settings, record_options=remembered))
    # stdout is the protocol: every log line goes to stderr
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    server.run("stdio")
