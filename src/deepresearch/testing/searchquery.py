"""Search-engine query syntax and result snippets for the offline web.

``parse_query`` understands the operators search providers accept, minimally:
``"exact phrase"``, ``site:``, ``-site:``, ``intitle:``, ``filetype:``, ``-word``. Words
and phrases become ranking terms; ``site:``/``-site:``/``filetype:`` become filters; a
``-word`` is dropped. ``make_snippet`` cuts the ~300-character window of a text that holds
the most distinct query terms (and the phrase, when there is one).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from deepresearch.testing.tokens import tokenize, words

MAX_QUERY_CHARS = 2000
MAX_TERMS = 64

_TOKEN = re.compile(
    r"""(?P<neg>-)?(?:(?P<op>site|intitle|allintitle|inurl|intext|filetype|ext):)?"""
    r"""(?:"(?P<phrase>[^"]*)"?|(?P<word>[^\s"]+))""",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class ParsedQuery:
    """A query split into ranking terms, phrases and filters."""

    terms: tuple[str, ...] = ()
    #: each phrase as its lowercase words (stopwords kept)
    phrases: tuple[tuple[str, ...], ...] = ()
    intitle: tuple[str, ...] = ()
    sites: tuple[str, ...] = ()
    excluded_sites: tuple[str, ...] = ()
    filetypes: tuple[str, ...] = field(default=())


def _domain(value: str) -> str:
    value = value.strip().lower()
    value = re.sub(r"^[a-z][a-z0-9+.-]*://", "", value)
    value = value.split("/", 1)[0].split(":", 1)[0]
    return value.strip(".").removeprefix("www.")


def parse_query(query: str) -> ParsedQuery:
    """Split ``query`` into terms, phrases and filters. Never raises."""
    query = query[:MAX_QUERY_CHARS]
    terms: list[str] = []
    phrases: list[tuple[str, ...]] = []
    intitle: list[str] = []
    sites: list[str] = []
    excluded: list[str] = []
    filetypes: list[str] = []
    for match in _TOKEN.finditer(query):
        negated = bool(match.group("neg"))
        op = (match.group("op") or "").lower()
        phrase = match.group("phrase")
        value = phrase if phrase is not None else (match.group("word") or "")
        if op == "site":
            domain = _domain(value)
            if domain:
                (excluded if negated else sites).append(domain)
        elif op in ("filetype", "ext"):
            if not negated and value.strip():
                filetypes.append(value.strip().lower().lstrip("."))
        elif negated:
            continue
        else:
            tokens = tokenize(value)
            terms += tokens
            if op in ("intitle", "allintitle"):
                intitle += tokens
            elif phrase is not None and len(words(phrase)) > 1:
                phrases.append(tuple(words(phrase)))
    return ParsedQuery(
        terms=tuple(dict.fromkeys(terms))[:MAX_TERMS],
        phrases=tuple(dict.fromkeys(phrases))[:8],
        intitle=tuple(dict.fromkeys(intitle)),
        sites=tuple(sites),
        excluded_sites=tuple(excluded),
        filetypes=tuple(filetypes),
    )


def phrase_pattern(phrase: Sequence[str]) -> re.Pattern[str]:
    """A case-insensitive regex matching the words of ``phrase`` separated by non-words."""
    body = r"\W+".join(re.escape(word) for word in phrase)
    return re.compile(rf"(?<!\w){body}(?!\w)", re.IGNORECASE)


def _terms_pattern(terms: Sequence[str]) -> re.Pattern[str] | None:
    if not terms:
        return None
    ordered = sorted(set(terms), key=lambda term: (-len(term), term))
    body = "|".join(re.escape(term) for term in ordered)
    return re.compile(rf"(?<!\w)(?:{body})(?!\w)", re.IGNORECASE)


def plain_text(text: str) -> str:
    """``text`` on one line, heading markers removed."""
    return " ".join(re.sub(r"(?m)^#{1,6}\s+", "", text).split())


def make_snippet(
    text: str,
    terms: Sequence[str],
    phrases: Sequence[Sequence[str]] = (),
    *,
    width: int = 300,
    max_matches: int = 2000,
) -> str:
    """The ~``width``-character window of ``text`` richest in query terms, with ellipses."""
    flat = plain_text(text)
    if len(flat) <= width:
        return flat
    pattern = _terms_pattern(terms)
    hits: list[tuple[int, str]] = []
    if pattern is not None:
        for match in pattern.finditer(flat):
            hits.append((match.start(), match.group().lower()))
            if len(hits) >= max_matches:
                break
    phrase_starts: list[int] = []
    for phrase in phrases:
        phrase_starts += [m.start() for m in phrase_pattern(phrase).finditer(flat)][:50]
    best_start, best_value = 0, (-1, -1)
    span = int(width * 0.8)
    for i, (position, _) in enumerate(hits):
        distinct = {term for pos, term in hits[i:] if pos < position + span}
        phrased = sum(1 for start in phrase_starts if position <= start < position + span)
        value = (phrased, len(distinct))
        if value > best_value:
            best_start, best_value = position, value
    if best_value[0] <= 0 and phrase_starts:
        best_start, best_value = min(phrase_starts), (1, 0)
    start = max(0, best_start - width // 6) if best_value[1] >= 0 else 0
    if start > 0:
        space = flat.rfind(" ", 0, start + 1)
        start = space + 1 if space >= 0 else start
    end = min(len(flat), start + width)
    if end < len(flat):
        space = flat.rfind(" ", start, end)
        end = space if space > start else end
    snippet = flat[start:end].strip()
    return ("…" if start > 0 else "") + snippet + ("…" if end < len(flat) else "")
