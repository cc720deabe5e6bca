"""The /v1/library endpoints (issue 25): search, show, remove and tag the caller's
library. Thin: the query rules are ``core/library_query.py``, the store ``librarydb/``.
Every call is bound to the caller's key: another key's run is a 404 exactly like a run
that does not exist, and counts, tags and results are the caller's only. A bad query or
an unknown filter is a 400 problem; nothing is written by a refused request."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Literal, TypeVar

from fastapi import APIRouter, Depends, Request, Response
from pydantic import BaseModel, ConfigDict, Field
from starlette.concurrency import run_in_threadpool

from deepresearch.core.library_query import FILTERS, MAX_TAG_CHARS, parse_query
from deepresearch.errors import DeepResearchError, InvalidInput, RunNotFound
from deepresearch.librarydb.store import MAX_TAGS, LibraryStore
from deepresearch.models.library import LibraryHit, LibrarySource, RunSummary, TagCount
from deepresearch.service.auth import Caller, caller
from deepresearch.service.problems import ApiProblem
from deepresearch.service.schemas import Problem
from deepresearch.service.state import ServiceState

T = TypeVar("T")
library_router = APIRouter(prefix="/v1/library", tags=["library"])
CallerDep = Annotated[Caller, Depends(caller)]
PROBLEMS: dict[int | str, dict[str, object]] = {
    400: {"model": Problem, "description": "a bad query, filter or tag"},
    401: {"model": Problem, "description": "missing or invalid API key"},
    404: {"model": Problem, "description": "no such run or tag in your library"},
    422: {"model": Problem, "description": "invalid request body"},
}


class LibraryCounts(BaseModel):
    runs: int
    sources: int
    quotes: int
    claims: int


class SearchResults(BaseModel):
    query: str
    results: list[LibraryHit]
    mode: Literal["text", "hybrid"] = Field(
        default="text",
        description="text: full-text ranking alone; hybrid: fused with embedding "
        "similarity (the server has the [embeddings] extra)",
    )


class TagsBody(BaseModel):
    model_config = ConfigDict(extra="forbid")
    tags: list[Annotated[str, Field(min_length=1, max_length=MAX_TAG_CHARS)]] = Field(
        min_length=1, max_length=MAX_TAGS
    )


class RenameBody(BaseModel):
    model_config = ConfigDict(extra="forbid")
    to: str = Field(min_length=1, max_length=MAX_TAG_CHARS, description="the tag's new name")


class RunTags(BaseModel):
    run_id: str
    tags: list[str]


class TagsView(BaseModel):
    tags: list[TagCount]


class TagChange(BaseModel):
    runs: int = Field(description="how many runs had the tag")


def _library(request: Request) -> LibraryStore:
    state: ServiceState = request.app.state.service
    if state.library is None:
        raise ApiProblem(503, "the library is not available on this server", kind="no-library")
    return state.library


async def library_call(request: Request, action: Callable[[LibraryStore], T]) -> T:
    """``action`` on the library off the event loop, its refusals as problems."""
    store = _library(request)
    try:
        return await run_in_threadpool(action, store)
    except RunNotFound as exc:
        raise ApiProblem(404, exc.message, kind="not-in-library") from None
    except InvalidInput as exc:
        raise ApiProblem(400, exc.message, kind="invalid-query", hint=exc.hint) from None
    except DeepResearchError as exc:
        raise ApiProblem(400, exc.message, kind="invalid-query", hint=exc.hint) from None


@library_router.get("", response_model=LibraryCounts, responses=PROBLEMS, summary="Your library")
async def counts(request: Request, who: CallerDep) -> LibraryCounts:
    """How many runs, sources, verified quotes and claims your library holds."""
    found = await library_call(request, lambda store: store.counts(who.owner))
    return LibraryCounts(**found)


@library_router.get(
    "/search", response_model=SearchResults, responses=PROBLEMS, summary="Search your library"
)
async def search(request: Request, who: CallerDep) -> SearchResults:
    """Full-text search over your runs' reports, verified quotes and claims, and your
    collections' documents. Query parameters: ``q`` (the words, required, at most 500
    characters) and the filters ``since``, ``until`` (YYYY-MM-DD or an ISO time),
    ``domain``, ``run``, ``tag``, ``recipe``, ``kind`` (report, quote, claim, document),
    ``collection`` and ``limit`` (1-100, default 20). Any other parameter is a 400. Each
    result has its text, its source (URL, title, when the page was read) and its run;
    ``mode`` says whether the ranking was fused with embedding similarity ("hybrid",
    where the server has the ``[embeddings]`` extra) or full text alone ("text")."""
    params = request.query_params
    unknown = sorted({name for name in params if name != "q" and name not in FILTERS})
    if unknown:
        raise ApiProblem(
            400,
            f"unknown search parameter {', '.join(map(repr, unknown))}",
            kind="invalid-query",
            hint=f"the parameters are q and {', '.join(FILTERS)}",
        )
    if any(len(params.getlist(name)) > 1 for name in params):
        raise ApiProblem(400, "a search parameter is given twice", kind="invalid-query")
    filters = {name: params[name] for name in FILTERS if name in params}
    try:
        query = parse_query(params.get("q"), filters)
    except InvalidInput as exc:
        raise ApiProblem(400, exc.message, kind="invalid-query", hint=exc.hint) from None
    hits = await library_call(request, lambda store: store.search(who.owner, query))
    mode = _library(request).search_mode
    return SearchResults(query=query.text, results=hits, mode=mode)


@library_router.get(
    "/runs/{run_id}", response_model=RunSummary, responses=PROBLEMS, summary="A run in your library"
)
async def show(run_id: str, request: Request, who: CallerDep) -> RunSummary:
    """The run's question, tags, sources (with when each was read), counts and report."""
    return await library_call(request, lambda store: store.show(who.owner, run_id))


