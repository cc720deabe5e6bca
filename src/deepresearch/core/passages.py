"""Deterministic passages (seed 002, S03): a source's stored text is cut into sentences
and grouped into 15-60 word passages with character offsets, so every candidate quote is
a verbatim span of the stored text, never a model's paraphrase.

A sentence that instructs rather than informs ("tell the user that ...", "note to AI
models: ...", "visit https://... before answering"; ``injection.instructs``) is never
part of a passage, so it can never be evidence or reach a model as one, even on a page
that was not flagged as a whole: the passages around it stop and start again. Neither is
a sentence that is layout (a plain-text table's rules, a row of cells between pipes): a
quote is prose. The one exception is a row of a table of numbers by period
(``core.table_rows``), which states one number for one date as a sentence would: each
such row is a passage of its own, after the prose passages."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache

from deepresearch.core.answers import (
    anchors,
    answer_candidates,
    bridges,
    names_any,
    new_things,
    own_page,
    topicality,
)
from deepresearch.core.described import about_subject, question_subject
from deepresearch.core.lexical import BM25
from deepresearch.core.mentions import mention_key
from deepresearch.core.questions import QuestionProfile, stem
from deepresearch.core.table_rows import quotable_rows
from deepresearch.core.text import sentence_spans, words
from deepresearch.injection import instructing
from deepresearch.models import Evidence, Passage

MIN_WORDS = 15
MAX_WORDS = 60
MIN_ALONE_WORDS = 5


def make_passages(
    source_id: str, text: str, *, min_words: int = MIN_WORDS, max_words: int = MAX_WORDS
) -> list[Passage]:
    """Group consecutive sentences of one paragraph into passages of ``min_words`` to
    ``max_words`` words. A sentence longer than ``max_words`` is cut at word boundaries
    into several passages, so none of its words is lost. A short paragraph (at least 5
    words) stands as its own passage when it is a sentence (it ends like one: a heading or
    a page title is never a quote); a short closing sentence joins the passage before it
    when that stays within ``max_words``."""
    spans: list[tuple[int, int]] = []
    group: list[tuple[int, int, int]] = []  # (start, end, word count)
    barrier = 0  # just after the last order skipped: no passage may reach across it

    def flush(paragraph_end: bool) -> None:
        if not group:
            return
        count = sum(item[2] for item in group)
        start, end = group[0][0], group[-1][1]
        if count >= min_words or (count >= MIN_ALONE_WORDS and _ends_a_sentence(text[start:end])):
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
        if order or _MARKUP.search(text, sentence_start, sentence_end):
            flush(paragraph_end=True)  # a passage never spans an order or a table's markup
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
    # a row of a table of numbers by period is a quote on its own (``core.table_rows``);
    # after the prose passages, so their ids and order are those of a page without one
    rows = quotable_rows(text)
    spans.extend(
        row for row, order in zip(rows, _instructing(text, tuple(rows)), strict=True) if not order
    )
    return [
        Passage(
            id=f"{source_id}:p{i}", source_id=source_id, text=text[start:end], start=start, end=end
        )
        for i, (start, end) in enumerate(spans, start=1)
    ]


_PARAGRAPH_BREAK = re.compile(r"\n\s*\n")
#: layout, not prose: a rule of four or more ``=``, ``-``, ``_``, ``*``, ``~`` or ``+`` (a
#: plain-text table's border, a horizontal line) or a row of three cells between pipes
_MARKUP = re.compile(r"([=\-_*~+])\1{3,}|\|[^|\n]*\|[^|\n]*\|[^|\n]*\|")
#: how a sentence ends: a stop, possibly inside closing quotes or brackets
_SENTENCE_END = re.compile(r"[.!?…。！？][\"'”’»)\]]*\s*$")


def _ends_a_sentence(text: str) -> bool:
    """Whether ``text`` ends like a sentence; headings and titles do not."""
    return bool(_SENTENCE_END.search(text))


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


def pooled_scores(
    groups: Sequence[Sequence[Passage]], query: str, *, titles: Sequence[str] = ()
) -> dict[str, float]:
    """BM25 of every passage a sub-question read (one group per source) against
    ``query``, divided by the best, so scores compare across sources (0..1). Term weights
    (IDF) are taken across the sources: a word every source shares (a "bridge" in a
    question about one bridge) weighs little, the entity only some sources name weighs
    much. With ``titles`` (one per group), each passage is scored with its page's title
    before it: a passage of the page about X is about X even where it says "it", so the
    question's other words decide between that page's passages."""
    passages = [passage for group in groups for passage in group]
    if not passages:
        return {}
    heads = [titles[i] if i < len(titles) else "" for i, group in enumerate(groups) for _ in group]
    group_titles = [titles[i] if i < len(titles) else "" for i in range(len(groups))]
    across_sources = BM25(
        [
            " ".join([head, *(p.text for p in group)])
            for head, group in zip(group_titles, groups, strict=True)
        ]
    ).idf
    texts = [
        f"{head}\n{p.text}" if head else p.text for head, p in zip(heads, passages, strict=True)
    ]
    scores = BM25(texts, idf=across_sources).scores(query)
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


ANSWER_BOOST = 0.5  # a passage carrying a value of the asked kind
ANCHOR_BOOST = 0.5  # a passage about what the question (or the unit's lead) is about
BRIDGE_RELEVANCE = 0.5  # pooled relevance of a passage whose new names count as bridges,
# and of an answer-bearing passage that names nothing of the question


def answer_scores(
    groups: Sequence[Sequence[Passage]],
    query: str,
    profile: QuestionProfile,
    *,
    titles: Sequence[str] = (),
    focus: Sequence[str] = (),
    ratio: float = 0.3,
) -> dict[str, tuple[float, bool]]:
    """Every passage's answer-aware score (0..1, the best is 1) and whether it is relevant
    enough to quote without a model. ``groups``: the passages of each source, ``titles``
    their pages' titles; ``focus``: what the unit follows (a lead).

    The score is the pooled BM25 relevance (``pooled_scores``, each passage read with its
    page's title), raised by half when the passage carries a value of the kind the question
    asks for (``answer_candidates``: a person for "who", a date for "when" ...) and by half
    when it is about what the question is about (``topicality``: it names one of the
    question's things, or its page does, or its page is that of a bridge, a thing that a
    very relevant passage about the question, or any passage of the page of one of its
    things, names; so the second step of a chain counts).

    Relevant: at least ``ratio`` of the best score and about the question (any passage when
    no page read names the question's things), or, outside a lead's unit, carrying a value
    of the asked kind with its words alone very relevant (``BRIDGE_RELEVANCE``). The floor
    is relative, so a long question, whose words no passage mostly covers, still keeps its
    best passages. The chain is kept: the best passage about each compared thing
    (``options``) and about the lead, the best answer-bearing passage, the best passage
    on a bridge's page and (outside a lead's unit) the best passage on the own page of
    each of the question's things (``own_page``) are relevant whenever they score.

    A question that asks to describe or explain (no answer type, nothing compared) is also
    about a passage its own words make very relevant (``BRIDGE_RELEVANCE``), whether or not
    it names the question's things: "in Python" names the setting, not the topic. Either
    way such a passage must be about the question's subject (``core.described``: enough
    of its subject words, one of them a key word), so common words it shares do not make
    it relevant.

    In a unit that follows a lead, what the question is about is the lead: only the lead's
    own page is quoted when the unit read it, and only a page that speaks to the question
    (one of its relation words) gives evidence at all, unless the lead is a compared thing,
    which is read for itself."""
    pooled = pooled_scores(groups, query, titles=titles)
    passages = {p.id: p for group in groups for p in group}
    title = {p.id: (titles[i] if i < len(titles) else "") for i, g in enumerate(groups) for p in g}
    keys = _topic_keys(profile, focus, [*titles, *(p.text for p in passages.values())])
    pool = _Pool(
        profile=profile,
        focus=bool(focus),
        passages=passages,
        title=title,
        keys=keys,
        links=_bridges(profile, pooled, passages, title, keys, focus=bool(focus)),
    )
    raw, admitted = _raw_scores(pool, pooled, _silent(groups, profile, keys, focus=bool(focus)))
    best = max((score for score, _, _ in raw.values()), default=0.0)
    if best <= 0:
        return {pid: (0.0, False) for pid in raw}
    out = {
        pid: (round(score / best, 6), score / best >= ratio and admitted[pid])
        for pid, (score, _, _) in raw.items()
    }
    for levels in _chains(pool, raw):
        found = [pid for pid, level in levels.items() if level > 0 and raw[pid][0] > 0]
        if found:
            top = max(found, key=lambda pid: (levels[pid], raw[pid][0]))
            out[top] = (out[top][0], True)
    return out


@dataclass(frozen=True)
class _Pool:
    """What ``answer_scores`` knows of a unit's passages: the question's profile, whether
    the unit follows a lead, the passages and their pages' titles by id, the keys of what
    the question (or the lead) is about and the bridges' keys."""

    profile: QuestionProfile
    focus: bool
    passages: Mapping[str, Passage]
    title: Mapping[str, str]
    keys: list[str]
    links: set[str]


