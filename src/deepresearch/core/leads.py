"""Lead following (issue 17): after a wave, the things verified quotes revealed that the
run has not searched yet become the next wave's sub-questions, so a multi-hop question is
followed to its second step with no model at all.

A lead is either a compared thing no quote names yet ("Are X and Y both directors?" with
nothing on Y: search Y), or a bridge: a name or title that a quote about the question
names and the question does not ("the film that was shot in Leland" -> a quote names
"Maximum Overdrive"). Bridges are scored by how they connect to the question: the
relevance of the quotes that name them times one plus the question's words found in and
near them in their sentence ("a network founded by who?" -> "It aired on Cartoon
Network"), more for quoted titles (specific by construction), less for a lone word; a
thing whose page the run already read, or that it already searched, is no lead. The next sub-question is the lead
with the question's words that its quotes did not cover ("Maximum Overdrive directed").
Pure; ``stages/reflect.py`` calls it."""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from deepresearch.core.answers import about, anchors, answer_gaps, names_any, new_things
from deepresearch.core.mentions import Mention, mention_key, mentions, name_role
from deepresearch.core.planning import dedupe_queries, usable_queries
from deepresearch.core.questions import QuestionProfile, stem
from deepresearch.core.reformulate import reformulate
from deepresearch.core.text import content_words, sentence_spans, words
from deepresearch.models import Evidence, SubQuestion

LeadKind = Literal["option", "bridge"]
MAX_EXTRA_TERMS = 4
CONTEXT_WORDS = 8  # words either side of a bridge that say how it connects to the question
TITLE_WEIGHT = 1.5  # a quoted title is a specific thing to look up
SINGLE_WORD_WEIGHT = 0.5  # "Canada", "Director": one word is often a common thing
BRIDGE_TYPE_WEIGHT = 2.0  # the kind of thing the question describes
MIN_QUOTE_SCORE = 0.05


@dataclass(frozen=True)
class Lead:
    """A thing to search next, why, and how strongly it connects to the question."""

    text: str
    key: str
    kind: LeadKind
    score: float
    #: the verified quotes that named it (evidence ids)
    evidence_ids: tuple[str, ...] = ()
    #: the question's words those quotes did not cover: what to ask about the lead
    remaining: tuple[str, ...] = ()


def find_leads(
    profile: QuestionProfile,
    evidence: Sequence[Evidence],
    *,
    titles: Mapping[str, str] | None = None,
    followed: Collection[str] = (),
    searched: Collection[str] = (),
    read_titles: Collection[str] = (),
    read_texts: Sequence[str] = (),
    limit: int = 2,
) -> list[Lead]:
    """At most ``limit`` leads, best first: compared things no quote names, then bridges.
    ``titles``: page titles by source id (a quote is about the question when it or its
    page names the question's things); ``followed``: keys of the leads already followed;
    ``searched``: texts the run already searched (sub-questions and queries: a bridge they
    name is not new); ``read_titles``: titles of the pages it read (their subject is no
    lead: the run has its page); ``read_texts``: their texts (a thing many of them name,
    like "United States", is not specific to the question: its score is divided by how
    many name it)."""
    if limit <= 0:
        return []
    titles = titles or {}
    followed = set(followed)
    done = [*followed, *(mention_key(text) for text in [*searched, *read_titles])]
    verified = [item for item in evidence if item.verified]
    out: list[Lead] = []
    for gap in answer_gaps(profile, verified, titles):
        key = mention_key(gap.subject)
        if gap.kind == "option" and key not in followed:
            out.append(Lead(gap.subject, key, "option", 0.0, remaining=_relation(profile, "")))
    if profile.options:  # a comparison is about the things compared, not what they name
        return out[:limit]
    keys = anchors(profile)
    relation = {stem(word) for word in profile.relation}
    scored: dict[str, tuple[str, float, list[Evidence]]] = {}
    for item in verified:
        if not about(item.quote, titles.get(item.source_id, ""), keys):
            continue  # a quote about something else reveals nothing about the question
        others = mentions(item.quote)
        for mention in new_things(profile, item.quote):
            if _seen(mention.key, done):
                continue
            link = len(_context(item.quote, mention, others) & relation)
            weight = max(item.score, MIN_QUOTE_SCORE) * (1 + link) * _shape(profile, item, mention)
            text, total, items = scored.get(mention.key, (mention.text, 0.0, []))
            if item not in items:
                items.append(item)
            scored[mention.key] = (text, total + weight, items)
    pages = [set(words(text.replace("’", "'"))) for text in read_texts]
    spread = {key: max(sum(1 for p in pages if set(key.split()) <= p), 1) for key in scored}
    ranked = sorted(scored.items(), key=lambda kv: (-kv[1][1] / spread[kv[0]], kv[0]))
    for key, (text, total, items) in ranked:
        covered = " ".join(item.quote for item in items)
        out.append(
            Lead(
                text,
                key,
                "bridge",
                round(total / spread[key], 6),
                tuple(item.id for item in items),
                _relation(profile, covered),
            )
        )
    return out[:limit]


