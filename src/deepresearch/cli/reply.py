"""``deepresearch reply``: answer a run that waits (a clarifying question, a plan, the
findings or the finished report to review) and continue it to its report, written where the run was to write it;
or cancel it (``--cancel``: the run ends as cancelled, exit code 1)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from deepresearch.cli import options
from deepresearch.cli.common import error, run_id_or_exit

Approve = Annotated[
    bool,
    typer.Option("--approve", help="Approve the plan, the findings or the report as they are."),
]
Brief = Annotated[str | None, typer.Option(help="Plan review: the new brief.")]
SubQuestion = Annotated[
    list[str] | None,
    typer.Option(
        "--sub-question",
        help="Plan review: a sub-question; repeat for each (they replace the plan's).",
    ),
]
Drop = Annotated[
    list[str] | None,
    typer.Option(
        "--drop",
        metavar="EVIDENCE_ID",
        help="Findings review: leave this finding out of the report; repeat for each.",
    ),
]
Gap = Annotated[
    str | None,
    typer.Option(help="Findings review: what is missing, researched in one more wave."),
]
Edit = Annotated[
    Path | None,
    typer.Option(
        "--edit",
        metavar="FILE",
        help="Report review: the edited sentences, a line 'ID: new words' each ('ID:' "
        "alone removes it); each edit is audited against its citations.",
    ),
]
Feedback = Annotated[
    str | None,
    typer.Option(help="Report review: what to change; the writer model rewrites it once."),
]
Cancel = Annotated[
    bool, typer.Option("--cancel", help="Cancel the run instead of answering (exit 1).")
]


def answer_of(
    command: str,
    answer: str | None,
    *,
    approve: bool,
    brief: str | None,
    sub_question: list[str] | None,
    drop: list[str] | None,
    gap: str | None,
    cancel: bool,
    edit: Path | None = None,
    feedback: str | None = None,
) -> Any:
    """The one answer the flags give (the text for a clarifying question, else the API's
    ``{"action": ...}`` review), or exit 2 when they give none or several; ``command`` is
    the command and id, for the hint. ``deepresearch reply`` and ``deepresearch jobs
    reply`` read the same flags this way."""
    from deepresearch.cli.pause import CANCEL

    editing = brief is not None or bool(sub_question)
    reviewing = bool(drop) or gap is not None  # the findings: --drop and --gap go together
    given = sum(
        [answer is not None, approve, editing, reviewing, edit is not None, feedback is not None]
    )
    if given + cancel != 1:
        error(
            "give one answer: the text for a clarifying question, --approve, the edited "
            "plan (--brief, --sub-question), the findings' review (--drop, --gap), the "
            "report's (--edit FILE, --feedback), or --cancel",
            f'{command} "YOUR ANSWER"',
        )
    if answer is not None:
        return answer
    if approve:
        return {"action": "approve"}
    if cancel:
        return CANCEL
    if editing:
        return {"action": "edit", "brief": brief, "sub_questions": sub_question}
    if edit is not None:
        return {"action": "edit", "sentences": edited_sentences(edit)}
    if feedback is not None:
        return {"action": "feedback", "feedback": feedback}
    return {"action": "gap" if gap is not None else "drop", "drop": drop or None, "gap": gap}


def edited_sentences(path: Path) -> dict[str, str]:
    """The sentences an edit file gives (``core.report_review.parse_edits``), or exit 2
    with what is wrong with it."""
    from deepresearch.core.report_review import parse_edits
    from deepresearch.errors import InvalidInput

    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        error(f"cannot read the edit file {path}: {exc}", "give a UTF-8 text file")
    try:
        return parse_edits(text)
    except InvalidInput as exc:
        error(f"{path}: {exc.message}", exc.hint or "")


def reply(
    run_id: Annotated[str, typer.Argument(help="The run that waits.", metavar="RUN_ID")],
    answer: Annotated[
        str | None, typer.Argument(help="The answer to the run's clarifying question.")
    ] = None,
    approve: Approve = False,
    brief: Brief = None,
    sub_question: SubQuestion = None,
    drop: Drop = None,
    gap: Gap = None,
    edit: Edit = None,
    feedback: Feedback = None,
    cancel: Cancel = False,
    json_events: options.JsonEvents = False,
) -> None:
    """Answer what run RUN_ID asks and continue it (exit 4 if it asks again), or cancel it."""
    from deepresearch.cli.run import resume_with

    run_id = run_id_or_exit(run_id)
    value = answer_of(
        f"deepresearch reply {run_id}",
        answer,
        approve=approve,
        brief=brief,
        sub_question=sub_question,
        drop=drop,
        gap=gap,
        cancel=cancel,
        edit=edit,
        feedback=feedback,
    )
    resume_with(run_id, value, json_events=json_events)
