"""Answer-bearing text: does a passage carry a value of the kind the question asks for (a
person for "who", a date for "when", a number for "how many" ...) that the question does
not already name, and is it about what the question is about? Over a run's verified
evidence: the bridges (things that quotes about the question name and the question does
not: the film that was shot in Leland, the publisher of a first novel) and what is still
missing to answer (a compared thing nobody quoted, no value of the asked kind, or an open
chain: a multi-hop question whose second step was never quoted).

A passage is about the question when it names one of the question's things, or when its
page is: a page's title names its subject ("Kerry Saxby-Junna": every passage of that page
is about her, even "She was born in Young"). Pure."""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from deepresearch.core.mentions import Mention, adjectival, mention_key, mentions, name_role
from deepresearch.core.questions import QuestionProfile, stem
from deepresearch.core.text import words
from deepresearch.models import Evidence

TYPED = ("person", "place", "date", "number", "entity")
GapKind = Literal["option", "answer", "chain"]


def answer_candidates(profile: QuestionProfile, text: str) -> list[Mention]:
    """The mentions in ``text`` of the kind ``profile`` asks for, leaving out what the
    question itself names. Empty when the question asks for no kind of value."""
    if profile.answer_type not in TYPED:
        return []
    question = f" {' '.join(words(profile.text))} "
    out = []
    for mention in mentions(text):
        if not _fits(profile, text, mention):
            continue
        if mention.kind in ("date", "number"):
            if f" {' '.join(words(mention.text))} " in question:
                continue
        elif profile.mentions_key(mention.key):
            continue
        out.append(mention)
    return out


def _fits(profile: QuestionProfile, text: str, mention: Mention) -> bool:
    kind = profile.answer_type
    if kind == "date":
        return mention.kind == "date"
    if kind == "number":
        return mention.kind == "number"
    if mention.kind not in ("name", "title") or adjectival(text, mention):
        return False
    if kind == "entity":
        return True
    if mention.kind == "title":
        return False
    role = name_role(text, mention)
    if kind == "person":
        return role != "place"  # "who" also asks for bands and companies
    return role == "place"


def names_any(text: str, keys: Collection[str]) -> list[str]:
    """The ``keys`` (mention keys) that ``text`` names: every word of the key is in it."""
    have = set(words(text.replace("’", "'")))
    return [key for key in keys if key and set(key.split()) <= have]


def anchors(profile: QuestionProfile, extra: Sequence[str] = ()) -> list[str]:
    """What a passage must name to be about the question: the question's named things and
    ``extra`` ones (a lead the unit follows), as mention keys."""
    keys = [*profile.entity_keys, *(mention_key(item) for item in extra)]
    return [key for key in dict.fromkeys(keys) if key]


_SITE_SUFFIX = re.compile(r"\s+[-|–—]\s+[^-|–—]+$")  # "Cotula - Wikipedia", "X | Britannica"
_QUALIFIER = re.compile(r"\s*\([^()]*\)\s*$")  # "Cotula (plant)", "Gross (surname)"


def own_page(title: str, key: str) -> bool:
    """Whether a page titled ``title`` is the page of the thing ``key`` (a mention key):
    the title, less a site's name after a dash or bar and a qualifier in brackets, is that
    thing word for word, or is it before a comma ("Leland, North Carolina", "Edward
    Stanley, 3rd Earl of Derby"). A page that only names the thing ("Anthemis cotula",
    "United (Marian Gold album)") is about something else."""
    if not key:
        return False
    head = _QUALIFIER.sub("", _SITE_SUFFIX.sub("", title.strip()))
    return key in {mention_key(head), mention_key(head.split(",", 1)[0])}


def own_pages(keys: Collection[str], titles: Collection[str]) -> list[str]:
    """The ``keys`` (mention keys) whose own page (``own_page``) is among ``titles``."""
    return [key for key in keys if any(own_page(title, key) for title in titles)]


def about(text: str, title: str, keys: Collection[str]) -> bool:
    """Whether a passage (``text``, on a page titled ``title``) is about one of ``keys``:
    it names one, or its page's title does. True when there are no keys to be about."""
    return not keys or bool(names_any(text, keys) or names_any(title, keys))


def topicality(text: str, title: str, keys: Collection[str], bridges: Collection[str] = ()) -> int:
    """How much a passage (``text`` on a page titled ``title``) is about ``keys``: one for
    naming one, one more when its page is about one (the title names it, or names one of
    the ``bridges``: the page of a thing the question leads to). 0, 1 or 2."""
    named = bool(names_any(text, keys))
    page = bool(names_any(title, keys) or (bridges and names_any(title, bridges)))
    return int(named) + int(page)