def _shape(profile: QuestionProfile, item: Evidence, mention: Mention) -> float:
    """How much a mention looks like a thing to look up next: a quoted title more, a lone
    word less; twice as much when it is the kind of thing the question describes ("the
    man that resigned" -> a person)."""
    shape = TITLE_WEIGHT if mention.kind == "title" else 1.0
    if mention.kind == "name" and " " not in mention.key:
        shape = SINGLE_WORD_WEIGHT
    kind = profile.bridge_type
    if kind in ("person", "place") and name_role(item.quote, mention) == kind:
        shape *= BRIDGE_TYPE_WEIGHT
    return shape


def _context(text: str, mention: Mention, others: Sequence[Mention]) -> set[str]:
    """Stems of the words of ``mention`` and of the plain words near it in its sentence
    (not those of other names): how it connects to the question ("a network founded by"
    -> "It aired on Cartoon Network")."""
    sentence = next(
        ((start, end) for start, end in sentence_spans(text) if start <= mention.start < end),
        (0, len(text)),
    )
    plain = list(text)
    for other in others:
        if other.start != mention.start:
            plain[other.start : other.end] = " " * (other.end - other.start)
    masked = "".join(plain)
    before = words(masked[sentence[0] : mention.start])[-CONTEXT_WORDS:]
    after = words(masked[mention.end : sentence[1]])[:CONTEXT_WORDS]
    return {stem(word) for word in [*before, *words(mention.text), *after]}


def _seen(key: str, done: Sequence[str]) -> bool:
    """Whether ``key`` was searched or read: some searched text or read title names all
    of its words ("Leland" was read as "Leland, North Carolina"), or it names all of a
    read title's words (two at least)."""
    wanted = set(key.split())
    if not wanted:
        return True
    for other in done:
        have = set(other.split())
        if not have:
            continue
        if wanted <= have or (have <= wanted and len(have) >= 2):
            return True
    return False


def _relation(profile: QuestionProfile, covered: str) -> tuple[str, ...]:
    """The question's relation words (not its named things) that ``covered`` lacks."""
    have = set(content_words(covered))
    return tuple(word for word in profile.relation if word not in have)


