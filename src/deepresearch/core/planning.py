"""Plan rules (seed 003's decomposition): strip numbering, dedupe, prepend the original
question, cap at 8, fall back to the original question; and deterministic query expansion
used when no model writes the queries."""

from __future__ import annotations

import re
from collections.abc import Sequence

from deepresearch.core.mentions import mentions
from deepresearch.core.text import keywords

MAX_SUB_QUESTIONS = 8
_NUMBERING = re.compile(
    r"^\s*(?:(?:q(?:uestion)?\s*)?\d+\s*[.):\-](?!\d)\s*|[-*•]\s+|\(\d+\)\s*)", re.I
)


def strip_numbering(text: str) -> str:
    """ "1. What is X?" -> "What is X?"; also "- ", "* ", "Q2: ", "(3) "."""
    return _NUMBERING.sub("", text, count=1).strip()


def clean_sub_questions(raw: Sequence[str], original: str, *, cap: int) -> list[str]:
    """Seed 003: strip numbered prefixes, drop empties, dedupe (case and space
    insensitive), put the original question first, cap at ``min(cap, 8)``."""
    cap = max(1, min(cap, MAX_SUB_QUESTIONS))
    out: list[str] = []
    seen: set[str] = set()
    for text in [original, *raw]:
        cleaned = " ".join(strip_numbering(text).split())
        key = cleaned.lower().rstrip("?.! ")
        if not cleaned or key in seen:
            continue
        seen.add(key)
        out.append(cleaned)
    return out[:cap] or [original.strip()]


KEYWORD_QUERY_TERMS = 8


def fallback_queries(text: str, *, count: int, operators: bool) -> list[str]:
    """Deterministic search queries for a sub-question: the question as asked, its
    keywords (the first eight, and every word of the names it gives: ``missed_names``),
    and (for providers that understand operators) a quoted key phrase."""
    queries = [" ".join(text.split())]
    terms = keywords(text)
    if terms:
        kept = terms[:KEYWORD_QUERY_TERMS]
        missed = [w for name in missed_names(text, kept) for w in keywords(name)]
        queries.append(" ".join(dict.fromkeys([*kept, *missed])))
    if operators and len(terms) >= 2:
        queries.append(f'"{terms[0]} {terms[1]}" ' + " ".join(terms[2:6]))
    if len(terms) > 3:
        queries.append(" ".join(terms[:4]))
    return dedupe_queries(queries)[: max(1, count)]


def missed_names(text: str, terms: Sequence[str]) -> list[str]:
    """The names and quoted titles of ``text`` with a word that ``terms`` (the keyword
    query) lacks: a long question's keyword query is cut at its first words, and a thing
    it names near its end ("..., the late President was Chiang Kai-shek, who died when?")
    would never be searched by name."""
    have = set(terms)
    out = []
    for mention in mentions(text):
        if mention.kind in ("name", "title") and not set(keywords(mention.text)) <= have:
            out.append(mention.text)
    return list(dict.fromkeys(out))


def dedupe_queries(queries: Sequence[str]) -> list[str]:
    out: list[str] = []
    seen: set[str] = set()
    for query in queries:
        clean = " ".join(query.split())
        if clean and clean.lower() not in seen:
            seen.add(clean.lower())
            out.append(clean)
    return out


_CLAUSE = re.compile(
    r"[?;]\s+|,\s+(?:and|but|or)\s+(?=(?:how|what|why|when|where|who|which|whether|is|are|do|does|did|can)\b)",
    re.I,
)


def fallback_sub_questions(question: str) -> list[str]:
    """Without a model: the question's own clauses, when it asks several things
    ("How does X work, and how does it relate to Y?"). Each clause keeps the question's
    first keywords so that a pronoun like "it" still searches for the right thing."""
    clauses = [part.strip(" ,.?") for part in _CLAUSE.split(question) if part.strip(" ,.?")]
    if len(clauses) < 2:
        return []
    subject = " ".join(keywords(clauses[0])[:3])
    out = [clauses[0] + "?"]
    for clause in clauses[1:]:
        words_in = set(keywords(clause))
        extra = [w for w in keywords(subject) if w not in words_in]
        text = clause[0].upper() + clause[1:]
        out.append(f"{text} ({' '.join(extra)})?" if extra else f"{text}?")
    return out


def usable_queries(queries: Sequence[str], *, operators: bool) -> list[str]:
    """Queries as the provider can take them: search operators (quotes, intitle:, site:,
    -site:) are removed for providers that do not understand them (seed 001), and every
    query is made safe to send (:func:`safe_query`)."""
    safe = [safe_query(query) for query in queries]
    if operators:
        return dedupe_queries(safe)
    return dedupe_queries([strip_operators(query) for query in safe])


MAX_QUERY_CHARS = 256
_URL = re.compile(r"\b(?:[a-z][a-z0-9+.-]*://|www\.)\S+", re.I)
_BLOB = re.compile(r"\S{48,}")


def safe_query(query: str) -> str:
    """A model-written query cleared of what could carry data out of the run (the
    exfiltration path of a page that instructs the model): URLs and long unbroken tokens
    (encoded blobs) are removed and the length is capped at a word boundary."""
    clean = " ".join(_BLOB.sub(" ", _URL.sub(" ", query)).split())
    if len(clean) > MAX_QUERY_CHARS:
        clean = clean[:MAX_QUERY_CHARS].rsplit(" ", 1)[0]
    return clean


_OPERATOR = re.compile(r'(?:-?site:\S+|intitle:|inurl:|filetype:\S+|["()])', re.I)


def strip_operators(query: str) -> str:
    return " ".join(_OPERATOR.sub(" ", query).split())