def new_things(profile: QuestionProfile, text: str) -> list[Mention]:
    """Names and titles in ``text`` that the question does not name (nor uses as an
    adjective, like "American"): what a quote adds to the question. A name joined by "of"
    also gives its parts ("CEO of Dunkin' Brands" -> "Dunkin' Brands")."""
    out = []
    for mention in mentions(text):
        if mention.kind not in ("name", "title") or adjectival(text, mention):
            continue
        for part in [mention, *_parts(mention)]:
            if not profile.mentions_key(part.key):
                out.append(part)
    return out


def _parts(mention: Mention) -> list[Mention]:
    pieces = re.split(r"\s+of\s+(?:the\s+)?", mention.text)
    if mention.kind != "name" or len(pieces) < 2:
        return []
    out, offset = [], 0
    for piece in pieces:
        start = mention.text.index(piece, offset)
        offset = start + len(piece)
        if piece[:1].isupper() and mention_key(piece):
            begin = mention.start + start
            out.append(Mention(piece, "name", begin, begin + len(piece), mention_key(piece)))
    return out


def bridges(
    profile: QuestionProfile, evidence: Sequence[Evidence], titles: Mapping[str, str]
) -> dict[str, set[str]]:
    """Things that verified quotes about the question name and the question does not, each
    with the sources whose quotes named it (mention key -> source ids). ``titles``: page
    titles by source id."""
    return {
        key: {item.source_id for item in items}
        for key, items in _bridge_quotes(profile, evidence, titles).items()
    }


def _bridge_quotes(
    profile: QuestionProfile, evidence: Sequence[Evidence], titles: Mapping[str, str]
) -> dict[str, list[Evidence]]:
    keys = anchors(profile)
    found: dict[str, list[Evidence]] = {}
    for item in evidence:
        if item.verified and about(item.quote, titles.get(item.source_id, ""), keys):
            for mention in new_things(profile, item.quote):
                found.setdefault(mention.key, []).append(item)
    return found


@dataclass(frozen=True)
class Gap:
    """Something the verified evidence does not yet show, said plainly in ``detail``."""

    kind: GapKind
    detail: str
    subject: str = ""


def answer_gaps(
    profile: QuestionProfile,
    evidence: Sequence[Evidence],
    titles: Mapping[str, str] | None = None,
) -> list[Gap]:
    """What the verified ``evidence`` still lacks to answer ``profile``'s question
    (``titles``: page titles by source id):

    - a compared thing (``options``) that no quote (nor the title of a quoted page) names;
    - for a question asking for a kind of value, no quote about the question (or about a
      bridge) that carries a value of that kind;
    - for a multi-hop question, an open chain: no quote carrying such a value comes from
      the page of a bridge that a quote from another page named, and speaks to what that
      quote left of the question (``_chained``).
    """
    titles = titles or {}
    verified = [item for item in evidence if item.verified]
    gaps: list[Gap] = []
    for option in profile.options:
        key = [mention_key(option)]
        if not any(about(e.quote, titles.get(e.source_id, ""), key) for e in verified):
            gaps.append(Gap("option", f"no verified quote names {option}", option))
    if profile.answer_type not in TYPED or profile.options:
        return gaps
    found = _bridge_quotes(profile, verified, titles)
    keys = anchors(profile)
    bearing = [item for item in verified if answer_candidates(profile, item.quote)]
    if not any(about(e.quote, titles.get(e.source_id, ""), [*keys, *found]) for e in bearing):
        gaps.append(Gap("answer", f"no verified quote states the {_asked(profile)} asked for"))
    elif profile.nested and not any(_chained(profile, e, found, titles) for e in bearing):
        gaps.append(Gap("chain", "no verified quote follows the question to its second step"))
    return gaps


def _chained(
    profile: QuestionProfile,
    item: Evidence,
    found: Mapping[str, Sequence[Evidence]],
    titles: Mapping[str, str],
) -> bool:
    """``item`` is the second step of a chain: it comes from the page of a bridge that a
    quote from another page named (or, with no title known, names such a bridge), and it
    speaks to what that quote left of the question (one of the question's relation words
    the naming quote lacks: "directed" for a film that a quote about Leland named)."""
    where = titles.get(item.source_id) or item.quote
    said = {stem(word) for word in words(item.quote)}
    for key in names_any(where, list(found)):
        for first in found[key]:
            if first.source_id == item.source_id:
                continue
            left = {stem(w) for w in profile.relation} - {stem(w) for w in words(first.quote)}
            if not left or left & said:
                return True
    return False


def _asked(profile: QuestionProfile) -> str:
    return "name" if profile.answer_type == "entity" else profile.answer_type
