"""The payloads of the events in which a run checks its own work (seed 002): the council's
decision on the brief, the findings check and the claims before writing, and the report's
evaluation.
Like ``event_payloads`` (the other core types), a class's docstring and its fields'
descriptions are what docs/events.md says; they join the registry when this module is
imported (``models.events`` imports it before any look-up)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from deepresearch.models.council import CouncilDecision, ReviewOutcome, VoteVerdict
from deepresearch.models.event_payloads import Item
from deepresearch.models.event_registry import Payload


class CouncilMember(Item):
    member: str = Field(description="the model spec, or the planner's persona")
    score: float | None = Field(description="the judge's score, 0-1; null when not scored")
    reason: str = Field(description="the judge's reason")
    sub_questions: int = Field(description="how many sub-questions it proposed")


class CouncilDecided(Payload):
    """The council (`--council`) chose the research brief: several members proposed one,
    the judge scored each. The council's `stage_started` names its members; without a
    judge (or planner) a `no_council` warning says there is none."""

    event_type = "council_decided"
    stages = "council"
    decision: CouncilDecision = Field(
        description="`best`: consensus at or above the threshold, the best taken; `merged`: "
        "below it, the top two merged; `single`: nothing scored, the first proposal"
    )
    # null is sent, not left out: a client tells "not scored" from an older event
    consensus: float | None = Field(
        description="the mean of the judge's 0-1 scores, null when nothing was scored"
    )
    threshold: float = Field(description="the consensus the best proposal needs alone")
    chosen: list[str] = Field(description="the members the plan came from, best first")
    proposals: list[CouncilMember] = Field(description="every member's proposal, as scored")


class CouncilVoted(Payload):
    """A council member voted on the plan (seed 002's validate_brief): approve, revise or
    reject, with feedback. Round 0 votes on the council's plan, round n on the n-th
    revision."""

    event_type = "council_voted"
    stages = "council"
    round: int = Field(description="0: the council's plan; n: the n-th revision")
    member: str = Field(description="the model spec, or the planner's persona")
    # null is sent, not left out: an abstention is told from an older event
    verdict: VoteVerdict | None = Field(description="the vote; null: no usable reply")
    feedback: str = Field(description="what the member says the plan needs")


class CouncilReviewed(Payload):
    """A round of the members' votes was tallied: the consensus (the mean vote, approve 1,
    revise 0.5, reject 0) against the threshold decides whether the plan is approved or
    revised (up to `council_max_revisions` times)."""

    event_type = "council_reviewed"
    stages = "council"
    round: int = Field(description="0: the council's plan; n: the n-th revision")
    outcome: ReviewOutcome = Field(
        description="`approved`: at or above the threshold; `revise`: below, the planner "
        "revises; `stopped`: below with no revision left (or it failed), the last plan "
        "stands; `no_vote`: too few members or votes, the plan stands as decided"
    )
    consensus: float | None = Field(description="the round's consensus; null: no vote held")
    threshold: float = Field(description="the consensus the plan needs")
    votes: int = Field(description="votes cast this round")
    note: str = Field(description="why no vote was held, or why the revisions stopped")


class CouncilRevised(Payload):
    """The planner revised the plan from the members' feedback; the members vote again."""

    event_type = "council_revised"
    stages = "council"
    round: int = Field(description="the revision's number, 1 first")
    feedback: str = Field(description="the members' feedback the planner was given")
    brief: str = Field(description="the revised brief")
    sub_questions: list[str] = Field(description="the revised sub-questions")


class FindingsChecked(Payload):
    """Before writing, each verified finding's claim was read against its own quote;
    the unsupported ones were dropped (the writer never sees them)."""

    event_type = "findings_checked"
    stages = "check_findings"
    findings_checked: int = Field(description="findings read against their quotes")
    findings_partial: int = Field(description="of them, partly supported")
    findings_unsupported: int = Field(description="of them, unsupported (dropped)")
    dropped: list[str] = Field(description="the evidence ids of the dropped findings")
    methods: list[Literal["judge", "deterministic", "quote"]] = Field(
        description="how they were checked (`quote`: a claim that is its own quote needs no check)"
    )


