"""Audit: every sentence of the finished report that states a fact is checked against the
passages it cites, by the judge model when one is configured (a structured verdict with the
supporting passage), otherwise by the deterministic checker (``core.support``: lexical
overlap, numbers, dates, named entities, embedding similarity). Sentences that are exactly
the verified quote they cite pass as they are. The policy (``--audit``) is applied by the
pure ``core.audit.apply_audit``. A planned table's rows are checked the same way, each
against the quotes its cells cite. When there are more sentences to judge than the judge
takes calls at once, each call judges a few (``core.audit.audit_batches``), so the audit
stays one round of calls. Every report leaves this stage with its Audit.

With ``review_report`` on, a person reviews the audited report next (``stages/pause.py``);
the sentences they edit are audited here again (``audit_edits``), with the same checks
and policy as the writer's, so an edit its citations do not support is removed (strict)
or flagged (mark)."""

from __future__ import annotations

import asyncio
from typing import Literal

from langgraph.runtime import Runtime
from langgraph.types import Command
from pydantic import BaseModel, Field

from deepresearch.context import RunContext
from deepresearch.core.audit import (
    apply_audit,
    audit_batches,
    checked_rows,
    cited_passages,
    is_quote,
    numbered_sentences,
    reaudit,
)
from deepresearch.core.finding_check import check_counts
from deepresearch.core.report_review import edited_report
from deepresearch.core.support import check_support, is_factual
from deepresearch.core.table_rows import read_in_context
from deepresearch.injection.untrusted import DATA_RULE, data_block
from deepresearch.models import Audit, AuditVerdict, Evidence, Report, Sentence
from deepresearch.models.event_pauses import EditsAudited
from deepresearch.models.event_payloads import AuditCompleted, StageCompleted, StageStarted
from deepresearch.recipes.research.state import RunState

STAGE = "audit"
Method = Literal["judge", "deterministic"]
#: the reports the audit checks, and a person may review (``review_report``)
REVIEWED_KINDS = ("synthesized", "extractive")
_VERDICTS: tuple[AuditVerdict, ...] = ("supported", "partial", "unsupported", "uncited")

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


BATCH_SYSTEM = f"""You check whether each sentence of a research report is supported by the
passages it cites. {DATA_RULE}
Each sentence has a label (S1, S2, ...) and its own cited passages; judge each one only by
its own passages. "supported": they state everything the sentence says. "partial": they
state some of it, or state it less strongly. "unsupported": they do not state it, or
contradict it (a different number, date or name counts as a contradiction). For each
sentence by its label give the number of its passage that supports it best, and a short
note when it is not fully supported."""


class LabelledVerdict(JudgeVerdict):
    label: str


class JudgeVerdicts(BaseModel):
    sentences: list[LabelledVerdict] = Field(default_factory=list)


Checked = tuple[AuditVerdict, str | None, Method]


async def audit(
    state: RunState, runtime: Runtime[RunContext]
) -> Command[Literal["review_report", "figures"]]:
    """The report audited, then the person's review of it (``review_report`` on, a
    research report, not reviewed yet: a rewrite after feedback is not asked again),
    else its figures."""
    ctx = runtime.context
    report = await _audited(state, ctx)
    reviewing = (
        ctx.policy.review_report and report.kind in REVIEWED_KINDS and "report_review" not in state
    )
    return Command(goto="review_report" if reviewing else "figures", update={"report": report})


async def _audited(state: RunState, ctx: RunContext) -> Report:
    report = state["report"]
    policy = ctx.policy.audit
    checked = check_counts(state.get("finding_checks", []))  # the findings check's counts
    if policy == "off" or report.kind not in REVIEWED_KINDS:
        return report.model_copy(update={"audit": Audit(policy=policy, **checked)})
    ctx.bus.emit(StageStarted(), stage=STAGE, message="Checking every sentence against its sources")
    evidence = {item.id: item for item in state.get("evidence", []) if item.verified}
    # the judge reads a table row's quote under its page's title and table's header
    read = read_in_context(evidence, state.get("sources", {}))
    sentences = numbered_sentences(report)
    verdicts: dict[int, tuple[AuditVerdict, str | None]] = {}
    pending: dict[int, Sentence] = {}
    for index, sentence in enumerate(sentences):
        seen = _first_look(sentence, evidence)
        if seen == "check":
            pending[index] = sentence
        elif seen is not None:
            verdicts[index] = seen
    # a planned table's rows are checked like sentences, against what their cells cite
    rows: dict[tuple[int, int], tuple[AuditVerdict, str | None]] = {}
    row_pending: dict[tuple[int, int], Sentence] = {}
    for key, row in checked_rows(report).items():
        if not any(cid in evidence for cid in row.citations):
            rows[key] = ("uncited", "a table row without a citation")
        else:
            row_pending[key] = row
    todo = [*pending.values(), *row_pending.values()]
    results = [
        result
        for found in await asyncio.gather(
            *(_check_batch(ctx, batch, read) for batch in _batches(ctx, todo))
        )
        for result in found
    ]
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
    return audited


