"""The employer recipe's data (seed 000): the request, Phase 1's classification, Phase 2's
profile (Phase2Output), Phase 2B's ResearchRerankerOutput in full, the pipeline state of
section 13, and the result a front end renders. Plain pydantic, no I/O.

Field names follow the seed so its tables read straight onto the JSON. Where the seed has
``List[str]`` for profile items, deepresearch has :class:`ProfileItem`: the same text plus
the ids of the verified evidence it rests on, or ``inferred=True`` with its basis.
"""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator, model_validator

from deepresearch.core.sanitize import MAX_DOCUMENT_CHARS, MAX_QUESTION_CHARS, clean_text
from deepresearch.models import Evidence, Usage

QueryType = Literal["company", "job_description"]
DataQualityTier = Literal["CLEAN", "PARTIAL", "SPARSE", "UNRELIABLE", "GARBAGE"]
ResearchQualityTier = Literal["HIGH", "MEDIUM", "LOW", "INSUFFICIENT"]
Action = Literal["CONTINUE", "CONTINUE_WITH_FLAGS", "ENHANCE_SEARCH", "EARLY_EXIT"]
Verifiability = Literal["VERIFIED", "PARTIAL", "UNVERIFIED", "SUSPICIOUS"]
RiskLevel = Literal["LOW", "MEDIUM", "HIGH", "CRITICAL"]
#: the seed's node names; ``skeptical_comparison`` means "the profile is passed on",
#: ``generate_results`` means "early exit: no profile is passed on"
Phase = Literal[
    "connecting", "deep_research", "research_reranker", "skeptical_comparison", "generate_results"
]
SynthesizedBy = Literal["model", "rules", "fallback", "skipped"]
EvaluatedBy = Literal["judge", "heuristics", "heuristics_after_error", "screening"]

#: the ordered tiers, best first (used to compare and cap)
RESEARCH_TIERS: tuple[ResearchQualityTier, ...] = ("HIGH", "MEDIUM", "LOW", "INSUFFICIENT")
DATA_TIERS: tuple[DataQualityTier, ...] = ("CLEAN", "PARTIAL", "SPARSE", "UNRELIABLE", "GARBAGE")


