"""Does a report sentence say what the passages it cites say? A deterministic check.

No offline entailment model exists here (../shared/design/OFFLINE-MODELS.md), so
:func:`check_support` combines these signals over the sentence's *support set*: the
passage that shares most of its content words, plus at most ``MAX_EXTRA_PASSAGES`` others
that each add ``MIN_EXTRA_GAIN`` of its missing words, figures, months or names.

* **lexical**: the share of the sentence's content words (crudely stemmed, near prefixes
  such as "Libya"/"Libyan" count) found in the support set;
* **numbers**: digits with separators, decimals, percents, "5 million", "3.5bn", written-out
  numbers from two to ninety, "21st". Each must be in the support set, up to the sentence's
  own rounding ("5.2 million" matches 5,213,000). An absent figure means never
  "supported"; one whose neighbouring word is shared by a different figure of the same
  kind ("5 million tonnes" against "80,000 tonnes", "fell to 4.5%" against "fell to 5.4%")
  is a contradiction and makes the sentence "unsupported";
* **dates**: years (1000-2100; "2018–19" is two; ISO dates are read) and month names
  ("December", "Dec. 2") follow the same rules: "approved in December" contradicts
  "approved in November";
* **entities** (:func:`entities`): capitalized spans other than a lone first word; a name
  not wholly in the support set means never "supported";
* **embedding** (optional, any :class:`Embedder`): cosine similarity of the sentence with
  its support set. It moves the lexical bar for "supported" by ``EMBEDDING_WEIGHT`` per
  unit of similarity above or below ``EMBEDDING_PIVOT``.

Verdicts: a contradiction gives "unsupported"; "supported" needs every figure, month and
name found and the lexical share at the bar; "unsupported" is kept for sentences below
``PARTIAL_LEXICAL`` whose figures and names do not all agree; the rest is "partial".

Tuning, on WiCE (349 Wikipedia claims, each with the sentences of the page it cites; the
gate is tests/eval/test_wice_gate.py): each setting was chosen on the even-numbered claims
and checked on the odd-numbered ones, then rounded. ``SUPPORTED_LEXICAL``, the support set
size and the embedding weight maximize the F1 of "supported" (even half 0.68, odd half
0.77-0.78). ``PARTIAL_LEXICAL`` maximizes the recall of "not supported" minus twice the
share of supported claims called "unsupported", since that verdict removes a sentence in
strict audits. Dropped after the same test: IDF weights, truncation stemming, and using
embeddings to rank passages (pointer accuracy fell from 0.878 to 0.861).

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

SUPPORTED_LEXICAL = 0.5
"""Share of the sentence's content words the support set must hold for "supported"."""
PARTIAL_LEXICAL = 0.45
"""Below this share, unless its figures and names all agree, a sentence is "unsupported"."""
EMBEDDING_WEIGHT = 0.25
"""How far one unit of cosine similarity moves the lexical bar for "supported"."""
EMBEDDING_PIVOT = 0.6
"""The cosine similarity that leaves the lexical bar where it is."""
MAX_EXTRA_PASSAGES = 3
"""Passages the support set may add to the best one."""
MIN_EXTRA_GAIN = 2
"""What an extra passage must add: words count 1, a figure, month or whole name 2."""
FACTUAL_MIN_CONTENT_WORDS = 4
"""Without a figure, month or name, a sentence needs this many content words to be factual."""

Verdict = Literal["supported", "partial", "unsupported"]


class Embedder(Protocol):
    """Anything that turns texts into vectors (one per text, same dimension)."""

    def embed(self, texts: Sequence[str]) -> list[list[float]]: ...


class SupportComponents(BaseModel):
    """The signals behind a verdict, 0..1 (embedding: cosine, -1..1). None when the
    sentence has nothing of that kind, or no embedder was given."""

    lexical: float = Field(ge=0.0, le=1.0)
    numbers: float | None = Field(default=None, ge=0.0, le=1.0)
    dates: float | None = Field(default=None, ge=0.0, le=1.0)
    entities: float | None = Field(default=None, ge=0.0, le=1.0)
    embedding: float | None = Field(default=None, ge=-1.0, le=1.0)


