"""The payload of each core event type (``models.events``): what a run's stages report.

One class per type, named for it (``source_fetched`` -> ``SourceFetched``); a type with
several shapes has one class per shape (the warnings, by ``code``). A class's docstring
and its fields' descriptions are what docs/events.md says about the event. Literal
values that mirror a stage's own (the gate's statuses, a lead's kinds...) are checked
against it by mypy where the stage builds the payload."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from deepresearch.models.event_registry import Payload
from deepresearch.models.plan import UnitStatus
from deepresearch.models.report import Audit, ReportKind
from deepresearch.models.scores import SourceScores
from deepresearch.models.source import SourceKind


class Item(BaseModel):
    """A nested object of a payload: as strict as the payload itself."""

    model_config = ConfigDict(extra="forbid", frozen=True)


class UnitRef(Item):
    id: str = Field(description="the sub-question's id (q1, q2...)")
    text: str = Field(description="the sub-question")


class PlannedUnit(UnitRef):
    queries: list[str] = Field(description="the searches planned for it")


class QueuedUnit(PlannedUnit):
    lead: str | None = Field(description="the lead the unit follows, else null")
    widened: int = Field(
        default=0,
        description="how many times a covered sub-question was re-run to read its further "
        "results (deep's reading floor, `min_sources_read`); 0 for a new unit",
    )


class ChosenSource(Item):
    url: str
    title: str
    score: float = Field(description="its final score")


class LeadNote(Item):
    text: str = Field(description="the lead: a name the verified quotes mention")
    kind: Literal["bridge", "option"]
    score: float
    evidence: list[str] = Field(description="the evidence ids that named it")
    followed: bool = Field(description="false when there was no room to follow it")


class GateMinimums(Item):
    min_evidence: int
    min_cited_evidence: int
    min_domains: int


# the run ------------------------------------------------------------------------------------
class RunStarted(Payload):
    """A run began."""

    event_type = "run_started"
    question: str = Field(description="the question (an employer run: what it looks up)")
    model: str = Field(description="the model setting")
    search: str = Field(description="the search provider(s)")
    depth: str | None = Field(default=None, description="research runs: the depth preset")
    recipe: str | None = Field(default=None, description="a recipe's run: the recipe's name")
    followup_of: str | None = Field(
        default=None, description="a follow-up (docs/followups.md): the run it follows up"
    )


class RunResumed(Payload):
    """A stopped run continues from its last checkpoint (see "Resumed runs")."""

    event_type = "run_resumed"
    question: str = Field(description="the run's question (empty for a recipe without one)")
    next: list[str] = Field(description="the stages about to run")


class StageStarted(Payload):
    """A stage of the research graph began."""

    event_type = "stage_started"
    stages = "any"
    members: list[str] | None = Field(
        default=None, description="council: the members asked for a brief"
    )


class StageCompleted(Payload):
    """A stage of the research graph finished; the research stage adds its wave's counts."""

    event_type = "stage_completed"
    stages = "any"
    wave: int | None = Field(default=None, description="research: the wave that ended")
    sources: int | None = Field(default=None, description="research: sources known so far")
    fetched: int | None = Field(default=None, description="research: of them, pages read")
    evidence: int | None = Field(default=None, description="research: evidence so far")


class IntakeDecided(Payload):
    """What the question is, and so what the run does with it."""

    event_type = "intake_decided"
    stages = "intake"
    intent: Literal["research", "chitchat", "clarify", "malicious"] = Field(
        description="research it, answer a greeting, ask back, or refuse"
    )
    decided_by: Literal["rules", "model"] = Field(description="who decided")
    reason: str | None = Field(default=None, description="malicious: what gave it away")


class PresearchDone(Payload):
    """The pre-search before planning (seed 002's brief context): one search on the
    question's names, whose top results the planner reads as data; or why nothing was
    searched (the question names nothing)."""

    event_type = "presearch"
    stages = "plan"
    query: str = Field(description="what was searched (empty: nothing, see skipped)")
    results: list[str] = Field(
        default_factory=list, description="the results the planner was given: title (site): snippet"
    )
    dropped: int = Field(default=0, description="results left out for trying to instruct a model")
    skipped: str | None = Field(default=None, description="why nothing was searched")


