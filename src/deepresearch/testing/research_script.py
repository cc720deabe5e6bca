"""A scripted researcher: replies to each of deepresearch's stage prompts the way a
careful model would, computed from the prompt alone. Deterministic, for end-to-end tests
and benchmarks; only the model's words are scripted, everything else runs for real.

It recognises a stage by the first line of that stage's system prompt, so prompts can be
reworded without breaking it. ``bad_citations=True`` adds to the report's summary a
sentence with an invented citation, one with none and one citing the wrong source, which
the writer and the audit must drop. ``section_faults`` makes the section writer break its
sections ("table": a row loses a cell, "number": a sentence, item or cell states a figure
no quote holds, "label": it cites evidence it was not given); its reflector then removes
the parts the problems name, unless ``repair=False``, when it returns the draft unchanged.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from langchain_core.messages import BaseMessage

from deepresearch.core.lexical import overlap
from deepresearch.core.planning import fallback_queries
from deepresearch.core.support import check_support, entities
from deepresearch.core.text import keywords
from deepresearch.core.thread import SHIFT_BELOW, topic_overlap
from deepresearch.recipes.research.stages import (
    answer,
    audit,
    check,
    claims,
    compress,
    council,
    council_review,
    evaluate,
    followup,
    intake,
    plan,
    rank,
    reflect,
    sections,
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


INVENTED_FIGURE = "1642"
SECTION_FAULTS = frozenset({"table", "number", "label"})


def research_script(
    *,
    bad_citations: bool = False,
    alter_findings: bool = False,
    section_faults: frozenset[str] = frozenset(),
    repair: bool = True,
    prose_as: str = "prose",
) -> Callable[[list[BaseMessage]], str]:
    """A function from messages to a reply, for ``ScriptedChatModel``. ``alter_findings``
    makes the writer "improve" the first Verified Finding it copies; ``prose_as`` is the
    layout its outline gives its first section ("list" makes it a list)."""

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
        if system.startswith(_first_line(audit.BATCH_SYSTEM)):
            return _judge_batch(user)
        if system.startswith(_first_line(check.SYSTEM)):
            return _check_findings(user)
        if system.startswith(_first_line(claims.SYSTEM)):
            return _claims(user)
        if system.startswith(_first_line(council.JUDGE_SYSTEM)):
            return _score_plan(user)
        if system.startswith(_first_line(council_review.VOTE_SYSTEM)):
            return json.dumps({"verdict": "approve", "feedback": "It answers the question."})
        if system.startswith(_first_line(evaluate.SYSTEM)):
            return _evaluate(user)
        if system.startswith(_first_line(answer.SYSTEM)):
            return _answer(user)
        if system.startswith(_first_line(write.FINDINGS_SYSTEM)):
            return _findings(user, alter=alter_findings)
        if system.startswith(_first_line(write.SYSTEM)):
            return _report(user, bad_citations=bad_citations, prose_as=prose_as)
        if system.startswith(_first_line(sections.SECTION_SYSTEM)):
            return _section(user, section_faults)
        if system.startswith(_first_line(sections.REPAIR_SYSTEM)):
            return _repair(user) if repair else _draft_shown(user)
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


def _row_claim(body: str) -> str | None:
    """A table's row, shown under its header, said as a claim: "Year 2019, Revenue $1.2
    billion." (None for a passage that is not a row)."""
    lines = body.splitlines()
    if len(lines) != 2 or not all(line.startswith("|") for line in lines):
        return None
    header, row = ([c.strip() for c in line.strip("|").split("|")] for line in lines)
    return ", ".join(f"{name} {cell}" for name, cell in zip(header, row, strict=False)) + "."


def _digest(user: str) -> str:
    sub_question = _field(user, "Sub-question")
    picks: list[dict[str, str]] = []
    summary: list[str] = []
    for attrs, body in _PASSAGE.findall(user):
        label = dict(_ATTR.findall(attrs)).get("id", "")
        if overlap(sub_question, body) >= 0.2 and len(picks) < 3:
            first = _row_claim(body) or body.split(". ")[0].rstrip(".") + "."
            picks.append({"passage": label, "claim": first})
            summary.append(first)
    return json.dumps(
        {"relevant": bool(picks), "summary": " ".join(summary[:2]), "evidence": picks}
    )


