"""A scripted researcher: replies to each of deepresearch's stage prompts the way a
careful model would, computed from the prompt alone. Deterministic, for end-to-end tests
and benchmarks; only the model's words are scripted, everything else runs for real.

It recognises a stage by the first line of that stage's system prompt, so prompts can be
reworded without breaking it. ``bad_citations=True`` adds a sentence with an invented
citation and one with none, which the writer stage must drop.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable

from langchain_core.messages import BaseMessage

from deepresearch.core.lexical import overlap
from deepresearch.core.planning import fallback_queries
from deepresearch.core.support import check_support
from deepresearch.core.text import keywords
from deepresearch.core.thread import SHIFT_BELOW, topic_overlap
from deepresearch.stages import (
    answer,
    audit,
    check,
    claims,
    compress,
    council,
    evaluate,
    followup,
    intake,
    plan,
    rank,
    reflect,
    write,
)

# a data block as a model sees it: ``<passage-«run marker» id="P1">`` ... ``</passage-…>``
_PASSAGE = re.compile(r"<passage(?:-[^\s>]+)? ([^>]*)>\n(.*?)\n</passage(?:-[^\s>]+)?>", re.S)
_SOURCE = re.compile(r"<source(?:-[^\s>]+)? ([^>]*)>\n(.*?)\n</source(?:-[^\s>]+)?>", re.S)
_ATTR = re.compile(r'(\w+)="([^"]*)"')


BAD_INVENTED = "The Eiffel Tower was completed in 1889 by the company of Gustave Eiffel."
BAD_UNCITED = "Mount Everest is 8,849 metres tall according to the 2020 survey."
BAD_WRONG_SOURCE = "The Great Wall of China is 21,196 kilometres long, measured in 2012."


def _first_line(text: str) -> str:
    return text.strip().splitlines()[0]


def _field(user: str, name: str) -> str:
    match = re.search(rf"^{name}:\s*(.+)$", user, re.M)
    return match.group(1).strip() if match else ""


def research_script(
    *, bad_citations: bool = False, alter_findings: bool = False
) -> Callable[[list[BaseMessage]], str]:
    """A function from messages to a reply, for ``ScriptedChatModel``. ``alter_findings``
    makes the writer "improve" the first Verified Finding it copies."""

    def reply(messages: list[BaseMessage]) -> str:
        system = str(messages[0].content) if messages else ""
        user = str(messages[-1].content) if messages else ""
        if system.startswith(_first_line(followup.TOPIC_SYSTEM)):
            return _topic(user)
        if system.startswith(_first_line(intake.SYSTEM)):
            return json.dumps({"intent": "research", "reply": ""})
        if system.startswith(_first_line(plan.SYSTEM)):
            return _plan(user)
        if system.startswith(_first_line(compress.SYSTEM)):
            return _digest(user)
        if system.startswith(_first_line(reflect.SYSTEM)):
            return json.dumps({"missing": [], "leads": [], "follow_ups": []})
        if system.startswith(_first_line(rank.SYSTEM)):
            return _rate(user)
        if system.startswith(_first_line(audit.SYSTEM)):
            return _judge(user)
        if system.startswith(_first_line(check.SYSTEM)):
            return _check_findings(user)
        if system.startswith(_first_line(claims.SYSTEM)):
            return _claims(user)
        if system.startswith(_first_line(council.JUDGE_SYSTEM)):
            return _score_plan(user)
        if system.startswith(_first_line(evaluate.SYSTEM)):
            return _evaluate(user)
        if system.startswith(_first_line(answer.SYSTEM)):
            return _answer(user)
        if system.startswith(_first_line(write.FINDINGS_SYSTEM)):
            return _findings(user, alter=alter_findings)
        if system.startswith(_first_line(write.SYSTEM)):
            return _report(user, bad_citations=bad_citations)
        return json.dumps({})

    return reply


def _topic(user: str) -> str:
    """Same topic when the follow-up's words are in the earlier questions and findings."""
    question = user.rsplit("Follow-up question:\n", 1)[-1].strip()
    thread = user.split("Follow-up question:\n", 1)[0]
    same = topic_overlap(question, [thread]) >= SHIFT_BELOW
    return json.dumps({"same_topic": same, "reason": "the words of the thread"})


