"""Plan: a research brief and 1-8 sub-questions, each with its search queries (seed 003's
decomposition rules; seed 001's query expansion with operators where the provider has them).
With the council on (``--council``, the default at depth deep) several members propose and
the judge decides (``stages/council.py``). Routes to research, or, when no source can be
searched (``--search none``) and a writer model is there, to an answer from the model's
knowledge (``stages/answer.py``). With ``review_plan`` on it goes to the person's review
first (``stages/pause.py``); an answered clarifying question is planned with the question
and written into the brief."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from langgraph.runtime import Runtime
from langgraph.types import Command

from deepresearch.context import RunContext
from deepresearch.core.planning import (
    clean_sub_questions,
    fallback_queries,
    fallback_sub_questions,
    strip_numbering,
    usable_queries,
)
from deepresearch.core.presearch import context_block
from deepresearch.core.research_plan import outline
from deepresearch.core.review import clarified, clarified_brief
from deepresearch.injection.untrusted import DATA_RULE
from deepresearch.models import Plan, SubQuestion
from deepresearch.models.event_payloads import PlannedUnit, PlanReady, StageCompleted, StageStarted
from deepresearch.models.plan import PlanDraft
from deepresearch.recipes.research.stages.council import convene
from deepresearch.recipes.research.stages.followup import carried, new_sub_questions, plan_context
from deepresearch.recipes.research.stages.pause import after_plan
from deepresearch.recipes.research.stages.presearch import presearch
from deepresearch.recipes.research.state import RunState

STAGE = "plan"

SYSTEM = """You plan research for a question. Write a short research brief (2-4 sentences:
what a complete answer must cover), then break the question into focused sub-questions that
together answer it; for multi-hop questions, make the first hop its own sub-question. For each
sub-question write search queries a web search engine would answer well. Then say the
plan's scope (what the answer will and will not cover), its evidence strategy (which kinds
of sources it needs and how to weigh them) and the report's output format (its shape:
sections, tables, comparisons).{operators}"""

OPERATORS = (
    ' The search engine understands "exact phrases", intitle:, site: and -site:; use them'
    " where they make results more precise."
)


async def plan(
    state: RunState, runtime: Runtime[RunContext]
) -> Command[Literal["library", "answer", "review_plan"]]:
    ctx = runtime.context
    limits = ctx.limits
    question = state["question"]
    cap = limits.max_sub_questions
    per_question = limits.queries_per_question
    operators = ctx.search.supports_operators
    ctx.bus.emit(StageStarted(), stage=STAGE, message="Planning the research")

    draft = None
    council = None
    clarification = state.get("clarification")
    asked = (
        clarified(question, clarification["question"], clarification["answer"])
        if clarification
        else question
    )
    ahead = ctx.ledger.planned_ahead
    ctx.ledger.planned_ahead = None
    # intake searched already when it planned ahead; else the pre-search is made here
    context = ahead.presearch if ahead is not None else await presearch(ctx, question)
    system, user = plan_prompt(ctx, state, context or ())
    if ctx.policy.council:
        draft, council = await convene(ctx, system=system, user=user, question=asked)
    if council is None and ahead is not None and ahead.prompt == (system, user):
        draft = ahead.draft  # intake asked the planner already, with this very prompt
    elif council is None and ctx.gateway.has_model("planner"):
        draft = await draft_plan(ctx, system, user)

    model_queries: dict[str, list[str]] = {}
    raw: list[str] = []
    if draft is not None:
        for item in draft.sub_questions:
            raw.append(item.question)
            model_queries[_key(item.question)] = item.queries
    if draft is None:
        raw = fallback_sub_questions(question)
    texts, first = new_sub_questions(state, clean_sub_questions(raw, question, cap=cap))
    sub_questions = []
    for index, text in enumerate(texts, start=first):
        queries = model_queries.get(_key(text), [])
        queries = usable_queries(
            [*queries, *fallback_queries(text, count=per_question, operators=operators)],
            operators=operators,
        )[:per_question]
        sub_questions.append(SubQuestion(id=f"q{index}", text=text, queries=queries))
    brief = draft.brief.strip() if draft is not None and draft.brief.strip() else question
    if clarification:
        brief = clarified_brief(brief, clarification["question"], clarification["answer"])
    result = outlined(
        ctx,
        draft,
        Plan(
            question=question,
            brief=brief,
            sub_questions=sub_questions,
            fallback=draft is None,
            presearch=list(context or ()),
        ),
    )
    _announce(ctx, result)
    ctx.bus.emit(StageCompleted(), stage=STAGE)
    update: RunState = {
        "plan": result,
        "wave": 0,
        "units_used": 0,
        **carried(state, sub_questions),  # a follow-up's reused pages, evidence, questions
        "reflections": [],
        "warnings": [],
    }
    if council is not None:
        update["council"] = council
    if ctx.policy.review_plan:
        return Command(goto="review_plan", update=update)
    return Command(goto=after_plan(ctx), update=update)


def outlined(ctx: RunContext, draft: PlanDraft | None, plan: Plan) -> Plan:
    """The plan with seed 004's scope, evidence strategy and output format: the planner's
    where it gave them, else what the run will do (``core.research_plan``)."""
    shape = outline(
        [sq.text for sq in plan.sub_questions],
        scope=draft.scope if draft is not None else "",
        evidence_strategy=draft.evidence_strategy if draft is not None else "",
        output_format=draft.output_format if draft is not None else "",
        queries_per_question=ctx.limits.queries_per_question,
        min_domains=ctx.limits.min_domains,
        searched=ctx.search.name != "none",
    )
    update = {
        "scope": shape.scope,
        "evidence_strategy": shape.evidence_strategy,
        "output_format": shape.output_format,
    }
    return plan.model_copy(update=update)


def _announce(ctx: RunContext, result: Plan) -> None:
    """The ``plan_ready`` event: the plan as the first wave will research it."""
    ctx.bus.emit(
        PlanReady(
            brief=result.brief,
            sub_questions=[
                PlannedUnit(id=sq.id, text=sq.text, queries=list(sq.queries))
                for sq in result.sub_questions
            ],
            fallback=result.fallback,
            scope=result.scope,
            evidence_strategy=result.evidence_strategy,
            output_format=result.output_format,
            presearch=list(result.presearch) or None,
        ),
        stage=STAGE,
        message=f"{len(result.sub_questions)} sub-question(s)",
    )


def plan_prompt(ctx: RunContext, state: RunState, context: Sequence[str] = ()) -> tuple[str, str]:
    """The planner's system and user prompt for this run: the question (with its
    clarification once answered), for a follow-up what the thread researched, and the
    pre-search's results (``context``) as fenced data, with the rule that says so."""
    operators = ctx.search.supports_operators
    cap = ctx.limits.max_sub_questions
    per_question = ctx.limits.queries_per_question
    question = state["question"]
    clarification = state.get("clarification")
    asked = (
        clarified(question, clarification["question"], clarification["answer"])
        if clarification
        else question
    )
    system = SYSTEM.format(operators=OPERATORS if operators else "")
    user = (
        f"Question:\n{asked}\n\nWrite at most {cap} sub-questions with {per_question} queries each."
    ) + plan_context(state)  # a follow-up: what the thread already researched
    if context:  # only then: a prompt without a pre-search is as it always was
        system += "\n\n" + DATA_RULE
        user += context_block(context)
    return system, user


async def draft_plan(ctx: RunContext, system: str, user: str) -> PlanDraft | None:
    """The single planner's draft (None: no reply the schema accepts)."""
    return await ctx.gateway.structured("planner", PlanDraft, system=system, user=user, stage=STAGE)


def _key(question: str) -> str:
    return " ".join(strip_numbering(question).split()).lower().rstrip("?.! ")
