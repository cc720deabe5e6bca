"""What the HTTP API accepts and returns (pydantic; these are the OpenAPI schemas)."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Any, Literal, get_args

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationInfo,
    create_model,
    field_validator,
    model_validator,
)
from pydantic.fields import FieldInfo

from deepresearch.core.sanitize import MAX_QUESTION_CHARS, normalize_question
from deepresearch.errors import ConfigError
from deepresearch.models.pause import InputRequest, ReplyAction
from deepresearch.recipes.registry import DEFAULT_RECIPE, all_recipes, get_recipe, recipe_names
from deepresearch.search.registry import PROVIDER_NAMES, parse_search
from deepresearch.service.jobs import Job, JobStatus
from deepresearch.settings_values import LIMIT_BOUNDS, Depth


def _limit(name: str) -> Any:
    """A per-run limit as a job sets it: the bounds and words the setting has
    (``settings_values.LIMIT_BOUNDS`` owns them); unset, the depth preset's value."""
    bounds = LIMIT_BOUNDS[name]
    return Field(
        default=None,
        ge=bounds.low,
        le=bounds.high,
        description=f"{bounds.description} (default: the depth preset's)",
    )


#: how many runs one listing returns at most, and unless asked (``GET /v1/research`` and
#: MCP's ``list_runs``)
MAX_LIST_LIMIT = 100
DEFAULT_LIST_LIMIT = 20

#: a model as a request names it (the page's app.js checks the same pattern: a test
#: compares the two)
MODEL_PATTERN = r"^(none|[a-z0-9_-]+:[\w./:@-]+)$"


class RunOptions(BaseModel):
    """Per-job Settings fields, for every recipe; everything else comes from the server's
    configuration. Strict, as JSON types: a flag is ``true`` or ``false`` (never ``"yes"``
    or ``1``), a count a JSON integer (never a string, a boolean or ``3.0``), a budget a
    number; a number past an option's bounds (``1e308``) is refused with the bounds."""

    model_config = ConfigDict(extra="forbid", strict=True)

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
        pattern=MODEL_PATTERN,
        description="provider:model, or 'none' for an extractive report",
    )
    audit: Literal["strict", "mark", "off"] | None = None
    images: bool | None = Field(
        default=None, description="figures from the cited sources in the report (default true)"
    )
    no_clarify: bool | None = None
    review_plan: bool | None = Field(
        default=None,
        description="pause after planning: the job waits (AWAITING_INPUT) until the plan is "
        "approved or edited (POST .../input)",
    )
    review_findings: bool | None = Field(
        default=None,
        description="pause before writing: the job waits (AWAITING_INPUT) until its verified "
        "findings are approved, some dropped, or a gap named (POST .../input)",
    )
    review_report: bool | None = Field(
        default=None,
        description="pause after writing: the job waits (AWAITING_INPUT) until its report is "
        "approved, sentences edited (each edit audited against its citations) or feedback "
        "given for one rewrite by the writer model (POST .../input)",
    )
    use_library: bool | None = Field(
        default=None,
        description="look in your library first: verified quotes of your earlier runs are "
        "reused (default true; false researches afresh)",
    )
    max_sub_questions: int | None = Field(default=None, ge=1, le=8)
    max_waves: int | None = Field(default=None, ge=1, le=10)
    sources_per_question: int | None = Field(default=None, ge=1, le=20)
    # seed 004's limits, each filled by the depth preset when unset
    queries_per_question: int | None = _limit("queries_per_question")
    results_per_query: int | None = _limit("results_per_query")
    evidence_per_question: int | None = _limit("evidence_per_question")
    writer_max_notes: int | None = _limit("writer_max_notes")
    writer_word_budget: int | None = _limit("writer_word_budget")
    sources_per_claim: int | None = _limit("sources_per_claim")
    min_domains: int | None = Field(default=None, ge=0, le=20)
    min_evidence: int | None = Field(default=None, ge=0, le=100)
    presearch: bool | None = Field(
        default=None,
        description="before planning, one search on the question's names gives the planner "
        "recent entities and events (default: on when a model plans)",
    )
    council: bool | None = Field(
        default=None,
        description="several planners propose a brief and the judge scores them "
        "(default: on at depth deep)",
    )
    evaluate: bool | None = Field(
        default=None, description="evaluate the report when the run ends (see /eval)"
    )
    # hard budgets: a JSON number each, never a string (docs/configuration.md)
    max_tokens: int | None = Field(
        default=None, ge=1, le=1_000_000_000, strict=True, description="model tokens, in + out"
    )
    max_cost: float | None = Field(
        default=None,
        gt=0,
        le=100_000,
        strict=True,
        allow_inf_nan=False,
        description="US dollars of model calls, at the server's price table",
    )
    max_time: float | None = Field(
        default=None,
        gt=0,
        le=604_800,
        strict=True,
        allow_inf_nan=False,
        description="seconds of wall time",
    )

    @field_validator("*", mode="before")
    @classmethod
    def _within_bounds(cls, value: object, info: ValidationInfo) -> object:
        """A whole-number option given a number past its bounds is refused with them
        (pydantic would say it cannot parse a huge float as an integer)."""
        field = cls.model_fields.get(info.field_name or "")
        if field is None or not isinstance(value, float) or int not in get_args(field.annotation):
            return value
        low, high = _bounds(field)
        if (low is not None and value < low) or (high is not None and value > high):
            span = " to ".join(f"{bound:g}" for bound in (low, high) if bound is not None)
            raise ValueError(f"must be a whole number from {span}, not {value:g}")
        return value

    @field_validator("search")
    @classmethod
    def _known_search(cls, value: str | list[str] | None) -> str | None:
        """The canonical "a,b" form the settings hold."""
        return None if value is None else ",".join(parse_search(value))

    def settings_update(self) -> dict[str, Any]:
        return self.model_dump(exclude_none=True)


