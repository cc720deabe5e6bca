"""Does a report sentence say what the passages it cites say? A deterministic check.

No offline entailment model exists here, so :func:`check_support` combines four signals
(docs: /work/shared/design/OFFLINE-MODELS.md):

* **lexical**: the share of the sentence's content words (crudely stemmed) found in its
  support set: the best passage plus at most ``MAX_EXTRA_PASSAGES`` others that add
  missing words, numbers or names;
* **numbers**: every figure in the sentence (digits with separators, decimals, percents,
  "5 million", written-out small numbers, "21st", years) must appear in the support set,
  up to the sentence's own rounding; a figure that is absent is never "supported", and one
  that conflicts with a figure of the same kind next to it ("5 million tonnes" against
  "80,000 tonnes", a percent against another percent, a year against another year) is a
  contradiction and makes the sentence "unsupported";
* **dates**: month names and years must appear (a year counts as a date, not a number);
* **entities**: capitalized spans that are not merely the sentence's first word; a name
  none of whose words appear in the support set is never "supported";
* **embedding** (optional): cosine similarity of the sentence and its best passage, from
  any :class:`Embedder`; it helps pick the best passage and gates "supported".

Thresholds were tuned on WiCE (``tests/eval/test_wice_gate.py``, 349 claims with the
sentences of the cited page): grid search over the even-numbered claims maximizing the F1
of "supported", checked on the odd-numbered ones (the two halves agreed within a few
points), then rounded to coarse values. The gate pins the measured figures.

Pure and deterministic: the same input always gives the same verdict.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, Protocol

from pydantic import BaseModel, Field

from deepresearch.core.text import STOPWORDS, words

# -- tuned thresholds (see the module docstring) --------------------------------------------
SUPPORTED_LEXICAL = 0.5
"""Share of the sentence's content words the support set must contain for "supported"."""
PARTIAL_LEXICAL = 0.4
"""Below this share (and with no number, date or name found) a sentence is "unsupported"."""
EMBEDDING_WEIGHT = 0.25
"""With an embedder, the bar for "supported" moves by this much per unit of cosine
similarity (sentence against its support set) away from ``EMBEDDING_PIVOT``."""
EMBEDDING_PIVOT = 0.6
"""The cosine similarity at which the embedding leaves the lexical bar where it is."""
MAX_EXTRA_PASSAGES = 3
"""Passages the support set may add to the best one."""
MIN_EXTRA_GAIN = 2
"""An extra passage must add at least this many sentence words, or a number or name."""
FACTUAL_MIN_CONTENT_WORDS = 4
"""Without a number or a name, a sentence needs this many content words to be factual."""


class Embedder(Protocol):
    """Anything that turns texts into vectors (one per text, same dimension)."""

    def embed(self, texts: Sequence[str]) -> list[list[float]]: ...


Verdict = Literal["supported", "partial", "unsupported"]


class SupportComponents(BaseModel):
    """The signals behind a verdict, each 0..1; None when the sentence has nothing of
    that kind (no numbers, dates or names) or no embedder was given."""

    lexical: float = Field(ge=0.0, le=1.0)
    numbers: float | None = Field(default=None, ge=0.0, le=1.0)
    dates: float | None = Field(default=None, ge=0.0, le=1.0)
    entities: float | None = Field(default=None, ge=0.0, le=1.0)
    embedding: float | None = Field(default=None, ge=-1.0, le=1.0)


class SupportVerdict(BaseModel):
    """How well the cited passages support one sentence."""

    verdict: Verdict
    score: float = Field(ge=0.0, le=1.0)
    best_passage: int | None = None
    support_passages: list[int] = Field(default_factory=list)
    reasons: list[str] = Field(default_factory=list)
    components: SupportComponents


# -- features ---------------------------------------------------------------------------------

