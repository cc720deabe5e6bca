"""What a question asks for, read without a model: the kind of answer (a person, a place, a
date, a number, a named thing, yes or no), whether it compares things (and which), the
things it names, and whether it describes an unnamed thing through another ("the film that
was shot in Leland", "the city where X was born"): a multi-hop question, whose answer sits
one page away from what the question names. Pure; the research loop uses it to choose
answer-bearing passages and to decide which leads to follow."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Literal

from deepresearch.core.mentions import Mention, mention_key, mentions
from deepresearch.core.text import content_words, words

AnswerType = Literal["person", "place", "date", "number", "entity", "yesno", "unknown"]

# fmt: off
_PERSON_NOUNS = frozenset(
    ["person", "people", "man", "woman", "actor", "actress", "singer", "songwriter",
     "musician", "director", "writer", "author", "poet", "novelist", "composer", "artist",
     "painter", "player", "coach", "politician", "president", "king", "queen", "emperor",
     "empress", "leader", "founder", "inventor", "scientist", "producer", "rapper",
     "drummer", "guitarist", "vocalist", "member", "character", "wife", "husband", "son",
     "daughter", "father", "mother", "brother", "sister", "child", "designer", "architect",
     "philosopher", "journalist", "comedian", "host", "presenter", "model", "athlete",
     "driver", "boxer", "senator", "governor", "mayor", "minister", "general", "pope",
     "saint", "bishop", "monarch", "ruler", "prince", "princess", "chef", "dancer",
     "engineer", "economist", "historian", "physicist", "chemist", "mathematician"]
)
_PLACE_NOUNS = frozenset(
    ["place", "city", "town", "village", "country", "nation", "state", "county", "province",
     "region", "location", "island", "continent", "river", "lake", "mountain", "capital",
     "district", "area", "neighborhood", "neighbourhood", "borough", "territory", "street",
     "venue", "stadium", "arena", "airport", "port", "municipality", "suburb", "valley"]
)
_DATE_NOUNS = frozenset(["year", "date", "day", "month", "century", "decade", "era", "time"])
_NUMBER_NOUNS = frozenset(
    ["number", "population", "amount", "length", "height", "width", "depth", "size", "area",
     "distance", "age", "capacity", "percentage", "percent", "total", "count", "speed",
     "weight", "output", "budget", "revenue", "cost", "price", "salary", "attendance",
     "elevation", "altitude", "duration", "score"]
)
_COMPARATIVES = frozenset(
    ["older", "oldest", "younger", "youngest", "larger", "largest", "bigger", "biggest",
     "smaller", "smallest", "longer", "longest", "shorter", "shortest", "taller", "tallest",
     "higher", "highest", "lower", "lowest", "earlier", "earliest", "later", "latest",
     "first", "more", "most", "less", "least", "fewer", "greater", "faster", "slower",
     "heavier", "lighter", "closer", "farther", "further", "newer", "newest", "same"]
)
_AUXILIARIES = frozenset(
    ["is", "are", "was", "were", "do", "does", "did", "has", "have", "had", "can", "could",
     "will", "would", "should", "shall", "may", "might", "must"]
)
# fmt: on
OPTION_GAP = 24  # characters between a compared name and its "or"/"and"
_WH = re.compile(r"\b(who|whom|whose|when|where|which|what|how)\b", re.I)
_NESTED = re.compile(
    r"\b(?:the|a|an|this|that|its|his|her|their)\s+(?:[\w'’-]+\s+){0,4}?([\w'’-]+)\s+"
    r"(?:that|which|who|whose|whom|where|when)\s+\w+",
    re.I,
)
_PARTICIPLE = re.compile(
    r"\b(?:the|a|an)\s+(?:[\w'’-]+\s+){0,4}?([\w'’-]+)\s+(?:[a-z]+ed|"
    r"born|known|made|built|written|held|shot|run|led|sung|drawn|given|taken|seen|won|"
    r"bought|sold|told|set|begun|grown|thrown|brought|kept|found|hit)\s+"
    r"(?:by|in|on|at|for|from|as)\b",
    re.I,
)


@dataclass(frozen=True)
class QuestionProfile:
    """What ``analyze_question`` read from a question."""

    text: str
    answer_type: AnswerType
    #: the question word that decided the type ("who", "how many", "which actress" ...)
    cue: str = ""
    #: the things it names (names, quoted titles, dates, numbers), in order
    entities: tuple[Mention, ...] = ()
    #: for comparisons and yes/no questions about several things: the things compared
    options: tuple[str, ...] = ()
    comparison: bool = False
    #: describes an unnamed thing through another: the answer is likely a hop away
    nested: bool = False
    #: content words of the question outside its named things (the relation asked about)
    relation: tuple[str, ...] = field(default_factory=tuple)
    #: for a nested question, what kind of thing the unnamed one is ("the man that
    #: resigned" -> person, "the city where" -> place), "entity" when the noun says nothing
    bridge_type: AnswerType | None = None

    @property
    def entity_keys(self) -> frozenset[str]:
        return frozenset(m.key for m in self.entities if m.kind in ("name", "title"))

    def mentions_key(self, key: str) -> bool:
        """Whether the question already names ``key``: all its words are in the question
        ("Directors" in "both film directors"), or it holds all the words of a name the
        question gives ("Herbert Weston Scott Howell III" for "Scott Howell")."""
        wanted = {stem(word) for word in key.split()}
        if not wanted:
            return False
        if wanted <= {stem(word) for word in content_words(self.text)}:
            return True
        return any(
            len(known) >= 2 and known <= wanted
            for known in ({stem(w) for w in k.split()} for k in self.entity_keys)
        )


# (suffix, replacement, letters the stem keeps at least)
_SUFFIXES = (
    ("ations", "", 4),
    ("ation", "", 4),
    ("ies", "y", 3),
    ("ing", "", 4),
    ("ed", "", 4),
    ("s", "", 4),
)


# irregular forms of common verbs, so "wrote" meets "written" and "write"
# fmt: off
_IRREGULAR = {
    "wrote": "write", "written": "write", "sang": "sing", "sung": "sing", "built": "build",
    "made": "make", "won": "win", "led": "lead", "held": "hold", "began": "begin",
    "begun": "begin", "gave": "give", "given": "give", "took": "take", "taken": "take",
    "drew": "draw", "drawn": "draw", "chose": "choose", "chosen": "choose", "spoke": "speak",
    "spoken": "speak", "knew": "know", "known": "know", "grew": "grow", "grown": "grow",
    "fought": "fight", "taught": "teach", "bought": "buy", "sold": "sell", "told": "tell",
    "brought": "bring", "became": "become", "ran": "run", "shot": "shoot", "played": "play",
    "born": "bear", "bore": "bear",
}
# fmt: on


def stem(word: str) -> str:
    """A light stem, enough to match "directors" with "director", "resigned" with
    "resignation" and "wrote" with "written" (a stem keeps four letters at least)."""
    if word in _IRREGULAR:
        return _IRREGULAR[word]
    for suffix, replacement, keep in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= keep and not word.endswith("ss"):
            return word[: -len(suffix)] + replacement
    return word


def analyze_question(question: str) -> QuestionProfile:
    """The answer type, named things, compared options and nesting of ``question``."""
    text = " ".join(question.split())
    named = tuple(mentions(text))
    answer_type, cue = _answer_type(text)
    things = [m for m in named if m.kind in ("name", "title")]
    options = _options(text, answer_type, things)
    comparison = len(options) >= 2
    named_words = {w for m in named for w in words(m.text)}
    head = _described(text)
    relation = tuple(
        dict.fromkeys(
            w
            for w in content_words(text)
            if w not in named_words and w not in _AUXILIARIES and len(w) > 2
        )
    )
    return QuestionProfile(
        text=text,
        answer_type=answer_type,
        cue=cue,
        entities=named,
        options=options,
        comparison=comparison,
        nested=head is not None,
        relation=relation,
        bridge_type=_noun_type(head) if head else None,
    )


def _described(text: str) -> str | None:
    """The noun of the thing a question describes instead of naming ("the film that was
    shot in Leland" -> "film", "an NFL team based in" -> "team"), if it describes one."""
    for pattern in (_NESTED, _PARTICIPLE):
        match = pattern.search(text)
        if match is not None:
            return match.group(1).lower()
    return None


def _noun_type(noun: str) -> AnswerType:
    singular = stem(noun)
    for lexicon, kind in (
        (_PERSON_NOUNS, "person"),
        (_PLACE_NOUNS, "place"),
        (_DATE_NOUNS, "date"),
        (_NUMBER_NOUNS, "number"),
    ):
        if noun in lexicon or singular in lexicon:
            return kind  # type: ignore[return-value]
    return "entity"


def _answer_type(text: str) -> tuple[AnswerType, str]:
    # the sentence that asks: "X has an OBE. Does Y also have one?" asks in the second
    asking = [part for part in re.split(r"(?<=\w{2}[.!?])\s+(?=[A-Z])", text) if part.strip()]
    lowered = (asking[-1] if len(asking) > 1 and _asks(asking[-1]) else text).lower()
    first = words(lowered)[:1]
    match = _WH.search(lowered)
    late = match is None or match.start() > len(text) // 2
    if first and first[0] in _AUXILIARIES and late and (match is None or " or " not in lowered):
        return "yesno", first[0]
    while match is not None and match.group(1) == "how" and not _quantity(lowered, match):
        match = _WH.search(lowered, match.end())  # "How to Eat, released in which year"
    if match is None:
        return "unknown", ""
    wh = match.group(1)
    after = words(lowered[match.end() :])
    if wh in ("who", "whom", "whose"):
        return "person", wh
    if wh == "when":
        return "date", wh
    if wh == "where":
        return "place", wh
    if wh == "how":
        head = after[0]
        return ("date" if head == "long" and "ago" in after else "number"), f"how {head}"
    # which / what: the type comes from the noun asked about ("which actress", "what year",
    # "what was the population", "which of the two tornado outbreaks")
    nouns = [w for w in after[:6] if w not in _AUXILIARIES and w not in ("the", "a", "an", "of")]
    for noun in nouns[:3]:
        singular = noun[:-1] if noun.endswith("s") and len(noun) > 3 else noun
        for lexicon, kind in (
            (_DATE_NOUNS, "date"),
            (_NUMBER_NOUNS, "number"),
            (_PLACE_NOUNS, "place"),
            (_PERSON_NOUNS, "person"),
        ):
            if noun in lexicon or singular in lexicon:
                return kind, f"{wh} {noun}"  # type: ignore[return-value]
    return "entity", wh


_QUANTITY = frozenset(
    ["many", "much", "long", "old", "tall", "far", "big", "large", "high", "deep", "wide",
     "often", "heavy"]
)  # fmt: skip


def _asks(sentence: str) -> bool:
    first = words(sentence)[:1]
    return bool(_WH.search(sentence)) or (bool(first) and first[0] in _AUXILIARIES)


def _quantity(lowered: str, match: re.Match[str]) -> bool:
    after = words(lowered[match.end() :])[:1]
    return bool(after) and after[0] in _QUANTITY


def _options(text: str, answer_type: AnswerType, things: list[Mention]) -> tuple[str, ...]:
    """The things a question compares: the names on both sides of "or" ("Which band was
    formed first, The Exies or Circus Diablo?"), or of "and" when the question compares
    ("which is older", "both", "the same") or asks yes or no ("Are X and Y both film
    directors?"). Nothing when it compares nothing."""
    lowered = f" {text.lower()} "
    comparing = answer_type == "yesno" or any(w in _COMPARATIVES for w in words(lowered))
    comparing = comparing or " both " in lowered or " same " in lowered
    for joiner, needs in ((" or ", False), (" and ", True)):
        if needs and not comparing:
            continue
        for match in re.finditer(re.escape(joiner), text, re.I):
            # "X or Y", "the forming of X or the birth of Y": the nearest names either side
            left = [m for m in things if 0 <= match.start() - m.end <= OPTION_GAP]
            right = [m for m in things if 0 <= m.start - match.end() <= OPTION_GAP]
            if left and right:
                pair = _dedupe([left[-1].text, right[0].text])
                if len(pair) == 2:
                    return tuple(pair)
    if answer_type == "yesno" and len(_dedupe([m.text for m in things])) >= 2:
        return tuple(_dedupe([m.text for m in things])[:2])
    return ()


def _dedupe(items: list[str]) -> list[str]:
    seen: dict[str, str] = {}
    for item in items:
        seen.setdefault(mention_key(item), item)
    return list(seen.values())
