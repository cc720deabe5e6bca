"""The rules of the findings review before writing (issue 15, seed 002), pure: what the
person is shown (the verified findings the writer would get), a reply checked against
what was shown (known evidence ids; a gap of 3-300 characters), the evidence and checks
without the dropped findings, and the one sub-question a named gap becomes. Its queries
are the deterministic queries of the gap's own words (as for a sub-question added in the
plan review), so what is searched is what the person wrote."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from pydantic import ValidationError

from deepresearch.core.planning import fallback_queries, usable_queries
from deepresearch.core.sanitize import clean_text
from deepresearch.core.thread import next_sub_question_number
from deepresearch.errors import InvalidInput, InvalidReply
from deepresearch.models import Evidence, FindingCheck, Source, SubQuestion
from deepresearch.models.pause import FindingItem, FindingsReply

MIN_GAP_CHARS = 3
MAX_GAP_CHARS = 300
#: unknown ids named in an error at most (the rest are counted)
SHOWN_IDS = 5
HINT = (
    'send {"action": "approve"}, {"action": "drop", "drop": ["<evidence id>", ...]} or '
    '{"action": "gap", "gap": "what is missing"}'
)


def shown_findings(
    evidence: Sequence[Evidence], sources: Mapping[str, Source]
) -> list[FindingItem]:
    """The findings the writer would get (the verified ones), as the person reviews them."""
    return [
        FindingItem(
            id=item.id,
            claim=item.claim,
            quote=item.quote,
            source_url=item.source_url,
            source_title=sources[item.source_id].title if item.source_id in sources else "",
            sub_question_id=item.sub_question_id,
        )
        for item in evidence
        if item.verified
    ]


def check_findings_reply(reply: object, shown: Sequence[str]) -> FindingsReply:
    """A findings decision checked against ``shown`` (the evidence ids in the request):
    every dropped id is one of them (repeats counted once, kept in the order shown), a gap
    is 3-300 characters, and a drop that leaves nothing to write from names a gap."""
    if isinstance(reply, str):
        raise InvalidReply(
            "the run waits for a review of its findings: a text answer is not a findings reply",
            asked="findings",
            hint=HINT,
        )
    try:
        decision = (
            reply if isinstance(reply, FindingsReply) else FindingsReply.model_validate(reply)
        )
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"]) or "reply"
        raise InvalidReply(
            f"the findings reply is not valid: {where}: {first['msg']}", asked="findings", hint=HINT
        ) from None
    if decision.action == "approve":
        return FindingsReply(action="approve")
    if decision.action == "drop" and not decision.drop:
        raise InvalidReply(
            "a drop names the findings to leave out; it named none", asked="findings", hint=HINT
        )
    if decision.action == "gap" and decision.gap is None:
        raise InvalidReply(
            "a gap says what is missing; it was not given", asked="findings", hint=HINT
        )
    dropped = _dropped(decision.drop or [], shown)
    gap = None
    if decision.gap is not None:
        gap = clean_text(decision.gap)
        if not MIN_GAP_CHARS <= len(gap) <= MAX_GAP_CHARS:
            raise InvalidInput(
                f"the gap is {len(gap)} characters; it has {MIN_GAP_CHARS} to {MAX_GAP_CHARS}",
                hint="say in a short question or phrase what the findings miss",
            )
    if shown and len(dropped) == len(shown) and gap is None:
        raise InvalidInput(
            "dropping every finding leaves nothing to write the report from",
            hint="keep at least one finding, name a gap to research, or cancel the run",
        )
    return FindingsReply(action=decision.action, drop=dropped or None, gap=gap)


def _dropped(ids: Sequence[str], shown: Sequence[str]) -> list[str]:
    wanted = {item.strip() for item in ids}
    unknown = sorted(wanted - set(shown))
    if unknown:
        named = ", ".join(repr(item) for item in unknown[:SHOWN_IDS])
        more = f" and {len(unknown) - SHOWN_IDS} more" if len(unknown) > SHOWN_IDS else ""
        listed = ", ".join(shown[:SHOWN_IDS]) + (", ..." if len(shown) > SHOWN_IDS else "")
        raise InvalidInput(
            f"no finding has the id {named}{more}",
            hint=f"drop findings by the ids shown ({listed})" if shown else "no finding to drop",
        )
    return [item for item in shown if item in wanted]


def without_dropped(
    evidence: Sequence[Evidence], checks: Sequence[FindingCheck], dropped: Sequence[str]
) -> tuple[list[Evidence], list[FindingCheck]]:
    """The evidence and the findings checks without the dropped findings: the writer never
    sees them, so no sentence can cite them, and the audit does not count them. A dropped
    quote goes with every copy of it: two sub-questions can quote the same words of the
    same source under two ids, and the person dropped the words, not an id."""
    quotes = {(item.source_id, item.quote) for item in evidence if item.id in set(dropped)}
    gone = set(dropped) | {item.id for item in evidence if (item.source_id, item.quote) in quotes}
    return (
        [item for item in evidence if item.id not in gone],
        [check for check in checks if check.evidence_id not in gone],
    )


def gap_sub_question(
    gap: str,
    sub_questions: Sequence[SubQuestion],
    *,
    wave: int,
    per_question: int,
    operators: bool,
) -> SubQuestion:
    """The sub-question a named gap becomes: researched in the next wave, with queries
    made from the gap's words."""
    queries = usable_queries(
        fallback_queries(gap, count=per_question, operators=operators), operators=operators
    )[: max(1, per_question)]
    number = next_sub_question_number(sub_questions)
    return SubQuestion(id=f"q{number}", text=gap, queries=queries, wave=wave + 1)


def wave_units(
    sub_questions: Sequence[SubQuestion], *, room: int, gap_id: str | None, spent: bool
) -> list[SubQuestion]:
    """The units a wave researches: the pending ones, up to ``room`` (the cap on units
    left). The gap's wave researches the gap's unit alone, whatever the cap: a person
    asked for it. A run whose budget is ``spent`` (tokens, cost, time) researches nothing."""
    if spent:
        return []
    pending = [sq for sq in sub_questions if sq.status == "pending"]
    if gap_id is not None:
        return [sq for sq in pending if sq.id == gap_id]
    return pending[: max(room, 0)]
