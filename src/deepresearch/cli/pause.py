"""A run that waits for a person, at the terminal (issue 15): on a TTY the question (or the
plan, the findings or the finished report) is asked here and the run goes on; otherwise the command ends with exit code 4 and
says how to answer (``deepresearch reply RUN_ID ...``). A plan or findings review may be
cancelled here (``c``) or with ``deepresearch reply RUN_ID --cancel``: the run ends as
cancelled (exit code 1), as the service's cancel ends a waiting job."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any, NoReturn

import typer

from deepresearch.cli.common import EXIT_FAILED, fail, say
from deepresearch.core.sanitize import for_terminal
from deepresearch.core.text import clip
from deepresearch.errors import ConfigError, DeepResearchError

if TYPE_CHECKING:
    from deepresearch.models.pause import InputRequest
    from deepresearch.settings import Settings

#: the answer that cancels a waiting run (the API's ``{"action": "cancel"}``)
CANCEL: dict[str, Any] = {"action": "cancel"}


def interactive() -> bool:
    """Whether a person is at the terminal to answer (standard input and error are TTYs)."""
    return sys.stdin.isatty() and sys.stderr.isatty()


def ask(request: InputRequest) -> Any:
    """The person's answer, asked at the terminal; None when they stop (the run waits)."""
    if request.kind == "clarification":
        say(f"\nThe run asks: {request.question}")
        answer = typer.prompt("Your answer (empty: answer later)", default="", err=True)
        return answer.strip() or None
    if request.kind == "findings":
        return _ask_findings(request)
    if request.kind == "report":
        return _ask_report(request)
    _show_plan(request)
    choice = _choice("Approve, edit, cancel the run, or later? [a/e/c/l]")
    if choice.startswith("a"):
        return {"action": "approve"}
    if choice.startswith("c"):
        return CANCEL
    if not choice.startswith("e"):
        return None
    brief = typer.prompt("Brief", default=request.brief, err=True)
    say("Each sub-question: Enter keeps it, new words reword it, '-' removes it.")
    texts = []
    for item in request.sub_questions:
        text = typer.prompt(f"  {item.id}", default=item.text, err=True).strip()
        if text != "-":
            texts.append(text)
    while added := typer.prompt("  add (empty: done)", default="", err=True).strip():
        texts.append(added)
    return {"action": "edit", "brief": brief, "sub_questions": texts}


def show_waiting(request: InputRequest, reply: str = "") -> None:
    """What the run asks and how to answer it from another command: ``reply`` is the
    command and id that answer (default ``deepresearch reply RUN_ID``; a service job's is
    ``deepresearch jobs reply JOB_ID``)."""
    reply = reply or f"deepresearch reply {request.run_id}"
    if request.kind == "clarification":
        say(f"the run waits for your answer: {request.question}")
        say(f'answer with: {reply} "YOUR ANSWER"')
        say(f"or cancel the run: {reply} --cancel")
        return
    if request.kind == "findings":
        _show_findings(request)
        say(f"the run waits for your review of its findings; approve with: {reply} --approve")
        say(
            f'or drop some: {reply} --drop ID --drop ID; or name a gap: {reply} --gap "..."; '
            f"or cancel the run: {reply} --cancel"
        )
        return
    if request.kind == "report":
        _show_report(request)
        say(f"the run waits for your review of its report; approve with: {reply} --approve")
        say(
            f"or edit sentences: {reply} --edit FILE (a line 'ID: new words' each; 'ID:' "
            "alone removes it; each edit is audited against its citations)"
            + (
                f'; or give feedback for one rewrite: {reply} --feedback "..."'
                if request.rewrite
                else ""
            )
            + f"; or cancel the run: {reply} --cancel"
        )
        return
    _show_plan(request)
    say(f"the run waits for your review; approve with: {reply} --approve")
    say(
        f'or edit it: {reply} --brief "..." --sub-question "..." --sub-question "..."; '
        f"or cancel the run: {reply} --cancel"
    )


def how_to_answer(asked: str, reply: str) -> str:
    """How to answer a pause of kind ``asked`` (``InvalidReply.asked``) from the command
    line, in a line: the hint for a reply of the wrong kind (the core's is the API's
    JSON). ``reply`` is the command and id, as for ``show_waiting``."""
    if asked == "clarification":
        return f'answer with: {reply} "YOUR ANSWER"; or cancel the run: {reply} --cancel'
    if asked == "findings":
        return (
            f'approve with: {reply} --approve; or --drop ID (repeat for each), --gap "...", '
            "or --cancel"
        )
    if asked == "report":
        return (
            f"approve with: {reply} --approve; or --edit FILE (a line 'ID: new words' each), "
            '--feedback "..." (with a writer model), or --cancel'
        )
    return (
        f'approve with: {reply} --approve; or edit it with --brief "..." and/or '
        '--sub-question "..." (repeat for each); or --cancel'
    )