class ClaimsExtracted(Payload):
    """Before writing, the verified evidence was grouped into claims and the contradictions
    between sources found: by the judge in one call, each of its claims checked (ids that
    do not name verified evidence, and claims no cited quote supports, dropped) and its
    contradictions cross-checked by the deterministic detector; or, without a judge or a
    usable reply, by the detector alone."""

    event_type = "claims_extracted"
    stages = "check_findings"
    method: Literal["model", "detector"] = Field(
        description="`model`: the judge's claims (some held); `detector`: the deterministic "
        "detector alone (no judge, a failed call, or no claim held)"
    )
    proposed: int = Field(description="claims the judge proposed (0 without a reply)")
    claims: int = Field(description="of them, the claims kept")
    dropped_claims: int = Field(description="claims dropped: no cited quote supports them")
    dropped_ids: int = Field(
        description="evidence ids the judge cited that name no verified evidence (dropped)"
    )
    contradictions: int = Field(description="pairs of records that contradict each other")
    cross_checked: int = Field(description="of them, seen by the judge and the detector")
    model_only: int = Field(description="of them, seen by the judge alone (kept, labelled)")
    detector_only: int = Field(description="of them, seen by the detector alone")


class EvalCompleted(Payload):
    """The report was evaluated (only with `evaluate`, `run --eval`; `deepresearch eval`
    emits no event): its figures, counted without a model, and the judge's 0-10 scores."""

    event_type = "eval_completed"
    stages = "evaluate"
    # the figures are sent as null when there was nothing to count
    citation_precision: float | None = Field(
        description="cited sentences whose citations support them / cited sentences"
    )
    citation_recall: float | None = Field(
        description="factual sentences with a supporting citation / factual sentences"
    )
    coverage: float | None = Field(
        description="sub-questions the report cites evidence for / sub-questions planned"
    )
    overall: float | None = Field(description="the judge's mean, 0-10; null without scores")
    judge_model: str | None = Field(description="the judge's model; null without scores")
    comprehensiveness: float | None = Field(default=None, description="the judge's score")
    insight: float | None = Field(default=None, description="the judge's score")
    instruction_following: float | None = Field(default=None, description="the judge's score")
    readability: float | None = Field(default=None, description="the judge's score")
    # the research process (seed 004): a figure counted without a model, the judge's mean
    # of search strategy and source diversity, and the 60/40 composite of report and process
    source_diversity: float | None = Field(
        default=None, description="distinct domains / sources read"
    )
    process_overall: float | None = Field(
        default=None, description="the judge's process mean, 0-10"
    )
    composite: float | None = Field(
        default=None, description="60% the judge's overall + 40% its process mean, 0-10"
    )


class FollowupStarted(Payload):
    """A follow-up turn (docs/followups.md) began: whether it is on the thread's topic,
    and what it carries over from the earlier turns."""

    event_type = "followup_started"
    stages = "followup"
    root: str = Field(description="the thread's first run")
    follows: str = Field(description="the run it follows up")
    turn: int = Field(description="the turn's number in the thread (2, 3 ...)")
    topic_shift: bool = Field(description="true: another topic, researched afresh, nothing reused")
    method: Literal["model", "lexical"] = Field(
        description="`model`: one small call decided; `lexical`: no model, or no usable "
        "answer (the share of the follow-up's words found in the thread)"
    )
    overlap: float = Field(
        description="share of the follow-up's words found in the thread's questions and findings"
    )
    reason: str = Field(description="why it is (or is not) a new topic")
    reused_sources: int = Field(description="pages read in earlier turns, not fetched again")
    reused_evidence: int = Field(
        description="verified quotes carried over, each verified again against its page"
    )
    dropped_evidence: int = Field(description="quotes carried over that no longer verify")
