"""Turning evidence into report parts. Pure: the writer stage calls these.

- ``number_sources``: the cited sources, numbered in order of first citation;
- ``extractive_sections``: the no-model report, made only of verified quotes;
- ``limitations``: what the run could not do, said plainly."""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence

from deepresearch.core.gate import GateResult
from deepresearch.models import (
    Evidence,
    Paragraph,
    Section,
    Sentence,
    Source,
    SourceRef,
    SubQuestion,
)

QUOTES_PER_SECTION = 6


def number_sources(
    sentences: Iterable[Sentence], evidence: Mapping[str, Evidence], sources: Mapping[str, Source]
) -> list[SourceRef]:
    refs: dict[str, SourceRef] = {}
    for sentence in sentences:
        for cid in sentence.citations:
            item = evidence.get(cid)
            if item is None or item.source_id in refs or item.source_id not in sources:
                continue
            source = sources[item.source_id]
            refs[source.id] = SourceRef(
                id=source.id,
                number=len(refs) + 1,
                url=source.url,
                title=source.title or source.url,
                domain=source.domain,
            )
    return list(refs.values())


def best_evidence(
    evidence: Sequence[Evidence], limit: int, *, order: Sequence[str] = ()
) -> list[Evidence]:
    """Highest-scoring verified evidence, one per passage, at most ``limit``. ``order``:
    evidence ids to put first, in that order (the chain and the answer-bearing quotes,
    ``core.passages.rank_evidence``)."""
    seen: set[tuple[str, int]] = set()
    out = []
    first = {eid: i for i, eid in enumerate(order)}
    for item in sorted(evidence, key=lambda e: (first.get(e.id, len(first)), -e.score, e.id)):
        key = (item.source_id, item.start)
        if item.verified and key not in seen:
            seen.add(key)
            out.append(item)
    return out[:limit]


def extractive_sections(
    sub_questions: Sequence[SubQuestion],
    evidence: Sequence[Evidence],
    *,
    exclude: Collection[str] = (),
    order: Sequence[str] = (),
) -> list[Section]:
    """One section per sub-question with its best quotes (``order`` first, as in
    ``best_evidence``), one paragraph each, leaving out the evidence ids in ``exclude``
    (already shown as Verified Findings). No quote appears twice."""
    used: set[tuple[str, int]] = {(e.source_id, e.start) for e in evidence if e.id in exclude}
    sections: list[Section] = []
    for sq in sub_questions:
        mine = [e for e in evidence if e.sub_question_id == sq.id]
        picked = [
            e
            for e in best_evidence(mine, QUOTES_PER_SECTION, order=order)
            if (e.source_id, e.start) not in used
        ]
        if not picked:
            continue
        used.update((e.source_id, e.start) for e in picked)
        sections.append(
            Section(
                heading=sq.text,
                paragraphs=[Paragraph(sentences=[_quote_sentence(e)]) for e in picked],
            )
        )
    return sections


def _quote_sentence(item: Evidence) -> Sentence:
    return Sentence(text=f"“{item.quote}”", citations=[item.id])


def limitations(
    *,
    gate: GateResult | None,
    sub_questions: Sequence[SubQuestion],
    sources: Mapping[str, Source],
    model_errors: Sequence[str],
    answered: Collection[str] | None = None,
    open_leads: Sequence[str] = (),
) -> list[str]:
    """What the run could not do. ``answered``: ids of sub-questions with verified
    evidence (else a sub-question's status decides); ``open_leads``: leads the verified
    quotes revealed that the run had no wave or unit left to follow."""
    out = []
    if gate is not None and gate.status != "pass":
        out.append("The evidence did not meet the quality gate: " + "; ".join(gate.reasons) + ".")
    unanswered = [
        sq.text
        for sq in sub_questions
        if (sq.id not in answered if answered is not None else sq.status != "covered")
    ]
    if unanswered:
        out.append("No verified evidence was found for: " + "; ".join(unanswered) + ".")
    unread = [s for s in sources.values() if not s.fetched]
    if unread:
        out.append(f"{len(unread)} source(s) could not be read and were not quoted.")
    if open_leads:
        out.append(
            "Leads found in the evidence but not followed (no research wave or unit left): "
            + "; ".join(open_leads)
            + "."
        )
    if model_errors:
        out.append("Model problems: " + "; ".join(sorted(set(model_errors))[:3]) + ".")
    return out