def _plan(user: str) -> str:
    question = user.split("Question:\n", 1)[-1].split("\n\n", 1)[0].strip()
    terms = keywords(question)
    subs = [{"question": question, "queries": fallback_queries(question, count=3, operators=False)}]
    if len(terms) >= 2:
        focus = f"What is known about {' '.join(terms[:2])}?"
        subs.append({"question": focus, "queries": [" ".join(terms[:3]), " ".join(terms[:2])]})
    return json.dumps(
        {"brief": f"Find what the sources say about: {question}", "sub_questions": subs}
    )


def _digest(user: str) -> str:
    sub_question = _field(user, "Sub-question")
    picks: list[dict[str, str]] = []
    summary: list[str] = []
    for attrs, body in _PASSAGE.findall(user):
        label = dict(_ATTR.findall(attrs)).get("id", "")
        if overlap(sub_question, body) >= 0.2 and len(picks) < 3:
            first = body.split(". ")[0].rstrip(".") + "."
            picks.append({"passage": label, "claim": first})
            summary.append(first)
    return json.dumps(
        {"relevant": bool(picks), "summary": " ".join(summary[:2]), "evidence": picks}
    )


def _report(user: str, *, bad_citations: bool) -> str:
    question = _field(user, "Question")
    notes = []
    for attrs, body in _SOURCE.findall(user):
        label = dict(_ATTR.findall(attrs)).get("label", "")
        claim = body.split("\n", 1)[0].removeprefix("Claim: ").strip()
        if label and claim:
            notes.append((label, claim))
    summary = [{"text": claim, "cite": [label]} for label, claim in notes[:2]]
    paragraphs = [[{"text": claim, "cite": [label]}] for label, claim in notes]
    if bad_citations and notes:
        paragraphs.append(
            [{"text": BAD_INVENTED, "cite": ["E999"]}]
        )  # a citation that does not exist
        paragraphs.append([{"text": BAD_UNCITED, "cite": []}])  # a fact with no citation
        paragraphs.append(
            [{"text": BAD_WRONG_SOURCE, "cite": [notes[0][0]]}]
        )  # cites the wrong source
    report = {
        "title": f"Research report: {question}",
        "summary": summary,
        "sections": [{"heading": "Findings", "paragraphs": paragraphs}],
    }
    return json.dumps(report)


def _findings(user: str, *, alter: bool) -> str:
    chosen = []
    for attrs, body in _SOURCE.findall(user)[:3]:
        label = dict(_ATTR.findall(attrs)).get("label", "")
        quote = body.split("\nQuote: ", 1)[-1].strip()
        chosen.append({"label": label, "quote": f"“{quote}”"})
    if alter and chosen:
        chosen[0]["quote"] = chosen[0]["quote"].replace("“", "“Notably, ", 1)
    return json.dumps({"findings": chosen})


def _judge(user: str) -> str:
    """A careful judge: the deterministic support check, reported in the judge's format."""
    sentences = [body for attrs, body in _SOURCE.findall(user) if 'kind="sentence"' in attrs]
    sentence = sentences[0] if sentences else user.split("Sentence: ", 1)[-1].split("\n", 1)[0]
    passages = [body for _, body in _PASSAGE.findall(user)]
    verdict = check_support(sentence, passages)
    passage = verdict.best_passage + 1 if verdict.best_passage is not None else None
    return json.dumps(
        {"verdict": verdict.verdict, "passage": passage, "note": "; ".join(verdict.reasons)}
    )


def _rate(user: str) -> str:
    """Every numbered result rated: relevance and usefulness from how much of the
    sub-question it covers."""
    sub_question = _field(user, "Sub-question")
    ratings = []
    for attrs, body in _SOURCE.findall(user):
        number = dict(_ATTR.findall(attrs)).get("id", "0")
        covered = overlap(sub_question, _field(body, "Title") + " " + _field(body, "Snippet"))
        ratings.append(
            {"id": int(number), "relevance": covered, "quality": 0.7, "usefulness": covered}
        )
    return json.dumps({"ratings": ratings})


