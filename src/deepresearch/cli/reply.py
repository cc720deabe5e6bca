"""``deepresearch reply``: answer a run that waits (a clarifying question, a plan or the
findings to review) and continue it to its report, written where the run was to write it;
or cancel it (``--cancel``: the run ends as cancelled, exit code 1)."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from deepresearch.cli import options
from deepresearch.cli.common import error, run_id_or_exit


def reply(
    run_id: Annotated[str, typer.Argument(help="The run that waits.", metavar="RUN_ID")],
    answer: Annotated[
        str | None, typer.Argument(help="The answer to the run's clarifying question.")
    ] = None,
    approve: Annotated[
        bool, typer.Option("--approve", help="Approve the plan, or the findings, as they are.")
    ] = False,
    brief: Annotated[str | None, typer.Option(help="Plan review: the new brief.")] = None,
    sub_question: Annotated[
        list[str] | None,
        typer.Option(
            "--sub-question",
            help="Plan review: a sub-question; repeat for each (they replace the plan's).",
        ),
    ] = None,
    drop: Annotated[
        list[str] | None,
        typer.Option(
            "--drop",
            metavar="EVIDENCE_ID",
            help="Findings review: leave this finding out of the report; repeat for each.",
        ),
    ] = None,
    gap: Annotated[
        str | None,
        typer.Option(help="Findings review: what is missing, researched in one more wave."),
    ] = None,
    cancel: Annotated[
        bool, typer.Option("--cancel", help="Cancel the run instead of answering (exit 1).")
    ] = False,
    json_events: options.JsonEvents = False,
) -> None:
    """Answer what run RUN_ID asks and continue it (exit 4 if it asks again), or cancel it."""
    from deepresearch.cli.pause import CANCEL
    from deepresearch.cli.run import resume_with

    run_id = run_id_or_exit(run_id)
    editing = brief is not None or bool(sub_question)
    reviewing = bool(drop) or gap is not None  # the findings: --drop and --gap go together
    given = sum([answer is not None, approve, editing, reviewing, cancel])
    if given != 1:
        error(
            "give one answer: the text for a clarifying question, --approve, the edited "
            "plan (--brief, --sub-question), the findings' review (--drop, --gap), "
            "or --cancel",
            f'deepresearch reply {run_id} "YOUR ANSWER"',
        )
    value: Any
    if answer is not None:
        value = answer
    elif approve:
        value = {"action": "approve"}
    elif cancel:
        value = CANCEL
    elif editing:
        value = {"action": "edit", "brief": brief, "sub_questions": sub_question}
    else:
        value = {"action": "gap" if gap is not None else "drop", "drop": drop or None, "gap": gap}
    resume_with(run_id, value, json_events=json_events)
