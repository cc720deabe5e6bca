"""The rules of a paused run's replies (issue 15), pure: a clarifying answer checked like
a question, the brief planning sees once a clarification was answered, and a plan edited
in review checked (1-8 sub-questions, lengths) and turned into the plan that is
researched. A kept sub-question keeps its queries; a reworded or new one gets the
deterministic queries of its own words, so what is searched is what the person wrote.
The findings review's rules are in ``core.findings_review``, the report review's in
``core.report_review``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pydantic import ValidationError

from deepresearch.core.findings_review import check_findings_reply
from deepresearch.core.planning import MAX_SUB_QUESTIONS, fallback_queries, usable_queries
from deepresearch.core.report_review import check_report_reply
from deepresearch.core.sanitize import clean_text
from deepresearch.errors import InvalidInput, InvalidReply
from deepresearch.models import Plan, SubQuestion
from deepresearch.models.pause import InputRequest, PlanItem, PlanReply

MAX_BRIEF_CHARS = 2000
MIN_SUB_QUESTION_CHARS = 3
MAX_SUB_QUESTION_CHARS = 300
MAX_ANSWER_CHARS = 2000
#: how to answer a plan review, in the reply's JSON (the library's and the API's words;
#: the CLI and MCP say it in theirs, from ``InvalidReply.asked``)
PLAN_HINT = (
    'send {"action": "approve"} or {"action": "edit", "brief": "...", '
    '"sub_questions": ["...", "..."]}'
)


def plan_request(run_id: str, request_id: str, plan: Plan) -> InputRequest:
    return InputRequest(
        run_id=run_id,
        id=request_id,
        kind="plan",
        brief=plan.brief,
        sub_questions=[
            PlanItem(id=sq.id, text=sq.text, queries=list(sq.queries)) for sq in plan.sub_questions
        ],
        scope=plan.scope,
        evidence_strategy=plan.evidence_strategy,
        output_format=plan.output_format,
    )


def check_answer(answer: object) -> str:
    """A clarifying answer, normalised like a question; InvalidInput when it is not text,
    is empty or is too long."""
    if not isinstance(answer, str):
        raise InvalidReply(
            "the run asked a question: answer it with text",
            asked="clarification",
            hint='send the answer as text: {"answer": "..."}',
        )
    text = clean_text(answer)  # the questions' normaliser, with the answer's own limits
    if not text:
        raise InvalidInput("the answer is empty", hint="answer the question the run asked")
    if len(text) > MAX_ANSWER_CHARS:
        raise InvalidInput(
            f"the answer is {len(text)} characters; at most {MAX_ANSWER_CHARS}",
            hint="answer the question in a sentence or two",
        )
    return text


def check_plan_reply(reply: object) -> PlanReply:
    """A plan decision with its edits normalised and checked: the brief 1-2000
    characters, 1-8 sub-questions of 3-300 characters each, no two the same."""
    if isinstance(reply, str):
        raise InvalidReply(
            "the run waits for a review of its plan: a text answer is not a plan reply",
            asked="plan",
            hint=PLAN_HINT,
        )
    try:
        decision = reply if isinstance(reply, PlanReply) else PlanReply.model_validate(reply)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"]) or "reply"
        raise InvalidReply(
            f"the plan reply is not valid: {where}: {first['msg']}", asked="plan", hint=PLAN_HINT
        ) from None
    if decision.action == "approve":
        return PlanReply(action="approve")
    if decision.brief is None and decision.sub_questions is None:
        raise InvalidReply(
            "an edit changes the brief or the sub-questions; it named neither",
            asked="plan",
            hint='send "brief" and/or "sub_questions", or {"action": "approve"}',
        )
    brief = None
    if decision.brief is not None:
        brief = clean_text(decision.brief)
        if not brief:
            raise InvalidInput("the brief is empty", hint="write what the research must cover")
        if len(brief) > MAX_BRIEF_CHARS:
            raise InvalidInput(
                f"the brief is {len(brief)} characters; at most {MAX_BRIEF_CHARS}",
                hint="shorten the brief",
            )
    texts = None
    if decision.sub_questions is not None:
        texts = [clean_text(text) for text in decision.sub_questions]
        texts = [text for text in texts if text]
        if not 1 <= len(texts) <= MAX_SUB_QUESTIONS:
            raise InvalidInput(
                f"a plan has 1 to {MAX_SUB_QUESTIONS} sub-questions; this one has {len(texts)}",
                hint="remove or add sub-questions",
            )
        seen: set[str] = set()
        for number, text in enumerate(texts, start=1):
            if not MIN_SUB_QUESTION_CHARS <= len(text) <= MAX_SUB_QUESTION_CHARS:
                raise InvalidInput(
                    f"sub-question {number} is {len(text)} characters; each has "
                    f"{MIN_SUB_QUESTION_CHARS} to {MAX_SUB_QUESTION_CHARS}",
                    hint="write each sub-question as one short question",
                )
            key = _key(text)
            if key in seen:
                raise InvalidInput(
                    f"sub-question {number} repeats an earlier one: {text!r}",
                    hint="remove the repeat",
                )
            seen.add(key)
    return PlanReply(action="edit", brief=brief, sub_questions=texts)


def check_reply(request: InputRequest, reply: object) -> Any:
    """The value a paused run resumes with, checked for what it asked."""
    if request.kind == "clarification":
        return check_answer(reply)
    if request.kind == "findings":
        shown = [item.id for item in request.findings]
        return check_findings_reply(reply, shown).model_dump()
    if request.kind == "report":
        texts = {item.id: item.text for item in request.sentences}
        return check_report_reply(reply, texts, rewrite=request.rewrite).model_dump()
    return check_plan_reply(reply).model_dump()


def clarified(question: str, asked: str, answer: str) -> str:
    """What planning reads once a clarifying question was answered."""
    return f"{question}\n\nClarifying question: {asked}\nAnswer: {answer}"


def clarified_brief(brief: str, asked: str, answer: str) -> str:
    """The brief with the clarification in it, so the writer and a reader see what the
    person meant."""
    return f"{brief} (Clarified: {asked} — {answer})"


def edited_plan(
    plan: Plan, decision: PlanReply, *, per_question: int, operators: bool
) -> tuple[Plan, list[SubQuestion]]:
    """``plan`` after the person's decision. Sub-questions are numbered again in the
    order given; one whose words did not change keeps its queries."""
    if decision.action == "approve":
        return plan, list(plan.sub_questions)
    kept = {_key(sq.text): sq for sq in plan.sub_questions}
    texts: Sequence[str] = (
        decision.sub_questions
        if decision.sub_questions is not None
        else [sq.text for sq in plan.sub_questions]
    )
    sub_questions = []
    for index, text in enumerate(texts, start=1):
        same = kept.get(_key(text))
        if same is not None:
            queries = list(same.queries)
        else:
            queries = usable_queries(
                fallback_queries(text, count=per_question, operators=operators),
                operators=operators,
            )[: max(1, per_question)]
        sub_questions.append(SubQuestion(id=f"q{index}", text=text, queries=queries))
    result = plan.model_copy(
        update={"brief": decision.brief or plan.brief, "sub_questions": sub_questions}
    )
    return result, sub_questions


def _key(text: str) -> str:
    return " ".join(text.split()).lower().rstrip("?.! ")