def _check_findings(user: str) -> str:
    """A careful judge of findings: each claim read against its own quote by the
    deterministic support check."""
    verdicts = []
    for attrs, body in _SOURCE.findall(user):
        label = dict(_ATTR.findall(attrs)).get("label", "")
        claim, _, quote = body.removeprefix("Claim: ").partition("\nQuote: ")
        checked = check_support(claim, [quote])
        verdicts.append(
            {"label": label, "verdict": checked.verdict, "note": "; ".join(checked.reasons)}
        )
    return json.dumps({"findings": verdicts})


_YEAR = re.compile(r"\b(1[0-9]{3}|20[0-9]{2})\b")
_NOT = re.compile(r"\b(?:not|never|no longer)\b|n't\b", re.I)


def _claims(user: str) -> str:
    """A careful reader's claims: notes with the same claim (word for word, case aside)
    are one claim; a note from another page contradicts it when the two share at least two
    content words and state different years, or only one of them is negated. Looser than
    the deterministic detector (which wants near-identical wording), as a model is."""
    notes = []
    for attrs, body in _SOURCE.findall(user):
        fields = dict(_ATTR.findall(attrs))
        claim, _, _quote = body.removeprefix("Claim: ").partition("\nQuote: ")
        notes.append((fields.get("label", ""), fields.get("url", ""), " ".join(claim.split())))
    grouped: dict[str, list[tuple[str, str, str]]] = {}
    for note in notes:
        grouped.setdefault(note[2].lower(), []).append(note)
    out = []
    for members in grouped.values():
        text, pages = members[0][2], {url for _, url, _ in members}
        against = [
            label for label, url, other in notes if url not in pages and _disagree(text, other)
        ]
        out.append({"text": text, "supporting": [m[0] for m in members], "contradicting": against})
    return json.dumps({"claims": out})


def _disagree(a: str, b: str) -> bool:
    if len(set(keywords(a, limit=50)) & set(keywords(b, limit=50))) < 2:
        return False
    years_a, years_b = set(_YEAR.findall(a)), set(_YEAR.findall(b))
    if years_a and years_b and not years_a & years_b:
        return True
    return bool(_NOT.search(a)) != bool(_NOT.search(b))


def _score_plan(user: str) -> str:
    """A plan's score: half for being a plan at all, half for how much of the question its
    sub-questions name."""
    question = _field(user, "Question")
    plans = [body for _, body in _SOURCE.findall(user)]
    covered = overlap(question, plans[0]) if plans else 0.0
    return json.dumps(
        {"score": round(0.5 + covered / 2, 2), "reason": f"covers {covered:.0%} of the question"}
    )


def _evaluate(user: str) -> str:
    """RACE scores from what can be counted in the report: its sections, citations and
    length, each reason naming the count."""
    report = next((body for attrs, body in _SOURCE.findall(user) if 'kind="report"' in attrs), "")
    sections = report.count("\n## ")
    citations = len(re.findall(r"\[\d+\]", report))
    words = len(report.split())

    def scored(value: float, reason: str) -> dict[str, object]:
        return {"score": round(min(10.0, value), 1), "reason": reason}

    return json.dumps(
        {
            "comprehensiveness": scored(2 + sections, f"{sections} sections"),
            "insight": scored(1 + citations / 4, f"{citations} citations"),
            "instruction_following": scored(7, "answers the question asked"),
            "readability": scored(4 + min(words, 1500) / 500, f"{words} words"),
        }
    )


def _answer(user: str) -> str:
    """An answer from "knowledge": the brief restated, one section per point to cover."""
    question = _field(user, "Question")
    points = [line[2:].strip() for line in user.splitlines() if line.startswith("- ")]
    return json.dumps(
        {
            "title": f"What is known about: {question}",
            "summary": [f"From general knowledge, {question.rstrip('?')} is a matter of record."],
            "sections": [
                {"heading": point, "paragraphs": [f"General knowledge bears on: {point}"]}
                for point in points
            ],
        }
    )
