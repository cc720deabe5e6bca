"""Deterministic passages (seed 002, S03): a source's stored text is cut into sentences
and grouped into 15-60 word passages with character offsets, so every candidate quote is
a verbatim span of the stored text, never a model's paraphrase."""

from __future__ import annotations

from collections.abc import Sequence

from deepresearch.core.lexical import BM25
from deepresearch.core.text import sentence_spans, words
from deepresearch.models import Passage

MIN_WORDS = 15
MAX_WORDS = 60
MIN_ALONE_WORDS = 5


def make_passages(
    source_id: str, text: str, *, min_words: int = MIN_WORDS, max_words: int = MAX_WORDS
) -> list[Passage]:
    """Group consecutive sentences of one paragraph into passages of ``min_words`` to
    ``max_words`` words. A sentence longer than ``max_words`` is cut at a word boundary.
    A short paragraph (at least 5 words) stands as its own passage."""
    passages: list[Passage] = []
    group: list[tuple[int, int, int]] = []  # (start, end, word count)

    def flush() -> None:
        if not group:
            return
        count = sum(item[2] for item in group)
        if count >= min(min_words, MIN_ALONE_WORDS):
            start, end = group[0][0], group[-1][1]
            passages.append(
                Passage(
                    id=f"{source_id}:p{len(passages) + 1}",
                    source_id=source_id,
                    text=text[start:end],
                    start=start,
                    end=end,
                )
            )
        group.clear()

    last_end = 0
    for start, end in sentence_spans(text):
        if group and "\n\n" in text[last_end:start]:
            flush()
        start, end = start, _cut_words(text, start, end, max_words)
        count = len(words(text[start:end]))
        if group and sum(item[2] for item in group) + count > max_words:
            flush()
        group.append((start, end, count))
        last_end = end
        if sum(item[2] for item in group) >= min_words:
            flush()
    flush()
    return passages


def _cut_words(text: str, start: int, end: int, max_words: int) -> int:
    """End offset after at most ``max_words`` whitespace-separated words."""
    seen = 0
    pos = start
    while pos < end:
        while pos < end and text[pos].isspace():
            pos += 1
        if pos >= end:
            break
        seen += 1
        while pos < end and not text[pos].isspace():
            pos += 1
        if seen >= max_words:
            return pos
    return end


def rank_passages(passages: Sequence[Passage], query: str) -> list[Passage]:
    """Passages scored by BM25 against ``query``, best first (ties keep text order)."""
    if not passages:
        return []
    bm25 = BM25([passage.text for passage in passages])
    scored = [
        passage.model_copy(update={"score": round(score, 6)})
        for passage, score in zip(passages, bm25.scores(query), strict=True)
    ]
    order = sorted(range(len(scored)), key=lambda i: (-scored[i].score, i))
    return [scored[i] for i in order]