def _first_look(
    sentence: Sentence, evidence: dict[str, Evidence]
) -> tuple[AuditVerdict, str | None] | Literal["check"] | None:
    """What a sentence needs before any check: none when it is the quote it cites
    (supported) or cites nothing it could rest on (uncited), "check" when it states a fact
    its citations must support, None when it states none."""
    if is_quote(sentence, evidence):
        return ("supported", None)
    if not is_factual(sentence.text):
        return None
    if not any(cid in evidence for cid in sentence.citations):
        return ("uncited", "states a fact without a citation")
    return "check"


async def audit_edits(state: RunState, runtime: Runtime[RunContext]) -> RunState:
    """The sentences a person edited in the report's review, audited like the writer's
    (the same checks, the same policy: ``core.audit.reaudit``); removed ones go."""
    ctx = runtime.context
    edits = state.get("report_review", {}).get("sentences") or {}
    done = edited_report(state["report"], edits)
    policy = ctx.policy.audit
    verdicts: dict[int, tuple[AuditVerdict, str | None]] = {}
    methods: set[Method] = set()
    if policy != "off":
        evidence = {item.id: item for item in state.get("evidence", []) if item.verified}
        sentences = numbered_sentences(done.report)
        pending: dict[int, Sentence] = {}
        for index in done.checked:
            seen = _first_look(sentences[index], evidence)
            if seen == "check":
                pending[index] = sentences[index]
            elif seen is not None:
                verdicts[index] = seen
        batches = _batches(ctx, list(pending.values()))
        found = await asyncio.gather(*(_check_batch(ctx, batch, evidence) for batch in batches))
        results = [result for batch in found for result in batch]
        for index, (verdict, note, used) in zip(pending, results, strict=True):
            verdicts[index] = (verdict, note)
            methods.add(used)
    report = reaudit(
        done.report,
        verdicts,
        policy=policy,
        method=methods.pop() if len(methods) == 1 else ("mixed" if methods else "none"),
        sources=state.get("sources", {}),
        replaced=done.replaced,
        edited=len(done.checked),
        removed_by_person=done.removed,
    )
    count = {key: sum(v == key for v, _ in verdicts.values()) for key in _VERDICTS}
    removed = (report.audit.removed if report.audit else 0) - (
        state["report"].audit.removed if state["report"].audit else 0
    )
    ctx.bus.emit(
        EditsAudited(
            edited=len(done.checked), removed_by_person=done.removed, removed=removed, **count
        ),
        stage="audit_edits",
        message=f"Edits audited: {len(done.checked)} edited, {removed} removed by the audit",
    )
    return {"report": report}


def _batches(ctx: RunContext, todo: list[Sentence]) -> list[list[Sentence]]:
    """``todo`` cut into the judge's calls (``core.audit.audit_batches``): one sentence a
    call while they all fit in the judge's slots at once, else a few a call."""
    endpoint = ctx.gateway.endpoint("judge") if ctx.gateway.has_model("judge") else None
    if endpoint is None:
        return [[sentence] for sentence in todo]
    out, start = [], 0
    for size in audit_batches(len(todo), slots=endpoint.limit):
        out.append(todo[start : start + size])
        start += size
    return out


async def _check_batch(
    ctx: RunContext, batch: list[Sentence], evidence: dict[str, Evidence]
) -> list[Checked]:
    """Verdicts for ``batch`` in order: one judge call for all of it, the deterministic
    checker for any sentence the judge did not answer for."""
    if len(batch) == 1:
        return [await _check(ctx, batch[0], evidence)]
    labels = {f"S{i}": sentence for i, sentence in enumerate(batch, start=1)}
    parts = []
    for key, sentence in labels.items():
        blocks = "\n".join(
            data_block("passage", text, id=str(i))
            for i, text in enumerate(cited_passages(sentence, evidence), start=1)
        )
        parts.append(
            f"Sentence {key}:\n{data_block('source', sentence.text, kind='sentence', label=key)}"
            f"\nCited passages of {key}:\n{blocks}"
        )
    reply = await ctx.gateway.structured(
        "judge", JudgeVerdicts, system=BATCH_SYSTEM, user="\n\n".join(parts), stage=STAGE
    )
    judged: dict[str, LabelledVerdict] = {}
    for item in reply.sentences if reply is not None else []:
        judged.setdefault(item.label.strip().strip("[]").upper(), item)
    out: list[Checked] = []
    for key, sentence in labels.items():
        if key in judged:
            out.append((judged[key].verdict, judged[key].note.strip() or None, "judge"))
        else:
            out.append(await _deterministic(ctx, sentence, evidence))
    return out


async def _deterministic(
    ctx: RunContext, sentence: Sentence, evidence: dict[str, Evidence]
) -> Checked:
    passages = cited_passages(sentence, evidence)
    checked = await asyncio.to_thread(check_support, sentence.text, passages, embedder=ctx.embedder)
    return checked.verdict, "; ".join(checked.reasons) or None, "deterministic"


async def _check(ctx: RunContext, sentence: Sentence, evidence: dict[str, Evidence]) -> Checked:
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
    return await _deterministic(ctx, sentence, evidence)
