"""Shared CLI pieces: building Settings from flags, and reporting errors plainly."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any, NoReturn

import typer

from deepresearch.errors import ConfigError, DeepResearchError
from deepresearch.settings import Settings, load_settings

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2
EXIT_ABORT = 3


def fail(exc: DeepResearchError) -> NoReturn:
    code = EXIT_USAGE if isinstance(exc, ConfigError) else EXIT_FAILED
    typer.echo(f"error: {exc.message}", err=True)
    if exc.hint:
        typer.echo(f"hint: {exc.hint}", err=True)
    raise typer.Exit(code)


def settings_from(overrides: dict[str, Any]) -> Settings:
    try:
        return load_settings(**overrides)
    except DeepResearchError as exc:
        fail(exc)


def stderr_is_terminal() -> bool:
    return sys.stderr.isatty()


def use_config_file(config: Path | None) -> None:
    """Point Settings at ``--config FILE``, or stop with exit code 2 if it is missing."""
    if config is None:
        return
    if not config.is_file():
        typer.echo(f"error: configuration file {config} does not exist", err=True)
        raise typer.Exit(EXIT_USAGE)
    os.environ["DEEPRESEARCH_CONFIG"] = str(config)