_MONTHS = {
    name: index + 1
    for index, names in enumerate(
        [
            ("january", "jan"),
            ("february", "feb"),
            ("march", "mar"),
            ("april", "apr"),
            ("may",),
            ("june", "jun"),
            ("july", "jul"),
            ("august", "aug"),
            ("september", "sep", "sept"),
            ("october", "oct"),
            ("november", "nov"),
            ("december", "dec"),
        ]
    )
    for name in names
}
_MONTH_NAMES = frozenset(name for name in _MONTHS if len(name) > 3 or name == "may")
_SMALL = {
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "eleven": 11,
    "twelve": 12,
    "thirteen": 13,
    "fourteen": 14,
    "fifteen": 15,
    "sixteen": 16,
    "seventeen": 17,
    "eighteen": 18,
    "nineteen": 19,
    "twenty": 20,
    "thirty": 30,
    "forty": 40,
    "fifty": 50,
    "sixty": 60,
    "seventy": 70,
    "eighty": 80,
    "ninety": 90,
}
_SCALES = {
    "thousand": 1e3,
    "million": 1e6,
    "billion": 1e9,
    "trillion": 1e12,
    "bn": 1e9,
    "mn": 1e6,
}
_NUMBER_WORDS = frozenset([*_SMALL, *_SCALES, "percent", "cent", "percentage", "one"])
_PERCENT = ("%", "percent", "per cent", "percentage point")
_ISO_DATE = re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b")
_NUMBER = re.compile(
    r"(?<![^\W_])(?<![^\W\d_]-)"  # not glued to a word: "G4", "COVID-19"
    r"(\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|\b(?:"
    + "|".join(sorted(_SMALL, key=len, reverse=True))
    + r")\b)([^\W\d_]*)"
    r"(\s?%|\s+(?:per ?cent|percentage points?|thousand|million|billion|trillion)\b)?",
    re.IGNORECASE,
)
_YEAR_RANGE = re.compile(r"\b(1\d|20)(\d\d)(\s?[–-]\s?)(\d\d)\b(?![–-]\d)")
_MONTH = re.compile(
    r"\b(January|February|March|April|June|July|August|September|October|November|December)\b"
    r"|\b(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sept?|Oct|Nov|Dec)\b\.?(?=\s*\d)"
    r"|(?<=\d\s)(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sept?|Oct|Nov|Dec)\b"
)
_CONNECTORS = frozenset(["of", "de", "del", "della", "da", "van", "von", "der", "du", "la", "le"])
_TOKEN = re.compile(r"[^\W_]+(?:['’.][^\W_]+)*", re.UNICODE)


@dataclass(frozen=True)
class _Number:
    """A figure as written, its value, and the words around it."""

    text: str
    value: float
    kind: Literal["year", "percent", "plain"]
    tolerance: float
    context: frozenset[str]  # the content words just before and after it


@dataclass(frozen=True)
class _Facts:
    """What a text says that a sentence could be checked against."""

    stems: frozenset[str]
    tokens: frozenset[str]
    numbers: tuple[_Number, ...]
    months: frozenset[int]


@dataclass(frozen=True)
class _Claim:
    facts: _Facts
    names: tuple[tuple[str, frozenset[str]], ...]


@dataclass(frozen=True)
class _Cover:
    """What some passages cover of a claim: its words, name words, figure indexes, months."""

    stems: frozenset[str]
    tokens: frozenset[str]
    numbers: frozenset[int]
    months: frozenset[int]
    figures: tuple[_Number, ...]  # every figure of these passages, for contradictions