class SupportVerdict(BaseModel):
    """How well the cited passages support one sentence. ``best_passage`` and
    ``support_passages`` index the passages given to :func:`check_support`."""

    verdict: Verdict
    score: float = Field(ge=0.0, le=1.0)
    best_passage: int | None = None
    support_passages: list[int] = Field(default_factory=list)
    reasons: list[str] = Field(default_factory=list)
    components: SupportComponents


# -- reading figures, months and names -------------------------------------------------------

# fmt: off
_MONTH_NAMES = (
    "january", "february", "march", "april", "may", "june", "july", "august", "september",
    "october", "november", "december",
)
_SMALL = {
    "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
    "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15,
    "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19, "twenty": 20, "thirty": 30,
    "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90,
}
_CONNECTORS = frozenset(["of", "de", "del", "della", "da", "van", "von", "der", "du", "la", "le"])
# fmt: on
_MONTHS = {name: i + 1 for i, name in enumerate(_MONTH_NAMES)}
_MONTHS |= {name[:3]: number for name, number in _MONTHS.items()} | {"sept": 9}
_SCALES = {"thousand": 1e3, "million": 1e6, "billion": 1e9, "trillion": 1e12, "bn": 1e9, "mn": 1e6}
_NUMBER_WORDS = frozenset([*_SMALL, *_SCALES, "percent", "cent", "percentage", "one"])
_NUMBER = re.compile(
    r"(?<![^\W_])(?<![^\W\d_]-)"  # not glued to a word: "G4", "COVID-19"
    r"(\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|\b(?:"
    + "|".join(sorted(_SMALL, key=len, reverse=True))
    + r")\b)([^\W\d_]*)"  # a suffix: "21st", "1990s", "3.5bn", "10km"
    r"(\s?%|\s+(?:per ?cent|percentage points?|thousand|million|billion|trillion)\b)?",
    re.IGNORECASE,
)
_ISO_DATE = re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b")
_YEAR_RANGE = re.compile(r"\b(1\d|20)(\d\d)(\s?[–-]\s?)(\d\d)\b(?![–-]\d)")
_ABBREVIATED = r"(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sept?|Oct|Nov|Dec)"
_MONTH = re.compile(
    r"\b(January|February|March|April|June|July|August|September|October|November|December)\b"
    rf"|\b{_ABBREVIATED}\b\.?(?=\s*\d)|(?<=\d\s){_ABBREVIATED}\b"
)
_TOKEN = re.compile(r"[^\W_]+(?:['’.][^\W_]+)*")


@dataclass(frozen=True)
class _Number:
    """A figure as written, its value, and the content words on either side of it."""

    text: str
    value: float
    kind: Literal["year", "month", "percent", "plain"]
    tolerance: float
    context: frozenset[str]


@dataclass(frozen=True)
class _Facts:
    """What one text offers: content stems, all word stems, figures and months."""

    stems: frozenset[str]
    tokens: frozenset[str]
    numbers: tuple[_Number, ...]