def _notes(user: str) -> list[tuple[str, str, str]]:
    """The writer's notes in a prompt: (label, claim, quote)."""
    notes = []
    for attrs, body in _SOURCE.findall(user):
        label = dict(_ATTR.findall(attrs)).get("label", "")
        claim = body.split("\n", 1)[0].removeprefix("Claim: ").strip()
        quote = body.split("\nQuote: ", 1)[-1].strip()
        if label and claim:
            notes.append((label, claim, quote))
    return notes


_YEAR = re.compile(r"\b(1[0-9]{3}|20[0-9]{2})\b")
_FIGURE = re.compile(r"\b\d[\d,.]*\d\b|\b\d\b")


def _report(user: str, *, bad_citations: bool, prose_as: str = "prose") -> str:
    """The outline, each note in one section at most: a timeline of the notes that hold a
    year when two do (else a table of those with a figure), a prose section on the first
    four other notes, and a list of the next ones."""
    question = _field(user, "Question")
    notes = _notes(user)
    summary = [{"text": claim, "cite": [label]} for label, claim, _ in notes[:2]]
    if bad_citations and notes:
        summary += [
            {"text": BAD_INVENTED, "cite": ["E999"]},  # a citation that does not exist
            {"text": BAD_UNCITED, "cite": []},  # a fact with no citation
            {"text": BAD_WRONG_SOURCE, "cite": [notes[0][0]]},  # cites the wrong source
        ]
    dated = [label for label, _, quote in notes if _YEAR.search(quote)][:6]
    figured = [label for label, _, quote in notes if _FIGURE.search(quote)][:6]
    tabled = dated if len(dated) >= 2 else figured if len(figured) >= 2 else []
    rest = [label for label, _, _ in notes if label not in tabled]  # each note used once
    plan: list[dict[str, object]] = []
    if rest:
        plan.append({"heading": "What the sources say", "kind": prose_as, "evidence": rest[:4]})
    if tabled:
        kind = "timeline" if tabled is dated else "table"
        heading = "Timeline" if kind == "timeline" else "Key figures"
        plan.append({"heading": heading, "kind": kind, "evidence": tabled})
    if len(rest) >= 6:
        plan.append({"heading": "Points to note", "kind": "list", "evidence": rest[4:10]})
    return json.dumps(
        {"title": f"Research report: {question}", "summary": summary, "sections": plan}
    )


def _cell(text: str, label: str) -> dict[str, object]:
    return {"text": text, "cite": [label]}


def _section(user: str, faults: frozenset[str]) -> str:
    """A section in the layout asked for, each part copied from the note it cites: a
    claim per sentence or item; a table row per note with a figure (the first name of its
    quote, the figure); a timeline row per dated note (the year, the claim)."""
    layout = _field(user, "Layout")
    notes = _notes(user)
    draft: dict[str, object] = {"heading": _field(user, "Section")}
    if layout in ("table", "timeline", "comparison"):
        rows = []
        for label, claim, quote in notes:
            if layout == "timeline" and (year := _YEAR.search(quote)):
                rows.append([_cell(year[0], label), _cell(claim, label)])
            elif layout != "timeline" and (figure := _FIGURE.search(quote)):
                names = entities(quote)
                subject = names[0] if names else " ".join(quote.split()[:4])
                rows.append([_cell(subject, label), _cell(figure[0], label)])
        columns = ["Date", "Event"] if layout == "timeline" else ["Subject", "Figure"]
        if "table" in faults and rows:
            rows[0] = rows[0][:1]  # a row that lost a cell
        if "number" in faults and rows:
            rows[-1][-1] = _cell(
                f"{rows[-1][-1]['text']} (revised in {INVENTED_FIGURE})", notes[-1][0]
            )
        if "label" in faults and rows:
            rows[0][0] = {**rows[0][0], "cite": ["E999"]}
        draft |= {"columns": columns, "rows": rows}
    else:
        parts = [{"text": claim, "cite": [label]} for label, claim, _ in notes]
        if "number" in faults and notes:
            parts.append(
                {"text": f"The figure was revised in {INVENTED_FIGURE}.", "cite": [notes[0][0]]}
            )
        if "label" in faults and notes:
            parts[0] = {**parts[0], "cite": ["E999"]}
        if layout == "list":
            draft["items"] = parts
        else:
            draft["paragraphs"] = [[part] for part in parts]
    return json.dumps(draft)


