"""``deepresearch doctor``: the resolved configuration, and whether each configured
provider can be built and reached. Secrets are shown only as set / not set."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Annotated, Any

import httpx
import typer
from pydantic import SecretStr
from rich.console import Console
from rich.table import Table

from deepresearch.cli.common import EXIT_FAILED, EXIT_OK, settings_from, use_config_file
from deepresearch.errors import DeepResearchError
from deepresearch.llm.providers import build_chat_model
from deepresearch.llm.redact import redact
from deepresearch.search.base import SearchProvider
from deepresearch.search.registry import build_search_providers
from deepresearch.settings import ROLES, Settings


def _shown(value: Any) -> str:
    if isinstance(value, SecretStr):
        return "set" if value.get_secret_value() else "not set"
    if value is None:
        return "-"
    return str(value)


async def _check_search(settings: Settings) -> list[tuple[str, bool, str]]:
    """(provider, ok, detail) for each provider ``search`` names, each asked on its own."""
    async with httpx.AsyncClient(timeout=5.0) as client:
        try:
            providers = build_search_providers(settings, client)
        except DeepResearchError as exc:
            return [(settings.search, False, str(exc))]
        return [(p.name, *await _check_provider(p, settings)) for p in providers]


async def _check_provider(provider: SearchProvider, settings: Settings) -> tuple[bool, str]:
    if provider.name == "none":
        return True, "no search: the run uses model knowledge only"
    try:
        hits = await provider.search("test", limit=1)
    except DeepResearchError as exc:
        return False, redact(str(exc), settings.secrets())
    return True, f"reachable ({len(hits)} result for a test query)"


def _check_models(settings: Settings) -> list[tuple[str, bool, str]]:
    rows = []
    for role in ROLES:
        spec = settings.model_for(role)
        try:
            model = build_chat_model(
                spec,
                base_url=settings.model_base_url,
                api_key=settings.model_api_key,
                timeout_s=settings.model_timeout_s,
                temperature=settings.model_temperature,
            )
        except DeepResearchError as exc:
            rows.append((f"{role}: {spec}", False, redact(str(exc), settings.secrets())))
            continue
        note = "deterministic fallbacks (no model)" if model is None else "configured (not called)"
        rows.append((f"{role}: {spec}", True, note))
    return rows


def doctor(
    config: Annotated[
        Path | None, typer.Option(help="A deepresearch.toml configuration file.")
    ] = None,
    search: Annotated[
        str | None, typer.Option(help="Check this search provider (or several, comma-separated).")
    ] = None,
    searxng_url: Annotated[str | None, typer.Option(help="SearXNG base URL to check.")] = None,
    model: Annotated[str | None, typer.Option(help="Check this model spec.")] = None,
) -> None:
    """Print the resolved configuration and which providers are reachable."""
    use_config_file(config)
    settings = settings_from({"search": search, "searxng_url": searxng_url, "model": model})
    console = Console()
    table = Table(title="configuration", show_header=True, header_style="bold")
    table.add_column("setting")
    table.add_column("value")
    for name in type(settings).model_fields:
        table.add_row(name, _shown(getattr(settings, name)))
    console.print(table)

    checks = Table(title="providers", show_header=True, header_style="bold")
    checks.add_column("provider")
    checks.add_column("ok")
    checks.add_column("detail")
    ok_all = True
    for name, ok, detail in _check_models(settings):
        checks.add_row(name, "yes" if ok else "NO", detail)
        ok_all &= ok
    for name, ok, detail in asyncio.run(_check_search(settings)):
        checks.add_row(f"search: {name}", "yes" if ok else "NO", detail)
        ok_all &= ok
    console.print(checks)
    raise typer.Exit(EXIT_OK if ok_all else EXIT_FAILED)
