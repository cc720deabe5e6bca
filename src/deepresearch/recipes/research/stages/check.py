"""Check findings (seed 002's validate_findings): before writing, every verified finding's
claim is read against its own quote, by the judge model in batches (a structured verdict
per finding) or, without one, by the deterministic checker (``core.support``). Findings
their quote does not support are dropped from the evidence the writer gets
(``core.finding_check``); the audit counts them. When none is left the run ends in the
abort report: nothing verified remains to write from. With ``review_findings`` on the
person reviews the findings next (``stages/pause.py``); after a gap's wave only the new
findings are read.

Beside the findings check, the judge is asked for the run's claims and contradictions in
one call (``stages/claims.py``); what survives its checks is what the writer and the
report's claim ledger use."""

from __future__ import annotations

import asyncio
from typing import Literal

from langgraph.runtime import Runtime
from langgraph.types import Command
from pydantic import BaseModel, Field

from deepresearch.context import RunContext
from deepresearch.core.finding_check import check_counts, drop_unsupported, is_own_quote, to_check
from deepresearch.core.support import check_support
from deepresearch.core.table_rows import read_in_context
from deepresearch.core.text import clip
from deepresearch.injection.untrusted import DATA_RULE, data_block
from deepresearch.models import Evidence, FindingCheck
from deepresearch.models.event_checks import FindingsChecked
from deepresearch.models.event_payloads import (
    NoSupportedFindingsWarning,
    StageCompleted,
    StageStarted,
)
from deepresearch.models.findings import FindingVerdict
from deepresearch.recipes.research.stages.claims import ask_claims, settle_claims
from deepresearch.recipes.research.state import RunState

STAGE = "check_findings"
PER_CALL = 8  # findings the judge reads in one call

SYSTEM = f"""You check the findings of a research run before its report is written. {DATA_RULE}
Each finding is a claim and the quote it rests on, copied word for word from a source. Say,
for each finding by its label, whether its quote supports its claim. "supported": the quote
states everything the claim says; "partial": it states some of it, or states it less
strongly; "unsupported": it does not state it, or contradicts it (a different number, date or
name counts as a contradiction). Judge only by the quote, not by what you know. Add a short
note when a finding is not fully supported."""


class Verdict(BaseModel):
    label: str
    verdict: FindingVerdict
    note: str = ""


class Verdicts(BaseModel):
    findings: list[Verdict] = Field(default_factory=list)