def _stem(word: str) -> str:
    """A crude, consistent stem: enough to match "released" with "release"."""
    word = word.lower().replace("’", "'")
    if word.endswith("'s"):
        word = word[:-2]
    for suffix in ("ies", "ied", "ing", "ed", "es", "ly", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            word = word[: -len(suffix)]
            break
    if word.endswith(("e", "y")) and len(word) > 3:
        word = word[:-1]
    return word


def _is_content(word: str) -> bool:
    return (
        word not in STOPWORDS
        and word not in _NUMBER_WORDS
        and len(word) > 1
        and not word[0].isdigit()
    )


def _normalize_dates(text: str) -> str:
    """ "2004-10-19" -> "2004 October 19", "2018–19" -> "2018–2019"."""
    text = _ISO_DATE.sub(lambda m: f"{m.group(1)} {_month_word(m.group(2))} {m.group(3)}", text)
    return _YEAR_RANGE.sub(
        lambda m: f"{m.group(1)}{m.group(2)}{m.group(3)}{m.group(1)}{m.group(4)}", text
    )


def _numbers(text: str) -> list[_Number]:
    found: list[_Number] = []
    for match in _NUMBER.finditer(text):
        raw, suffix, scale = match.group(1), match.group(2).lower(), match.group(3)
        small = _SMALL.get(raw.lower())
        if small is not None and (suffix or scale):
            continue  # "hundreds", "twenty percent" is rare enough to ignore
        value = float(small) if small is not None else float(raw.replace(",", ""))
        scale_word = suffix if suffix in _SCALES else (scale or "").strip().lower()
        percent = scale_word.startswith(_PERCENT)
        tolerance = 0.0
        if scale_word in _SCALES:
            value *= _SCALES[scale_word]
            tolerance = _last_digit_unit(raw) * _SCALES[scale_word] / 2
        elif "," in raw and value >= 10_000:
            tolerance = _last_digit_unit(raw) / 2
        year = not scale_word and suffix in ("", "s") and raw.isdigit() and 1000 <= value <= 2100
        kind: Literal["year", "percent", "plain"] = (
            "year" if year else "percent" if percent else "plain"
        )
        context = _context(text, match.start(), match.end())
        found.append(_Number(match.group(0).strip(), value, kind, tolerance, context))
    return found


def _month_word(number: str) -> str:
    month = int(number)
    names = [name for name, index in _MONTHS.items() if index == month and len(name) > 3]
    return names[0] if names else number


def _last_digit_unit(raw: str) -> float:
    """Place value of the last significant digit: 1e4 for "260,000", 0.1 for "5.2"."""
    digits = raw.replace(",", "")
    if "." in digits:
        return 10.0 ** -len(digits.split(".", 1)[1])
    stripped = digits.rstrip("0") or "0"
    return 10.0 ** (len(digits) - len(stripped))


def _context(text: str, start: int, end: int) -> frozenset[str]:
    before = [w for w in words(text[max(0, start - 40) : start])[-3:] if _is_content(w)]
    after = [w for w in words(text[end : end + 40])[:3] if _is_content(w)]
    return frozenset(_stem(w) for w in before[-1:] + after[:1])


def _months(text: str) -> frozenset[int]:
    """Months named in ``text``: capitalized names, abbreviations and "May" next to a day."""
    return frozenset(_MONTHS[m.group(0).rstrip(".").lower()] for m in _MONTH.finditer(text))


def _facts(text: str) -> _Facts:
    text = _normalize_dates(text)
    tokens = words(text)
    return _Facts(
        stems=frozenset(_stem(w) for w in tokens if _is_content(w)),
        tokens=frozenset(_stem(w) for w in tokens),
        numbers=tuple(_numbers(text)),
        months=_months(text),
    )


def entities(sentence: str) -> list[str]:
    """Capitalized spans ("Media Play News", "Bank of England", "CNN"), without month names
    and without a lone capitalized first word (which is capitalized anyway)."""
    tokens = [m.group(0) for m in _TOKEN.finditer(sentence)]
    spans: list[list[str]] = []
    current: list[str] = []
    at_start = True
    for index, token in enumerate(tokens):
        capital = token[0].isupper() and token.lower() not in _MONTH_NAMES
        if capital or (current and _joins(tokens, index)):
            current.append(token)
            continue
        _close_span(spans, current, at_start)
        current, at_start = [], False
    _close_span(spans, current, at_start)
    return [" ".join(span) for span in spans]


def _joins(tokens: list[str], index: int) -> bool:
    """Is ``tokens[index]`` a connector inside a name ("Bank of England", "Order of the")?"""
    token = tokens[index].lower()
    if token not in _CONNECTORS and not (
        token == "the" and tokens[index - 1].lower() in _CONNECTORS
    ):
        return False
    rest = tokens[index + 1 : index + 3]
    return bool(rest) and (
        rest[0][0].isupper() or (rest[0] == "the" and len(rest) > 1 and rest[1][0].isupper())
    )


def _close_span(spans: list[list[str]], span: list[str], at_start: bool) -> None:
    while span and span[-1].lower() in _CONNECTORS | {"the"}:
        span = span[:-1]
    if at_start and span and span[0].lower() in STOPWORDS:
        span = span[1:]
    elif at_start and len(span) == 1:
        span = []
    if span and not (len(span) == 1 and span[0].lower() in STOPWORDS):
        spans.append(span)


def _claim(sentence: str) -> _Claim:
    facts = _facts(sentence)
    names = tuple((name, tokens) for name in entities(sentence) if (tokens := _name_tokens(name)))
    return _Claim(facts, names)


def _name_tokens(name: str) -> frozenset[str]:
    return frozenset(_stem(w) for w in words(name) if w not in _CONNECTORS and w not in STOPWORDS)


# -- the check ------------------------------------------------------------------------------


def check_support(
    sentence: str, passages: Sequence[str], *, embedder: Embedder | None = None
) -> SupportVerdict:
    """Judge whether ``passages`` (the ones the sentence cites) support ``sentence``."""
    if not passages:
        return SupportVerdict(
            verdict="unsupported",
            score=0.0,
            reasons=["no passage cited"],
            components=SupportComponents(lexical=0.0),
        )
    facts = [_facts(passage) for passage in passages]
    claim = _claim(sentence)
    covers = [_cover(claim, fact) for fact in facts]
    ranking = [_lexical(claim, cover) for cover in covers]
    best = max(range(len(passages)), key=lambda i: (ranking[i], -i))
    chosen = _support_set(best, claim, covers)
    similarity = None
    if embedder is not None:
        head, *rest = _unit_vectors(embedder, [sentence, *(passages[i] for i in chosen)])
        similarity = _dot(head, _normalized([sum(column) for column in zip(*rest, strict=True)]))
    return _judge(claim, _union([covers[i] for i in chosen]), best, chosen, similarity)


def _cover(claim: _Claim, fact: _Facts) -> _Cover:
    wanted_tokens = frozenset().union(*(tokens for _, tokens in claim.names))
    return _Cover(
        stems=_soft_found(claim.facts.stems, fact.stems),
        tokens=_soft_found(wanted_tokens, fact.tokens),
        numbers=frozenset(
            i for i, n in enumerate(claim.facts.numbers) if _matched(n, fact.numbers)
        ),
        months=claim.facts.months & fact.months,
        figures=fact.numbers,
    )


def _soft_found(wanted: frozenset[str], have: frozenset[str]) -> frozenset[str]:
    """The wanted stems in ``have``, exactly or as a near prefix ("Libya"/"Libyan")."""
    found = set(wanted & have)
    rest = wanted - found
    if not rest:
        return frozenset(found)
    prefixes = {h[:k] for h in have for k in range(max(4, len(h) - 3), len(h))}
    for word in rest:
        if word in prefixes or any(
            word[:k] in have for k in range(max(4, len(word) - 3), len(word))
        ):
            found.add(word)
    return frozenset(found)


def _union(covers: Sequence[_Cover]) -> _Cover:
    return _Cover(
        stems=frozenset().union(*(c.stems for c in covers)),
        tokens=frozenset().union(*(c.tokens for c in covers)),
        numbers=frozenset().union(*(c.numbers for c in covers)),
        months=frozenset().union(*(c.months for c in covers)),
        figures=tuple(n for c in covers for n in c.figures),
    )


def _lexical(claim: _Claim, cover: _Cover) -> float:
    wanted = claim.facts.stems
    return len(cover.stems) / len(wanted) if wanted else 1.0


def _units(claim: _Claim, cover: _Cover) -> int:
    """How many of the sentence's words, figures, months and names ``cover`` covers."""
    names = sum(1 for _, tokens in claim.names if tokens <= cover.tokens)
    return len(cover.stems) + 2 * (len(cover.numbers) + len(cover.months) + names)


def _support_set(best: int, claim: _Claim, covers: list[_Cover]) -> list[int]:
    chosen = [best]
    union = covers[best]
    for _ in range(MAX_EXTRA_PASSAGES):
        base = _units(claim, union)
        gain, index = max(
            (
                (_units(claim, _union([union, c])) - base, -i)
                for i, c in enumerate(covers)
                if -i not in [-j for j in chosen]
            ),
            default=(0, 0),
        )
        if gain < MIN_EXTRA_GAIN:
            break
        chosen.append(-index)
        union = _union([union, covers[-index]])
    return sorted(chosen)


def _unit_vectors(embedder: Embedder, texts: Sequence[str]) -> list[list[float]]:
    return [_normalized(vector) for vector in embedder.embed(texts)]


def _normalized(vector: Sequence[float]) -> list[float]:
    norm = math.sqrt(sum(x * x for x in vector))
    return [x / norm for x in vector] if norm else [0.0 for _ in vector]


def _dot(a: Sequence[float], b: Sequence[float]) -> float:
    return sum(x * y for x, y in zip(a, b, strict=True))


def _matched(number: _Number, found: Sequence[_Number]) -> bool:
    for other in found:
        if (number.kind == "percent") != (other.kind == "percent"):
            continue
        tolerance = max(number.tolerance, 1e-9 * abs(number.value))
        if abs(other.value - number.value) <= tolerance:
            return True
    return False


def _conflict(number: _Number, found: Sequence[_Number]) -> _Number | None:
    """A figure of the same kind, said of the same thing, that the sentence's contradicts."""
    for other in found:
        if other.kind == number.kind and number.context & other.context:
            return other
    return None


def _judge(
    claim: _Claim, union: _Cover, best: int, chosen: list[int], similarity: float | None
) -> SupportVerdict:
    reasons: list[str] = []
    facts = claim.facts
    lexical = _lexical(claim, union)
    contradicted = False
    missing = 0
    for index, number in enumerate(facts.numbers):
        if index in union.numbers:
            continue
        missing += 1
        what = "year" if number.kind == "year" else "number"
        other = _conflict(number, union.figures)
        if other is not None:
            contradicted = True
            reasons.append(f"{what} {number.text} contradicts {other.text} in the cited passage")
        else:
            reasons.append(f"{what} {number.text} not in the cited passage")
    for month in sorted(facts.months - union.months):
        missing += 1
        reasons.append(f"month {_month_word(str(month)).title()} not in the cited passage")

    name_scores: list[float] = []
    for name, tokens in claim.names:
        share = len(tokens & union.tokens) / len(tokens)
        name_scores.append(share)
        if share == 0.0:
            reasons.append(f"name {name!r} not in the cited passage")
        elif share < 1.0:
            reasons.append(f"name {name!r} only partly in the cited passage")
    names_ok = all(s == 1.0 for s in name_scores)

    figures = [i for i, n in enumerate(facts.numbers) if n.kind != "year"]
    numbers_score = _share([i in union.numbers for i in figures])
    years = [i for i, n in enumerate(facts.numbers) if n.kind == "year"]
    dates_score = _share(
        [i in union.numbers for i in years] + [m in union.months for m in sorted(facts.months)]
    )
    entities_score = sum(name_scores) / len(name_scores) if name_scores else None
    embedding = None if similarity is None else max(min(similarity, 1.0), -1.0)
    bar = SUPPORTED_LEXICAL
    if embedding is not None:
        bar -= EMBEDDING_WEIGHT * (embedding - EMBEDDING_PIVOT)

    if lexical < bar:
        reasons.append(f"only {lexical:.0%} of the sentence's words are in the cited passage")
    if embedding is not None and embedding < EMBEDDING_PIVOT:
        reasons.append(f"low similarity to the cited passage ({embedding:.2f})")

    parts = [lexical] + [s for s in (numbers_score, dates_score, entities_score) if s is not None]
    score = sum(parts) / len(parts)
    if embedding is not None:
        score = 0.75 * score + 0.25 * max(embedding, 0.0)
    if contradicted:
        score = min(score, 0.25)

    verdict: Verdict
    if contradicted:
        verdict = "unsupported"
    elif (
        missing == 0
        and names_ok
        and lexical >= bar
    ):
        verdict = "supported"
    elif lexical >= PARTIAL_LEXICAL:
        verdict = "partial"
    else:
        verdict = "unsupported"
    return SupportVerdict(
        verdict=verdict,
        score=round(min(max(score, 0.0), 1.0), 6),
        best_passage=best,
        support_passages=chosen,
        reasons=reasons,
        components=SupportComponents(
            lexical=round(lexical, 6),
            numbers=numbers_score,
            dates=dates_score,
            entities=None if entities_score is None else round(entities_score, 6),
            embedding=None if embedding is None else round(embedding, 6),
        ),
    )


def _share(flags: list[bool]) -> float | None:
    return sum(flags) / len(flags) if flags else None


# -- is this sentence a fact? -------------------------------------------------------------------

_META = re.compile(
    r"^(in (summary|conclusion|short|sum|this (section|report|chapter))|overall|to (summarize|"
    r"conclude|sum up)|this (report|section|chapter|overview|summary)|the following|below|"
    r"let us|let's|we (now |will |then )?(turn|discuss|examine|explore|look|review|summarize|"
    r"consider|begin|start|focus|describe|outline)|next,|first,|finally,|as (noted|discussed|"
    r"mentioned|shown) (above|below|earlier))\b",
    re.IGNORECASE,
)


def is_factual(sentence: str) -> bool:
    """Does ``sentence`` state something checkable (a figure, a name, a claim), rather
    than a heading, a question or a transition ("In this section we look at costs.")?"""
    text = sentence.strip()
    if not text or text.startswith("#") or text.endswith(("?", ":")):
        return False
    content = [w for w in words(text) if w not in STOPWORDS and len(w) > 1]
    has_fact = bool(_numbers(text) or _months(text) or entities(text))
    if _META.match(text):
        return has_fact and len(content) >= FACTUAL_MIN_CONTENT_WORDS + 2
    if not text.endswith((".", "!", "…", '"', "”", ")")) and len(content) < 6:
        return False  # heading-like fragment
    return has_fact or len(content) >= FACTUAL_MIN_CONTENT_WORDS
