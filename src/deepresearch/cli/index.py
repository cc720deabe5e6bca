"""``deepresearch index DIR``: build or refresh the local corpus index ahead of a run."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from deepresearch.cli.common import EXIT_USAGE, settings_from
from deepresearch.search.registry import index_path

if TYPE_CHECKING:  # the local search loads when the command runs, not for --help
    from deepresearch.search.local import IndexStats


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
    typer.echo(f"indexed {corpus}: {summary(counts)}")


def summary(counts: IndexStats) -> str:
    """What an indexing pass did, in words: ``12 documents (3 new, 1 updated, 8
    unchanged; 1 removed; 2 skipped: unreadable or without text)``."""
    changes = [
        f"{count} {what}"
        for count, what in (
            (counts.added, "new"),
            (counts.updated, "updated"),
            (counts.unchanged, "unchanged"),
        )
        if count
    ]
    text = f"{counts.indexed} document{'' if counts.indexed == 1 else 's'}"
    text += f" ({', '.join(changes)})" if changes else ""
    if counts.removed:
        text += f"; {counts.removed} removed (no longer in the folder)"
    if counts.skipped:
        text += f"; {counts.skipped} skipped (unreadable or without text)"
    return text
