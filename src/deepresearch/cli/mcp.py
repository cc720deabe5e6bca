"""``deepresearch mcp``: the MCP server on standard input and output, for MCP clients that
start it as a subprocess (see docs/mcp.md). Research runs in this process with the local
data folder, with the model and search options given here (each run's Settings are built
from them as ``deepresearch run`` builds its own: flags over the config file and the
environment, validated); standard output carries the protocol only, logs go to standard
error."""

from __future__ import annotations

import logging
from typing import Annotated, Any

import typer

from deepresearch.cli import options
from deepresearch.cli.common import error, settings_from, use_config_file
from deepresearch.mcp import INSTALL_HINT, MISSING_SDK


@options.with_backends(roles=True)
def mcp(
    backends: options.Backends = options.NOT_GIVEN,
    allow_host: options.AllowHost = None,
    min_domains: options.MinDomains = None,
    min_evidence: options.MinEvidence = None,
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
        **backends.overrides(allow_host),
        "min_domains": min_domains,
        "min_evidence": min_evidence,
        "no_clarify": no_clarify or None,
    }
    given = options.given(overrides)
    settings = settings_from(given)
    try:
        from deepresearch.mcp.local import LocalBackend
        from deepresearch.mcp.server import build_server
    except ImportError:
        error(MISSING_SDK, INSTALL_HINT)
    server = build_server(LocalBackend(settings, record_options=options.storable(given)))
    # stdout is the protocol: every log line goes to stderr
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    server.run("stdio")