def _stem(word: str) -> str:
    """A crude, consistent stem: enough to match "released" with "release"."""
    word = word.lower().replace("’", "'").removesuffix("'s")
    for suffix in ("ies", "ied", "ing", "ed", "es", "ly", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            word = word[: -len(suffix)]
            break
    return word[:-1] if word.endswith(("e", "y")) and len(word) > 3 else word


def _is_content(word: str) -> bool:
    return (
        word not in STOPWORDS
        and word not in _NUMBER_WORDS
        and len(word) > 1
        and not word[0].isdigit()
    )


def _facts(text: str) -> _Facts:
    text = _ISO_DATE.sub(lambda m: f"{m[1]} {_month_name(int(m[2]))} {m[3]}", text)
    text = _YEAR_RANGE.sub(lambda m: f"{m[1]}{m[2]}{m[3]}{m[1]}{m[4]}", text)  # 2018–2019
    tokens = words(text)
    return _Facts(
        stems=frozenset(_stem(w) for w in tokens if _is_content(w)),
        tokens=frozenset(_stem(w) for w in tokens),
        numbers=tuple(_numbers(text) + _months(text)),
    )


def _numbers(text: str) -> list[_Number]:
    found: list[_Number] = []
    for match in _NUMBER.finditer(text):
        raw, suffix, scale = match[1], match[2].lower(), (match[3] or "").strip().lower()
        small = _SMALL.get(raw.lower())
        if small is not None and (suffix or scale):
            continue  # "hundreds", "sevenths"
        value = float(small) if small is not None else float(raw.replace(",", ""))
        scale = suffix if suffix in _SCALES else scale
        tolerance = 0.0
        if scale in _SCALES:
            value *= _SCALES[scale]
            tolerance = _last_digit_unit(raw) * _SCALES[scale] / 2
        elif "," in raw and value >= 10_000:  # "260,000" may round 262,000
            tolerance = _last_digit_unit(raw) / 2
        kind: Literal["year", "month", "percent", "plain"] = "plain"
        if scale.startswith(("%", "per", "percentage")):
            kind = "percent"
        elif not scale and suffix in ("", "s") and raw.isdigit() and 1000 <= value <= 2100:
            kind = "year"
        context = _context(text, match.start(), match.end())
        found.append(_Number(match[0].strip(), value, kind, tolerance, context))
    return found


def _months(text: str) -> list[_Number]:
    """Month names ("December", "Dec. 12", "27 Dec"), as figures of kind "month"."""
    return [
        _Number(m[0], _MONTHS[m[0].rstrip(".").lower()], "month", 0.0, _context(text, *m.span()))
        for m in _MONTH.finditer(text)
    ]


def _context(text: str, start: int, end: int) -> frozenset[str]:
    """The content words (stemmed) right before and right after ``text[start:end]``."""
    before = [w for w in words(text[max(0, start - 40) : start]) if _is_content(w)]
    after = [w for w in words(text[end : end + 40])[:3] if _is_content(w)]
    return frozenset(_stem(w) for w in before[-1:] + after[:1])


def _month_name(month: int) -> str:
    return _MONTH_NAMES[month - 1] if 1 <= month <= 12 else str(month)


def _last_digit_unit(raw: str) -> float:
    """Place value of the last significant digit: 1e4 for "260,000", 0.1 for "5.2"."""
    digits = raw.replace(",", "")
    if "." in digits:
        return 10.0 ** -len(digits.split(".", 1)[1])
    return 10.0 ** (len(digits) - len(digits.rstrip("0") or "0"))


def entities(sentence: str) -> list[str]:
    """Capitalized spans ("Media Play News", "Bank of England", "CNN"), without month names
    and without a lone capitalized first word (capitalized anyway)."""
    matches = list(_TOKEN.finditer(sentence))
    tokens = [m[0] for m in matches]
    spans: list[list[str]] = []
    current: list[str] = []
    at_start = True
    for index, token in enumerate(tokens):
        gap = sentence[matches[index - 1].end() : matches[index].start()] if index else ""
        if current and gap.strip() not in ("", ".", "-", "'"):  # "Finally, Germany"
            _close_span(spans, current, at_start)
            current, at_start = [], False
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
    word = tokens[index].lower()
    if word not in _CONNECTORS and (word != "the" or tokens[index - 1].lower() not in _CONNECTORS):
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


# -- the check ------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Claim:
    facts: _Facts
    names: tuple[tuple[str, frozenset[str]], ...]  # each name and its word stems


@dataclass(frozen=True)
class _Cover:
    """What some passages hold of a claim: its stems, name stems and the indexes of its
    figures; and all their own figures, to find contradictions."""

    stems: frozenset[str]
    tokens: frozenset[str]
    numbers: frozenset[int]
    figures: tuple[_Number, ...]


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
    names = []
    for name in entities(sentence):
        stems = frozenset(_stem(w) for w in words(name) if w not in _CONNECTORS | STOPWORDS)
        if stems:
            names.append((name, stems))
    claim = _Claim(_facts(sentence), tuple(names))
    covers = [_cover(claim, _facts(passage)) for passage in passages]
    best = max(range(len(covers)), key=lambda i: (_lexical(claim, covers[i]), -i))
    chosen = _support_set(best, claim, covers)
    similarity = None
    if embedder is not None:
        similarity = _similarity(embedder, sentence, [passages[i] for i in chosen])
    return _judge(claim, _union([covers[i] for i in chosen]), best, chosen, similarity)


def _cover(claim: _Claim, fact: _Facts) -> _Cover:
    return _Cover(
        stems=_soft_found(claim.facts.stems, fact.stems),
        tokens=_soft_found(frozenset().union(*(stems for _, stems in claim.names)), fact.tokens),
        numbers=frozenset(
            i for i, n in enumerate(claim.facts.numbers) if _matched(n, fact.numbers)
        ),
        figures=fact.numbers,
    )


def _soft_found(wanted: frozenset[str], have: frozenset[str]) -> frozenset[str]:
    """The wanted stems in ``have``, exactly or as a near prefix ("libya"/"libyan")."""
    found = set(wanted & have)
    if len(found) == len(wanted):
        return wanted
    prefixes = {h[:k] for h in have for k in range(max(4, len(h) - 3), len(h))}
    for word in wanted - found:
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
        figures=tuple(n for c in covers for n in c.figures),
    )