class PlanReady(Payload):
    """The research plan: the sub-questions of the first wave and their searches."""

    event_type = "plan_ready"
    stages = "plan"
    brief: str = Field(description="what the research is for, in a sentence or two")
    sub_questions: list[PlannedUnit] = Field(description="the first wave's units")
    fallback: bool = Field(description="true when the plan was made without a model")
    # seed 004's research plan (issue 28); absent from events written before it
    scope: str | None = Field(default=None, description="what the answer covers")
    evidence_strategy: str | None = Field(
        default=None, description="how sources are found and checked"
    )
    output_format: str | None = Field(default=None, description="what the report will look like")
    presearch: list[str] | None = Field(
        default=None, description="the pre-search results the planner was given, if any"
    )


class WaveStarted(Payload):
    """A research wave began."""

    event_type = "wave_started"
    stages = "research"
    fact = ("wave",)
    wave: int = Field(description="1, 2, 3...")
    max_waves: int = Field(description="the run's bound on waves")
    units: list[UnitRef] = Field(description="the sub-questions researched in this wave")


class SearchCompleted(Payload):
    """A research unit's searches came back."""

    event_type = "search_completed"
    stages = "research"
    fact = ("sub_question", "wave")
    sub_question: str = Field(description="the unit's id")
    wave: int
    queries: list[str] = Field(description="the searches run")
    received: int = Field(description="results the providers returned")
    duplicates: int = Field(description="of them, the same page twice")
    invalid: int = Field(description="of them, with an unusable address")
    kept: int = Field(description="results left to rank")
    providers: dict[str, int] = Field(
        description='results kept per search provider, e.g. `{"local": 4, "searxng": 6}`; '
        "a result two providers returned counts for both"
    )


class SourcesRanked(Payload):
    """A unit's candidate sources scored, and those it reads chosen."""

    event_type = "sources_ranked"
    stages = "research"
    fact = ("sub_question", "wave")
    sub_question: str = Field(description="the unit's id")
    wave: int
    threshold: float = Field(description="the final score a source needs to be read")
    candidates: list[SourceScores] = Field(
        description="every candidate's SourceScores: dimension scores, tier, multipliers, "
        "final, decision, reason"
    )
    chosen: list[ChosenSource] = Field(description="the sources to read")
    dropped: int = Field(description="candidates not read")


class SourceFetched(Payload):
    """A page was read (from the web or the page cache)."""

    event_type = "source_fetched"
    stages = "research"
    fact = ("url",)
    url: str
    title: str = Field(description="the page's title (may be empty)")
    domain: str
    kind: SourceKind = Field(description="what the text was extracted from")
    chars: int = Field(description="characters of text extracted")
    from_provider: bool = Field(description="true when the text came from a cache, not a fetch")


class SourceFailed(Payload):
    """A page could not be read; its search snippet is used instead."""

    event_type = "source_failed"
    stages = "research"
    fact = ("url",)
    url: str
    domain: str
    reason: str = Field(description="why it could not be read")


class SourceSummarized(Payload):
    """A page read for a unit gave its quotes."""

    event_type = "source_summarized"
    stages = "research"
    fact = ("url", "sub_question")
    url: str
    sub_question: str = Field(description="the unit's id")
    evidence: int = Field(description="verified quotes taken from it")


