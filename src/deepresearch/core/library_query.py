"""The library's search rules (issue 25), pure: a query and its filters checked into a
``LibraryQuery`` before anything is read (one clear ``InvalidInput`` for an empty or
overlong query, a filter that does not exist, a bad date, tag or run id), the words
turned into an FTS5 match expression that no user text can break out of, tags
normalised, and the lines of a long report that show why it matched.

Every front end (CLI, API, MCP, Python) goes through :func:`parse_query`, so they accept
and refuse the same things."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from datetime import UTC, date, datetime, time, timedelta

from deepresearch.core.ids import run_id_problem
from deepresearch.core.sanitize import clean_text
from deepresearch.errors import InvalidInput
from deepresearch.models.library import ITEM_KINDS, LibraryQuery

#: the longest query accepted, in characters after normalisation
MAX_QUERY_CHARS = 500
#: words beyond this many are not searched (a query is a few keywords, not a page)
MAX_QUERY_WORDS = 32
#: the filters a search takes, by name; anything else is refused
FILTERS = ("since", "until", "domain", "run", "tag", "recipe", "kind", "collection", "limit")
DEFAULT_LIMIT = 20
MAX_LIMIT = 100
MAX_TAG_CHARS = 64
#: about how long a passage of an imported document is, in characters
PASSAGE_CHARS = 1_200

_WORD = re.compile(r"\w+")
_TAG = re.compile(r"[\w][\w .:/+-]*")
_DOMAIN = re.compile(r"[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*")
_RECIPE = re.compile(r"[a-z][a-z0-9_-]{0,31}")


def parse_query(text: str | None, filters: Mapping[str, object] | None = None) -> LibraryQuery:
    """``text`` and ``filters`` (names from :data:`FILTERS`; None values are absent)
    checked, or ``InvalidInput`` saying what is wrong and what to do."""
    given = {k: v for k, v in (filters or {}).items() if v is not None and v != ""}
    unknown = sorted(set(given) - set(FILTERS))
    if unknown:
        raise InvalidInput(
            f"unknown search filter {', '.join(map(repr, unknown))}",
            hint=f"the filters are: {', '.join(FILTERS)}",
        )
    cleaned = clean_text(text or "")
    if not cleaned:
        raise InvalidInput("the search query is empty", hint="give a few words to search for")
    if len(cleaned) > MAX_QUERY_CHARS:
        raise InvalidInput(
            f"the search query is longer than {MAX_QUERY_CHARS} characters",
            hint="search for a few keywords",
        )
    words = query_words(cleaned)
    if not words:
        raise InvalidInput(
            "the search query has no words to search for", hint="use letters or digits"
        )
    since = _moment(given.get("since"), "since", end=False)
    until = _moment(given.get("until"), "until", end=True)
    if since is not None and until is not None and since >= until:
        raise InvalidInput("--since is not before --until", hint="swap the two dates")
    return LibraryQuery(
        text=cleaned,
        words=words,
        since=since,
        until=until,
        domain=_domain(given.get("domain")),
        run=_run(given.get("run")),
        tag=normalize_tag(str(given["tag"])) if "tag" in given else None,
        recipe=_recipe(given.get("recipe")),
        kind=_kind(given.get("kind")),
        collection=normalize_collection(str(given["collection"]))
        if "collection" in given
        else None,
        limit=_limit(given.get("limit")),
    )


def query_words(text: str) -> list[str]:
    """The query's words, lowercased, each once, in order, at most ``MAX_QUERY_WORDS``."""
    seen: dict[str, None] = {}
    for word in _WORD.findall(text.lower()):
        seen.setdefault(word, None)
    return list(seen)[:MAX_QUERY_WORDS]


def fts5_match(words: list[str], *, any_word: bool = False) -> str:
    """An FTS5 MATCH expression that finds rows holding every word (or, ``any_word``, at
    least one): each word a quoted string (FTS5 reads nothing inside double quotes as
    syntax; a word holds no quote)."""
    return (" OR " if any_word else " ").join(f'"{word}"' for word in words)


def fts5_any(words: Sequence[str]) -> str:
    """An FTS5 MATCH expression that finds rows holding any of ``words`` (quoted as in
    :func:`fts5_match`): what a new run asks its library for (``core.library_reuse``)."""
    return " OR ".join(f'"{word}"' for word in words)


def normalize_tag(tag: str) -> str:
    """A tag as stored: NFC, spaces collapsed, lowercased; ``InvalidInput`` when empty,
    longer than ``MAX_TAG_CHARS`` or made of other characters than letters, digits,
    spaces and ``. : / + - _``."""
    return _name(tag, "tag", "give a word, like 'energy' or 'q3-review'")


def normalize_collection(name: str) -> str:
    """A collection's name as stored: the rules of a tag (lowercased, at most
    ``MAX_TAG_CHARS`` characters of letters, digits, spaces and ``. : / + - _``)."""
    return _name(name, "collection", "give a name, like 'papers' or 'contracts-2026'")