def _lexical(claim: _Claim, cover: _Cover) -> float:
    wanted = claim.facts.stems
    return len(cover.stems) / len(wanted) if wanted else 0.0


def _units(claim: _Claim, cover: _Cover) -> int:
    """How much of the sentence ``cover`` holds: 1 per word, 2 per figure, month, name."""
    names = sum(1 for _, stems in claim.names if stems <= cover.tokens)
    return len(cover.stems) + 2 * (len(cover.numbers) + names)


def _support_set(best: int, claim: _Claim, covers: list[_Cover]) -> list[int]:
    chosen, union = [best], covers[best]
    for _ in range(MAX_EXTRA_PASSAGES):
        base = _units(claim, union)
        candidates = [
            (_units(claim, _union([union, cover])) - base, -i)
            for i, cover in enumerate(covers)
            if i not in chosen
        ]
        gain, negative = max(candidates, default=(0, 0))
        if gain < MIN_EXTRA_GAIN:
            break
        chosen.append(-negative)
        union = _union([union, covers[-negative]])
    return sorted(chosen)


def _similarity(embedder: Embedder, sentence: str, passages: list[str]) -> float:
    """Cosine of the sentence with the mean direction of its support passages."""
    head, *rest = [_normalized(v) for v in embedder.embed([sentence, *passages])]
    pooled = _normalized([sum(column) for column in zip(*rest, strict=True)])
    return max(-1.0, min(1.0, sum(x * y for x, y in zip(head, pooled, strict=True))))


def _normalized(vector: Sequence[float]) -> list[float]:
    norm = math.sqrt(sum(x * x for x in vector))
    return [x / norm for x in vector] if norm else [0.0 for _ in vector]


def _matched(number: _Number, found: Sequence[_Number]) -> bool:
    tolerance = max(number.tolerance, 1e-9 * abs(number.value))
    return any(
        (number.kind == "percent") == (other.kind == "percent")
        and (number.kind == "month") == (other.kind == "month")
        and abs(other.value - number.value) <= tolerance
        for other in found
    )


def _conflict(number: _Number, found: Sequence[_Number]) -> _Number | None:
    """A different figure of the same kind said of the same thing (a shared neighbour)."""
    return next((o for o in found if o.kind == number.kind and number.context & o.context), None)


