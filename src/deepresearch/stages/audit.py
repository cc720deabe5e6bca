"""Audit: every sentence of the finished report that states a fact is checked against the
passages it cites, by the judge model when one is configured (a structured verdict with the
supporting passage), otherwise by the deterministic checker (``core.support``: lexical
overlap, numbers, dates, named entities, embedding similarity). Sentences that are exactly
the verified quote they cite pass as they are. The policy (``--audit``) is applied by the
pure ``core.audit.apply_audit``. A planned table's rows are checked the same way, each
against the quotes its cells cite. Every report leaves this stage with its Audit."""

from __future__ import annotations

import asyncio
from typing import Literal

from langgraph.runtime import Runtime
from pydantic import BaseModel

from deepresearch.context import RunContext
from deepresearch.core.audit import (
    apply_audit,
    checked_rows,
    cited_passages,
    is_quote,
    numbered_sentences,
)
from deepresearch.core.finding_check import check_counts
from deepresearch.core.support import check_support, is_factual
from deepresearch.core.untrusted import DATA_RULE, data_block
from deepresearch.models import Audit, AuditVerdict, Evidence, Sentence
from deepresearch.models.event_payloads import AuditCompleted, StageCompleted, StageStarted
from deepresearch.state import RunState

STAGE = "audit"
Method = Literal["judge", "deterministic"]

SYSTEM = f"""You check whether a sentence of a research report is supported by the passages
it cites. {DATA_RULE}
"supported": the passages state everything the sentence says. "partial": they state some
of it, or state it less strongly. "unsupported": they do not state it, or contradict it
(a different number, date or name counts as a contradiction). Give the number of the
passage that supports it best, and a short note when it is not fully supported."""


class JudgeVerdict(BaseModel):
    verdict: Literal["supported", "partial", "unsupported"]
    passage: int | None = None
    note: str = ""


async def audit(state: RunState, runtime: Runtime[RunContext]) -> RunState:
    ctx = runtime.context
    report = state["report"]
    policy = ctx.policy.audit
    checked = check_counts(state.get("finding_checks", []))  # the findings check's counts
    if policy == "off" or report.kind not in ("synthesized", "extractive"):
        return {"report": report.model_copy(update={"audit": Audit(policy=policy, **checked)})}
    ctx.bus.emit(StageStarted(), stage=STAGE, message="Checking every sentence against its sources")
    evidence = {item.id: item for item in state.get("evidence", []) if item.verified}
    sentences = numbered_sentences(report)
    verdicts: dict[int, tuple[AuditVerdict, str | None]] = {}
    pending: dict[int, Sentence] = {}
    for index, sentence in enumerate(sentences):
        if is_quote(sentence, evidence):
            verdicts[index] = ("supported", None)
        elif not is_factual(sentence.text):
            continue
        elif not any(cid in evidence for cid in sentence.citations):
            verdicts[index] = ("uncited", "states a fact without a citation")
        else:
            pending[index] = sentence
    # a planned table's rows are checked like sentences, against what their cells cite
    rows: dict[tuple[int, int], tuple[AuditVerdict, str | None]] = {}
    row_pending: dict[tuple[int, int], Sentence] = {}
    for key, row in checked_rows(report).items():
        if not any(cid in evidence for cid in row.citations):
            rows[key] = ("uncited", "a table row without a citation")
        else:
            row_pending[key] = row
    results = await asyncio.gather(
        *(_check(ctx, s, evidence) for s in [*pending.values(), *row_pending.values()])
    )
    methods: set[Method] = set()
    for index, (verdict, note, used) in zip(pending, results[: len(pending)], strict=True):
        verdicts[index] = (verdict, note)
        methods.add(used)
    for key, (verdict, note, used) in zip(row_pending, results[len(pending) :], strict=True):
        rows[key] = (verdict, note)
        methods.add(used)
    method: Method | Literal["mixed"] = (
        methods.pop() if len(methods) == 1 else ("mixed" if methods else "deterministic")
    )
    audited = apply_audit(
        report,
        verdicts,
        policy=policy,
        method=method,
        sources=state.get("sources", {}),
        findings_restored=state.get("findings_restored", 0),
        findings_dropped=state.get("findings_dropped", 0),
        invented_citations=state.get("invented_citations", 0),
        rows=rows,
        **checked,
    )
    result = audited.audit
    assert result is not None
    ctx.bus.emit(
        AuditCompleted(**result.model_dump()),
        stage=STAGE,
        message=(
            f"Audit: {result.supported} supported, {result.partial} partial, "
            f"{result.unsupported} unsupported, {result.uncited_factual} uncited; "
            f"{result.removed} removed"
        ),
    )
    ctx.bus.emit(StageCompleted(), stage=STAGE)
    return {"report": audited}


async def _check(
    ctx: RunContext, sentence: Sentence, evidence: dict[str, Evidence]
) -> tuple[AuditVerdict, str | None, Method]:
    passages = cited_passages(sentence, evidence)
    if ctx.gateway.has_model("judge"):
        blocks = "\n".join(
            data_block("passage", text, id=str(i)) for i, text in enumerate(passages, start=1)
        )
        judged = await ctx.gateway.structured(
            "judge",
            JudgeVerdict,
            system=SYSTEM,
            # the sentence is the writer's, written from web text: it is fenced like it
            user=f"Sentence:\n{data_block('source', sentence.text, kind='sentence')}\n\n"
            f"Cited passages:\n{blocks}",
            stage=STAGE,
        )
        if judged is not None:
            return judged.verdict, (judged.note.strip() or None), "judge"
    checked = await asyncio.to_thread(check_support, sentence.text, passages, embedder=ctx.embedder)
    note = "; ".join(checked.reasons) or None
    return checked.verdict, note, "deterministic"
