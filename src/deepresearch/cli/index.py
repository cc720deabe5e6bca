"""``deepresearch index DIR``: build or refresh the local corpus index ahead of a run."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from deepresearch.cli.common import EXIT_USAGE, settings_from
from deepresearch.search.registry import index_path


def index(
    corpus: Annotated[Path, typer.Argument(help="Folder of md, txt, html and pdf files.")],
) -> None:
    """Index a folder for --search local (runs also index on first use)."""
    from deepresearch.search.local import LocalSearch

    if not corpus.is_dir():
        typer.echo(f"error: {corpus} is not a folder", err=True)
        raise typer.Exit(EXIT_USAGE)
    settings = settings_from({})
    search = LocalSearch(corpus, index_path(settings.data_dir, corpus))
    counts = search.build_index()
    typer.echo(f"indexed {corpus}: {counts}")