def lead_sub_questions(
    leads: Sequence[Lead],
    existing: Sequence[SubQuestion],
    *,
    wave: int,
    per_question: int,
    operators: bool,
) -> list[SubQuestion]:
    """One pending sub-question per lead, numbered after ``existing``: the lead with the
    question's words its quotes did not cover; its queries name the lead first."""
    out: list[SubQuestion] = []
    known = {sq.text.strip().lower() for sq in existing}
    for lead in leads:
        extra = " ".join(lead.remaining[:MAX_EXTRA_TERMS])
        text = f"{lead.text} ({extra})" if extra else lead.text
        if text.lower() in known:
            continue
        known.add(text.lower())
        phrase = f'"{lead.text}"' if operators and " " in lead.text else lead.text
        queries = dedupe_queries(
            [f"{phrase} {extra}".strip(), lead.text, f"{lead.text} {' '.join(lead.remaining)}"]
        )
        out.append(
            SubQuestion(
                id=f"q{len(existing) + len(out) + 1}",
                text=text,
                queries=usable_queries(queries, operators=operators)[: max(per_question, 1)],
                wave=wave + 1,
                lead=lead.text,
            )
        )
    return out


def leads_wanted(*, passed: bool, gaps: bool, shortfall: int, per_lead: int) -> int:
    """How many leads the next wave follows. While the gate does not pass: two when the
    answer has gaps (the best and one more, in case the best is a dead end), else one that
    widens evidence that answers already. And while the run has read fewer sources than its
    depth's floor (``shortfall`` of them missing: a deep run reads widely, gate or not),
    enough leads to read them, a lead's unit reading ``per_lead`` sources: the things the
    verified quotes name are the next pages worth reading on the question."""
    narrow = 0 if passed else (2 if gaps else 1)
    wide = -(-shortfall // max(per_lead, 1)) if shortfall > 0 else 0
    return max(narrow, wide)


def to_widen(
    sub_questions: Sequence[SubQuestion],
    *,
    shortfall: int,
    per_unit: int,
    room: int,
    operators: bool,
    count: int,
) -> list[SubQuestion]:
    """When the leads cannot read the ``shortfall`` of sources a run still misses, covered
    sub-questions (not leads), the least widened first, then in plan order, queued again to
    read further results: the first time with the same queries, whose results beyond those
    read are unread (a unit reads only pages no earlier wave read), then with reformulated
    ones (``core.reformulate``: broaden, narrow, synonyms; ``count`` queries). As many as
    read the shortfall, a unit reading ``per_unit``, at most ``room``."""
    if shortfall <= 0 or room <= 0:
        return []
    wanted = min(-(-shortfall // max(per_unit, 1)), room)
    covered = [sq for sq in sub_questions if sq.status == "covered" and not sq.lead]
    chosen = sorted(covered, key=lambda sq: sq.widened)[:wanted]
    out = []
    for sq in chosen:
        queries = list(sq.queries)
        if sq.widened:
            fresh = reformulate(sq.text, attempt=sq.widened, operators=operators, count=count)
            queries = [q for q in fresh if q not in sq.queries] or fresh
        out.append(
            sq.model_copy(
                update={"status": "pending", "widened": sq.widened + 1, "queries": queries}
            )
        )
    return out


def merge_follow_ups(
    follow_ups: Sequence[SubQuestion], leads: Sequence[SubQuestion], *, room: int
) -> list[SubQuestion]:
    """The model's follow-ups and the leads' sub-questions in one list of at most ``room``:
    a lead the model already follows (a follow-up names it) is dropped; the two kinds are
    interleaved so neither crowds the other out, and ids are renumbered in order."""
    taken = " ".join(f"{sq.text} {' '.join(sq.queries)}" for sq in follow_ups)
    fresh = [sq for sq in leads if not names_any(taken, [mention_key(sq.lead or sq.text)])]
    merged: list[SubQuestion] = []
    for pair in zip(follow_ups, fresh, strict=False):
        merged.extend(pair)
    longer = follow_ups if len(follow_ups) > len(fresh) else fresh
    merged.extend(longer[min(len(follow_ups), len(fresh)) :])
    merged = merged[: max(room, 0)]
    first = min((_number(sq.id) for sq in [*follow_ups, *leads]), default=1)
    return [sq.model_copy(update={"id": f"q{first + i}"}) for i, sq in enumerate(merged)]


def _number(sid: str) -> int:
    digits = sid.lstrip("q")
    return int(digits) if digits.isdigit() else 1