def _show_plan(request: InputRequest) -> None:
    say(f"\nThe plan. Brief: {request.brief}")
    for line in request.outline_lines():  # scope, strategy, format; the council's votes
        typer.echo(f"  {for_terminal(line)}", err=True)
    for item in request.sub_questions:
        typer.echo(f"  {item.id}. {for_terminal(item.text)}", err=True)


def _ask_findings(request: InputRequest) -> Any:
    _show_findings(request)
    choice = _choice("Approve, drop findings, name a gap, cancel the run, or later? [a/d/g/c/l]")
    if choice.startswith("a"):
        return {"action": "approve"}
    if choice.startswith("d"):
        ids = typer.prompt("Ids to drop (separated by spaces or commas)", err=True)
        gap = typer.prompt("A gap to research too (empty: none)", default="", err=True).strip()
        return {"action": "drop", "drop": ids.replace(",", " ").split(), "gap": gap or None}
    if choice.startswith("g"):
        return {"action": "gap", "gap": typer.prompt("What is missing", err=True)}
    if choice.startswith("c"):
        return CANCEL
    return None


def _ask_report(request: InputRequest) -> Any:
    _show_report(request)
    feedback = "give feedback for one rewrite, " if request.rewrite else ""
    keys = "a/e/f/c/l" if request.rewrite else "a/e/c/l"
    choice = _choice(f"Approve, edit sentences, {feedback}cancel the run, or later? [{keys}]")
    if choice.startswith("a"):
        return {"action": "approve"}
    if choice.startswith("e"):
        say("Each sentence to change: its id, then its new words ('-' removes it).")
        edits: dict[str, str] = {}
        while key := typer.prompt("  id (empty: done)", default="", err=True).strip():
            text = typer.prompt(f"  {key}", err=True).strip()
            edits[key] = "" if text == "-" else text
        return {"action": "edit", "sentences": edits} if edits else None
    if choice.startswith("f") and request.rewrite:
        return {"action": "feedback", "feedback": typer.prompt("What to change", err=True)}
    if choice.startswith("c"):
        return CANCEL
    return None


def _show_report(request: InputRequest) -> None:
    say(f"\nThe report: {request.title}")
    heading = None
    for item in request.sentences:
        if item.section != heading:
            heading = item.section
            typer.echo(f"  {for_terminal(heading)}", err=True)
        marks = f" [{', '.join(str(n) for n in item.sources)}]" if item.sources else ""
        flag = f" ({item.audit})" if item.audit not in (None, "supported") else ""
        typer.echo(f"    {item.id}: {for_terminal(item.text)}{marks}{flag}", err=True)


def _choice(question: str) -> str:
    """The person's choice at a review prompt (default a: approve), lower-cased."""
    choice: str = typer.prompt(question, default="a", err=True, show_default=True)
    return choice.strip().lower()


def cancel(settings: Settings, run_id: str, *, checked: bool = False) -> NoReturn:
    """End waiting run ``run_id`` as cancelled (``records.cancel_waiting``, the path the
    MCP server's cancel takes too) and exit 1, the code of a cancelled run. Unless
    ``checked`` (the prompt's cancel: the run waits), a run that waits for nothing is
    refused first (exit 2)."""
    import asyncio

    from deepresearch.records import cancel_waiting, waiting_input

    try:
        if not checked and asyncio.run(waiting_input(settings, run_id)) is None:
            raise ConfigError(
                f"run {run_id} is not waiting for input; there is nothing to cancel",
                hint="deepresearch runs list shows how it stands",
            )
        cancel_waiting(settings, run_id)
    except DeepResearchError as exc:
        fail(exc)
    say(
        f"run {run_id} cancelled; what it gathered stays stored "
        f"(deepresearch run --resume {run_id} asks again)"
    )
    raise typer.Exit(EXIT_FAILED)


def _show_findings(request: InputRequest) -> None:
    say(f"\nThe verified findings ({len(request.findings)}):")
    for item in request.findings:
        source = item.source_title or item.source_url
        typer.echo(f"  {item.id}. {for_terminal(item.claim)}", err=True)
        quote = for_terminal(clip(item.quote, 300))
        typer.echo(f'      "{quote}" ({for_terminal(source)})', err=True)
