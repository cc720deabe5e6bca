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
from deepresearch.core.text import keywords
from deepresearch.stages import compress, intake, plan, reflect, write

_PASSAGE = re.compile(r"<passage ([^>]*)>\n(.*?)\n</passage>", re.S)
_SOURCE = re.compile(r"<source ([^>]*)>\n(.*?)\n</source>", re.S)
_ATTR = re.compile(r'(\w+)="([^"]*)"')


def _first_line(text: str) -> str:
    return text.strip().splitlines()[0]


def _field(user: str, name: str) -> str:
    match = re.search(rf"^{name}:\s*(.+)$", user, re.M)
    return match.group(1).strip() if match else ""


def research_script(*, bad_citations: bool = False) -> Callable[[list[BaseMessage]], str]:
    """A function from messages to a reply, for ``ScriptedChatModel``."""

    def reply(messages: list[BaseMessage]) -> str:
        system = str(messages[0].content) if messages else ""
        user = str(messages[-1].content) if messages else ""
        if system.startswith(_first_line(intake.SYSTEM)):
            return json.dumps({"intent": "research", "reply": ""})
        if system.startswith(_first_line(plan.SYSTEM)):
            return _plan(user)
        if system.startswith(_first_line(compress.SYSTEM)):
            return _digest(user)
        if system.startswith(_first_line(reflect.SYSTEM)):
            return json.dumps({"missing": [], "leads": [], "follow_ups": []})
        if system.startswith(_first_line(write.SYSTEM)):
            return _report(user, bad_citations=bad_citations)
        return json.dumps({})

    return reply


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
    if bad_citations:
        paragraphs.append(
            [{"text": "This sentence cites evidence that does not exist.", "cite": ["E999"]}]
        )
        paragraphs.append([{"text": "This sentence cites nothing at all.", "cite": []}])
    report = {
        "title": f"Research report: {question}",
        "summary": summary,
        "sections": [{"heading": "Findings", "paragraphs": paragraphs}],
    }
    return json.dumps(report)