async def check_findings(
    state: RunState, runtime: Runtime[RunContext]
) -> Command[Literal["write", "review_findings", "abort"]]:
    ctx = runtime.context
    evidence = list(state.get("evidence", []))
    earlier = list(state.get("finding_checks", []))
    # after a findings review's gap wave only the new findings are read
    done = {check.evidence_id for check in earlier}
    findings = [item for item in to_check(evidence) if item.id not in done]
    ctx.bus.emit(
        StageStarted(),
        stage=STAGE,
        message=f"Checking {len(findings)} finding(s) against their quotes",
    )
    own, pending = _to_judge(findings, state)
    checks: list[FindingCheck] = [*earlier, *own]
    batches = [pending[i : i + PER_CALL] for i in range(0, len(pending), PER_CALL)]
    # the claims call runs beside the batches: it adds no step to the critical path; it
    # reads every finding (after a gap's wave too: the claims are the whole run's)
    proposed, found = await asyncio.gather(
        ask_claims(ctx, to_check(evidence)),
        asyncio.gather(*(_judge(ctx, batch) for batch in batches)),
    )
    for batch_checks in found:
        checks += batch_checks
    kept, dropped = drop_unsupported(evidence, checks)
    extracted, claims_event = await settle_claims(ctx, proposed, kept)
    counts = check_counts(checks)
    ctx.bus.emit(
        FindingsChecked(
            findings_checked=counts["findings_checked"],
            findings_partial=counts["findings_partial"],
            findings_unsupported=counts["findings_unsupported"],
            dropped=list(dropped),
            methods=sorted({check.method for check in checks}),
        ),
        stage=STAGE,
        message=(
            f"Findings check: {counts['findings_checked']} checked, "
            f"{counts['findings_partial']} partly supported, "
            f"{counts['findings_unsupported']} unsupported and dropped"
        ),
    )
    ctx.bus.emit(
        claims_event,
        stage=STAGE,
        message=(
            f"Claims: {claims_event.claims} from the judge, "
            f"{claims_event.dropped_claims} dropped; {claims_event.contradictions} "
            f"contradiction(s), {claims_event.cross_checked} cross-checked"
            if claims_event.method == "model"
            else f"Claims by the deterministic detector: {claims_event.contradictions} "
            "contradiction(s)"
        ),
    )
    update: RunState = {
        "evidence": kept,
        "finding_checks": checks,
        "extracted_claims": extracted,
    }
    remaining = [item for item in kept if item.verified]
    if findings and not remaining:
        why = "the findings check found no finding its quote supports"
        update["warnings"] = [*state.get("warnings", []), why]
        ctx.bus.emit(
            NoSupportedFindingsWarning(code="no_supported_findings"),
            stage=STAGE,
            message=why.capitalize(),
        )
    ctx.bus.emit(StageCompleted(), stage=STAGE)
    if findings and not remaining:
        return Command(goto="abort", update=update)
    # the person reviews the findings first (``review_findings``), once
    reviewing = ctx.policy.review_findings and "findings_review" not in state
    return Command(goto="review_findings" if reviewing else "write", update=update)


def _to_judge(
    findings: list[Evidence], state: RunState
) -> tuple[list[FindingCheck], list[Evidence]]:
    """The checks of findings that quote themselves, and the findings left to judge, a
    table row's quote read under its page's title and table's header."""
    own = [_record(item, "supported", "quote") for item in findings if is_own_quote(item)]
    pending = [item for item in findings if not is_own_quote(item)]
    read = read_in_context({item.id: item for item in pending}, state.get("sources", {}))
    return own, [read[item.id] for item in pending]


async def _judge(ctx: RunContext, batch: list[Evidence]) -> list[FindingCheck]:
    """Verdicts for ``batch``: the judge's, and the deterministic checker's for any
    finding the judge did not answer for (no judge, a failed call, a missing label)."""
    judged: dict[str, Verdict] = {}
    if ctx.gateway.has_model("judge"):
        labels = {f"F{i}": item for i, item in enumerate(batch, start=1)}
        blocks = "\n".join(
            data_block("source", f"Claim: {clip(item.claim, 500)}\nQuote: {item.quote}", label=key)
            for key, item in labels.items()
        )
        reply = await ctx.gateway.structured(
            "judge", Verdicts, system=SYSTEM, user=f"Findings:\n{blocks}", stage=STAGE
        )
        for verdict in reply.findings if reply is not None else []:
            key = verdict.label.strip().strip("[]").upper()
            if key in labels:
                judged[labels[key].id] = verdict
    out = []
    for item in batch:
        if item.id in judged:
            verdict = judged[item.id]
            out.append(_record(item, verdict.verdict, "judge", clip(verdict.note.strip(), 300)))
            continue
        checked = await asyncio.to_thread(
            check_support, item.claim, [item.quote], embedder=ctx.embedder
        )
        out.append(_record(item, checked.verdict, "deterministic", "; ".join(checked.reasons)))
    return out


def _record(
    item: Evidence,
    verdict: FindingVerdict,
    method: Literal["judge", "deterministic", "quote"],
    note: str = "",
) -> FindingCheck:
    return FindingCheck(
        evidence_id=item.id,
        sub_question_id=item.sub_question_id,
        claim=item.claim,
        quote=item.quote,
        source_url=item.source_url,
        verdict=verdict,
        method=method,
        note=note,
    )
