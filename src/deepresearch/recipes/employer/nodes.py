"""The employer graph's nodes: Phase 1 (connecting), Phase 2 (deep research, one attempt
per visit), Phase 2B (the research reranker), routing (seed 000, section 8: at most one
enhanced retry) and the result. Each reads the checkpointed state, calls the pure phases
and the ports, reports through the event bus (seed 000, section 15: ``phase``,
``thought``, ``phase_complete``, then ``route_decided``) and returns what changed.
"""

from __future__ import annotations

from typing import Final, Literal

from langgraph.runtime import Runtime
from langgraph.types import Command

from deepresearch.context import RunContext
from deepresearch.core.provenance import Provenance
from deepresearch.errors import DeepResearchError
from deepresearch.injection.untrusted import find_instructions
from deepresearch.llm.redact import redact
from deepresearch.models.event_payloads import (
    JudgeFailedWarning,
    ReportReady,
    ResearchFailedWarning,
    SuspiciousInputWarning,
)
from deepresearch.reading import SourceReader
from deepresearch.recipes.employer import judge, rerank
from deepresearch.recipes.employer.bad_data import screen_name
from deepresearch.recipes.employer.classify import classify
from deepresearch.recipes.employer.events import (
    ConnectingComplete,
    Observation,
    PhaseStarted,
    Reasoning,
    RerankerComplete,
    ResearchComplete,
    RouteDecided,
    SearchInput,
    ToolCall,
)
from deepresearch.recipes.employer.extract import company_matcher
from deepresearch.recipes.employer.gather import (
    Library,
    format_search_results,
    job_description_source,
    search_once,
)
from deepresearch.recipes.employer.lists import EmployerLists
from deepresearch.recipes.employer.models import (
    Attempt,
    Classification,
    EmployerRequest,
    EmployerResult,
    EmployerState,
    Phase2Output,
    ResearchRerankerOutput,
    RoutingStep,
)
from deepresearch.recipes.employer.queries import research_queries
from deepresearch.recipes.employer.routing import apply_route, next_phase, route_taken, snapshot
from deepresearch.recipes.employer.state import EmployerContext, EmployerRunState
from deepresearch.recipes.employer.synthesize import synthesize

CONNECTING: Final = "connecting"
RESEARCH: Final = "deep_research"
RERANKER: Final = "research_reranker"
ROUTE = "route"
RESULT = "result"
FALLBACK_SUMMARY = "Unable to gather complete employer information from the available sources."


# the nodes ---------------------------------------------------------------------------------
async def connecting(
    state: EmployerRunState, runtime: Runtime[EmployerContext]
) -> EmployerRunState:
    """Phase 1: what the input is; a suspicious input is screened; a job description
    becomes a source; the first attempt's queries."""
    ctx, lists = runtime.context.run, runtime.context.lists
    request = state["request"]
    classification = await _classify(ctx, request, lists)
    library = Library(company=company_matcher(classification.company_name))
    screened = _screen(ctx, request, classification, lists)
    if request.job_description or classification.query_type == "job_description":
        _add_job_description(library, request, classification)
    employer = EmployerState(phase_1_output=classification, current_phase="deep_research")
    return {
        "classification": classification,
        "screened": screened or "",
        "queries": research_queries(classification, max_queries=request.max_queries),
        "employer": employer,
        "attempts": [],
        "trace": [],
        **_library_state(library),
        **_progress(ctx, state),
    }


async def deep_research(
    state: EmployerRunState, runtime: Runtime[EmployerContext]
) -> EmployerRunState:
    """Phase 2, one attempt: the searches, their pages and verified passages, the profile."""
    ctx, lists = runtime.context.run, runtime.context.lists
    employer = state["employer"]
    library = _library(state)
    attempts = list(state.get("attempts", []))
    phase2, errors = await _research_attempt(
        ctx,
        lists,
        state["request"],
        library,
        attempts,
        state["classification"],
        list(state.get("queries", [])),
        employer.search_attempt,
        skip=state.get("screened") or None,
    )
    employer = employer.model_copy(
        update={
            "phase_2_output": phase2,
            "current_phase": "research_reranker",
            "processing_errors": [*employer.processing_errors, *errors],
        }
    )
    return {
        "employer": employer,
        "attempts": attempts,
        **_library_state(library),
        **_progress(ctx, state),
    }


