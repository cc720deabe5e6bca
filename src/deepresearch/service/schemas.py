"""What the HTTP API accepts and returns (pydantic; these are the OpenAPI schemas)."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationInfo,
    field_validator,
    model_validator,
)

from deepresearch.core.sanitize import (
    MAX_DOCUMENT_CHARS,
    MAX_QUESTION_CHARS,
    clean_text,
    normalize_question,
)
from deepresearch.recipes.employer import REQUEST_OPTIONS as EMPLOYER_OPTIONS
from deepresearch.search.registry import PROVIDER_NAMES, parse_search
from deepresearch.service.jobs import Job, JobStatus
from deepresearch.settings import Depth

Recipe = Literal["research", "employer"]


class ResearchOptions(BaseModel):
    """Per-job options; everything else comes from the server's configuration."""

    model_config = ConfigDict(extra="forbid")

    depth: Depth | None = None
    search: str | list[str] | None = Field(
        default=None,
        description="a search provider, or several as a list or comma-separated; "
        f"one of: {', '.join(PROVIDER_NAMES)}",
        examples=["searxng", ["local", "searxng"]],
    )
    model: str | None = Field(
        default=None,
        max_length=200,
        pattern=r"^(none|[a-z0-9_-]+:[\w./:@-]+)$",
        description="provider:model, or 'none' for an extractive report",
    )
    audit: Literal["strict", "mark", "off"] | None = None
    no_clarify: bool | None = None
    max_sub_questions: int | None = Field(default=None, ge=1, le=8)
    max_waves: int | None = Field(default=None, ge=1, le=10)
    sources_per_question: int | None = Field(default=None, ge=1, le=20)
    min_domains: int | None = Field(default=None, ge=0, le=20)
    min_evidence: int | None = Field(default=None, ge=0, le=100)
    # the employer recipe (seed 000): the question is the company name or a job posting
    role: str | None = Field(default=None, max_length=200, description="employer: job title")
    job_description: str | None = Field(
        default=None,
        max_length=MAX_DOCUMENT_CHARS,
        description="employer: the text of a job posting",
    )
    max_queries: int | None = Field(default=None, ge=1, le=4, description="employer")
    max_result_chars: int | None = Field(default=None, ge=200, le=8000, description="employer")
    sources_per_query: int | None = Field(default=None, ge=1, le=10, description="employer")

    @field_validator("search")
    @classmethod
    def _known_search(cls, value: str | list[str] | None) -> str | None:
        """The canonical "a,b" form the settings hold."""
        return None if value is None else ",".join(parse_search(value))

    @field_validator("role", "job_description", mode="before")
    @classmethod
    def _clean(cls, value: object, info: ValidationInfo) -> object:
        if isinstance(value, str):
            return clean_text(value, multiline=info.field_name == "job_description")
        return value

    def settings_update(self) -> dict[str, Any]:
        return self.model_dump(exclude_none=True)


class ResearchRequest(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={
            "examples": [
                {"question": "How do generators work in Python?", "options": {"depth": "quick"}}
            ]
        },
    )

    recipe: Recipe = "research"  # before the question, whose validator reads it
    # normalised like every front end's question, then limited (core.sanitize)
    question: str = Field(json_schema_extra={"minLength": 1, "maxLength": MAX_QUESTION_CHARS})
    options: ResearchOptions = Field(default_factory=ResearchOptions)

    @field_validator("question")
    @classmethod
    def _normalise(cls, value: str, info: ValidationInfo) -> str:
        # an employer's question may be a pasted posting: it keeps its lines
        return normalize_question(value, multiline=info.data.get("recipe") == "employer")

    @model_validator(mode="after")
    def _options_fit_the_recipe(self) -> ResearchRequest:
        employer_only = EMPLOYER_OPTIONS & set(self.options.settings_update())
        if self.recipe != "employer" and employer_only:
            raise ValueError(f"{', '.join(sorted(employer_only))}: only for recipe 'employer'")
        return self


class JobLinks(BaseModel):
    self: str
    events: str
    report: str
    sources: str
    cancel: str


class JobView(BaseModel):
    id: str
    status: JobStatus
    stage: str | None
    progress: float = Field(ge=0.0, le=1.0)
    question: str
    recipe: str
    options: dict[str, Any]
    counts: dict[str, int]
    usage: dict[str, int]
    error: str | None
    cancel_requested: bool
    attempts: int
    created_at: datetime
    started_at: datetime | None
    finished_at: datetime | None
    expires_at: datetime | None
    links: JobLinks

    @classmethod
    def of(cls, job: Job, prefix: str = "/v1/research") -> JobView:
        base = f"{prefix}/{job.id}"
        return cls(
            id=job.id,
            status=job.status,
            stage=job.stage,
            progress=round(job.progress, 3),
            question=job.question,
            recipe=job.recipe,
            options=job.options,
            counts=job.counts,
            usage=job.usage,
            error=job.error,
            cancel_requested=job.cancel_requested,
            attempts=job.attempts,
            created_at=job.created_at,
            started_at=job.started_at,
            finished_at=job.finished_at,
            expires_at=job.expires_at,
            links=JobLinks(
                self=base,
                events=f"{base}/events",
                report=f"{base}/report",
                sources=f"{base}/sources",
                cancel=f"{base}/cancel",
            ),
        )


class SubmitView(JobView):
    created: bool = Field(description="a new job was made")
    attached: bool = Field(description="you already had an active run; this is it")
    replayed: bool = Field(description="the Idempotency-Key had already made this job")


class JobPage(BaseModel):
    jobs: list[JobView]
    next_before: datetime | None = Field(
        description="pass as ?before= for the next (older) page; null on the last page"
    )


class SourceView(BaseModel):
    url: str
    domain: str
    title: str
    tier: str
    decision: str | None
    cited: bool
    final: float
    signal_score: float
    model_score: float | None
    credibility: float
    domain_authority: int
    recency: float
    retrieval_relevance: float
    reason: str
    scores: dict[str, Any]


class SourcesView(BaseModel):
    job_id: str
    status: JobStatus
    sources: list[SourceView]


class QueueView(BaseModel):
    counts: dict[str, int]
    running_here: int
    max_concurrent_jobs: int


class Problem(BaseModel):
    """RFC 9457 problem details."""

    type: str = "about:blank"
    title: str
    status: int
    detail: str
    instance: str | None = None
    errors: list[dict[str, Any]] | None = None
