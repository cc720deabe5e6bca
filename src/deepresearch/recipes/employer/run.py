"""Running the employer recipe: Phase 1 (classify), Phase 2 (deep research), Phase 2B (the
reranker), routing, at most one enhanced retry, and the result.

The ports are the engine's: the search provider and fetcher Settings build (or the ones
given), the model gateway with its deterministic fallbacks, the event bus. Every step
reports through the event bus (seed 000, section 15: ``phase``, ``thought``,
``phase_complete``; then ``route_decided``), so the CLI, the service and the page show
the same run.

    connecting ─► deep_research ─► research_reranker ─► CONTINUE / CONTINUE_WITH_FLAGS ─► profile
                        ▲                   ├── ENHANCE_SEARCH (once) ──┘
                        └───────────────────┘
                                            └── EARLY_EXIT ─► no profile, the reason why
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from contextlib import AsyncExitStack
from datetime import UTC, datetime

from langchain_core.language_models import BaseChatModel
from pydantic import JsonValue

from deepresearch.context import RunContext
from deepresearch.core.ids import check_run_id, new_run_id
from deepresearch.core.provenance import Provenance
from deepresearch.core.untrusted import find_instructions
from deepresearch.errors import DeepResearchError, RunError
from deepresearch.events import EventBus, Sink
from deepresearch.fetch.base import Fetcher
from deepresearch.llm.redact import redact
from deepresearch.ports import open_context
from deepresearch.recipes.employer import judge, rerank
from deepresearch.recipes.employer.bad_data import screen_name
from deepresearch.recipes.employer.classify import classify
from deepresearch.recipes.employer.extract import company_matcher
from deepresearch.recipes.employer.gather import (
    Library,
    format_search_results,
    job_description_source,
    search_once,
)
from deepresearch.recipes.employer.lists import EmployerLists, default_lists
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
from deepresearch.recipes.employer.routing import (
    MAX_SEARCH_ATTEMPTS,
    apply_route,
    next_phase,
    route_taken,
    snapshot,
)
from deepresearch.recipes.employer.synthesize import synthesize
from deepresearch.search.base import SearchProvider
from deepresearch.settings import Role, Settings
from deepresearch.stages.reading import SourceReader

RESEARCH = "deep_research"
RERANKER = "research_reranker"
CONNECTING = "connecting"
FALLBACK_SUMMARY = "Unable to gather complete employer information from the available sources."


async def run_employer(
    request: EmployerRequest,
    settings: Settings,
    *,
    sinks: Sequence[Sink] = (),
    models: Mapping[Role, BaseChatModel | None] | None = None,
    search: SearchProvider | None = None,
    fetcher: Fetcher | None = None,
    lists: EmployerLists | None = None,
    run_id: str | None = None,
) -> EmployerResult:
    """Research the employer ``request`` names and return the profile, or the reason
    there is none. ``models``, ``search`` and ``fetcher`` replace the ones ``settings``
    would build (tests, the service, library users); ``lists`` replaces the package's
    lists (``load_employer_lists(FILE)`` extends them)."""
    run_id = check_run_id(run_id) if run_id is not None else new_run_id()
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    bus = EventBus(run_id, list(sinks))
    async with AsyncExitStack() as stack:
        ctx = await open_context(stack, settings, bus, models, search, fetcher)
        bus.emit(
            "run_started",
            message="Employer research started",
            question=_describe(request),
            model=settings.model,
            search=ctx.search.name,
            recipe="employer",
        )
        try:
            result = await _EmployerRun(ctx, request, lists or default_lists(), run_id).run()
        except DeepResearchError as exc:
            message = redact(str(exc), settings.secrets())
            bus.emit("run_failed", message=message, error=type(exc).__name__)
            raise
        except Exception as exc:
            message = f"the employer research failed unexpectedly ({type(exc).__name__})"
            bus.emit("run_failed", message=message, error=type(exc).__name__)
            raise RunError(message, hint="try again; if it persists, report it") from exc
        bus.emit(
            "run_completed",
            message="Employer research finished",
            kind="employer",
            outcome=result.outcome,
            sources=len(result.sources),
            evidence=len(result.evidence),
            fetches=ctx.fetches,
            input_tokens=result.usage.input_tokens,
            output_tokens=result.usage.output_tokens,
        )
        return result


def _describe(request: EmployerRequest) -> str:
    what = request.company or "(from the job description)"
    return f"{what} — {request.role}" if request.role else what


class _EmployerRun:
    """One run's state and steps; :meth:`run` is the whole flow."""

    def __init__(
        self, ctx: RunContext, request: EmployerRequest, lists: EmployerLists, run_id: str
    ) -> None:
        self.ctx = ctx
        self.request = request
        self.lists = lists
        self.run_id = run_id
        self.library = Library()
        self.reader = SourceReader(ctx, {}, Provenance())
        self.attempts: list[Attempt] = []
        self.trace: list[RoutingStep] = []

    async def run(self) -> EmployerResult:
        state = EmployerState()
        classification = await self._connect()
        state = state.model_copy(
            update={"phase_1_output": classification, "current_phase": "deep_research"}
        )
        self.library.company = company_matcher(classification.company_name)
        screened = self._screen(classification)
        if self.request.job_description or classification.query_type == "job_description":
            self._add_job_description(classification)
        queries = research_queries(classification, max_queries=self.request.max_queries)
        output: ResearchRerankerOutput | None = None
        for _ in range(MAX_SEARCH_ATTEMPTS):
            phase2, errors = await self._deep_research(
                classification, queries, state.search_attempt, skip=screened
            )
            state = state.model_copy(
                update={
                    "phase_2_output": phase2,
                    "current_phase": "research_reranker",
                    "processing_errors": [*state.processing_errors, *errors],
                }
            )
            output, failed = await self._rerank(
                classification, phase2, state.search_attempt, screened=screened
            )
            state = state.model_copy(update={"research_reranker_output": output})
            if failed:
                # seed 14.2: an evaluation error spends the retry, so it cannot loop
                state = state.model_copy(
                    update={
                        "search_attempt": state.search_attempt + 1,
                        "processing_errors": [
                            *state.processing_errors,
                            "Phase 2B error: the judge model's evaluation failed",
                        ],
                    }
                )
            state = self._route(state, output)
            if state.current_phase != "deep_research":
                break
            queries = list(output.enhancement_queries)
        assert output is not None and state.phase_2_output is not None
        return self._result(classification, state, output, state.phase_2_output)

    # phase 1 ------------------------------------------------------------------------
    async def _connect(self) -> Classification:
        bus = self.ctx.bus
        bus.emit("phase", stage=CONNECTING, message="Reading the input...", phase=CONNECTING)
        classification = await classify(self.ctx.gateway, self.request, self.lists)
        skills = ", ".join(classification.extracted_skills) or "none"
        bus.emit(
            "phase_complete",
            stage=CONNECTING,
            message=f"Input: {classification.query_type} | Company: "
            f"{classification.company_name or 'unknown'} | Role: "
            f"{classification.job_title or 'unknown'} | Skills: {skills}",
            phase=CONNECTING,
            **classification.model_dump(mode="json"),
        )
        return classification

    def _screen(self, classification: Classification) -> str | None:
        """A suspicious name, title or job description: nothing will be searched."""
        reason = screen_name(classification.company_name, self.lists)
        reason = reason or screen_name(classification.job_title, self.lists)
        description = self.request.job_description or ""
        if not reason and description:
            phrase = find_instructions(description)
            if phrase:
                reason = f"the job description tries to instruct the model ({phrase[:60]!r})"
        if reason:
            self.ctx.bus.emit(
                "warning",
                stage=CONNECTING,
                message=f"Suspicious input, not researched: {reason}",
                reason=reason,
            )
        return reason

    def _add_job_description(self, classification: Classification) -> None:
        text = (self.request.job_description or "").strip()
        if not text and classification.query_type == "job_description":
            text = (self.request.company or "").strip()
        if not text:
            return
        posting = job_description_source(text)
        self.library.sources[posting.source.url] = posting.source
        self.library.evidence.extend(posting.evidence)
        self.library.input_ids = [item.id for item in posting.evidence]
        self.library.requirement_ids = list(posting.requirement_ids)

    # phase 2 ------------------------------------------------------------------------
    async def _deep_research(
        self,
        classification: Classification,
        queries: list[str],
        attempt: int,
        *,
        skip: str | None,
    ) -> tuple[Phase2Output, list[str]]:
        bus = self.ctx.bus
        planned: list[JsonValue] = [] if skip else [*queries]
        bus.emit(
            "phase",
            stage=RESEARCH,
            message="Researching for info...",
            phase=RESEARCH,
            attempt=attempt,
            queries=planned,
        )
        if skip:
            output = Phase2Output(
                synthesized_by="skipped", reasoning_trace=f"Not researched: {skip}."
            )
            self.attempts.append(Attempt(attempt=attempt, queries=[]))
            self._phase2_complete(output, attempt)
            return output, []
        record = Attempt(attempt=attempt, queries=list(queries))
        self.attempts.append(record)
        try:
            output = await self._search_and_synthesize(classification, record)
        except DeepResearchError:
            raise
        except Exception as exc:  # seed 14.1: return what is known and carry on
            detail = redact(f"{type(exc).__name__}: {exc}", self.ctx.settings.secrets())
            output = Phase2Output(
                employer_summary=FALLBACK_SUMMARY,
                search_queries_used=self._queries_used(),
                synthesized_by="fallback",
                reasoning_trace=f"Research phase encountered an error: {detail[:100]}",
            )
            bus.emit("warning", stage=RESEARCH, message="Research step failed; continuing")
            self._phase2_complete(output, attempt)
            return output, [f"Phase 2 error: {detail[:200]}"]
        self._phase2_complete(output, attempt)
        return output, []

    async def _search_and_synthesize(
        self, classification: Classification, record: Attempt
    ) -> Phase2Output:
        bus = self.ctx.bus
        require_company = self.library.company is not None
        for number, query in enumerate(record.queries, start=1):
            bus.emit(
                "thought",
                stage=RESEARCH,
                message=f"web_search: {query}",
                kind="tool_call",
                tool="web_search",
                input={"query": query},
            )
            result = await search_once(
                self.ctx,
                self.reader,
                self.library,
                query,
                query_id=f"a{record.attempt}q{number}",
                sources_per_query=self.request.sources_per_query,
                max_chars=self.request.max_result_chars,
                require_company=require_company,
            )
            record.results.append(result)
            found = bool(result.evidence)
            bus.emit(
                "thought",
                stage=RESEARCH,
                message="Found relevant employer information."
                if found
                else "No relevant employer information found.",
                kind="observation",
                tool="web_search",
                query=query,
                evidence=list(result.evidence),
                sources=list(result.sources),
                hits=result.hits,
            )
        bus.emit(
            "thought",
            stage=RESEARCH,
            message="Synthesizing search results...",
            kind="reasoning",
        )
        results = [r for attempt in self.attempts for r in attempt.results]
        formatted = format_search_results(
            results,
            self.library.evidence,
            self.library.sources,
            input_ids=self.library.input_ids,
            blocks=True,
        )
        output = await synthesize(
            self.ctx.gateway,
            classification,
            formatted,
            self.library.evidence,
            self.lists,
            self.library.company,
            input_ids=self.library.input_ids,
            listed_requirements=self.library.requirement_ids,
        )
        return output.model_copy(update={"search_queries_used": self._queries_used()})

    def _queries_used(self) -> list[str]:
        return [query for attempt in self.attempts for query in attempt.queries]

    def _phase2_complete(self, output: Phase2Output, attempt: int) -> None:
        tech, reqs = len(output.tech_stack), len(output.identified_requirements)
        culture = len(output.culture_signals)
        self.ctx.bus.emit(
            "phase_complete",
            stage=RESEARCH,
            message=f"Identified {tech} technologies, {reqs} requirements, "
            f"{culture} culture signals",
            phase=RESEARCH,
            attempt=attempt,
            technologies=tech,
            requirements=reqs,
            culture_signals=culture,
            synthesized_by=output.synthesized_by,
            unsupported=len(output.unsupported),
        )

    # phase 2b -----------------------------------------------------------------------
    async def _rerank(
        self,
        classification: Classification,
        phase2: Phase2Output,
        attempt: int,
        *,
        screened: str | None,
    ) -> tuple[ResearchRerankerOutput, bool]:
        bus = self.ctx.bus
        bus.emit("phase", stage=RERANKER, message="Validating research quality...", phase=RERANKER)
        inputs = rerank.gather_inputs(
            phase2,
            self.lists,
            company_name=classification.company_name,
            job_title=classification.job_title,
            sources=self.library.source_infos(),
            search_attempt=attempt,
            screened=screened,
        )
        bus.emit(
            "thought",
            stage=RERANKER,
            message=f"Assessing research quality: {inputs.assessment.data_quality_tier} "
            "tier detected",
            kind="reasoning",
            data_quality_tier=inputs.assessment.data_quality_tier,
            preliminary_tier=inputs.assessment.preliminary_tier,
            risk_level=inputs.bad_data.risk_level,
            patterns_detected=list(inputs.bad_data.patterns_detected),
        )
        output = rerank.decide(inputs)
        failed = False
        if output.evaluated_by != "screening" and self.ctx.gateway.has_model("judge"):
            verdict = await judge.evaluate(self.ctx.gateway, output, inputs, self.library.evidence)
            if verdict is None:
                output, failed = rerank.after_evaluation_error(output, inputs), True
                bus.emit(
                    "warning",
                    stage=RERANKER,
                    message="The judge model failed; the heuristic assessment decided",
                )
            else:
                output = judge.combine(output, verdict, inputs)
        bus.emit(
            "phase_complete",
            stage=RERANKER,
            message=f"Data: {output.data_quality_tier} | Quality: "
            f"{output.research_quality_tier} | Confidence: {output.data_confidence_score}% | "
            f"Action: {output.recommended_action}",
            phase=RERANKER,
            data_quality_tier=output.data_quality_tier,
            research_quality_tier=output.research_quality_tier,
            data_confidence_score=output.data_confidence_score,
            recommended_action=output.recommended_action,
            company_verifiability=output.company_verifiability,
            quality_flags=list(output.quality_flags),
            pruned=output.pruned_data.model_dump(mode="json"),
            evaluated_by=output.evaluated_by,
        )
        return output, failed

    def _route(self, state: EmployerState, output: ResearchRerankerOutput) -> EmployerState:
        route = route_taken(state)
        new_state = apply_route(state, route)
        step = RoutingStep(
            attempt=len(self.attempts),
            recommended_action=output.recommended_action,
            route=route,
            next_phase=next_phase(route),
            data_quality_tier=output.data_quality_tier,
            research_quality_tier=output.research_quality_tier,
            data_confidence_score=output.data_confidence_score,
            before=snapshot(state),
            after=snapshot(new_state),
        )
        self.trace.append(step)
        self.ctx.bus.emit(
            "route_decided",
            stage=RERANKER,
            message=f"Route: {route} → {step.next_phase}",
            **step.model_dump(mode="json"),
        )
        return new_state

    # the result ---------------------------------------------------------------------
    def _result(
        self,
        classification: Classification,
        state: EmployerState,
        output: ResearchRerankerOutput,
        phase2: Phase2Output,
    ) -> EmployerResult:
        early = state.early_exit
        result = EmployerResult(
            run_id=self.run_id,
            created=datetime.now(UTC),
            request=self.request,
            outcome="early_exit" if early else "profile",
            classification=classification,
            profile=None if early else output.cleaned_data,
            phase_2_output=phase2,
            reranker=output,
            search_attempt=state.search_attempt,
            low_data_flag=state.low_data_flag,
            early_exit=early,
            current_phase=state.current_phase,
            routing_trace=list(self.trace),
            attempts=list(self.attempts),
            sources=self.library.source_infos(),
            evidence=list(self.library.evidence),
            processing_errors=list(state.processing_errors),
            warnings=list(self.ctx.gateway.errors),
            model=self.ctx.gateway.model_name("researcher"),
            search=self.ctx.search.name,
            usage=self.ctx.usage_snapshot(),
        )
        self.ctx.bus.emit(
            "report_ready",
            stage="generate_results" if early else "skeptical_comparison",
            message="No profile: " + output.early_exit_reason
            if early
            else "Employer profile ready" + (" (low data)" if state.low_data_flag else ""),
            kind="employer",
            outcome=result.outcome,
            sources=len(result.sources),
            evidence=len(result.evidence),
        )
        return result
