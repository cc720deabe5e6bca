"""Small, pure text helpers shared by the cores: tokenizing, stopwords, sentence spans."""

from __future__ import annotations

import re
from collections.abc import Iterable

STOPWORDS = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "been",
        "being",
        "but",
        "by",
        "can",
        "could",
        "did",
        "do",
        "does",
        "for",
        "from",
        "had",
        "has",
        "have",
        "how",
        "i",
        "if",
        "in",
        "into",
        "is",
        "it",
        "its",
        "itself",
        "may",
        "might",
        "more",
        "most",
        "not",
        "of",
        "on",
        "or",
        "our",
        "she",
        "should",
        "so",
        "such",
        "than",
        "that",
        "the",
        "their",
        "them",
        "then",
        "there",
        "these",
        "they",
        "this",
        "those",
        "through",
        "to",
        "too",
        "under",
        "until",
        "up",
        "was",
        "we",
        "were",
        "what",
        "when",
        "where",
        "which",
        "while",
        "who",
        "whom",
        "whose",
        "why",
        "will",
        "with",
        "would",
        "you",
        "your",
        "about",
        "after",
        "again",
        "against",
        "all",
        "also",
        "am",
        "any",
        "because",
        "before",
        "between",
        "both",
        "during",
        "each",
        "few",
        "further",
        "he",
        "her",
        "here",
        "hers",
        "him",
        "his",
        "me",
        "my",
        "no",
        "nor",
        "only",
        "other",
        "out",
        "over",
        "own",
        "same",
        "some",
        "very",
        "just",
        "don",
        "now",
        "ever",
    ]
)

_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)?", re.UNICODE)


def words(text: str) -> list[str]:
    """Lowercased word tokens."""
    return [match.group(0).lower() for match in _WORD.finditer(text)]


def content_words(text: str) -> list[str]:
    """Lowercased word tokens without stopwords."""
    return [word for word in words(text) if word not in STOPWORDS]


def keywords(text: str, *, limit: int = 12) -> list[str]:
    """Distinct content words in order of first appearance."""
    seen: dict[str, None] = {}
    for word in content_words(text):
        if len(word) > 1:
            seen.setdefault(word, None)
    return list(seen)[:limit]


_ABBREVIATIONS = frozenset(
    [
        "mr",
        "mrs",
        "ms",
        "dr",
        "prof",
        "sr",
        "jr",
        "st",
        "vs",
        "etc",
        "e.g",
        "i.e",
        "no",
        "fig",
        "al",
        "inc",
        "ltd",
        "co",
        "corp",
        "u.s",
        "u.k",
        "jan",
        "feb",
        "mar",
        "apr",
        "jun",
        "jul",
        "aug",
        "sep",
        "sept",
        "oct",
        "nov",
        "dec",
        "gen",
        "col",
        "lt",
        "sgt",
        "rev",
        "est",
        "approx",
        "dept",
    ]
)
_SENTENCE_END = re.compile(r"[.!?…]+[\"'”’)\]]*(?=\s+|$)")


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """Character spans of the sentences in ``text``; ``text[start:end]`` is a sentence
    without surrounding whitespace. Paragraph breaks always end a sentence."""
    spans: list[tuple[int, int]] = []
    for para_start, para_end in _paragraph_spans(text):
        start = para_start
        for match in _SENTENCE_END.finditer(text, para_start, para_end):
            end = match.end()
            if _is_abbreviation(text, start, match.start()):
                continue
            nxt = _skip_space(text, end, para_end)
            if nxt < para_end and text[nxt].islower():
                continue
            _append_span(spans, text, start, end)
            start = nxt
        if start < para_end:
            _append_span(spans, text, start, para_end)
    return spans


def _paragraph_spans(text: str) -> Iterable[tuple[int, int]]:
    start = 0
    for match in re.finditer(r"\n\s*\n", text):
        yield start, match.start()
        start = match.end()
    yield start, len(text)


def _is_abbreviation(text: str, start: int, dot: int) -> bool:
    head = text[start:dot].rsplit(None, 1)
    if not head:
        return False
    last = head[-1].lower().rstrip(".")
    if last in _ABBREVIATIONS:
        return True
    # single initials such as "J. R. R. Tolkien" or decimals like "3.5"
    return len(last) == 1 and last.isalpha()


def _skip_space(text: str, pos: int, limit: int) -> int:
    while pos < limit and text[pos].isspace():
        pos += 1
    return pos


def _append_span(spans: list[tuple[int, int]], text: str, start: int, end: int) -> None:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    if end > start:
        spans.append((start, end))


def clip(text: str, limit: int) -> str:
    """Shorten ``text`` (stripped) to at most ``limit`` characters, at a word boundary
    where there is one, ending in "…" when cut."""
    text = text.strip()
    if len(text) <= limit:
        return text
    head = text[: max(limit - 1, 1)]
    if not text[len(head)].isspace():  # the cut falls inside a word: back up to a boundary
        parts = head.rsplit(None, 1)
        if len(parts) > 1:
            head = parts[0]
    return head.rstrip().rstrip(",;:") + "…"
