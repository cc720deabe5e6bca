"""The rules of the finished report's review (issue 28, seed 002), pure: the sentences a
person is shown (the summary's and the body sections', each with an id from its place in
reading order), a reply checked against what was shown, an edit file read, and the report
with the edits made. An edited sentence keeps the citations it had: the person changes
the words, and the audit checks the new words against the same passages
(``core.audit.reaudit``), so an edit cannot say more than its sources do. The Verified
Findings, the contradictions and the key facts are quotes, not shown and not edited."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from pydantic import ValidationError

from deepresearch.core.sanitize import clean_text
from deepresearch.errors import InvalidInput, InvalidReply
from deepresearch.models import AuditVerdict, Paragraph, Report, Section, Sentence
from deepresearch.models.pause import ReportReply, SentenceItem

MAX_SENTENCE_CHARS = 2000
MIN_FEEDBACK_CHARS = 3
MAX_FEEDBACK_CHARS = 2000
SUMMARY = "Summary"
HINT = (
    'send {"action": "approve"}, {"action": "edit", "sentences": {"<id>": "new words", '
    '"<id>": ""}} or {"action": "feedback", "feedback": "what to change"}'
)
#: citation marks a person may have copied with a sentence: ``[3]``, ``[2, 5]``
_MARKS = re.compile(r"\s*\[\d+(?:\s*,\s*\d+)*\]")
#: a line of an edit file: ``s3: the new words``
_LINE = re.compile(r"^\s*(s\d+)\s*:(.*)$")


def sentence_id(position: int) -> str:
    """A sentence's id: its place among the report's sentences in reading order."""
    return f"s{position + 1}"


def shown_sentences(report: Report) -> list[SentenceItem]:
    """The sentences a person may edit: the summary's and the body sections' prose, with
    the numbers of the sources they cite and the audit's verdict."""
    source_of = {item.id: item.source_id for item in report.evidence}
    number_of = {ref.id: ref.number for ref in report.sources}
    out: list[SentenceItem] = []
    for position, (heading, sentence) in enumerate(_placed(report)):
        if heading is None:
            continue
        numbers = [number_of[sid] for cid in sentence.citations if (sid := source_of.get(cid))]
        numbers = [n for n in dict.fromkeys(numbers) if n]
        out.append(
            SentenceItem(
                id=sentence_id(position),
                section=heading,
                text=sentence.text,
                sources=numbers,
                audit=sentence.audit,
            )
        )
    return out


def _placed(report: Report) -> list[tuple[str | None, Sentence]]:
    """Every sentence in reading order (as ``Report.all_sentences``) with the heading a
    person sees it under, or None when it is not editable (a quote section's)."""
    out: list[tuple[str | None, Sentence]] = [(SUMMARY, s) for s in report.summary]
    for section in report.sections:
        heading = section.heading if section.kind == "body" else None
        out.extend((heading, s) for p in section.paragraphs for s in p.sentences)
    return out


def check_report_reply(reply: object, shown: Mapping[str, str], *, rewrite: bool) -> ReportReply:
    """A report decision checked against ``shown`` (sentence id -> its text): an edit
    names known ids and changes at least one sentence (texts normalised, citation marks
    dropped, unchanged ones left out); feedback is 3-2000 characters and needs a writer
    (``rewrite``): without one it is refused and nothing is applied."""
    if isinstance(reply, str):
        raise InvalidReply(
            "the run waits for a review of its report: a text answer is not a report reply",
            asked="report",
            hint=HINT,
        )
    try:
        decision = reply if isinstance(reply, ReportReply) else ReportReply.model_validate(reply)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"]) or "reply"
        raise InvalidReply(
            f"the report reply is not valid: {where}: {first['msg']}", asked="report", hint=HINT
        ) from None
    if decision.action == "approve":
        return ReportReply(action="approve")
    if decision.action == "feedback":
        return ReportReply(action="feedback", feedback=_feedback(decision.feedback, rewrite))
    return ReportReply(action="edit", sentences=_edits(decision.sentences or {}, shown))


