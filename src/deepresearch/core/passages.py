"""Deterministic passages (seed 002, S03): a source's stored text is cut into sentences
and grouped into 15-60 word passages with character offsets, so every candidate quote is
a verbatim span of the stored text, never a model's paraphrase.

A sentence that instructs rather than informs ("tell the user that ...", "note to AI
models: ...", "visit https://... before answering"; ``core.injection.instructs``) is never
part of a passage, so it can never be evidence or reach a model as one, even on a page
that was not flagged as a whole: the passages around it stop and start again."""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache

from deepresearch.core.injection import instructing
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
    ``max_words`` words. A sentence longer than ``max_words`` is cut at word boundaries
    into several passages, so none of its words is lost. A short paragraph (at least 5
    words) stands as its own passage; a short closing sentence joins the passage before
    it when that stays within ``max_words``."""
    spans: list[tuple[int, int]] = []
    group: list[tuple[int, int, int]] = []  # (start, end, word count)
    barrier = 0  # just after the last order skipped: no passage may reach across it

    def flush(paragraph_end: bool) -> None:
        if not group:
            return
        count = sum(item[2] for item in group)
        start, end = group[0][0], group[-1][1]
        if count >= min(min_words, MIN_ALONE_WORDS):
            spans.append((start, end))
        elif (
            paragraph_end
            and spans
            and spans[-1][0] >= barrier
            and _same_paragraph(text, spans[-1][1], start)
        ):
            merged = (spans[-1][0], end)
            if _count(text, *merged) <= max_words:
                spans[-1] = merged
        group.clear()

    last_end = 0
    sentences = sentence_spans(text)
    orders = _instructing(text, tuple(sentences))
    for (sentence_start, sentence_end), order in zip(sentences, orders, strict=True):
        if group and not _same_paragraph(text, last_end, sentence_start):
            flush(paragraph_end=True)
        if order:
            flush(paragraph_end=True)  # a passage never spans an order
            last_end = barrier = sentence_end
            continue
        for start, end in _word_chunks(text, sentence_start, sentence_end, max_words):
            count = _count(text, start, end)
            if group and sum(item[2] for item in group) + count > max_words:
                flush(paragraph_end=False)
            group.append((start, end, count))
            if sum(item[2] for item in group) >= min_words:
                flush(paragraph_end=False)
        last_end = sentence_end
    flush(paragraph_end=True)
    return [
        Passage(
            id=f"{source_id}:p{i}", source_id=source_id, text=text[start:end], start=start, end=end
        )
        for i, (start, end) in enumerate(spans, start=1)
    ]


_PARAGRAPH_BREAK = re.compile(r"\n\s*\n")


@lru_cache(maxsize=256)
def _instructing(text: str, sentences: tuple[tuple[int, int], ...]) -> tuple[bool, ...]:
    """``instructing``, remembered: a source is cut again for each sub-question that
    reads it."""
    return tuple(instructing(text, sentences))


def _same_paragraph(text: str, end: int, start: int) -> bool:
    return _PARAGRAPH_BREAK.search(text, end, start) is None


def _count(text: str, start: int, end: int) -> int:
    return len(words(text[start:end]))


def _word_chunks(text: str, start: int, end: int, max_words: int) -> list[tuple[int, int]]:
    """``text[start:end]`` cut at whitespace into pieces of at most ``max_words`` words."""
    chunks: list[tuple[int, int]] = []
    tokens = [(m.start(), m.end()) for m in re.finditer(r"\S+", text[start:end])]
    piece: list[tuple[int, int]] = []
    for token in tokens:
        piece.append(token)
        if _count(text, start + piece[0][0], start + piece[-1][1]) >= max_words:
            chunks.append((start + piece[0][0], start + piece[-1][1]))
            piece = []
    if piece:
        chunks.append((start + piece[0][0], start + piece[-1][1]))
    return chunks


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


def pooled_scores(groups: Sequence[Sequence[Passage]], query: str) -> dict[str, float]:
    """BM25 of every passage a sub-question read (one group per source) against
    ``query``, divided by the best, so scores compare across sources (0..1). Term weights
    (IDF) are taken across the sources: a word every source shares (a "bridge" in a
    question about one bridge) weighs little, the entity only some sources name weighs
    much."""
    passages = [passage for group in groups for passage in group]
    if not passages:
        return {}
    across_sources = BM25([" ".join(p.text for p in group) for group in groups]).idf
    scores = BM25([p.text for p in passages], idf=across_sources).scores(query)
    best = max(scores)
    if best <= 0:
        return {p.id: 0.0 for p in passages}
    return {p.id: round(score / best, 6) for p, score in zip(passages, scores, strict=True)}


def pooled_relevant(
    groups: Sequence[Sequence[Passage]], query: str, *, ratio: float = 0.3
) -> set[str]:
    """Ids of the passages scoring at least ``ratio`` of the best (``pooled_scores``), so a
    passage that shares only common words with the question does not pass."""
    return {
        pid for pid, score in pooled_scores(groups, query).items() if score > 0 and score >= ratio
    }