def _bounds(field: FieldInfo) -> tuple[float | None, float | None]:
    """A field's inclusive lower and upper bounds (``ge``, ``le``), None where unbounded."""
    # pydantic keeps them as annotated-types' Ge / Le markers in the field's metadata
    low = next((m.ge for m in field.metadata if hasattr(m, "ge")), None)
    high = next((m.le for m in field.metadata if hasattr(m, "le")), None)
    return (
        float(low) if isinstance(low, int | float) else None,
        float(high) if isinstance(high, int | float) else None,
    )


def _recipe_fields() -> dict[str, Any]:
    """Every recipe's own options, optional here (the recipe's model checks them), each
    described with the recipe it belongs to."""
    fields: dict[str, Any] = {}
    for recipe in all_recipes():
        for name, info in recipe.options_model.model_fields.items():
            described = f"{recipe.name}: {info.description}" if info.description else recipe.name
            optional = FieldInfo.merge_field_infos(info, default=None, description=described)
            annotation: Any = info.annotation
            fields.setdefault(name, (annotation | None, optional))
    return fields


#: the options a job may set: Settings fields and every recipe's own (the request checks
#: that the recipe's own belong to the recipe named)
ResearchOptions = create_model(
    "ResearchOptions",
    __base__=RunOptions,
    __doc__="Per-job options: Settings fields, and the named recipe's own options.",
    **_recipe_fields(),
)
if TYPE_CHECKING:
    RecipeName = str
else:  # the registry's names, so the OpenAPI schema lists them
    RecipeName = Literal[tuple(recipe_names())]


class ResearchRequest(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={
            "examples": [
                {"question": "How do generators work in Python?", "options": {"depth": "quick"}},
                {
                    "question": "Google",
                    "recipe": "employer",
                    "options": {"role": "Software Engineer"},
                },
            ]
        },
    )

    recipe: RecipeName = Field(default=DEFAULT_RECIPE, description="GET /v1/recipes lists them")
    # normalised like every front end's question, then limited (core.sanitize); the
    # recipe's own request normalises it further (a posting keeps its lines)
    question: str = Field(json_schema_extra={"minLength": 1, "maxLength": MAX_QUESTION_CHARS})
    options: ResearchOptions = Field(default_factory=ResearchOptions)

    @field_validator("question")
    @classmethod
    def _normalise(cls, value: str, info: ValidationInfo) -> str:
        recipe = get_recipe(info.data.get("recipe", DEFAULT_RECIPE))
        return normalize_question(value, multiline=recipe.multiline_question)

    @model_validator(mode="after")
    def _options_fit_the_recipe(self) -> ResearchRequest:
        recipe = get_recipe(self.recipe)
        given = self.options.settings_update()
        own = recipe.options_model.model_fields
        foreign = set(given) - set(RunOptions.model_fields) - set(own)
        if foreign:
            owners = sorted(
                repr(other.name)
                for other in all_recipes()
                if foreign & set(other.options_model.model_fields)
            )
            raise ValueError(f"{', '.join(sorted(foreign))}: only for recipe {', '.join(owners)}")
        try:
            recipe.request(self.question, {k: v for k, v in given.items() if k in own})
        except ConfigError as exc:
            raise ValueError(exc.message) from None
        return self


class RecipeView(BaseModel):
    name: str
    title: str
    description: str
    default: bool = Field(description="the recipe a request without 'recipe' runs")
    options: dict[str, Any] = Field(description="JSON schema of the recipe's own options")


class RecipesView(BaseModel):
    recipes: list[RecipeView]


def recipes_view() -> RecipesView:
    return RecipesView(
        recipes=[
            RecipeView(
                name=recipe.name,
                title=recipe.title,
                description=recipe.description,
                default=recipe is get_recipe(DEFAULT_RECIPE),
                options=recipe.options_model.model_json_schema(),
            )
            for recipe in all_recipes()
        ]
    )