def _draft_shown(user: str) -> str:
    """The earlier draft the reflector was shown, unchanged (a reflector that fixes nothing)."""
    shown = next((body for attrs, body in _SOURCE.findall(user) if 'kind="draft"' in attrs), "{}")
    return shown.split("\nProblems:\n", 1)[0]


_PART = re.compile(r"^- (sentence (\d+)\.(\d+)|item (\d+)|cell (\d+)\.\d+|row (\d+))\b", re.M)


def _repair(user: str) -> str:
    """A careful reflector: the draft without every part a problem names (a sentence, an
    item, the row of a cell or a row)."""
    draft = json.loads(_draft_shown(user))
    shown = next((body for attrs, body in _SOURCE.findall(user) if 'kind="draft"' in attrs), "")
    sentences, items, rows = set(), set(), set()
    for match in _PART.finditer(shown.split("\nProblems:\n", 1)[-1]):
        if match[2]:
            sentences.add((int(match[2]), int(match[3])))
        elif match[4]:
            items.add(int(match[4]))
        else:
            rows.add(int(match[5] or match[6]))
    draft["paragraphs"] = [
        [s for j, s in enumerate(paragraph, start=1) if (i, j) not in sentences]
        for i, paragraph in enumerate(draft.get("paragraphs", []), start=1)
    ]
    draft["items"] = [x for i, x in enumerate(draft.get("items", []), start=1) if i not in items]
    draft["rows"] = [x for i, x in enumerate(draft.get("rows", []), start=1) if i not in rows]
    return json.dumps(draft)


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


def _judge_batch(user: str) -> str:
    """The careful judge of several sentences, each against its own passages."""
    found = sorted(
        [(m.start(), "sentence", m.group(1), m.group(2)) for m in _SOURCE.finditer(user)]
        + [(m.start(), "passage", m.group(1), m.group(2)) for m in _PASSAGE.finditer(user)]
    )
    groups: list[tuple[str, str, list[str]]] = []
    for _, kind, attrs, body in found:
        if kind == "sentence":
            groups.append((dict(_ATTR.findall(attrs)).get("label", ""), body, []))
        elif groups:
            groups[-1][2].append(body)
    verdicts = []
    for label, sentence, passages in groups:
        verdict = check_support(sentence, passages)
        passage = verdict.best_passage + 1 if verdict.best_passage is not None else None
        verdicts.append(
            {
                "label": label,
                "verdict": verdict.verdict,
                "passage": passage,
                "note": "; ".join(verdict.reasons),
            }
        )
    return json.dumps({"sentences": verdicts})


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
            **_process_scores(user, scored),
        }
    )


def _process_scores(user: str, scored: Callable[[float, str], dict[str, object]]) -> dict[str, Any]:
    """Search strategy and source diversity from what the process block lists: queries per
    sub-question and distinct sites (nothing when the judge was shown no process)."""
    process = next((body for attrs, body in _SOURCE.findall(user) if 'kind="process"' in attrs), "")
    if not process:
        return {}
    asked = [line for line in process.split("Sites of")[0].splitlines() if line.startswith("- ")]
    queries = sum(len(line.split(": ", 1)[-1].split("; ")) for line in asked)
    sites = process.split("Sites of", 1)[-1].count("\n- ")
    return {
        "search_strategy": scored(2 + queries / max(len(asked), 1), f"{queries} queries"),
        "source_diversity": scored(2 + sites, f"{sites} sites"),
    }


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
