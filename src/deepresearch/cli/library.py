"""``deepresearch library search|show|tag|rm|import|collection``: the local library
(issue 25), every finished run's report, verified quotes, claims and quoted pages, and
collections of your own documents. Thin: the query rules are
``core/library_query.py``, the store ``librarydb/``. SQLAlchemy loads when a command
runs, never for ``--help``. Text from pages and questions is shown escaped."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, TypeVar

import typer

from deepresearch.cli.common import fail, say, settings_from
from deepresearch.core.sanitize import for_terminal
from deepresearch.errors import DeepResearchError

if TYPE_CHECKING:
    from deepresearch.librarydb.store import LibraryStore
    from deepresearch.models.library import LibraryHit, RunSummary

T = TypeVar("T")

library = typer.Typer(
    help="Your library: search, show, tag and remove finished runs; import your documents.",
    no_args_is_help=True,
)
tag_app = typer.Typer(help="Tag runs; rename and remove tags.", no_args_is_help=True)
library.add_typer(tag_app, name="tag")
collection_app = typer.Typer(
    help="Your collections of documents: list, rename, remove.", no_args_is_help=True
)
library.add_typer(collection_app, name="collection")

Json = Annotated[bool, typer.Option("--json", help="Print JSON (one object a line).")]
RunArg = Annotated[str, typer.Argument(help="The run's id.")]


@contextmanager
def _store() -> Iterator[LibraryStore]:
    from deepresearch.library import open_store

    with open_store(settings_from({})) as store:
        yield store


def _call(action: Callable[[LibraryStore], T]) -> T:
    """``action`` on the local library; a refusal is one line and exit 2."""
    try:
        with _store() as store:
            return action(store)
    except DeepResearchError as exc:
        fail(exc)


@library.command("search")
def search(
    query: Annotated[str, typer.Argument(help="Words to find in reports, quotes and claims.")],
    since: Annotated[
        str | None, typer.Option(help="Runs finished on or after (YYYY-MM-DD).")
    ] = None,
    until: Annotated[
        str | None, typer.Option(help="Runs finished on or before (YYYY-MM-DD).")
    ] = None,
    domain: Annotated[
        str | None, typer.Option(help="Quotes from this site (and its subdomains).")
    ] = None,
    run: Annotated[str | None, typer.Option(help="Only this run.")] = None,
    tag: Annotated[str | None, typer.Option(help="Only runs with this tag.")] = None,
    recipe: Annotated[str | None, typer.Option(help="Only runs of this recipe.")] = None,
    kind: Annotated[
        str | None, typer.Option(help="Only reports, quotes, claims or documents.")
    ] = None,
    collection: Annotated[
        str | None, typer.Option(help="Only this collection of your documents.")
    ] = None,
    limit: Annotated[int, typer.Option(help="At most this many results (1-100).")] = 20,
    json_: Json = False,
) -> None:
    """Search your library: each result shows the text, its source and its run."""
    from deepresearch.core.library_query import parse_query
    from deepresearch.models.library import LOCAL_OWNER

    filters = {
        "since": since,
        "until": until,
        "domain": domain,
        "run": run,
        "tag": tag,
        "recipe": recipe,
        "kind": kind,
        "collection": collection,
        "limit": limit,
    }
    try:
        checked = parse_query(query, filters)
    except DeepResearchError as exc:
        fail(exc)
    hits, mode = _call(lambda store: (store.search(LOCAL_OWNER, checked), store.search_mode))
    if json_:
        for hit in hits:
            typer.echo(hit.model_dump_json())
        return
    if not hits:
        say("nothing in your library matches")
        return
    for hit in hits:
        _print_hit(hit)
    if mode == "hybrid":
        say("(hybrid search: full text and embedding similarity, fused)")


@library.command("reindex")
def reindex() -> None:
    """Embed the items stored before hybrid search was installed (a hybrid search does
    this by itself the first time; this does it now)."""
    from deepresearch.models.library import LOCAL_OWNER

    done, mode = _call(lambda store: (store.reindex(LOCAL_OWNER), store.search_mode))
    if mode == "text":
        say("search is full text only here: install the [embeddings] extra for hybrid search")
        return
    say(f"embedded {done} item{'s' if done != 1 else ''}")


def _print_hit(hit: LibraryHit) -> None:
    text = for_terminal(hit.text)
    typer.echo(f"[{hit.kind}] {text}")
    if hit.claim and hit.kind == "quote":
        typer.echo(f"    claim: {for_terminal(hit.claim)}")
    if hit.source is not None:
        fetched = f", read {hit.source.fetched_at:%Y-%m-%d}" if hit.source.fetched_at else ""
        title = for_terminal(hit.source.title or hit.source.domain)
        typer.echo(f"    source: {title} <{for_terminal(hit.source.url)}>{fetched}")
    tags = f" [{', '.join(hit.run.tags)}]" if hit.run.tags else ""
    if hit.run.collection is not None:
        typer.echo(f"    collection: {for_terminal(hit.run.collection)} ({hit.run.run_id}){tags}")
        return
    question = for_terminal(hit.run.question)
    typer.echo(f"    run: {hit.run.run_id} ({hit.run.finished_at:%Y-%m-%d}) {question}{tags}")


@library.command("show")
def show(
    run_id: RunArg,
    source: Annotated[
        str | None, typer.Option(help="Print this source's stored page text instead.")
    ] = None,
    report: Annotated[bool, typer.Option("--report", help="Print the report too.")] = False,
    json_: Json = False,
) -> None:
    """What your library holds of a run: its question, tags, sources and counts."""
    from deepresearch.models.library import LOCAL_OWNER

    if source is not None:
        page = _call(lambda store: store.page(LOCAL_OWNER, run_id, source))
        typer.echo(page.model_dump_json() if json_ else for_terminal(page.text, multiline=True))
        return
    summary = _call(lambda store: store.show(LOCAL_OWNER, run_id))
    if json_:
        typer.echo(summary.model_dump_json(exclude=set() if report else {"report"}))
        return
    if summary.collection is not None:
        _print_collection(summary)
        return
    typer.echo(f"{summary.run_id}  {summary.finished_at:%Y-%m-%d %H:%M}  {summary.recipe}")
    typer.echo(f"question: {for_terminal(summary.question)}")
    typer.echo(f"tags: {', '.join(summary.tags) or '-'}")
    typer.echo(
        f"{summary.quotes} verified quotes, {summary.claims} claims, {len(summary.sources)} sources"
    )
    for item in summary.sources:
        fetched = f"read {item.fetched_at:%Y-%m-%d}" if item.fetched_at else "read ?"
        typer.echo(f"  {fetched}  {for_terminal(item.url)}")
    if report:
        typer.echo("")
        typer.echo(for_terminal(summary.report, multiline=True))


def _print_collection(summary: RunSummary) -> None:
    name = for_terminal(summary.collection or "")
    typer.echo(f"{summary.run_id}  {summary.finished_at:%Y-%m-%d %H:%M}  collection {name}")
    typer.echo(f"tags: {', '.join(summary.tags) or '-'}")
    typer.echo(f"{len(summary.sources)} documents")
    for item in summary.sources:
        typer.echo(f"  {for_terminal(item.title)}  {for_terminal(item.url)}")


@library.command("rm")
def rm(run_id: RunArg) -> None:
    """Remove a run from your library: its report, quotes, claims and pages."""
    from deepresearch.models.library import LOCAL_OWNER

    _call(lambda store: store.remove(LOCAL_OWNER, run_id))
    say(f"removed {run_id} from your library")


@tag_app.command("add")
def tag_add(
    run_id: RunArg,
    tags: Annotated[list[str], typer.Argument(help="One or more tags.")],
) -> None:
    """Tag a run."""
    from deepresearch.models.library import LOCAL_OWNER

    now = _call(lambda store: store.tag(LOCAL_OWNER, run_id, tags))
    say(f"{run_id}: {', '.join(now)}")


@tag_app.command("rm")
def tag_rm(run_id: RunArg, tag: Annotated[str, typer.Argument(help="The tag.")]) -> None:
    """Remove a tag from one run."""
    from deepresearch.models.library import LOCAL_OWNER

    now = _call(lambda store: store.untag(LOCAL_OWNER, run_id, tag))
    say(f"{run_id}: {', '.join(now) or 'no tags'}")


@tag_app.command("rename")
def tag_rename(
    old: Annotated[str, typer.Argument(help="The tag now.")],
    new: Annotated[str, typer.Argument(help="Its new name.")],
) -> None:
    """Rename a tag on every run that has it."""
    from deepresearch.models.library import LOCAL_OWNER

    runs = _call(lambda store: store.rename_tag(LOCAL_OWNER, old, new))
    say(f"renamed on {runs} run{'s' if runs != 1 else ''}")


@tag_app.command("drop")
def tag_drop(tag: Annotated[str, typer.Argument(help="The tag.")]) -> None:
    """Remove a tag from every run."""
    from deepresearch.models.library import LOCAL_OWNER

    runs = _call(lambda store: store.drop_tag(LOCAL_OWNER, tag))
    say(f"removed from {runs} run{'s' if runs != 1 else ''}")


@tag_app.command("list")
def tag_list(json_: Json = False) -> None:
    """The tags in use, with how many runs have each."""
    from deepresearch.models.library import LOCAL_OWNER

    counted = _call(lambda store: store.tags(LOCAL_OWNER))
    for item in counted:
        typer.echo(item.model_dump_json() if json_ else f"{item.runs}\t{for_terminal(item.tag)}")
    if not counted and not json_:
        say("no tags yet: deepresearch library tag add RUN TAG")


@library.command("import")
def import_(
    directory: Annotated[Path, typer.Argument(help="A folder of your documents.")],
    collection: Annotated[
        str, typer.Option("--collection", "-c", help="The new collection's name.")
    ],
) -> None:
    """Import the .md, .txt, .html, .pdf and .docx files under a folder as a collection:
    searchable with library search, and by runs with --search library."""
    from deepresearch.core.library_query import normalize_collection
    from deepresearch.fetch.documents import read_folder
    from deepresearch.models.library import LOCAL_OWNER

    try:
        name = normalize_collection(collection)
        found = read_folder(directory)
    except DeepResearchError as exc:
        fail(exc)
    made = _call(lambda store: store.import_collection(LOCAL_OWNER, name, found.documents))
    skipped = f" ({len(found.skipped)} files not readable, skipped)" if found.skipped else ""
    say(f"imported {made.documents} documents into collection {made.name!r}{skipped}")


@collection_app.command("list")
def collection_list(json_: Json = False) -> None:
    """Your collections, with how many documents each holds."""
    from deepresearch.models.library import LOCAL_OWNER

    found = _call(lambda store: store.collections(LOCAL_OWNER))
    for item in found:
        if json_:
            typer.echo(item.model_dump_json(exclude={"skipped"}))
        else:
            typer.echo(f"{item.documents}\t{for_terminal(item.name)}\t{item.collection_id}")
    if not found and not json_:
        say("no collections yet: deepresearch library import DIR --collection NAME")


@collection_app.command("rename")
def collection_rename(
    old: Annotated[str, typer.Argument(help="The collection's name now.")],
    new: Annotated[str, typer.Argument(help="Its new name.")],
) -> None:
    """Rename a collection."""
    from deepresearch.models.library import LOCAL_OWNER

    _call(lambda store: store.rename_collection(LOCAL_OWNER, old, new))
    say(f"renamed collection {old!r} to {new!r}")


@collection_app.command("rm")
def collection_rm(name: Annotated[str, typer.Argument(help="The collection.")]) -> None:
    """Remove a collection and its documents from your library."""
    from deepresearch.models.library import LOCAL_OWNER

    docs = _call(lambda store: store.remove_collection(LOCAL_OWNER, name))
    say(f"removed collection {name!r} ({docs} documents)")