def _name(value: str, noun: str, example: str) -> str:
    cleaned = clean_text(value).lower()
    if not cleaned:
        raise InvalidInput(f"the {noun} name is empty", hint=example)
    if len(cleaned) > MAX_TAG_CHARS:
        raise InvalidInput(
            f"a {noun} name is at most {MAX_TAG_CHARS} characters", hint="shorten it"
        )
    if not _TAG.fullmatch(cleaned):
        raise InvalidInput(
            f"{cleaned[:80]!r} is not a {noun} name",
            hint="use letters, digits, spaces and . : / + - _, starting with a letter or digit",
        )
    return cleaned


def passages(text: str, *, size: int = PASSAGE_CHARS) -> list[str]:
    """``text`` (a document) cut into passages of about ``size`` characters at paragraph
    breaks (a longer paragraph at line or word breaks): what a collection's search finds
    and shows, one row each."""
    pieces: list[str] = []
    for paragraph in re.split(r"\n\s*\n", text):
        paragraph = paragraph.strip()
        while len(paragraph) > size:
            cut = max(paragraph.rfind("\n", 0, size), paragraph.rfind(" ", 0, size))
            cut = cut if cut > size // 2 else size
            pieces.append(paragraph[:cut].strip())
            paragraph = paragraph[cut:].strip()
        if paragraph:
            pieces.append(paragraph)
    out: list[str] = []
    for piece in pieces:
        if out and len(out[-1]) + len(piece) + 2 <= size:
            out[-1] = f"{out[-1]}\n\n{piece}"
        else:
            out.append(piece)
    return out


def best_lines(text: str, words: list[str], *, most: int = 2, width: int = 300) -> str:
    """The lines of ``text`` (a report) holding the most query words, in the text's
    order, each cut to ``width`` characters: what a report hit shows."""
    scored = []
    for index, line in enumerate(text.splitlines()):
        lowered = set(_WORD.findall(line.lower()))
        hits = sum(1 for word in words if word in lowered)
        if hits:
            scored.append((hits, index, line.strip()))
    chosen = sorted(sorted(scored, key=lambda item: (-item[0], item[1]))[:most], key=lambda i: i[1])
    return " … ".join(_cut(line, width) for _, _, line in chosen) or _cut(text.strip(), width)


def _cut(line: str, width: int) -> str:
    return line if len(line) <= width else line[: width - 1].rstrip() + "…"


def _moment(value: object, name: str, *, end: bool) -> datetime | None:
    """A date (``2026-11-01``: the day's start, or its end for ``until``) or an ISO time,
    in UTC."""
    if value is None:
        return None
    if isinstance(value, datetime):
        return value if value.tzinfo else value.replace(tzinfo=UTC)
    if isinstance(value, date):
        day = value
    else:
        raw = str(value).strip()
        try:
            if len(raw) == 10:
                day = date.fromisoformat(raw)
            else:
                moment = datetime.fromisoformat(raw)
                return moment if moment.tzinfo else moment.replace(tzinfo=UTC)
        except ValueError:
            raise InvalidInput(
                f"--{name} {raw[:40]!r} is not a date",
                hint="write it as YYYY-MM-DD (or an ISO time such as 2026-11-01T09:00)",
            ) from None
    start = datetime.combine(day, time(), tzinfo=UTC)
    return start + timedelta(days=1) if end else start


def _domain(value: object) -> str | None:
    if value is None:
        return None
    domain = str(value).strip().lower().removeprefix("www.")
    if len(domain) > 253 or not _DOMAIN.fullmatch(domain):
        raise InvalidInput(
            f"--domain {str(value)[:60]!r} is not a domain", hint="for example example.org"
        )
    return domain


def _run(value: object) -> str | None:
    if value is None:
        return None
    problem = run_id_problem(str(value))
    if problem:
        raise InvalidInput(f"--run: {problem}", hint="give the id of one of your runs")
    return str(value)


def _recipe(value: object) -> str | None:
    if value is None:
        return None
    if not _RECIPE.fullmatch(str(value)):
        raise InvalidInput(
            f"--recipe {str(value)[:40]!r} is not a recipe name", hint="for example research"
        )
    return str(value)


def _kind(value: object) -> str | None:
    if value is None:
        return None
    if value not in ITEM_KINDS:
        raise InvalidInput(
            f"--kind {str(value)[:40]!r} is not a kind of item",
            hint=f"use one of: {', '.join(ITEM_KINDS)}",
        )
    return str(value)


def _limit(value: object) -> int:
    if value is None:
        return DEFAULT_LIMIT
    try:
        limit = int(str(value))
    except ValueError:
        limit = 0
    if not 1 <= limit <= MAX_LIMIT:
        raise InvalidInput(
            f"--limit must be a number from 1 to {MAX_LIMIT}", hint="for example --limit 20"
        )
    return limit