def _judge(
    claim: _Claim, union: _Cover, best: int, chosen: list[int], embedding: float | None
) -> SupportVerdict:
    facts = claim.facts
    reasons: list[str] = []
    contradicted = False
    for index, number in enumerate(facts.numbers):
        if index not in union.numbers:
            what = number.kind if number.kind in ("year", "month") else "number"
            other = _conflict(number, union.figures)
            contradicted = contradicted or other is not None
            found = f"contradicts {other.text} in" if other else "not in"
            reasons.append(f"{what} {number.text} {found} the cited passage")
    name_shares = [len(stems & union.tokens) / len(stems) for _, stems in claim.names]
    for (name, _), share in zip(claim.names, name_shares, strict=True):
        if share < 1.0:
            where = "only partly in" if share else "not in"
            reasons.append(f"name {name!r} {where} the cited passage")
    facts_agree = len(union.numbers) == len(facts.numbers)
    facts_agree = facts_agree and all(share == 1.0 for share in name_shares)

    lexical = _lexical(claim, union)
    bar = SUPPORTED_LEXICAL
    if embedding is not None:
        bar -= EMBEDDING_WEIGHT * (embedding - EMBEDDING_PIVOT)
        if embedding < EMBEDDING_PIVOT:
            reasons.append(f"low similarity to the cited passage ({embedding:.2f})")
    if lexical < bar:
        reasons.append(f"only {lexical:.0%} of the sentence's words are in the cited passage")

    verdict: Verdict = "partial"
    if contradicted:
        verdict = "unsupported"
    elif facts_agree and lexical >= bar:
        verdict = "supported"
    elif lexical < PARTIAL_LEXICAL and not (facts_agree and (facts.numbers or claim.names)):
        verdict = "unsupported"

    dates = [i for i, n in enumerate(facts.numbers) if n.kind in ("year", "month")]
    figures = [i for i, n in enumerate(facts.numbers) if n.kind not in ("year", "month")]
    components = SupportComponents(
        lexical=round(lexical, 6),
        numbers=_share([i in union.numbers for i in figures]),
        dates=_share([i in union.numbers for i in dates]),
        entities=round(sum(name_shares) / len(name_shares), 6) if name_shares else None,
        embedding=None if embedding is None else round(embedding, 6),
    )
    return SupportVerdict(
        verdict=verdict,
        score=_score(components, contradicted),
        best_passage=best,
        support_passages=chosen,
        reasons=reasons,
        components=components,
    )


def _share(flags: list[bool]) -> float | None:
    return round(sum(flags) / len(flags), 6) if flags else None


def _score(components: SupportComponents, contradicted: bool) -> float:
    """Mean of the signals present, a quarter of it from the embedding when there is one;
    at most 0.25 for a contradiction."""
    parts = [components.lexical, components.numbers, components.dates, components.entities]
    present = [p for p in parts if p is not None]
    score = sum(present) / len(present)
    if components.embedding is not None:
        score = 0.75 * score + 0.25 * max(components.embedding, 0.0)
    return round(min(score, 0.25) if contradicted else score, 6)


# -- is this sentence a fact? -----------------------------------------------------------------

_TRANSITION = re.compile(
    r"^(in (summary|conclusion|short|sum)|overall|to (summarize|conclude|sum up))\b"
    r"|\b(this (report|section|chapter|article|overview)|the following|let us|let's"
    r"|we (now |will |then |next )?(turn|discuss|examine|explore|look at|review|summarize"
    r"|consider|describe|outline)|as (noted|discussed|mentioned|shown) (above|below|earlier))\b",
    re.IGNORECASE,
)


def is_factual(sentence: str) -> bool:
    """Does ``sentence`` state something checkable (a figure, a name, a claim), rather
    than a heading, a question or talk about the report ("Next, we turn to costs.")?"""
    text = sentence.strip()
    if not text or text.startswith("#") or text.endswith(("?", ":")):
        return False
    facts = _facts(text)
    if _TRANSITION.search(text):
        return bool(facts.numbers)
    content = [w for w in words(text) if w not in STOPWORDS and len(w) > 1]
    if not text.endswith((".", "!", "…", '"', "”", ")", "]")) and len(content) < 6:
        return False  # a heading-like fragment
    return bool(facts.numbers or entities(text)) or len(content) >= FACTUAL_MIN_CONTENT_WORDS


def missing_facts(text: str, passages: Sequence[str]) -> list[str]:
    """The figures, dates, months and names of ``text`` that none of ``passages`` states
    (figures up to ``text``'s own rounding, names by their word stems), as written in
    ``text``. A planned section's sentence or table cell must have none: a stricter rule
    than :func:`check_support`'s, which weighs them with the words around them."""
    offered = [_facts(passage) for passage in passages]
    figures = [number for facts in offered for number in facts.numbers]
    tokens: frozenset[str] = frozenset().union(*(facts.tokens for facts in offered))
    missing = [number.text for number in _facts(text).numbers if not _matched(number, figures)]
    for name in entities(text):
        stems = frozenset(_stem(w) for w in words(name) if w not in _CONNECTORS | STOPWORDS)
        if stems and _soft_found(stems, tokens) != stems:
            missing.append(name)
    return missing
