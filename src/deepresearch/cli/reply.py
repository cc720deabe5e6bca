"""``deepresearch reply``: answer a run that waits (a clarifying question, a plan or the
findings to review) and continue it to its report, written where the run was to write it;
or cancel it (``--cancel``: the run ends as cancelled, exit code 1)."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from deepresearch.cli import options
from deepresearch.cli.common import error, run_id_or_exit

Approve = Annotated[
    bool, typer.Option("--approve", help="Approve the plan, or the findings, as they are.")
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
) -> Any:
    """The one answer the flags give (the text for a clarifying question, else the API's
    ``{"action": ...}`` review), or exit 2 when they give none or several; ``command`` is
    the command and id, for the hint. ``deepresearch reply`` and ``deepresearch jobs
    reply`` read the same flags this way."""
    from deepresearch.cli.pause import CANCEL

    editing = brief is not None or bool(sub_question)
    reviewing = bool(drop) or gap is not None  # the findings: --drop and --gap go together
    given = sum([answer is not None, approve, editing, reviewing, cancel])
    if given != 1:
        error(
            "give one answer: the text for a clarifying question, --approve, the edited "
            "plan (--brief, --sub-question), the findings' review (--drop, --gap), "
            "or --cancel",
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
    return {"action": "gap" if gap is not None else "drop", "drop": drop or None, "gap": gap}


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
    )
    resume_with(run_id, value, json_events=json_events)