async def research_reranker(
    state: EmployerRunState, runtime: Runtime[EmployerContext]
) -> EmployerRunState:
    """Phase 2B: prune, tier, look for bad data, infer the industry, ask the judge."""
    ctx, lists = runtime.context.run, runtime.context.lists
    employer = state["employer"]
    assert employer.phase_2_output is not None
    output, failed = await _rerank(
        ctx,
        lists,
        _library(state),
        state["classification"],
        employer.phase_2_output,
        employer.search_attempt,
        screened=state.get("screened") or None,
    )
    employer = employer.model_copy(update={"research_reranker_output": output})
    if failed:
        # seed 14.2: an evaluation error spends the retry, so it cannot loop
        employer = employer.model_copy(
            update={
                "search_attempt": employer.search_attempt + 1,
                "processing_errors": [
                    *employer.processing_errors,
                    "Phase 2B error: the judge model's evaluation failed",
                ],
            }
        )
    return {"employer": employer, **_progress(ctx, state)}


async def route(
    state: EmployerRunState, runtime: Runtime[EmployerContext]
) -> Command[Literal["deep_research", "result"]]:
    """Seed 000, section 8: the route after the reranker and its state changes; back to
    deep research with the enhancement queries at most once."""
    employer = state["employer"]
    output = employer.research_reranker_output
    assert output is not None
    taken = route_taken(employer)
    after = apply_route(employer, taken)
    step = RoutingStep(
        attempt=len(state.get("attempts", [])),
        recommended_action=output.recommended_action,
        route=taken,
        next_phase=next_phase(taken),
        data_quality_tier=output.data_quality_tier,
        research_quality_tier=output.research_quality_tier,
        data_confidence_score=output.data_confidence_score,
        before=snapshot(employer),
        after=snapshot(after),
    )
    runtime.context.run.bus.emit(
        RouteDecided(**step.model_dump()),
        stage=RERANKER,
        message=f"Route: {taken} → {step.next_phase}",
    )
    update: EmployerRunState = {"employer": after, "trace": [*state.get("trace", []), step]}
    if after.current_phase == "deep_research":
        update["queries"] = list(output.enhancement_queries)
        return Command(goto="deep_research", update=update)
    return Command(goto="result", update=update)


async def result(state: EmployerRunState, runtime: Runtime[EmployerContext]) -> EmployerRunState:
    """The profile passed on, or the reason there is none."""
    ctx = runtime.context.run
    employer = state["employer"]
    output, phase2 = employer.research_reranker_output, employer.phase_2_output
    assert output is not None and phase2 is not None
    library = _library(state)
    progress = _progress(ctx, state)
    early = employer.early_exit
    document = EmployerResult(
        run_id=state["run_id"],
        created=ctx.clock(),
        request=state["request"],
        outcome="early_exit" if early else "profile",
        classification=state["classification"],
        profile=None if early else output.cleaned_data,
        phase_2_output=phase2,
        reranker=output,
        search_attempt=employer.search_attempt,
        low_data_flag=employer.low_data_flag,
        early_exit=early,
        current_phase=employer.current_phase,
        routing_trace=list(state.get("trace", [])),
        attempts=list(state.get("attempts", [])),
        sources=library.source_infos(),
        evidence=list(library.evidence),
        processing_errors=list(employer.processing_errors),
        warnings=list(progress.get("warnings", [])),
        model=ctx.gateway.model_name("researcher"),
        search=ctx.search.name,
    )
    ctx.bus.emit(
        ReportReady(
            kind="employer",
            outcome=document.outcome,
            sources=len(document.sources),
            evidence=len(document.evidence),
        ),
        stage="generate_results" if early else "skeptical_comparison",
        message="No profile: " + output.early_exit_reason
        if early
        else "Employer profile ready" + (" (low data)" if employer.low_data_flag else ""),
    )
    return {"result": document, **progress}


# state <-> the working objects ---------------------------------------------------------------
def _library(state: EmployerRunState) -> Library:
    """What Phase 2 has read so far, as a fresh working copy."""
    classification = state["classification"]
    return Library(
        sources=dict(state.get("sources", {})),
        evidence=list(state.get("evidence", [])),
        dropped=dict(state.get("dropped", {})),
        input_ids=list(state.get("input_ids", [])),
        requirement_ids=list(state.get("requirement_ids", [])),
        company=company_matcher(classification.company_name),
    )


def _library_state(library: Library) -> EmployerRunState:
    return {
        "sources": library.sources,
        "evidence": library.evidence,
        "dropped": library.dropped,
        "input_ids": library.input_ids,
        "requirement_ids": library.requirement_ids,
    }


