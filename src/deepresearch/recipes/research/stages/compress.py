"""Per-source summaries and evidence (seed 001's compressor, seed 002's evidence rules).

For each source a sub-question reads, the summarizer model gets the sub-question and the
source's best passages (each a verbatim span of the stored text) and answers with a short
summary and the passages that support facts, each with the claim it supports. Quotes are
the passages themselves, never the model's words, and are verified before they count.
When the model is missing or fails, the raw passages pass through: the candidates the
research unit found relevant (``core.passages.answer_scores``), best first, become the
evidence and the summary; the claim is the quote itself."""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel, Field

from deepresearch.context import RunContext
from deepresearch.core.table_rows import in_context
from deepresearch.core.text import clip
from deepresearch.core.verify import verify_quote
from deepresearch.injection.untrusted import DATA_RULE, block_of_blocks, data_block
from deepresearch.models import Evidence, Passage, Source, SubQuestion

STAGE = "research"
CANDIDATES_PER_SOURCE = 8
SUMMARY_TIMEOUT_S = 45.0  # seed 001: summarization times out at 45 s, then raw passages pass

SYSTEM = f"""You read one source for a research sub-question. {DATA_RULE}
Summarize what the source says that bears on the sub-question (at most 4 sentences, only
what the source states). Then list the passages that support specific facts relevant to the
sub-question, by their id, each with the claim it supports, stated in one plain sentence.
Choose only passages that actually state the fact. If nothing is relevant, set relevant to
false and list no evidence."""


class EvidencePick(BaseModel):
    passage: str = Field(description="a passage id such as P3")
    claim: str


class SourceDigest(BaseModel):
    relevant: bool = True
    summary: str = ""
    evidence: list[EvidencePick] = Field(default_factory=list)


async def digest_source(
    ctx: RunContext,
    source: Source,
    sub_question: SubQuestion,
    question: str,
    *,
    candidates: Sequence[Passage],
    fallback_ids: set[str],
    max_evidence: int,
) -> tuple[str | None, list[Evidence]]:
    """The source's summary (None when it had nothing) and its verified evidence.
    ``candidates`` are its best passages; ``fallback_ids`` the ones relevant enough to
    pass through as evidence when the model is missing or fails."""
    if not candidates:
        return None, []
    labels = {f"P{i}": passage for i, passage in enumerate(candidates, start=1)}
    digest = None
    if ctx.gateway.has_model("summarizer"):
        # a table's row is shown under its header (what its numbers are); its quote is
        # the row alone
        blocks = [
            data_block("passage", in_context(source.text, p.start, p.text), id=label)
            for label, p in labels.items()
        ]
        user = f"Research question: {question}\nSub-question: {sub_question.text}\n\n" + (
            block_of_blocks("source", blocks, title=clip(source.title, 120), url=source.url)
        )
        digest = await ctx.gateway.structured(
            "summarizer",
            SourceDigest,
            system=SYSTEM,
            user=user,
            stage="summarize",
            timeout_s=min(SUMMARY_TIMEOUT_S, ctx.models.model_timeout_s),
        )
    if digest is not None:
        picks = [
            (labels[pick.passage.strip()], pick.claim)
            for pick in digest.evidence
            if pick.passage.strip() in labels and pick.claim.strip()
        ]
        summary = digest.summary.strip() if digest.relevant else ""
    else:
        picks = [(p, p.text) for p in candidates if p.id in fallback_ids]
        summary = " ".join(p.text for p, _ in picks[:2])
    evidence = _to_evidence(source, sub_question, picks[:max_evidence])
    return (summary or None), evidence


def _to_evidence(
    source: Source, sub_question: SubQuestion, picks: Sequence[tuple[Passage, str]]
) -> list[Evidence]:
    out = []
    for passage, claim in picks:
        check = verify_quote(passage.text, source.text)
        if check.status != "PASS":
            continue
        out.append(
            Evidence(
                id=f"{sub_question.id}-{passage.id}",
                sub_question_id=sub_question.id,
                claim=" ".join(claim.split()),
                quote=passage.text,
                source_id=source.id,
                source_url=source.url,
                start=passage.start,
                end=passage.end,
                passage_id=passage.id,
                score=passage.score,
                verification=check,
            )
        )
    return out