class EvidenceAdded(Payload):
    """A research unit finished: seed 004's per-unit summary (status, topic, duration,
    failure reason) and what it found. ``done``, ``units`` and ``max_waves`` give the
    service's job progress."""

    event_type = "evidence_added"
    stages = "research"
    fact = ("sub_question", "wave")
    sub_question: str = Field(description="the unit's id")
    wave: int
    count: int = Field(description="verified quotes the unit found")
    sources: int = Field(description="sources the unit read")
    done: int = Field(description="how many of the wave's units have finished")
    units: int = Field(description="of how many")
    max_waves: int = Field(description="the run's bound on waves")
    status: UnitStatus = Field(
        default="completed",
        description="completed, or failed / timed_out: the unit raised something "
        "unexpected or ran past unit_timeout_s; the run goes on without it",
    )
    topic: str = Field(default="", description="the sub-question the unit researched")
    duration_s: float | None = Field(
        default=None, description="seconds the unit ran (never in the report: a replay's differ)"
    )
    failure_reason: str | None = Field(
        default=None,
        description="why it failed: 'research unit timed out' or 'research unit execution failed'",
    )


class LibraryReused(Payload):
    """The run looked in its owner's library first (issue 25): verified quotes of earlier
    runs relevant to its sub-questions, each verified again against its page (the stored
    text of a page read within the freshness window, else the page fetched again). Only
    when the library offered something."""

    event_type = "library_reused"
    stages = "library"
    offered: int = Field(description="quotes the library offered for the sub-questions")
    reused: int = Field(description="of them, verified again and added to the evidence")
    pages: int = Field(description="pages reused from their stored text, not fetched")
    refetched: int = Field(description="pages fetched again: older than the window")
    dropped: int = Field(
        description="quotes not reused: no longer on their page fetched again, or the page "
        "could not be read again"
    )
    runs: list[str] = Field(description="the earlier runs the reused quotes come from")


class GateEvaluated(Payload):
    """The quality gate's verdict on the evidence so far."""

    event_type = "gate_evaluated"
    stages = "gate"
    status: Literal["pass", "retry", "abort"] = Field(
        description="write the report, research more, or give up"
    )
    reasons: list[str] = Field(description="why it did not pass")
    evidence: int = Field(description="verified quotes")
    cited_evidence: int = Field(description="of them, ones the report can cite")
    domains: list[str] = Field(description="the sites they come from")
    weak_sub_questions: list[str] = Field(description="the units with too little evidence")
    gaps: list[str] = Field(
        description="what the evidence does not yet show to answer the question: a compared "
        "thing no quote names, no value of the asked kind, an open multi-hop chain (also in "
        "reasons)"
    )
    thresholds: GateMinimums = Field(description="the minimums the gate applied")


class Reflected(Payload):
    """What the run does after a wave: research more, write, or abort."""

    event_type = "reflection"
    stages = "reflect"
    route: Literal["research", "write", "abort"] = Field(
        description="what the run does next (`write` goes through check_findings)"
    )
    queued: list[QueuedUnit] = Field(description="the units of the next wave")
    leads: list[LeadNote] = Field(
        description="the leads found in the verified quotes while the gate does not pass, "
        "best first"
    )
    wave: int = Field(description="the wave that ended")
    max_waves: int = Field(description="the run's bound on waves")
    units_used: int = Field(description="units researched so far")
    max_units: int = Field(description="the run's bound on units")


# every stage --------------------------------------------------------------------------------
class ModelCalled(Payload):
    """One request to a chat model (a reply from the response cache makes none)."""

    event_type = "model_call"
    stages = "the calling stage"
    role: str = Field(description="planner, researcher, summarizer, judge or writer")
    model: str = Field(description="the model's name")
    input_tokens: int
    output_tokens: int
    latency_s: float = Field(
        description="seconds from the call's start (not its wait for a slot), retries included"
    )
    ok: bool = Field(description="false when it failed after its retries")
    attempts: int = Field(description="tries, retries included")
    usage_source: str = Field(description="'reported' by the provider or 'estimated'")
    cost_usd: float | None = Field(
        default=None, description="the call's cost in US dollars (the price table); null: unpriced"
    )
    budget: dict[str, float | int | None] | None = Field(
        default=None,
        description="spend against the run's budgets so far (`--max-tokens`, `--max-cost`, "
        "`--max-time`): tokens, cost_usd, elapsed_s and each limit (null: none set)",
    )