class EmployerOptions(BaseModel):
    """The recipe's options beyond Settings (what a service job or a library call may set)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    role: str | None = Field(default=None, max_length=200, description="the job title")
    job_description: str | None = Field(
        default=None, max_length=MAX_DOCUMENT_CHARS, description="the text of a job posting"
    )
    max_queries: int = Field(default=2, ge=1, le=4, description="searches per attempt (seed: 2)")
    max_result_chars: int = Field(
        default=1500, ge=200, le=8000, description="characters kept per search (seed: 1500)"
    )
    sources_per_query: int = Field(default=3, ge=1, le=10, description="pages read per search")

    @field_validator("role", "job_description", mode="before")
    @classmethod
    def _clean(cls, value: object, info: ValidationInfo) -> object:
        # the same normalisation as a question (control characters and terminal
        # sequences removed); a posting keeps its lines, a title is one line
        if isinstance(value, str):
            return clean_text(value, multiline=info.field_name != "role")
        return value


class EmployerRequest(EmployerOptions):
    """What to research: a company name (the question), a job description, or both."""

    company: str | None = Field(
        default=None,
        max_length=MAX_QUESTION_CHARS,
        description="the employer's name (a pasted job posting here is recognised as one; "
        "a longer one goes in job_description)",
    )

    @field_validator("company", mode="before")
    @classmethod
    def _clean_company(cls, value: object) -> object:
        return clean_text(value, multiline=True) if isinstance(value, str) else value

    @model_validator(mode="after")
    def _something_to_research(self) -> EmployerRequest:
        if not (self.company or "").strip() and not (self.job_description or "").strip():
            raise ValueError("give a company name or a job description")
        return self


class Classification(BaseModel):
    """Phase 1 (CONNECTING): what the input is and the entities in it."""

    query_type: QueryType
    company_name: str | None = None
    job_title: str | None = None
    extracted_skills: list[str] = Field(default_factory=list)
    decided_by: Literal["rules", "model"] = "rules"


class ProfileItem(BaseModel):
    """One profile entry. ``evidence`` names the verified quotes it rests on; an item with
    none is ``inferred`` and says what the inference rests on in ``basis``."""

    text: str
    evidence: list[str] = Field(default_factory=list)
    inferred: bool = False
    basis: str = ""


class Phase2Output(BaseModel):
    """Seed 000, 6.5: the synthesized employer profile, every item traced."""

    employer_summary: str = ""
    summary_evidence: list[str] = Field(default_factory=list)
    identified_requirements: list[ProfileItem] = Field(default_factory=list)
    tech_stack: list[ProfileItem] = Field(default_factory=list)
    culture_signals: list[ProfileItem] = Field(default_factory=list)
    search_queries_used: list[str] = Field(default_factory=list)
    reasoning_trace: str = ""
    synthesized_by: SynthesizedBy = "rules"
    unsupported: list[str] = Field(
        default_factory=list,
        description="items a model named that no verified passage supports (dropped)",
    )


class PrunedData(BaseModel):
    """What the reranker removed, per category (seed: ``pruned_data``)."""

    tech_stack: list[str] = Field(default_factory=list)
    identified_requirements: list[str] = Field(default_factory=list)
    culture_signals: list[str] = Field(default_factory=list)
    unsupported: list[str] = Field(default_factory=list)

    def total(self) -> int:
        return (
            len(self.tech_stack)
            + len(self.identified_requirements)
            + len(self.culture_signals)
            + len(self.unsupported)
        )


class IndustryInference(BaseModel):
    """Seed 000, section 10: the industry guessed from context words, never a fact."""

    industry: str
    score: int
    matched_signals: list[str]
    technologies: list[str]


class CleanedData(BaseModel):
    """What the reranker kept (seed: ``cleaned_data``): found facts, and apart from them
    the inferred industry and its assumed technologies."""

    employer_summary: str = ""
    summary_evidence: list[str] = Field(default_factory=list)
    tech_stack: list[ProfileItem] = Field(default_factory=list)
    identified_requirements: list[ProfileItem] = Field(default_factory=list)
    culture_signals: list[ProfileItem] = Field(default_factory=list)
    inferred_industry: IndustryInference | None = None
    inferred_tech_stack: list[ProfileItem] = Field(
        default_factory=list, description="assumptions from the industry, inferred=True"
    )


class CompanyVerification(BaseModel):
    """Seed: ``company_verification``: whether the sources name the company."""

    company_name: str | None = None
    status: Verifiability = "UNVERIFIED"
    sources_naming_company: list[str] = Field(default_factory=list)
    suspicious_reason: str | None = None
    note: str = ""


class HeuristicAssessment(BaseModel):
    """Seed 000, 9.2: counts after pruning and the tiers they give."""

    tech_count: int
    requirement_count: int
    culture_count: int
    summary_words: int
    preliminary_tier: ResearchQualityTier
    data_quality_tier: DataQualityTier
    quality_flags: list[str] = Field(default_factory=list)
    missing_data_categories: list[str] = Field(default_factory=list)


class BadDataReport(BaseModel):
    """Seed 000, 11.2: the categories of bad data found and the risk level."""

    patterns_detected: list[str] = Field(default_factory=list)
    details: dict[str, list[str]] = Field(default_factory=dict)
    risk_level: RiskLevel = "LOW"
    suspicious_reason: str | None = None


class ResearchRerankerOutput(BaseModel):
    """Seed 000, 7.4, in full, plus how it was decided."""

    data_quality_tier: DataQualityTier
    research_quality_tier: ResearchQualityTier
    data_confidence_score: int = Field(ge=0, le=100)
    quality_flags: list[str] = Field(default_factory=list)
    missing_data_categories: list[str] = Field(default_factory=list)
    recommended_action: Action
    enhancement_queries: list[str] = Field(default_factory=list)
    company_verifiability: Verifiability
    company_verification: CompanyVerification
    pruned_data: PrunedData = Field(default_factory=PrunedData)
    cleaned_data: CleanedData = Field(default_factory=CleanedData)
    early_exit_reason: str = ""
    reasoning_trace: str = ""
    # beyond the seed's schema: the inputs of the decision, so it can be audited
    risk_level: RiskLevel = "LOW"
    patterns_detected: list[str] = Field(default_factory=list)
    evaluated_by: EvaluatedBy = "heuristics"


class EmployerState(BaseModel):
    """Seed 000, 13.1: the research-related state, updated per route (8.3)."""

    phase_1_output: Classification | None = None
    phase_2_output: Phase2Output | None = None
    research_reranker_output: ResearchRerankerOutput | None = None
    search_attempt: int = 1
    low_data_flag: bool = False
    early_exit: bool = False
    current_phase: Phase = "connecting"
    processing_errors: list[str] = Field(default_factory=list)


class StateChanges(BaseModel):
    """The fields a route changed (seed 8.3), old and new values in the trace."""

    current_phase: Phase
    search_attempt: int
    low_data_flag: bool
    early_exit: bool


class RoutingStep(BaseModel):
    """One routing decision after the reranker."""

    attempt: int
    recommended_action: Action
    route: Action
    next_phase: Phase
    data_quality_tier: DataQualityTier
    research_quality_tier: ResearchQualityTier
    data_confidence_score: int
    before: StateChanges
    after: StateChanges


class SearchResult(BaseModel):
    """One search of Phase 2: the query, what was kept from it (at most
    ``max_result_chars``), and where every kept passage came from."""

    query: str
    findings: str = ""
    evidence: list[str] = Field(default_factory=list)
    sources: list[str] = Field(default_factory=list)
    hits: int = 0
    error: str | None = None


class Attempt(BaseModel):
    """One pass of Phase 2 (the first, or the enhanced retry)."""

    attempt: int
    queries: list[str]
    results: list[SearchResult] = Field(default_factory=list)


class SourceInfo(BaseModel):
    """A source the recipe read (its text stays out of the result; quotes are in evidence)."""

    id: str
    url: str
    title: str = ""
    domain: str = ""
    kind: str = "html"
    fetched: bool = True
    names_company: bool = False
    dropped_reason: str | None = None


class EmployerResult(BaseModel):
    """Everything a run of the recipe produced: JSON-serialisable, rendered to md/html."""

    recipe: Literal["employer"] = "employer"
    run_id: str
    created: datetime
    request: EmployerRequest
    outcome: Literal["profile", "early_exit"]
    classification: Classification
    profile: CleanedData | None = Field(
        default=None, description="the profile passed on; None after an early exit"
    )
    phase_2_output: Phase2Output
    reranker: ResearchRerankerOutput
    search_attempt: int
    low_data_flag: bool
    early_exit: bool
    current_phase: Phase
    routing_trace: list[RoutingStep] = Field(default_factory=list)
    attempts: list[Attempt] = Field(default_factory=list)
    sources: list[SourceInfo] = Field(default_factory=list)
    evidence: list[Evidence] = Field(default_factory=list)
    processing_errors: list[str] = Field(default_factory=list)
    warnings: list[str] = Field(default_factory=list)
    model: str = "none"
    search: str = ""
    usage: Usage = Field(default_factory=Usage)
