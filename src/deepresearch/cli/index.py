"""``deepresearch index DIR``: build or refresh the local corpus index ahead of a run."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Annotated

import typer

from deepresearch.cli.common import EXIT_USAGE, settings_from


def index_path_for(data_dir: Path, corpus: Path) -> Path:
    digest = hashlib.sha1(str(corpus.resolve()).encode(), usedforsecurity=False).hexdigest()
    return data_dir / "index" / f"{digest}.sqlite3"


def index(
    corpus: Annotated[Path, typer.Argument(help="Folder of md, txt, html and pdf files.")],
) -> None:
    """Index a folder for --search local (runs also index on first use)."""
    from deepresearch.search.local import LocalSearch

    if not corpus.is_dir():
        typer.echo(f"error: {corpus} is not a folder", err=True)
        raise typer.Exit(EXIT_USAGE)
    settings = settings_from({})
    search = LocalSearch(corpus, index_path_for(settings.data_dir, corpus))
    counts = search.build_index()
    typer.echo(f"indexed {corpus}: {counts}")
