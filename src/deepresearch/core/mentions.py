"""Mentions of things in plain text, found without a model or a language model library:
names (capitalised spans, "Bank of England", "Tostig Godwinson"), quoted titles
("Maximum Overdrive"), dates and years, and numbers. Each mention keeps its character
span and a normalised ``key`` for comparing mentions across texts.

The rules are deliberately simple and language-agnostic where they can be: a name is a run
of capitalised words (with a few connectors such as "of" or "von" inside), a lone
capitalised word that starts a sentence is not a name (it is capitalised anyway), month and
weekday names are dates, not names. ``name_role`` guesses whether a name is a person, a
place or an organisation from the words in and around it. Pure."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from deepresearch.core.text import STOPWORDS, words

MentionKind = Literal["name", "title", "date", "number"]
Role = Literal["person", "place", "org", "other"]

# fmt: off
MONTHS = (
    "january", "february", "march", "april", "may", "june", "july", "august", "september",
    "october", "november", "december",
)
_WEEKDAYS = frozenset(
    ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
)
_CONNECTORS = frozenset(
    ["of", "de", "del", "della", "da", "di", "van", "von", "der", "den", "du", "la", "le",
     "y", "bin", "ibn", "al", "&"]
)
# capitalised words that open sentences or questions without naming anything
_OPENERS = frozenset(
    ["following", "according", "although", "however", "since", "today", "later", "after",
     "before", "during", "despite", "unlike", "like", "in", "on", "at", "as", "its", "many",
     "several", "some", "other", "another", "born", "located", "known", "also", "yes",
     "name", "list"]
)
_PLACE_WORDS = frozenset(
    ["city", "county", "island", "islands", "river", "lake", "mountain", "mountains",
     "mount", "province", "state", "states", "republic", "kingdom", "district", "bay",
     "valley", "street", "avenue", "park", "region", "sea", "ocean", "peninsula", "coast",
     "village", "town", "borough", "parish", "canton", "prefecture", "territory", "desert",
     "forest", "square", "airport", "station", "bridge", "castle", "palace", "villa",
     "north", "south", "east", "west", "new", "port", "fort", "saint", "st", "lago"]
)
_ORG_WORDS = frozenset(
    ["company", "corporation", "corp", "inc", "ltd", "llc", "group", "university",
     "college", "school", "institute", "records", "band", "party", "club", "fc",
     "association", "society", "council", "committee", "agency", "department", "ministry",
     "bank", "press", "publishing", "publications", "studios", "studio", "network",
     "foundation", "museum", "library", "league", "team", "orchestra", "church", "army",
     "navy", "force", "airlines", "motors", "brewery", "brauerei", "games", "entertainment",
     "media", "magazine", "newspaper", "times", "house", "hospital", "academy", "union"]
)
_ABBREVIATIONS = frozenset(
    ["mr", "mrs", "ms", "dr", "st", "jr", "sr", "mt", "ft", "co", "inc", "ltd", "corp", "vs",
     "no", "gen", "col", "lt", "rev", "prof"]
)
_PERSON_TITLES = frozenset(
    ["mr", "mrs", "ms", "dr", "sir", "dame", "lord", "lady", "king", "queen", "prince",
     "princess", "president", "senator", "saint", "pope", "emperor", "empress", "general",
     "captain", "professor", "prof", "judge", "bishop", "duke", "duchess", "count",
     "countess", "baron", "tsar", "sultan", "chancellor", "governor", "mayor"]
)
_NUMBER_WORDS = frozenset(
    ["two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven",
     "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen",
     "nineteen", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty",
     "ninety", "hundred", "thousand", "million", "billion", "dozen"]
)
# fmt: on

_TOKEN = re.compile(r"[^\W_]+(?:['’.\-][^\W_]+)*(?:\.|(?<=[^\W\d_]{2})['’](?!\w))?|&")
_MONTH_RE = "|".join(m.capitalize() for m in MONTHS)
_ABBR_RE = r"Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sept?|Oct|Nov|Dec"
_DATE = re.compile(
    rf"\b(?:\d{{1,2}}\s+(?:{_MONTH_RE}|(?:{_ABBR_RE})\.?)\s+\d{{3,4}}"  # 2 June 1961
    rf"|(?:{_MONTH_RE}|(?:{_ABBR_RE})\.?)\s+\d{{1,2}}(?:st|nd|rd|th)?,?\s+\d{{3,4}}"  # June 2, 1961
    rf"|(?:{_MONTH_RE})\s+\d{{3,4}}"  # June 1961
    rf"|(?:{_MONTH_RE})\s+\d{{1,2}}(?:st|nd|rd|th)?(?:\s*(?:and|–|-)\s*\d{{1,2}})?"  # March 2 and 3
    r"|\d{1,2}(?:st|nd|rd|th)\s+century"  # 18th century
    r"|\d{4}-\d{2}-\d{2}"  # 2011-03-05
    r"|(?:1\d|20)\d{2}s"  # 1990s
    r"|(?:1\d{3}|20\d{2})(?:\s?[–-]\s?\d{2,4})?)\b"  # 1986, 1711–16
)
_NUMBER = re.compile(
    r"(?<![\w.,])(?:\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)"
    r"(?:\s?%|\s+(?:per ?cent|thousand|million|billion|trillion)\b)?(?![\w])"
    r"|\b(?:" + "|".join(sorted(_NUMBER_WORDS, key=len, reverse=True)) + r")\b",
    re.IGNORECASE,
)
_QUOTED = re.compile(r"[\"“”]([^\"“”\n]{2,120}?)[\"“”]")
_AFTER_PLACE = re.compile(r"\b(?:in|at|from|near)\s+[A-Z][\w.'’-]*(?:\s+[A-Z][\w.'’-]*){0,3},\s*$")
_INITIALS = re.compile(r"(?:[A-Z]\.){1,3}")
_SENTENCE_GAP = re.compile(r"(?:^|[.!?…:;]|\n)[\s\"'“‘(\[]*$")


@dataclass(frozen=True)
class Mention:
    """One mention: the text as written, its kind, its span in the text, and a key (its
    content words, lowercased) that is equal for the same thing written the same way."""

    text: str
    kind: MentionKind
    start: int
    end: int
    key: str


def mention_key(text: str) -> str:
    """The lowercased content words of ``text``, joined by spaces ("The Exies" -> "exies")."""
    return " ".join(w for w in words(text.replace("’", "'")) if w not in STOPWORDS)


def mentions(text: str) -> list[Mention]:
    """Every name, quoted title, date and number in ``text``, in text order. Titles win
    over the names inside them; dates win over the numbers inside them."""
    found: list[Mention] = []
    taken: list[tuple[int, int]] = []

    def add(mention: Mention) -> None:
        if not mention.key or any(s < mention.end and mention.start < e for s, e in taken):
            return
        found.append(mention)
        taken.append((mention.start, mention.end))

    for match in _QUOTED.finditer(text):
        inner = match.group(1).strip().rstrip(",;:")  # "The Humanity Bureau," (US style)
        if inner[:1].isupper() and len(inner.split()) <= 10 and not inner.endswith((".", "!")):
            start = text.index(inner, match.start())
            add(Mention(inner, "title", start, start + len(inner), mention_key(inner)))
    for match in _DATE.finditer(text):
        add(Mention(match.group(0), "date", match.start(), match.end(), match.group(0).lower()))
    for start, end in _name_spans(text):
        add(Mention(text[start:end], "name", start, end, mention_key(text[start:end])))
    for match in _NUMBER.finditer(text):
        raw = match.group(0)
        add(Mention(raw, "number", match.start(), match.end(), raw.lower().replace(",", "")))
    return sorted(found, key=lambda m: m.start)


def _name_spans(text: str) -> Iterable[tuple[int, int]]:
    tokens = [(m.start(), m.end()) for m in _TOKEN.finditer(text)]
    span: list[tuple[int, int]] = []
    for index, (start, end) in enumerate(tokens):
        token = text[start:end].rstrip(".")
        gap = text[tokens[index - 1][1] : start] if index else ""
        if span and gap.strip() not in ("",):
            yield from _close(text, span)
            span = []
        if _capitalised(token) or (span and _connects(text, tokens, index)):
            closes = _ends_sentence(text[start:end])
            end = end - 1 if closes else end
            if text[start:end].endswith(("'s", "’s")):  # "Ezer Weizman's resignation"
                end, closes = end - 2, True
            span.append((start, end))
            if closes:
                yield from _close(text, span)
                span = []
            continue
        yield from _close(text, span)
        span = []
    yield from _close(text, span)


def _ends_sentence(token: str) -> bool:
    """A token with a final period that is not an initial ("J.", "J.K.") or a known
    abbreviation ("Dr.", "St.") ends its sentence, and any name in it."""
    if not token.endswith("."):
        return False
    core = token[:-1]
    return len(core) > 1 and "." not in core and core.lower() not in _ABBREVIATIONS


def _capitalised(token: str) -> bool:
    if not token or not token[0].isupper():
        return False
    lower = token.lower()
    return lower not in MONTHS and lower not in _WEEKDAYS


def _connects(text: str, tokens: list[tuple[int, int]], index: int) -> bool:
    """A connector inside a name ("Bank of England", "Ludwig van Beethoven", "Order of the
    Garter"): a connector (or "the" after one) followed by a capitalised word."""
    word = text[slice(*tokens[index])].lower()
    previous = text[slice(*tokens[index - 1])].lower() if index else ""
    if word not in _CONNECTORS and not (word == "the" and previous in _CONNECTORS):
        return False
    for start, end in tokens[index + 1 : index + 3]:
        token = text[start:end]
        if _capitalised(token):
            return True
        if token.lower() != "the":
            return False
    return False


def _close(text: str, span: list[tuple[int, int]]) -> Iterable[tuple[int, int]]:
    """The name in ``span`` without trailing connectors or a leading opener; a lone
    capitalised word that starts a sentence is not a name."""
    while span and text[slice(*span[-1])].lower() in _CONNECTORS | {"the"}:
        span = span[:-1]
    at_start = bool(span) and _SENTENCE_GAP.search(text[: span[0][0]]) is not None
    while span and _is_opener(text[slice(*span[0])], at_start):
        span = span[1:]
        at_start = False
    if not span:
        return
    if at_start and len(span) == 1 and not text[slice(*span[0])].isupper():
        return
    yield span[0][0], span[-1][1]


def _is_opener(token: str, at_start: bool) -> bool:
    lower = token.lower()
    if lower in STOPWORDS or lower in _CONNECTORS:
        return True
    return at_start and lower in _OPENERS


def name_role(text: str, mention: Mention) -> Role:
    """A guess at what a name is, from its own words and the words around it in ``text``:
    a place ("Columbus, Ohio", "in Leland", "Brunswick County"), an organisation ("Two
    Dollar Radio Records", "University of X"), a person ("by Jack Owens", "Sid Haig (born
    1939)", two or three plain capitalised words), or other."""
    own = words(mention.text)
    before = words(text[max(0, mention.start - 30) : mention.start])[-2:]
    after = text[mention.end : mention.end + 24]
    if set(own) & _ORG_WORDS:
        return "org"
    if set(own) & _PLACE_WORDS or _AFTER_PLACE.search(text[: mention.start]):
        return "place"
    if before[-1:] and before[-1] in ("in", "at", "near", "from") and len(own) <= 3:
        return "place"
    if before[-1:] and before[-1] in _PERSON_TITLES:
        return "person"
    if re.match(r"\s*\((?:born|b\.|c\.|née|\d{3,4}|[A-Z][a-z]+ \d)", after):
        return "person"
    if before[-1:] and before[-1] in ("by", "starring", "with", "and") and 2 <= len(own) <= 4:
        return "person"
    parts = [t for t in mention.text.split() if t.lower() not in _CONNECTORS]
    if 2 <= len(parts) <= 4 and all(
        (t[:1].isupper() and t[1:2].islower()) or _INITIALS.fullmatch(t) for t in parts
    ):
        return "person"
    return "other"


def is_number_word(word: str) -> bool:
    return word.lower() in _NUMBER_WORDS


_DEMONYM_ENDINGS = ("an", "ish", "ese", "ic", "ch", "sh", "i")
_NEXT_WORD = re.compile(r"[\s-]+([a-z][\w'’-]*)")


def adjectival(text: str, mention: Mention) -> bool:
    """A lone capitalised word used as an adjective ("American rock band", "Welsh king",
    "Australian race walker"): a nationality, not a thing to look up."""
    if mention.kind != "name" or " " in mention.text:
        return False
    following = _NEXT_WORD.match(text, mention.end)
    return (
        following is not None
        and following.group(1) not in STOPWORDS
        and mention.text.lower().endswith(_DEMONYM_ENDINGS)
    )