def _progress(ctx: RunContext, state: EmployerRunState) -> EmployerRunState:
    """The gateway's warnings (this run's, earlier processes' restored on resume) added
    to the run's warnings. Usage is the ledger's (``deepresearch/ledger.py``)."""
    warnings = list(state.get("warnings", []))
    warnings += [message for message in ctx.gateway.errors if message not in warnings]
    return {"warnings": warnings}


# phase 1 -----------------------------------------------------------------------------------
async def _classify(
    ctx: RunContext, request: EmployerRequest, lists: EmployerLists
) -> Classification:
    bus = ctx.bus
    bus.emit(PhaseStarted(phase=CONNECTING), stage=CONNECTING, message="Reading the input...")
    classification = await classify(ctx.gateway, request, lists)
    skills = ", ".join(classification.extracted_skills) or "none"
    bus.emit(
        ConnectingComplete(phase=CONNECTING, **classification.model_dump()),
        stage=CONNECTING,
        message=f"Input: {classification.query_type} | Company: "
        f"{classification.company_name or 'unknown'} | Role: "
        f"{classification.job_title or 'unknown'} | Skills: {skills}",
    )
    return classification


def _screen(
    ctx: RunContext,
    request: EmployerRequest,
    classification: Classification,
    lists: EmployerLists,
) -> str | None:
    """A suspicious name, title or job description: nothing will be searched."""
    reason = screen_name(classification.company_name, lists)
    reason = reason or screen_name(classification.job_title, lists)
    description = request.job_description or ""
    if not reason and description:
        phrase = find_instructions(description)
        if phrase:
            reason = f"the job description tries to instruct the model ({phrase[:60]!r})"
    if reason:
        ctx.bus.emit(
            SuspiciousInputWarning(code="suspicious_input", reason=reason),
            stage=CONNECTING,
            message=f"Suspicious input, not researched: {reason}",
        )
    return reason


def _add_job_description(
    library: Library, request: EmployerRequest, classification: Classification
) -> None:
    text = (request.job_description or "").strip()
    if not text and classification.query_type == "job_description":
        text = (request.company or "").strip()
    if not text:
        return
    posting = job_description_source(text)
    library.sources[posting.source.url] = posting.source
    library.evidence.extend(posting.evidence)
    library.input_ids = [item.id for item in posting.evidence]
    library.requirement_ids = list(posting.requirement_ids)


# phase 2 -----------------------------------------------------------------------------------
async def _research_attempt(
    ctx: RunContext,
    lists: EmployerLists,
    request: EmployerRequest,
    library: Library,
    attempts: list[Attempt],
    classification: Classification,
    queries: list[str],
    attempt: int,
    *,
    skip: str | None,
) -> tuple[Phase2Output, list[str]]:
    """One attempt; ``attempts`` gets its record. Returns the profile and any error."""
    bus = ctx.bus
    planned: list[str] = [] if skip else [*queries]
    bus.emit(
        PhaseStarted(phase=RESEARCH, attempt=attempt, queries=planned),
        stage=RESEARCH,
        message="Researching for info...",
    )
    if skip:
        output = Phase2Output(synthesized_by="skipped", reasoning_trace=f"Not researched: {skip}.")
        attempts.append(Attempt(attempt=attempt, queries=[]))
        _phase2_complete(ctx, output, attempt)
        return output, []
    record = Attempt(attempt=attempt, queries=list(queries))
    attempts.append(record)
    try:
        output = await _search_and_synthesize(
            ctx, lists, request, library, attempts, classification, record
        )
    except DeepResearchError:
        raise
    except Exception as exc:  # seed 14.1: return what is known and carry on
        detail = redact(f"{type(exc).__name__}: {exc}", ctx.secrets)
        output = Phase2Output(
            employer_summary=FALLBACK_SUMMARY,
            search_queries_used=_queries_used(attempts),
            synthesized_by="fallback",
            reasoning_trace=f"Research phase encountered an error: {detail[:100]}",
        )
        bus.emit(
            ResearchFailedWarning(code="research_failed"),
            stage=RESEARCH,
            message="Research step failed; continuing",
        )
        _phase2_complete(ctx, output, attempt)
        return output, [f"Phase 2 error: {detail[:200]}"]
    _phase2_complete(ctx, output, attempt)
    return output, []