class ModelCallWaiting(Payload):
    """A model call has to wait for a free slot at its endpoint (only sent when it waits)."""

    event_type = "model_call_waiting"
    stages = "the calling stage"
    role: str
    endpoint: str = Field(
        description="`host:port` or a provider name: never a URL's credentials or a key"
    )
    waiting: int = Field(description="calls now waiting for that endpoint, this one included")
    in_flight: int = Field(description="calls running at the endpoint")
    limit: int = Field(description="the endpoint's slots (`model_concurrency`)")


class ModelCallStarted(Payload):
    """A call that waited got its slot; its timeout starts now."""

    event_type = "model_call_started"
    stages = "the calling stage"
    role: str
    endpoint: str
    waiting: int = Field(description="calls still waiting")
    in_flight: int
    limit: int
    waited_s: float = Field(description="seconds it waited")


class _Warning(Payload):
    event_type = "warning"
    shapes_by = "code"
    stages = "any"


class InjectionWarning(_Warning):
    """A page or search result tries to instruct the model: it is dropped, never quoted."""

    stages = "research, rank"
    fact = ("code", "url")
    code: Literal["injection"]
    url: str = Field(description="the page or search result")
    phrase: str = Field(
        description="the words that gave it away (an address in them shown only as its host)"
    )
    kinds: str | None = Field(default=None, description="a page: the kinds of instruction found")
    hidden: bool | None = Field(default=None, description="a page: whether any was hidden text")


class FetchRefusedWarning(_Warning):
    """A URL that came from no search result or request was not fetched."""

    stages = "research"
    fact = ("code", "url")
    code: Literal["fetch_refused"]
    url: str = Field(description="the address not fetched")


class SearchProviderFailedWarning(_Warning):
    """One of several search providers failed while the others answered (once per provider
    and problem)."""

    stages = "research"
    code: Literal["search_provider_failed"]
    provider: str = Field(description="the provider's name")


class SearchFailedWarning(_Warning):
    """A search failed; the run goes on without its results."""

    stages = "research, deep_research"
    code: Literal["search_failed"]
    query: str = Field(description="the search that failed")


class UnitStoppedWarning(_Warning):
    """A sub-question found nothing after its search iterations and is not retried."""

    stages = "reflect"
    code: Literal["unit_stopped"]
    sub_question: str = Field(description="the unit's id")


class SuspiciousInputWarning(_Warning):
    """A recipe's input (a name, a job description) tries to instruct the model: nothing
    is searched."""

    stages = "connecting"
    code: Literal["suspicious_input"]
    reason: str = Field(description="what gave it away")


class JudgeFailedWarning(_Warning):
    """The judge model failed; the heuristic assessment decided."""

    stages = "research_reranker"
    code: Literal["judge_failed"]


class ResearchFailedWarning(_Warning):
    """A recipe's research step failed; the run goes on with what it has."""

    stages = "deep_research"
    code: Literal["research_failed"]


class RunPausedWarning(_Warning):
    """The run stopped after the stage it was asked to stop after."""

    stages = "-"
    code: Literal["run_paused"]
    next: list[str] = Field(description="the stages a resume runs next")


class JudgeUnusableWarning(_Warning):
    """The judge's ratings of a sub-question's candidates were unusable (failed, unparsable,
    incomplete, out of range, all the neutral 0.5 or all the same): it was ranked as
    without a model."""

    stages = "rank"
    code: Literal["judge_unusable"]
    sub_question: str = Field(description="the unit's id")
    reason: str = Field(description="what was wrong with the ratings")


class ModelWaitTimeoutWarning(_Warning):
    """A call waited `model_wait_timeout_s` for its endpoint and gave up; its step used
    the fallback."""

    stages = "the calling stage"
    code: Literal["model_wait_timeout"]
    role: str
    endpoint: str
    waiting: int
    in_flight: int
    limit: int
    waited_s: float


class ModelUnavailableWarning(_Warning):
    """A model endpoint failed the preflight and `on_model_unavailable = "extractive"`: its
    roles run without a model."""

    stages = "-"
    code: Literal["model_unavailable"]
    endpoint: str
    roles: list[str] = Field(description="the roles that run without a model")
    reason: str = Field(description="why the endpoint is unavailable")