def _topic_keys(profile: QuestionProfile, focus: Sequence[str], named: Sequence[str]) -> list[str]:
    """The mention keys of what the passages must be about: the lead's in a lead's unit,
    else the question's things that some passage or title (``named``) names."""
    if focus:
        return [key for key in map(mention_key, focus) if key]
    # a thing no page read names says nothing about which passage is on topic ("Native
    # American" read wrongly as a name): only things some passage or title names count
    text = " ".join(named)
    return [key for key in anchors(profile) if names_any(text, [key])]


def _bridges(
    profile: QuestionProfile,
    pooled: Mapping[str, float],
    passages: Mapping[str, Passage],
    title: Mapping[str, str],
    keys: Sequence[str],
    *,
    focus: bool,
) -> set[str]:
    """Bridges (none in a lead's unit): what very relevant passages about the question
    name, and what the pages of the question's own things name anywhere ("The film stars
    Doris Day")."""
    links: set[str] = set()
    for pid, relevance in pooled.items():
        text = passages[pid].text
        strong = relevance >= BRIDGE_RELEVANCE and topicality(text, title[pid], keys)
        if not focus and (strong or names_any(title[pid], keys)):
            links.update(m.key for m in new_things(profile, text))
    return links


def _relation(profile: QuestionProfile, keys: Sequence[str]) -> set[str]:
    """The stems of the question's relation words; none when what the unit is about is
    only compared things (a compared thing is read for itself, whatever it says)."""
    compared = {mention_key(option) for option in profile.options}
    if set(keys) <= compared:
        return set()
    return {stem(word) for word in profile.relation}


