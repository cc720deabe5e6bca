"""The library (issue 25): what a finished run leaves in its owner's library, a search of
it, and what a search finds. Plain data; the store is ``librarydb/``, the query rules
``core/library_query.py``."""

from __future__ import annotations

from datetime import datetime
from typing import Literal, get_args

from pydantic import BaseModel, Field

#: what a library item is: a run's report, a verified quote, a claim of the run, or a
#: passage of a document imported into a collection
ItemKind = Literal["report", "quote", "claim", "document"]
ITEM_KINDS: tuple[ItemKind, ...] = get_args(ItemKind)


class LibrarySource(BaseModel):
    """A page a run quoted, with the text every quote was verified against."""

    source_id: str
    url: str
    title: str = ""
    domain: str = ""
    kind: str = "html"
    text: str = ""
    #: when the run read the page (its ``source_fetched`` event); None: not known
    fetched_at: datetime | None = None


class LibraryQuote(BaseModel):
    """A verified quote (an evidence record that passed verification) and its claim."""

    evidence_id: str
    source_id: str
    quote: str
    claim: str = ""
    sub_question_id: str = ""


class LibraryClaim(BaseModel):
    """A claim of the run's ledger; ``source_id`` is its strongest support's page."""

    claim_id: str
    text: str
    source_id: str | None = None
    evidence_ids: list[str] = Field(default_factory=list)
    confidence: float = 0.0
    contradiction: bool = False


class LibraryEntry(BaseModel):
    """What one finished run adds to its owner's library."""

    run_id: str
    recipe: str
    question: str
    title: str = ""
    kind: str = ""
    report: str = Field(default="", description="the report as markdown")
    finished_at: datetime
    sources: list[LibrarySource] = Field(default_factory=list)
    quotes: list[LibraryQuote] = Field(default_factory=list)
    claims: list[LibraryClaim] = Field(default_factory=list)


class LibraryQuery(BaseModel):
    """A checked search of a library (``core.library_query.parse_query`` makes one)."""

    text: str
    words: list[str]
    since: datetime | None = None
    until: datetime | None = None
    domain: str | None = None
    run: str | None = None
    tag: str | None = None
    recipe: str | None = None
    kind: ItemKind | None = None
    collection: str | None = None
    limit: int = 20
    #: "all": an item holds every word (``library search``); "any": at least one, the
    #: best first (the ``library`` search provider, whose queries are a planner's)
    match: Literal["all", "any"] = "all"


class HitSource(BaseModel):
    url: str
    title: str
    domain: str
    fetched_at: datetime | None = None
    #: its id in its run (the stored text: ``library show RUN --source ID``)
    source_id: str | None = None


class HitRun(BaseModel):
    run_id: str
    question: str
    recipe: str
    finished_at: datetime
    tags: list[str] = Field(default_factory=list)
    #: the collection's name when this "run" is a collection of imported documents
    collection: str | None = None


class LibraryHit(BaseModel):
    """One search result: the matching text (a quote, a claim, or the report's best
    lines), its source when it has one, and its run."""

    kind: ItemKind
    item_id: str
    text: str
    claim: str = ""
    source: HitSource | None = None
    run: HitRun


class LibraryPage(BaseModel):
    """A stored page (or imported document) a search found, with its text: what the
    ``library`` search provider hands a run instead of fetching the page."""

    hit: LibraryHit
    text: str


class RunSummary(BaseModel):
    """A run in the library (``library show``): what it holds and its tags."""

    run_id: str
    question: str
    title: str
    recipe: str
    kind: str
    finished_at: datetime
    tags: list[str] = Field(default_factory=list)
    sources: list[HitSource] = Field(default_factory=list)
    quotes: int = 0
    claims: int = 0
    report: str = ""
    #: the collection's name when this is a collection of imported documents
    collection: str | None = None


class LibraryDocument(BaseModel):
    """A document of your own read for a collection (``library import``)."""

    path: str
    title: str
    kind: str = "text"
    text: str


class CollectionSummary(BaseModel):
    """A named collection of imported documents in a library."""

    name: str
    collection_id: str = Field(description="its id: library show and --run take it")
    documents: int
    added_at: datetime
    #: the files an import could not read (unreadable, without text, too large)
    skipped: list[str] = Field(default_factory=list)


class ShelvedQuote(BaseModel):
    """A verified quote of an earlier run in the owner's library, with its page (the
    stored text it was verified against and when that was read): what a new run is
    offered (``core.library_reuse``)."""

    run_id: str
    evidence_id: str
    quote: str
    claim: str = ""
    source: LibrarySource


class ShelvedPage(BaseModel):
    """The latest read of a page in the owner's library: a research unit that chooses it
    reads its stored text when it is fresh, instead of fetching it."""

    run_id: str
    source: LibrarySource


class ReusedQuote(BaseModel):
    """Evidence of this run that came from the library."""

    evidence_id: str = Field(description="its id in this run's evidence")
    source_id: str
    run_id: str = Field(description="the earlier run that verified it")
    fetched_at: datetime | None = Field(
        default=None, description="when the page it is verified against was read"
    )
    refetched: bool = Field(
        default=False, description="the page was older than the window: fetched again now"
    )


class DroppedQuote(BaseModel):
    """A library quote not reused: no longer on its page as fetched again now (or the
    page could not be read again)."""

    url: str
    quote: str
    run_id: str
    fetched_at: datetime | None = Field(default=None, description="when the library read it")
    reason: str = Field(
        default="no longer on its page", description="or: its page could not be read again"
    )


class LibraryReuse(BaseModel):
    """What a run took from its owner's library (``stages/library.py``)."""

    offered: int = Field(description="quotes the library offered for the sub-questions")
    reused: list[ReusedQuote] = Field(default_factory=list)
    refetched: int = Field(default=0, description="pages fetched again (older than the window)")
    dropped: list[DroppedQuote] = Field(default_factory=list)
    fresh_days: float = Field(default=7.0, description="the freshness window, in days")

    @property
    def runs(self) -> list[str]:
        """The earlier runs the reused quotes come from, in order."""
        return list(dict.fromkeys(item.run_id for item in self.reused))


class TagCount(BaseModel):
    tag: str
    runs: int


#: the owner of the runs started on this machine (the CLI, the Python library, MCP over
#: stdio, and the service when it has no API keys)
LOCAL_OWNER = "local"
