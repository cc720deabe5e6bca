"""Phase 2B, the research reranker: seed 000's data-quality firewall. Each step of
section 7.3 is a pure function in its own module:

1. ``tiers.assess_quality_heuristically`` after ``prune.prune_low_quality_data`` (9.2);
2. ``bad_data.detect_bad_data_patterns`` (11);
3. ``industry.infer_industry_from_context`` (10), when fewer than two technologies remain;
4. the judge model (``judge.py``) when one is configured;
5. :func:`decide` here: the action, the confidence and the full ResearchRerankerOutput.

Where the seed's tables leave a choice open, the reading taken is documented on the
function and in docs/employer.md.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from deepresearch.recipes.employer.bad_data import SUSPICIOUS_INPUT, detect_bad_data_patterns
from deepresearch.recipes.employer.industry import (
    SPARSE_TECH_STACK,
    infer_industry_from_context,
    inferred_items,
)
from deepresearch.recipes.employer.lists import EmployerLists
from deepresearch.recipes.employer.models import (
    Action,
    BadDataReport,
    CleanedData,
    CompanyVerification,
    DataQualityTier,
    EvaluatedBy,
    HeuristicAssessment,
    IndustryInference,
    Phase2Output,
    ResearchQualityTier,
    ResearchRerankerOutput,
    SourceInfo,
)
from deepresearch.recipes.employer.prune import Pruned
from deepresearch.recipes.employer.queries import generate_enhancement_queries
from deepresearch.recipes.employer.tiers import (
    COMPANY_NOT_FOUND,
    assess_quality_heuristically,
    default_action,
    heuristic_confidence,
    worse_research,
)


def verify_company(
    company_name: str | None, sources: Sequence[SourceInfo], *, suspicious: str | None = None
) -> CompanyVerification:
    """VERIFIED when two or more fetched pages name the company, PARTIAL with one,
    UNVERIFIED with none (or no company), SUSPICIOUS when the name itself is. The user's
    own job description does not count: it is not independent."""
    if suspicious:
        return CompanyVerification(
            company_name=company_name,
            status="SUSPICIOUS",
            suspicious_reason=suspicious,
            note="the input was not researched: it looks like an injection or a template",
        )
    if not (company_name or "").strip():
        return CompanyVerification(status="UNVERIFIED", note="no company was named")
    naming = [s.url for s in sources if s.fetched and s.names_company and not s.dropped_reason]
    if len(naming) >= 2:
        status, note = "VERIFIED", f"named by {len(naming)} pages read"
    elif naming:
        status, note = "PARTIAL", "named by one page read"
    else:
        status, note = "UNVERIFIED", "no page read names the company"
    return CompanyVerification(
        company_name=company_name, status=status, sources_naming_company=naming, note=note
    )


@dataclass(frozen=True)
class Inputs:
    """Everything the decision reads, computed by steps 1-3."""

    phase2: Phase2Output
    assessment: HeuristicAssessment
    pruned: Pruned
    bad_data: BadDataReport
    verification: CompanyVerification
    industry: IndustryInference | None
    company_name: str | None
    job_title: str | None
    search_attempt: int


def gather_inputs(
    phase2: Phase2Output,
    lists: EmployerLists,
    *,
    company_name: str | None,
    job_title: str | None,
    sources: Sequence[SourceInfo],
    search_attempt: int,
    screened: str | None = None,
) -> Inputs:
    """Steps 1-3 of section 7.3. ``screened`` is why the input was refused before any
    search (a job description that tries to instruct the model), if it was."""
    assessment, pruned = assess_quality_heuristically(phase2, lists)
    bad = detect_bad_data_patterns(phase2, company_name, lists, job_title=job_title, pruned=pruned)
    if screened and not bad.suspicious_reason:
        details = {**bad.details, SUSPICIOUS_INPUT: [screened]}
        bad = BadDataReport(
            patterns_detected=list(details),
            details=details,
            risk_level="CRITICAL",
            suspicious_reason=screened,
        )
    verification = verify_company(company_name, sources, suspicious=bad.suspicious_reason)
    industry = None
    if len(pruned.retained_tech) < SPARSE_TECH_STACK:
        industry = infer_industry_from_context(
            company_name, phase2.employer_summary, job_title, lists
        )
    return Inputs(
        phase2,
        assessment,
        pruned,
        bad,
        verification,
        industry,
        company_name,
        job_title,
        search_attempt,
    )


def cleaned_data(inputs: Inputs) -> CleanedData:
    """What was kept; the inferred industry and its technologies stay apart from facts."""
    industry = inputs.industry
    return CleanedData(
        employer_summary=inputs.phase2.employer_summary,
        summary_evidence=list(inputs.phase2.summary_evidence),
        tech_stack=list(inputs.pruned.retained_tech),
        identified_requirements=list(inputs.pruned.retained_requirements),
        culture_signals=list(inputs.pruned.retained_culture),
        inferred_industry=industry,
        inferred_tech_stack=inferred_items(industry, inputs.pruned.retained_tech)
        if industry
        else [],
    )


def decide(inputs: Inputs) -> ResearchRerankerOutput:
    """Step 5 without a judge model: the heuristic tiers, the guardrails and the action."""
    assessment, bad, verification = inputs.assessment, inputs.bad_data, inputs.verification
    if bad.suspicious_reason:
        return suspicious_exit(inputs)
    flags = list(assessment.quality_flags)
    research, data = assessment.preliminary_tier, assessment.data_quality_tier
    if verification.company_name and verification.status == "UNVERIFIED":
        flags.append(COMPANY_NOT_FOUND)
        if data == "CLEAN":
            research, data = "MEDIUM", "PARTIAL"
    if bad.risk_level == "HIGH" and data != "GARBAGE":
        # three kinds of bad data at once: what is left is not to be trusted blindly
        flags.append("HIGH_RISK_DATA")
        data = "UNRELIABLE"
        research = worse_research(research, "MEDIUM")
    if inputs.industry is not None:
        flags.append("INDUSTRY_INFERRED")
    queries = generate_enhancement_queries(
        inputs.company_name, inputs.job_title, inputs.industry.industry if inputs.industry else None
    )
    can_retry = inputs.search_attempt < 2 and bool(queries)
    action = default_action(research, data, can_retry=can_retry)
    confidence = heuristic_confidence(assessment, verification, bad.risk_level, research)
    return _output(
        inputs,
        research=research,
        data=data,
        confidence=confidence,
        flags=flags,
        action=action,
        queries=queries,
        reasoning=_heuristic_reasoning(inputs, research, data, action),
        evaluated_by="heuristics",
    )


def suspicious_exit(inputs: Inputs) -> ResearchRerankerOutput:
    """Seed 11.1: a suspicious name exits at once, SUSPICIOUS, nothing passed on."""
    reason = inputs.bad_data.suspicious_reason or "suspicious input"
    return _output(
        inputs,
        research="INSUFFICIENT",
        data="GARBAGE",
        confidence=0,
        flags=["SUSPICIOUS_INPUT"],
        action="EARLY_EXIT",
        queries=[],
        reasoning=f"The input was not researched: {reason}.",
        evaluated_by="screening",
        early_exit_reason=f"suspicious input: {reason}",
    )


def after_evaluation_error(base: ResearchRerankerOutput, inputs: Inputs) -> ResearchRerankerOutput:
    """Seed 14.2: the judge model failed, so the heuristics decide: EARLY_EXIT for garbage
    or a critical risk, else CONTINUE_WITH_FLAGS (no retry), with EVALUATION_ERROR."""
    assessment, bad = inputs.assessment, inputs.bad_data
    exit_now = assessment.data_quality_tier == "GARBAGE" or bad.risk_level == "CRITICAL"
    action: Action = "EARLY_EXIT" if exit_now else "CONTINUE_WITH_FLAGS"
    return base.model_copy(
        update={
            "data_quality_tier": assessment.data_quality_tier
            if base.data_quality_tier != "UNRELIABLE"
            else "UNRELIABLE",
            "recommended_action": action,
            "quality_flags": [*base.quality_flags, "EVALUATION_ERROR"],
            "enhancement_queries": [],
            "early_exit_reason": base.early_exit_reason
            or ("no usable data after the evaluation error" if exit_now else ""),
            "reasoning_trace": "The judge model's evaluation failed; the heuristic "
            f"assessment decided. {base.reasoning_trace}",
            "evaluated_by": "heuristics_after_error",
        }
    )


def _output(
    inputs: Inputs,
    *,
    research: ResearchQualityTier,
    data: DataQualityTier,
    confidence: int,
    flags: list[str],
    action: Action,
    queries: list[str],
    reasoning: str,
    evaluated_by: EvaluatedBy,
    early_exit_reason: str = "",
) -> ResearchRerankerOutput:
    if action == "EARLY_EXIT" and not early_exit_reason:
        early_exit_reason = _exit_reason(inputs, data)
    return ResearchRerankerOutput.model_validate(
        {
            "data_quality_tier": data,
            "research_quality_tier": research,
            "data_confidence_score": confidence,
            "quality_flags": list(dict.fromkeys(flags)),
            "missing_data_categories": list(inputs.assessment.missing_data_categories),
            "recommended_action": action,
            "enhancement_queries": queries if action == "ENHANCE_SEARCH" else [],
            "company_verifiability": inputs.verification.status,
            "company_verification": inputs.verification,
            "pruned_data": inputs.pruned.pruned,
            "cleaned_data": cleaned_data(inputs),
            "early_exit_reason": early_exit_reason,
            "reasoning_trace": reasoning,
            "risk_level": inputs.bad_data.risk_level,
            "patterns_detected": list(inputs.bad_data.patterns_detected),
            "evaluated_by": evaluated_by,
        }
    )


def _exit_reason(inputs: Inputs, data: DataQualityTier) -> str:
    a = inputs.assessment
    if data == "GARBAGE":
        return (
            f"no usable data: {a.tech_count} technologies, {a.requirement_count} "
            f"requirements and a {a.summary_words}-word summary"
        )
    return (
        f"insufficient data after {inputs.search_attempt} attempt(s): {a.tech_count} "
        f"technologies and {a.requirement_count} requirements"
    )


def _heuristic_reasoning(
    inputs: Inputs, research: ResearchQualityTier, data: DataQualityTier, action: Action
) -> str:
    a = inputs.assessment
    pruned = inputs.pruned.pruned
    parts = [
        f"After pruning, {a.tech_count} technologies, {a.requirement_count} requirements, "
        f"{a.culture_count} culture signals and a {a.summary_words}-word summary remain "
        f"({pruned.total()} items pruned).",
        f"Tiers by seed 000's thresholds: data {data}, research {research}.",
        f"Company: {inputs.verification.status} ({inputs.verification.note}).",
        f"Risk {inputs.bad_data.risk_level}"
        + (
            f" ({', '.join(inputs.bad_data.patterns_detected)})."
            if inputs.bad_data.patterns_detected
            else "."
        ),
    ]
    if inputs.industry is not None:
        parts.append(
            f"Industry inferred as {inputs.industry.industry} from "
            f"{', '.join(inputs.industry.matched_signals)} (an assumption, not a finding)."
        )
    parts.append(f"Action: {action}.")
    return " ".join(parts)