class ReportReady(Payload):
    """The run's document is written."""

    event_type = "report_ready"
    stages = "write, abort, intake, answer; a recipe's last phase"
    kind: ReportKind | Literal["employer"] = Field(
        description="the report's kind, or the recipe's name for a recipe's document"
    )
    sources: int | None = Field(default=None, description="sources cited")
    evidence: int | None = Field(default=None, description="verified quotes cited")
    invented_citations: int | None = Field(
        default=None, description="citations to evidence that does not exist, dropped"
    )
    sections_planned: int | None = Field(
        default=None, description="sections the writer's outline planned"
    )
    sections_first_pass: int | None = Field(
        default=None, description="planned sections whose first draft passed validation"
    )
    sections_repaired: int | None = Field(
        default=None, description="planned sections that passed after one repair"
    )
    sections_fallback: int | None = Field(
        default=None, description="planned sections replaced by their verified quotes"
    )
    reply: str | None = Field(default=None, description="a reply's text (chitchat...)")
    outcome: Literal["profile", "early_exit"] | None = Field(
        default=None, description="employer: whether a profile was passed on"
    )


class FiguresPlaced(Payload):
    """Figures from the cited sources were considered for the report (issue 26): how many
    matched a section, how many were placed, and why the others' images were refused."""

    event_type = "figures_placed"
    stages = "figures"
    candidates: int = Field(description="figure-section pairs that matched")
    placed: int = Field(description="figures the report shows")
    refused: list[str] = Field(
        default_factory=list, description="images not shown: the address's host and why"
    )


class BudgetExhausted(Payload):
    """A budget (`--max-tokens`, `--max-cost`, `--max-time`) is used up: no model call or
    fetch starts after it; the run writes its report from what it has."""

    event_type = "budget_exhausted"
    budget: Literal["tokens", "cost", "time"] = Field(description="the budget that ended it")
    spend: dict[str, float | int | None] = Field(description="spend against the budgets")


class AuditCompleted(Audit, Payload):
    """Every sentence of the report checked against its sources."""

    event_type = "audit_completed"
    stages = "audit"


class RunCompleted(Payload):
    """The run finished with its document."""

    event_type = "run_completed"
    kind: str = Field(description="the report's kind, or the recipe's name")
    sources: int = Field(description="sources in the document")
    evidence: int = Field(description="verified quotes in the document")
    fetches: int = Field(
        description="pages asked of the fetcher over the whole run, earlier processes of a "
        "resumed run included"
    )
    input_tokens: int = Field(description="the run's model tokens in")
    output_tokens: int = Field(description="and out")
    outcome: Literal["profile", "early_exit"] | None = Field(
        default=None, description="employer: whether a profile was passed on"
    )
    cost_usd: float | None = Field(
        default=None, description="the run's cost in US dollars (priced calls only)"
    )
    budget: Literal["tokens", "cost", "time"] | None = Field(
        default=None, description="with a budget set: the budget that ended the run, if one did"
    )
    spend: dict[str, float | int | None] | None = Field(
        default=None, description="with a budget set: the run's spend against its budgets"
    )


class RunFailed(Payload):
    """The run stopped on an error; the message is sanitized."""

    event_type = "run_failed"
    error: str = Field(description="the error's class (the service's event: its message)")


class RunCancelled(Payload):
    """The run was cancelled."""

    event_type = "run_cancelled"


class NoCouncilWarning(_Warning):
    """The council was asked for but cannot meet: one planner plans the run."""

    stages = "council"
    code: Literal["no_council"]
    reason: str = Field(description="why not (no judge model, no planner...)")


class NoSupportedFindingsWarning(_Warning):
    """The findings check found no finding its quote supports: the run ends in the abort
    report."""

    stages = "check_findings"
    code: Literal["no_supported_findings"]


class NoAnswerWarning(_Warning):
    """Without search (`--search none`), the model gave no answer: the run ends in the
    abort report."""

    stages = "answer"
    code: Literal["no_answer"]
