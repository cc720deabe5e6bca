"""The claim ledger (seed 004 EvidenceRecord, seed 003 claim scoring). Pure, no model.

Verified evidence becomes atomic claims: records whose claims say the same thing (from
one sub-question or several) merge into one claim supported by several sources. Each
claim carries the evidence that supports it, the evidence that contradicts it, the
uncertainty markers found in its wording and quotes (regex, never a model's judgment),
and seed 003's support strength and confidence (``core.confidence``). The ledger adds the
job confidence over the distinct sources.

Which records contradict each other is an input (pairs of evidence ids), so a model can
decide it; ``detect_contradictions`` is the deterministic detector for the clear cases.
Which records state one claim may be an input too (``groups``: the model's claims, checked
by ``core.model_claims``); the records no group holds are grouped as below.

Thresholds:

- ``GROUP_OVERLAP`` (0.6): two claims are near-duplicates when the Jaccard of their
  normalized content words (lowercased; stopwords, numbers and negations removed; a light
  suffix strip: "'s", "-ing", "-ed", "-es", "-s", a final "e") is at least 0.6 *and*
  they state the same numbers *and* both or neither are negated. Each record is compared
  with the representative of a claim (its highest-scored record), so claims never chain.
- ``SAME_TOPIC_OVERLAP`` (0.7, at least ``MIN_SHARED_TERMS`` = 2 shared words): the
  stricter bar two records must clear, from different sources, before the detector
  calls them contradictory.
- ``DEFAULT_SOURCE_SCORE`` (0.5): the composite score of a source with no score.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from deepresearch.core.certainty import band
from deepresearch.core.confidence import (
    claim_confidence,
    clamp,
    job_confidence,
    support_strength,
)
from deepresearch.core.text import content_words
from deepresearch.models import Evidence
from deepresearch.models.claims import Claim, ClaimLedger

GROUP_OVERLAP = 0.6
SAME_TOPIC_OVERLAP = 0.7
MIN_SHARED_TERMS = 2
DEFAULT_SOURCE_SCORE = 0.5

_NUMBER_AHEAD = r"(?=\s+[~$€£]?\d)"
_HEDGES = (
    r"it\s+is\s+unclear",
    r"it['’]s\s+unclear",
    r"unclear",
    r"according\s+to",
    r"reportedly",
    r"allegedly",
    r"purportedly",
    r"supposedly",
    r"unconfirmed",
    r"unverified",
    r"estimated",
    r"approximately",
    r"roughly",
    r"about" + _NUMBER_AHEAD,
    r"around" + _NUMBER_AHEAD,
    r"(?-i:may)",
    r"might",
    r"could",
    r"possibly",
    r"perhaps",
    r"disputed",
    r"claimed",
    r"rumou?red",
    r"preliminary",
)
UNCERTAINTY = re.compile(r"\b(?:" + "|".join(_HEDGES) + r")\b", re.IGNORECASE)
"""Hedges that mark a statement as uncertain, matched as whole words, case-insensitively:
"it is unclear" / "unclear", "according to", "reportedly", "allegedly", "purportedly",
"supposedly", "unconfirmed", "unverified", "estimated", "approximately", "roughly",
"about" and "around" (only before a number: "about 300", not "a book about Paris"),
"may" (lowercase only, so the month "May" is not a hedge; "mayor" never matches),
"might", "could", "possibly", "perhaps", "disputed", "claimed", "rumored" / "rumoured",
"preliminary"."""

_APPROXIMATE = re.compile(
    r"\b(?:about|around|approximately|roughly|estimated|nearly|almost|over|under|"
    r"(?:more|less|fewer)\s+than|at\s+(?:least|most)|up\s+to)\b",
    re.IGNORECASE,
)
_MODAL = re.compile(r"\b(?:may|might|could|possibly|perhaps)\b", re.IGNORECASE)
_NEGATION = re.compile(
    r"\b(?:not(?!\s+only\b)|never|no\s+longer|cannot)\b|\b[^\W_]+n['’]t\b", re.IGNORECASE
)
_NUMBER = re.compile(r"(?<![\w.,])\d+(?:,\d{3})*(?:\.\d+)?(?!\w)")
_NEGATION_WORDS = frozenset(["never", "cannot", "longer"])


def uncertainty_markers(text: str) -> list[str]:
    """The distinct hedges in ``text`` (lowercased, single-spaced), in order of appearance."""
    found: dict[str, None] = {}
    for match in UNCERTAINTY.finditer(text):
        found.setdefault(" ".join(match.group(0).lower().replace("’", "'").split()), None)
    return list(found)


@dataclass(frozen=True)
class _Features:
    terms: frozenset[str]
    numbers: frozenset[float]
    negated: bool


def _features(text: str) -> _Features:
    terms = frozenset(
        _stem(word)
        for word in content_words(text)
        if not word.isdigit() and word not in _NEGATION_WORDS and not _is_contraction(word)
    )
    numbers = frozenset(float(m.group(0).replace(",", "")) for m in _NUMBER.finditer(text))
    return _Features(terms, numbers, _NEGATION.search(text) is not None)


def _is_contraction(word: str) -> bool:
    return word.endswith(("n't", "n’t"))


def _stem(word: str) -> str:
    """A light suffix strip, so "completed" / "complete" and "tower's" / "towers" meet."""
    if word.endswith(("'s", "’s")):
        word = word[:-2]
    for suffix in ("ing", "ed", "es", "s"):
        if word.endswith(suffix) and not word.endswith("ss") and len(word) - len(suffix) >= 3:
            word = word[: -len(suffix)]
            break
    if len(word) > 3 and word.endswith("e"):
        word = word[:-1]
    return word


def _jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    union = a | b
    return len(a & b) / len(union) if union else 0.0


@dataclass
class _Group:
    features: _Features
    members: list[Evidence] = field(default_factory=list)
    text: str | None = None  # the claim's wording, when given (else its best record's)


def build_ledger(
    evidence: Sequence[Evidence],
    source_scores: Mapping[str, float],
    *,
    contradictions: Sequence[tuple[str, str]] = (),
    groups: Sequence[tuple[str, Sequence[str]]] = (),
    max_sources: int | None = None,
) -> ClaimLedger:
    """Group ``evidence`` into claims and score them.

    ``max_sources``: the sources a claim keeps at most (seed 004's cap on sources per
    claim), those of its best-scored records first; its support and confidence are
    reckoned from those it keeps. None: every source.

    ``groups`` are claims decided elsewhere, each its wording and the ids of the evidence
    that states it: each becomes a claim with that wording (ids not in ``evidence``, or
    already in an earlier group, are ignored; a group left empty is skipped). The other
    records are grouped by their overlap.

    ``source_scores`` maps a source id to its composite score (0..1, clamped; a missing
    source counts ``DEFAULT_SOURCE_SCORE``). ``contradictions`` are pairs of evidence ids
    that contradict each other (pairs naming unknown ids are ignored); both records'
    claims are flagged, and the two are never merged into one claim. A repeated evidence
    id is counted once. Claims are ordered by their first record in ``evidence``."""
    by_id: dict[str, Evidence] = {}
    for record in evidence:
        by_id.setdefault(record.id, record)
    records = list(by_id.values())
    order = {record.id: index for index, record in enumerate(records)}
    against: dict[str, set[str]] = {}
    for a, b in contradictions:
        if a != b and a in by_id and b in by_id:
            against.setdefault(a, set()).add(b)
            against.setdefault(b, set()).add(a)

    preset: list[_Group] = []
    taken: set[str] = set()
    for text, ids in groups:
        members: list[Evidence] = []
        for eid in dict.fromkeys(ids):
            opposed = against.get(eid, set())
            # a record that contradicts one already in the claim is left to the others
            if eid in by_id and eid not in taken and not any(m.id in opposed for m in members):
                members.append(by_id[eid])
        if members:
            taken.update(m.id for m in members)
            members.sort(key=lambda m: (-m.score, order[m.id]))
            preset.append(_Group(_features(text), members, text=text))
    rest = [record for record in records if record.id not in taken]
    grouped = preset + _group(rest, against)
    grouped.sort(key=lambda group: min(order[m.id] for m in group.members))
    context = _Context(
        by_id=by_id,
        order=order,
        against=against,
        claim_ids={m.id: f"c{n}" for n, g in enumerate(grouped, 1) for m in g.members},
        source_scores=source_scores,
        max_sources=max_sources,
    )
    claims = [
        _claim(f"c{n}", group.members, context, text=group.text)
        for n, group in enumerate(grouped, 1)
    ]
    sources = {record.source_id for record in records}
    confidence = job_confidence([claim.confidence for claim in claims], len(sources))
    return ClaimLedger(
        claims=claims,
        job_confidence=confidence,
        certainty=band(confidence),
        claim_count=len(claims),
        source_count=len(sources),
        has_contradictions=any(claim.contradiction for claim in claims),
    )


def _group(records: Sequence[Evidence], against: Mapping[str, set[str]]) -> list[_Group]:
    """Greedy, highest score first: a record joins the claim whose representative it
    overlaps most (at least ``GROUP_OVERLAP``), or starts a new one."""
    groups: list[_Group] = []
    ranked = sorted(enumerate(records), key=lambda item: (-item[1].score, item[0]))
    for _, record in ranked:
        features = _features(record.claim)
        opposed = against.get(record.id, set())
        best: _Group | None = None
        best_overlap = GROUP_OVERLAP
        for group in groups:
            if (
                group.features.numbers != features.numbers
                or group.features.negated != features.negated
                or any(m.id in opposed for m in group.members)
            ):
                continue
            overlap = _jaccard(group.features.terms, features.terms)
            if overlap >= best_overlap and (best is None or overlap > best_overlap):
                best, best_overlap = group, overlap
        if best is None:
            best = _Group(features)
            groups.append(best)
        best.members.append(record)
    return groups


@dataclass(frozen=True)
class _Context:
    by_id: Mapping[str, Evidence]
    order: Mapping[str, int]
    against: Mapping[str, set[str]]
    claim_ids: Mapping[str, str]
    source_scores: Mapping[str, float]
    max_sources: int | None = None


def _claim(
    claim_id: str, members: Sequence[Evidence], context: _Context, *, text: str | None = None
) -> Claim:
    head = members[0]
    source_ids = _distinct(m.source_id for m in members)[: context.max_sources]
    urls = {m.source_id: m.source_url for m in reversed(members)}
    opposed = sorted(
        {other for m in members for other in context.against.get(m.id, ())},
        key=context.order.__getitem__,
    )
    opposing_sources = {context.by_id[other].source_id for other in opposed}
    scores = [clamp(context.source_scores.get(s, DEFAULT_SOURCE_SCORE)) for s in source_ids]
    strength = support_strength(scores)
    return Claim(
        id=claim_id,
        text=head.claim if text is None else text,
        sub_question_id=head.sub_question_id,
        sub_question_ids=_distinct(m.sub_question_id for m in members),
        supporting=[m.id for m in members],
        contradicting=opposed,
        contradicting_claims=_distinct(context.claim_ids[other] for other in opposed),
        source_ids=source_ids,
        source_urls=[urls[s] for s in source_ids],
        support_strength=strength,
        confidence=claim_confidence(strength, len(source_ids), len(opposing_sources)),
        contradiction=bool(opposed),
        uncertainty=_distinct(
            marker
            for m in members
            for text in (m.claim, m.quote)
            for marker in uncertainty_markers(text)
        ),
    )


def _distinct(items: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(items))


def detect_contradictions(evidence: Sequence[Evidence]) -> list[tuple[str, str]]:
    """Pairs of evidence ids whose claims clearly contradict each other; precision over
    recall. Two records from different sources, about the same thing (content words,
    numbers and negations aside, overlap by at least ``SAME_TOPIC_OVERLAP`` with at least
    ``MIN_SHARED_TERMS`` shared words), contradict when:

    - both or neither are negated, they agree on every number but one, and that one
      differs ("completed in 1889" / "completed in 1887"; years are compared only with
      years); skipped when either gives an approximate number ("about", "over",
      "more than", "nearly", ...);
    - they state the same numbers and exactly one of them is negated ("is not",
      "was never", "did not", "no longer", "cannot", "-n't"; "not only" is no negation);
      skipped when either is hedged with "may", "might", "could", "possibly", "perhaps".

    Each pair is ``(earlier id, later id)`` in input order, each reported once."""
    seen: dict[str, Evidence] = {}
    for record in evidence:
        seen.setdefault(record.id, record)
    records = list(seen.values())
    features = [_features(record.claim) for record in records]
    pairs: list[tuple[str, str]] = []
    for i, first in enumerate(records):
        for j in range(i + 1, len(records)):
            second = records[j]
            if first.source_id == second.source_id:
                continue
            if _contradict(first.claim, features[i], second.claim, features[j]):
                pairs.append((first.id, second.id))
    return pairs


def _contradict(text_a: str, a: _Features, text_b: str, b: _Features) -> bool:
    if len(a.terms & b.terms) < MIN_SHARED_TERMS or _jaccard(a.terms, b.terms) < SAME_TOPIC_OVERLAP:
        return False
    if a.negated == b.negated:
        return _one_number_differs(a.numbers, b.numbers) and not any(
            _APPROXIMATE.search(text) for text in (text_a, text_b)
        )
    return a.numbers == b.numbers and not any(_MODAL.search(text) for text in (text_a, text_b))


def _one_number_differs(a: frozenset[float], b: frozenset[float]) -> bool:
    only_a, only_b = a - b, b - a
    if len(only_a) != 1 or len(only_b) != 1:
        return False
    return _is_year(next(iter(only_a))) == _is_year(next(iter(only_b)))


def _is_year(number: float) -> bool:
    return number.is_integer() and 1000 <= number <= 2100