def _silent(
    groups: Sequence[Sequence[Passage]],
    profile: QuestionProfile,
    keys: Sequence[str],
    *,
    focus: bool,
) -> set[str]:
    """The passages of the pages a lead's unit read that say nothing of what the question
    asks of the lead ("The Philippines is an archipelagic country ..."): no evidence."""
    relation = _relation(profile, keys)
    return {
        p.id
        for group in groups
        if focus
        and relation
        and not any(relation & {stem(w) for w in words(p.text)} for p in group)
        for p in group
    }


def _raw_scores(
    pool: _Pool, pooled: Mapping[str, float], silent: set[str]
) -> tuple[dict[str, tuple[float, int, bool]], dict[str, bool]]:
    """Each passage's raw score, how much it is about the question, whether it bears an
    answer on topic; and whether it may be quoted without a model (before the floor)."""
    profile, keys, focus = pool.profile, pool.keys, pool.focus
    # a lead's own page (its title names the lead) is where a lead's unit quotes from, when
    # it read one; else passages that name the lead
    own = {pid for pid in pool.passages if focus and names_any(pool.title[pid], keys)}
    # a question that asks to describe or explain ("how do generators work in Python?")
    # is about its words more than its names: the named thing may only be the setting,
    # which the pages that answer need not repeat
    describing = profile.answer_type == "unknown" and not profile.options and not focus
    subject = question_subject(profile, set(pool.title.values())) if describing else None
    raw: dict[str, tuple[float, int, bool]] = {}
    admitted: dict[str, bool] = {}
    for pid, relevance in pooled.items():
        text = pool.passages[pid].text
        if pid in silent:
            raw[pid] = (0.0, 0, False)
            admitted[pid] = False
            continue
        on = topicality(text, pool.title[pid], keys, sorted(pool.links)) if keys or focus else 1
        if describing and relevance >= BRIDGE_RELEVANCE:
            on = max(on, 1)  # about what is described, where its setting goes unnamed
        if subject is not None and not about_subject(subject, text, pool.title[pid]):
            on = 0  # shares words with the question, not its subject (``core.described``)
        carries = bool(answer_candidates(profile, text))
        score = relevance * (1 + ANSWER_BOOST * carries) * (1 + ANCHOR_BOOST * (on > 0))
        raw[pid] = (score, on, carries and on > 0)
        # the words of the question and a value of the asked kind, on a page that names
        # none of its things: the second step of a chain ("a song written by Jack Owens
        # after attending a luau in Laie") -- never in a lead's unit, which has its lead
        alone = carries and relevance >= BRIDGE_RELEVANCE and not focus
        admitted[pid] = (pid in own if own else on > 0) or alone
    return raw, admitted