async def _search_and_synthesize(
    ctx: RunContext,
    lists: EmployerLists,
    request: EmployerRequest,
    library: Library,
    attempts: list[Attempt],
    classification: Classification,
    record: Attempt,
) -> Phase2Output:
    bus = ctx.bus
    reader = SourceReader(ctx, library.sources, Provenance())
    require_company = library.company is not None
    for number, query in enumerate(record.queries, start=1):
        bus.emit(
            ToolCall(kind="tool_call", tool="web_search", input=SearchInput(query=query)),
            stage=RESEARCH,
            message=f"web_search: {query}",
        )
        found = await search_once(
            ctx,
            reader,
            library,
            query,
            query_id=f"a{record.attempt}q{number}",
            sources_per_query=request.sources_per_query,
            max_chars=request.max_result_chars,
            require_company=require_company,
        )
        record.results.append(found)
        bus.emit(
            Observation(
                kind="observation",
                tool="web_search",
                query=query,
                evidence=list(found.evidence),
                sources=list(found.sources),
                hits=found.hits,
            ),
            stage=RESEARCH,
            message="Found relevant employer information."
            if found.evidence
            else "No relevant employer information found.",
        )
    bus.emit(Reasoning(kind="reasoning"), stage=RESEARCH, message="Synthesizing search results...")
    results = [r for attempt in attempts for r in attempt.results]
    formatted = format_search_results(
        results,
        library.evidence,
        library.sources,
        input_ids=library.input_ids,
        blocks=True,
    )
    output = await synthesize(
        ctx.gateway,
        classification,
        formatted,
        library.evidence,
        lists,
        library.company,
        input_ids=library.input_ids,
        listed_requirements=library.requirement_ids,
    )
    return output.model_copy(update={"search_queries_used": _queries_used(attempts)})


def _queries_used(attempts: list[Attempt]) -> list[str]:
    return [query for attempt in attempts for query in attempt.queries]


def _phase2_complete(ctx: RunContext, output: Phase2Output, attempt: int) -> None:
    tech, reqs = len(output.tech_stack), len(output.identified_requirements)
    culture = len(output.culture_signals)
    ctx.bus.emit(
        ResearchComplete(
            phase=RESEARCH,
            attempt=attempt,
            technologies=tech,
            requirements=reqs,
            culture_signals=culture,
            synthesized_by=output.synthesized_by,
            unsupported=len(output.unsupported),
        ),
        stage=RESEARCH,
        message=f"Identified {tech} technologies, {reqs} requirements, {culture} culture signals",
    )


# phase 2b ----------------------------------------------------------------------------------
async def _rerank(
    ctx: RunContext,
    lists: EmployerLists,
    library: Library,
    classification: Classification,
    phase2: Phase2Output,
    attempt: int,
    *,
    screened: str | None,
) -> tuple[ResearchRerankerOutput, bool]:
    bus = ctx.bus
    bus.emit(PhaseStarted(phase=RERANKER), stage=RERANKER, message="Validating research quality...")
    inputs = rerank.gather_inputs(
        phase2,
        lists,
        company_name=classification.company_name,
        job_title=classification.job_title,
        sources=library.source_infos(),
        search_attempt=attempt,
        screened=screened,
    )
    bus.emit(
        Reasoning(
            kind="reasoning",
            data_quality_tier=inputs.assessment.data_quality_tier,
            preliminary_tier=inputs.assessment.preliminary_tier,
            risk_level=inputs.bad_data.risk_level,
            patterns_detected=list(inputs.bad_data.patterns_detected),
        ),
        stage=RERANKER,
        message=f"Assessing research quality: {inputs.assessment.data_quality_tier} tier detected",
    )
    output = rerank.decide(inputs)
    failed = False
    if output.evaluated_by != "screening" and ctx.gateway.has_model("judge"):
        verdict = await judge.evaluate(ctx.gateway, output, inputs, library.evidence)
        if verdict is None:
            output, failed = rerank.after_evaluation_error(output, inputs), True
            bus.emit(
                JudgeFailedWarning(code="judge_failed"),
                stage=RERANKER,
                message="The judge model failed; the heuristic assessment decided",
            )
        else:
            output = judge.combine(output, verdict, inputs)
    bus.emit(
        RerankerComplete(
            phase=RERANKER,
            data_quality_tier=output.data_quality_tier,
            research_quality_tier=output.research_quality_tier,
            data_confidence_score=output.data_confidence_score,
            recommended_action=output.recommended_action,
            company_verifiability=output.company_verifiability,
            quality_flags=list(output.quality_flags),
            pruned=output.pruned_data,
            evaluated_by=output.evaluated_by,
        ),
        stage=RERANKER,
        message=f"Data: {output.data_quality_tier} | Quality: "
        f"{output.research_quality_tier} | Confidence: {output.data_confidence_score}% | "
        f"Action: {output.recommended_action}",
    )
    return output, failed