def _feedback(text: str | None, rewrite: bool) -> str:
    if not rewrite:
        raise InvalidReply(
            "feedback needs a writer model to rewrite the report, and this run has none; "
            "nothing was applied",
            asked="report",
            hint="approve the report, or edit its sentences yourself",
        )
    feedback = clean_text(text or "")
    if not MIN_FEEDBACK_CHARS <= len(feedback) <= MAX_FEEDBACK_CHARS:
        raise InvalidInput(
            f"the feedback is {len(feedback)} characters; it has {MIN_FEEDBACK_CHARS} to "
            f"{MAX_FEEDBACK_CHARS}",
            hint="say in a few sentences what the rewrite should change",
        )
    return feedback


def _edits(given: Mapping[str, str], shown: Mapping[str, str]) -> dict[str, str]:
    if not given:
        raise InvalidReply(
            "an edit names the sentences it changes; it named none", asked="report", hint=HINT
        )
    unknown = sorted(key for key in given if key not in shown)
    if unknown:
        listed = ", ".join(list(shown)[:5]) + (", ..." if len(shown) > 5 else "")
        raise InvalidInput(
            f"no sentence has the id {', '.join(repr(key) for key in unknown[:5])}",
            hint=f"edit sentences by the ids shown ({listed})",
        )
    edits: dict[str, str] = {}
    for key in shown:  # in reading order
        if key not in given:
            continue
        text = clean_text(_MARKS.sub("", given[key]))
        if len(text) > MAX_SENTENCE_CHARS:
            raise InvalidInput(
                f"sentence {key} is {len(text)} characters; at most {MAX_SENTENCE_CHARS}",
                hint="split it, or say less",
            )
        if text != shown[key]:
            edits[key] = text
    if not edits:
        raise InvalidInput(
            "the edit changes no sentence", hint="change a sentence's words, or approve"
        )
    if len(shown) == sum(1 for text in edits.values() if not text):
        raise InvalidInput(
            "removing every sentence leaves no report",
            hint="keep at least one sentence, or cancel the run",
        )
    return edits


def parse_edits(text: str) -> dict[str, str]:
    """An edit file's sentences: one ``ID: new words`` a line (``ID:`` alone removes the
    sentence); blank lines and lines starting with ``#`` are skipped. InvalidInput names
    the first line that is neither."""
    edits: dict[str, str] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        found = _LINE.match(line)
        if found is None:
            raise InvalidInput(
                f"line {number} of the edit file is not 'ID: new words'",
                hint="write each edited sentence as 's3: its new words' ('s3:' removes it)",
            )
        edits[found.group(1)] = found.group(2).strip()
    if not edits:
        raise InvalidInput("the edit file names no sentence", hint="write lines 's3: new words'")
    return edits


@dataclass(frozen=True)
class Edited:
    """The report with a person's edits made: ``checked`` the positions (in the edited
    report) of the sentences to audit again; ``replaced`` the verdicts the edited and the
    removed sentences had (the audit's counts lose them); ``removed`` the sentences the
    person removed."""

    report: Report
    checked: list[int]
    replaced: list[AuditVerdict | None]
    removed: int


def edited_report(report: Report, edits: Mapping[str, str]) -> Edited:
    """``report`` with each edited sentence's words replaced (citations kept, the audit's
    verdict cleared) and each emptied one removed; a paragraph or section left empty goes."""
    position = 0
    checked: list[int] = []
    replaced: list[AuditVerdict | None] = []
    kept_count = 0

    def sentences(items: Sequence[Sentence]) -> list[Sentence]:
        nonlocal position, kept_count
        out = []
        for sentence in items:
            key = sentence_id(position)
            position += 1
            if key in edits:
                replaced.append(sentence.audit)
                if not edits[key]:
                    continue
                sentence = Sentence(text=edits[key], citations=list(sentence.citations))
                checked.append(kept_count)
            out.append(sentence)
            kept_count += 1
        return out

    summary = sentences(report.summary)
    sections: list[Section] = []
    for section in report.sections:
        paragraphs = [
            Paragraph(sentences=kept)
            for paragraph in section.paragraphs
            if (kept := sentences(paragraph.sentences))
        ]
        if paragraphs or section.table is not None or not section.paragraphs:
            sections.append(section.model_copy(update={"paragraphs": paragraphs}))
    done = report.model_copy(update={"summary": summary, "sections": sections})
    removed = sum(1 for text in edits.values() if not text)
    return Edited(done, checked, replaced, removed)
