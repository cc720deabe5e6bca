"""An EmployerResult's words, put in the page-neutral document every format but JSON
draws (``document``). Pure.

Found facts cite their verified quotes by number ([1], [2]...): the cited ones from 1 in
order of first citation (``numbers``), then every other passage read.
"""

from __future__ import annotations

from collections.abc import Iterable

from deepresearch.recipes.employer.models import CleanedData, EmployerResult, RoutingStep

ROUTES = {
    "CONTINUE": "profile passed on",
    "CONTINUE_WITH_FLAGS": "profile passed on with a low-data flag",
    "ENHANCE_SEARCH": "searched again with enhancement queries",
    "EARLY_EXIT": "no profile passed on (early exit)",
}


def profile_title(result: EmployerResult) -> str:
    name = result.classification.company_name or "an unnamed employer"
    return f"Employer profile: {name}"


def cited_ids(result: EmployerResult) -> list[str]:
    """Evidence ids the shown profile cites, in order of first citation."""
    data = shown_data(result)
    order: list[str] = list(data.summary_evidence)
    for group in (data.tech_stack, data.identified_requirements, data.culture_signals):
        for item in group:
            order.extend(item.evidence)
    return list(dict.fromkeys(order))


def evidence_numbers(result: EmployerResult) -> dict[str, int]:
    """Cited evidence numbered from 1 in citation order, then every other passage read."""
    order = [*cited_ids(result), *(item.id for item in result.evidence)]
    return {eid: n for n, eid in enumerate(dict.fromkeys(order), start=1)}


def shown_data(result: EmployerResult) -> CleanedData:
    """The profile shown: the one passed on, else what the reranker cleaned (an early
    exit still shows what was found, for transparency)."""
    return result.profile or result.reranker.cleaned_data


def cite_numbers(ids: Iterable[str], numbers: dict[str, int]) -> list[int]:
    """The numbers of the cited ids, each once, in order."""
    return sorted({numbers[i] for i in ids if i in numbers})


def status_lines(result: EmployerResult) -> list[str]:
    """The outcome, the quality tiers and who decided, one line each."""
    r = result.reranker
    route = result.routing_trace[-1].route if result.routing_trace else r.recommended_action
    lines = [
        f"Outcome: {ROUTES.get(route, route)} ({route})",
        f"Data quality: {r.data_quality_tier} · Research quality: {r.research_quality_tier} · "
        f"Confidence: {r.data_confidence_score}% · Company: {r.company_verifiability}",
        f"Search attempts: {result.search_attempt} · Risk: {r.risk_level} · Decided by: "
        f"{r.evaluated_by} · Profile by: {result.phase_2_output.synthesized_by}",
    ]
    if result.early_exit:
        lines.append(f"Early exit: {r.early_exit_reason}")
    elif result.low_data_flag:
        lines.append("Low-data flag: treat this profile as incomplete.")
    return lines


def meta_line(result: EmployerResult) -> str:
    """What was asked: the input's kind, the role and skills, the run."""
    c = result.classification
    meta = [f"input: {c.query_type.replace('_', ' ')}"]
    if c.job_title:
        meta.append(f"role: {c.job_title}")
    if c.extracted_skills:
        meta.append(f"skills: {', '.join(c.extracted_skills)}")
    meta.append(f"run {result.run_id}")
    return " · ".join(meta)


#: the routing table's columns, in every format (``routing_cells`` gives a step's cells)
ROUTING_HEADER = (
    "attempt", "data", "quality", "confidence", "recommended", "route", "next", "state after",
)  # fmt: skip


def routing_cells(step: RoutingStep) -> tuple[str, ...]:
    """A routing step's cells, in the order of ``ROUTING_HEADER``."""
    return (
        str(step.attempt),
        step.data_quality_tier,
        step.research_quality_tier,
        f"{step.data_confidence_score}%",
        step.recommended_action,
        step.route,
        step.next_phase,
        f"search_attempt={step.after.search_attempt}, low_data_flag={step.after.low_data_flag}, "
        f"early_exit={step.after.early_exit}",
    )


def attempt_label(attempt: int) -> str:
    """A search attempt's name: the first, or the enhanced retry the routing asked for."""
    return f"Attempt {attempt} ({'first attempt' if attempt == 1 else 'enhanced retry'})"