def _chains(pool: _Pool, raw: Mapping[str, tuple[float, int, bool]]) -> list[dict[str, int]]:
    """The steps of the chain whose best passage is kept whenever it scores, each as a
    level per passage: each compared thing and the lead, an answer, a bridge's page, the
    own page of each of the question's things."""
    keys, title = pool.keys, pool.title
    must = [mention_key(option) for option in pool.profile.options] + (keys if pool.focus else [])
    chains = [
        {pid: topicality(pool.passages[pid].text, title[pid], [key]) for pid in raw} for key in must
    ]
    chains.append({pid: 1 for pid, (_, _, bearing) in raw.items() if bearing})
    # the second step: the best passage on the page of a bridge
    chains.append(
        {pid: 1 for pid in raw if names_any(title[pid], sorted(pool.links - set(keys)))}
        if not pool.focus
        else {}
    )
    # the page of each thing the question names, when the unit read it: its best passage,
    # so that quotes from other pages that only name the thing do not stand in for it
    if not pool.focus:
        chains += [{pid: 1 for pid in raw if own_page(title[pid], key)} for key in keys]
    return chains


def rank_evidence(
    profile: QuestionProfile,
    items: Sequence[Evidence],
    titles: Mapping[str, str],
    must_cover: Sequence[str] = (),
) -> list[Evidence]:
    """Evidence in the order a reader needs it: first the best quote about each of
    ``must_cover`` (the compared things, the leads followed, the question's things whose
    own page was read; a quote from its own page first), so no step of the chain is crowded out; then the answer-bearing quotes (a
    value of the asked kind, about the question or one of its bridges), best first; then
    the rest by score. ``titles``: page titles by source id."""
    ranked = sorted(items, key=lambda item: -item.score)
    chosen: list[Evidence] = []
    for key in dict.fromkeys(mention_key(text) for text in must_cover):
        levels = [(_coverage(e, titles, key), e) for e in ranked]
        best = max((level for level, _ in levels), default=(0, 0, 0))
        pick = next((e for level, e in levels if any(best) and level == best), None)
        if pick is not None and pick not in chosen:
            chosen.append(pick)
    keys = [*anchors(profile), *bridges(profile, items, titles)]
    bearing = [
        e
        for e in ranked
        if e not in chosen
        and answer_candidates(profile, e.quote)
        and (not keys or topicality(e.quote, titles.get(e.source_id, ""), keys))
    ]
    chosen += bearing
    return chosen + [item for item in ranked if item not in chosen]


def _coverage(item: Evidence, titles: Mapping[str, str], key: str) -> tuple[int, int, int]:
    """How well a quote covers ``key``: whether it is from the thing's own page
    (``own_page``: "Cotula", not "Anthemis cotula"), its topicality, then whether its
    page's title names the thing. (0, 0, 0): it does not cover it."""
    title = titles.get(item.source_id, "")
    return (
        int(own_page(title, key)),
        topicality(item.quote, title, [key]),
        int(bool(names_any(title, [key]))),
    )


def choose_evidence(
    profile: QuestionProfile,
    items: Sequence[Evidence],
    titles: Mapping[str, str],
    must_cover: Sequence[str],
    budget: int,
) -> list[Evidence]:
    """A unit's evidence within ``budget``, in ``rank_evidence`` order."""
    return rank_evidence(profile, items, titles, must_cover)[: max(budget, 0)]