class TurnView(BaseModel):
    """One run of a thread (``models.thread.Turn``)."""

    id: str
    turn: int
    question: str
    follows: str | None
    topic_shift: bool
    link: str


class JobLinks(BaseModel):
    self: str
    events: str
    report: str
    sources: str
    cancel: str
    eval: str
    input: str


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
    evaluation: dict[str, Any] | None = Field(
        default=None,
        description="the report's evaluation (GET of one job only; POST .../eval makes one)",
    )
    thread: list[TurnView] | None = Field(
        default=None,
        description="a finished research job's thread: the first run and its follow-ups, "
        "first to last (GET of one job only; POST .../followups adds one)",
    )
    input_request: InputRequest | None = Field(
        default=None,
        description="while AWAITING_INPUT (GET of one job, POST .../input): what the run asks "
        "(kind clarification: question; kind plan: brief and sub_questions); answer it with "
        "POST .../input before expires_at",
    )

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
                eval=f"{base}/eval",
                input=f"{base}/input",
            ),
        )


class FollowupRequest(BaseModel):
    """A follow-up question on a finished research job: a new job, the next turn of its
    thread, with the followed job's options unless given again."""

    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={"examples": [{"question": "And how does it compare with lists?"}]},
    )

    question: str = Field(json_schema_extra={"minLength": 1, "maxLength": MAX_QUESTION_CHARS})
    options: RunOptions = Field(default_factory=RunOptions)

    @field_validator("question")
    @classmethod
    def _normalise(cls, value: str) -> str:
        question = normalize_question(value)
        try:  # refused as the thread's first question would be
            get_recipe(DEFAULT_RECIPE).request(question, {})
        except ConfigError as exc:
            raise ValueError(exc.message) from None
        return question


class SubmitView(JobView):
    created: bool = Field(description="a new job was made")
    attached: bool = Field(description="you already had an active run; this is it")
    replayed: bool = Field(description="the Idempotency-Key had already made this job")


class InputReply(BaseModel):
    """The answer to what a waiting job asks: ``answer`` (text) for a clarifying question;
    ``action`` for a plan: ``approve``, ``edit`` (with ``brief`` and/or every
    ``sub_questions``, 1-8) or ``cancel``; for the findings: ``approve``, ``drop`` (with
    ``drop``, evidence ids), ``gap`` (with ``gap``, 3-300 characters) or ``cancel``; for
    the finished report: ``approve``, ``edit`` (with ``sentences``: id -> new words, ""
    removes it; each edit is audited against its citations), ``feedback`` (with
    ``feedback``: one rewrite by the writer model; refused without one) or ``cancel``."""

    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={
            "examples": [
                {"answer": "The planet Mercury"},
                {"action": "approve"},
                {"action": "edit", "sub_questions": ["How hot is Mercury?", "Who visited it?"]},
                {"action": "drop", "drop": ["q1-e2"]},
                {"action": "gap", "gap": "What did the 2024 mission find?"},
                {"action": "edit", "sentences": {"s3": "Mercury has no moons.", "s5": ""}},
                {"action": "feedback", "feedback": "Lead with the temperatures."},
            ]
        },
    )

    answer: str | None = Field(default=None, max_length=MAX_QUESTION_CHARS)
    action: Literal[ReplyAction, "cancel"] | None = None
    brief: str | None = Field(default=None, max_length=MAX_QUESTION_CHARS)
    sub_questions: list[str] | None = Field(default=None, max_length=20)
    drop: list[str] | None = Field(default=None, max_length=500)
    gap: str | None = Field(default=None, max_length=MAX_QUESTION_CHARS)
    sentences: dict[str, str] | None = Field(default=None, max_length=500)
    feedback: str | None = Field(default=None, max_length=MAX_QUESTION_CHARS)

    @model_validator(mode="after")
    def _one_kind(self) -> InputReply:
        review = any(
            value is not None
            for value in (
                self.action,
                self.brief,
                self.sub_questions,
                self.drop,
                self.gap,
                self.sentences,
                self.feedback,
            )
        )
        if (self.answer is None) == (not review):
            raise ValueError(
                "give either answer (a clarifying question) or action (a plan, the "
                "findings or the report), not both"
            )
        if review and self.action is None:
            raise ValueError(
                "a review names its action: approve, edit, drop, gap, feedback or cancel"
            )
        return self

    def reply(self) -> Any:
        """What the run resumes with (checked again by ``core.review``)."""
        if self.answer is not None:
            return self.answer
        return self.model_dump(exclude_none=True, exclude={"answer"})


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
    """The caller's own jobs only: another key's are never counted."""

    counts: dict[str, int] = Field(description="your jobs per state")
    running_here: int = Field(description="your jobs running in this process")
    max_concurrent_jobs: int = Field(description="jobs this process runs at once (a setting)")


class Problem(BaseModel):
    """RFC 9457 problem details."""

    type: str = "about:blank"
    title: str
    status: int
    detail: str
    instance: str | None = None
    errors: list[dict[str, Any]] | None = None