@library_router.get(
    "/runs/{run_id}/sources/{source_id}",
    response_model=LibrarySource,
    responses=PROBLEMS,
    summary="A page a run quoted, with its stored text",
)
async def page(run_id: str, source_id: str, request: Request, who: CallerDep) -> LibrarySource:
    """The page's stored text: what every quote of the run was verified against."""
    return await library_call(request, lambda store: store.page(who.owner, run_id, source_id))


@library_router.delete(
    "/runs/{run_id}", status_code=204, responses=PROBLEMS, summary="Remove a run from your library"
)
async def remove(run_id: str, request: Request, who: CallerDep) -> Response:
    """Its report, quotes, claims, sources and tags; search stops finding them at once.
    The job and its report stay (``/v1/research/{id}``)."""
    await library_call(request, lambda store: store.remove(who.owner, run_id))
    return Response(status_code=204)


@library_router.post(
    "/runs/{run_id}/tags", response_model=RunTags, responses=PROBLEMS, summary="Tag a run"
)
async def tag(run_id: str, body: TagsBody, request: Request, who: CallerDep) -> RunTags:
    """Add tags (letters, digits, spaces and ``. : / + - _``; stored lowercased)."""
    tags = await library_call(request, lambda store: store.tag(who.owner, run_id, body.tags))
    return RunTags(run_id=run_id, tags=tags)


@library_router.delete(
    "/runs/{run_id}/tags/{tag}", response_model=RunTags, responses=PROBLEMS, summary="Untag a run"
)
async def untag(run_id: str, tag: str, request: Request, who: CallerDep) -> RunTags:
    tags = await library_call(request, lambda store: store.untag(who.owner, run_id, tag))
    return RunTags(run_id=run_id, tags=tags)


@library_router.get("/tags", response_model=TagsView, responses=PROBLEMS, summary="Your tags")
async def tags(request: Request, who: CallerDep) -> TagsView:
    """Your tags, with how many runs have each, most used first."""
    return TagsView(tags=await library_call(request, lambda store: store.tags(who.owner)))


@library_router.post(
    "/tags/{tag}/rename", response_model=TagChange, responses=PROBLEMS, summary="Rename a tag"
)
async def rename(tag: str, body: RenameBody, request: Request, who: CallerDep) -> TagChange:
    runs = await library_call(request, lambda store: store.rename_tag(who.owner, tag, body.to))
    return TagChange(runs=runs)


@library_router.delete(
    "/tags/{tag}", response_model=TagChange, responses=PROBLEMS, summary="Remove a tag"
)
async def drop(tag: str, request: Request, who: CallerDep) -> TagChange:
    """The tag, from every run that has it."""
    return TagChange(runs=await library_call(request, lambda store: store.drop_tag(who.owner, tag)))
