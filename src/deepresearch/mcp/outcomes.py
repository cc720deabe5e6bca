"""How a run called through a tool ended, and the tool result that says so. Pure.

A call to ``research``, ``reply`` or ``follow_up`` ends one of three ways: the run
finished (the report, in markdown), it waits for a person (a clarifying question, its
plan, its findings or its finished report to review: the result says what it asks and how to answer with
``reply``), or it was
cancelled (a plan review's cancel). Each result's ``structured_content`` names the run and
its ``status``; ``get_report`` and ``list_runs`` describe a waiting run with the same
words."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from deepresearch.mcp import INSTALL_HINT, MISSING_SDK
from deepresearch.models.pause import InputRequest

try:
    from mcp.types import CallToolResult, TextContent
except ImportError as exc:  # the optional extra
    raise ImportError(f"{MISSING_SDK}; {INSTALL_HINT}") from exc

AWAITING = "awaiting_input"


@dataclass(frozen=True)
class Finished:
    run_id: str
    kind: str
    markdown: str


@dataclass(frozen=True)
class Waiting:
    """A run that waits for ``request`` to be answered (``reply``)."""

    request: InputRequest

    @property
    def run_id(self) -> str:
        return self.request.run_id


@dataclass(frozen=True)
class Cancelled:
    run_id: str


Outcome = Finished | Waiting | Cancelled


def request_data(request: InputRequest) -> dict[str, Any]:
    """What a waiting run asks, in the API's words (``input_request`` of a job's view)."""
    return request.model_dump(mode="json")


def _call(run_id: str, **arguments: Any) -> str:
    return json.dumps({"run_id": run_id, **arguments}, ensure_ascii=False)


def waiting_text(request: InputRequest) -> str:
    """What a waiting run asks and how to answer it, for a person or a model to read."""
    run_id = request.run_id
    if request.kind == "clarification":
        return (
            f"Run {run_id} waits for an answer before it researches.\n\n"
            f"It asks: {request.question}\n\n"
            f"Answer with the reply tool: {_call(run_id, answer='...')}. "
            "The run then goes on with your answer and returns its report."
        )
    if request.kind == "findings":
        findings = "\n".join(
            f'{item.id}. {item.claim} ("{item.quote}", {item.source_url})'
            for item in request.findings
        )
        return (
            f"Run {run_id} shows its verified findings for review before it writes.\n\n"
            f"{findings}\n\n"
            f"Approve them with the reply tool: {_call(run_id, action='approve')}; leave some "
            f"out with {_call(run_id, action='drop', drop=['<id>'])}; name what is missing "
            f"(one more wave) with {_call(run_id, action='gap', gap='...')}, or cancel the "
            f"run with {_call(run_id, action='cancel')}."
        )
    if request.kind == "report":
        return _report_text(request)
    items = "\n".join(f"{i}. {item.text}" for i, item in enumerate(request.sub_questions, 1))
    outline = "".join(f"{line}\n" for line in request.outline_lines())
    return (
        f"Run {run_id} shows its research plan for review before it searches.\n\n"
        f"Brief: {request.brief}\n{outline}\nSub-questions:\n{items}\n\n"
        f"Approve it with the reply tool: {_call(run_id, action='approve')}; edit it with "
        f"{_call(run_id, action='edit', brief='...', sub_questions=['...'])} (1 to 8 "
        "sub-questions, which replace the plan's; the brief may be left out), or cancel the "
        f"run with {_call(run_id, action='cancel')}."
    )


def _report_text(request: InputRequest) -> str:
    run_id = request.run_id
    sentences = "\n".join(
        f"{item.id} ({item.section}): {item.text}"
        + (f" [{', '.join(str(n) for n in item.sources)}]" if item.sources else "")
        for item in request.sentences
    )
    feedback = (
        f"; ask the writer for one rewrite with "
        f"{_call(run_id, action='feedback', feedback='what to change')}"
        if request.rewrite
        else " (feedback needs a writer model: this run has none)"
    )
    return (
        f"Run {run_id} shows its finished report for review: {request.title}\n\n"
        f"{sentences}\n\n"
        f"Approve it with the reply tool: {_call(run_id, action='approve')}; edit sentences "
        f"with {_call(run_id, action='edit', sentences={'<id>': 'new words'})} (each edit "
        "is audited against the sentence's citations; an empty text removes it)"
        f"{feedback}; or cancel the run with {_call(run_id, action='cancel')}."
    )


def outcome_result(outcome: Outcome) -> CallToolResult:
    """The tool result of a run that finished, waits or was cancelled."""
    if isinstance(outcome, Finished):
        return CallToolResult(
            content=[TextContent(type="text", text=outcome.markdown)],
            structured_content={
                "run_id": outcome.run_id,
                "status": "completed",
                "kind": outcome.kind,
            },
        )
    if isinstance(outcome, Waiting):
        return CallToolResult(
            content=[TextContent(type="text", text=waiting_text(outcome.request))],
            structured_content={
                "run_id": outcome.run_id,
                "status": AWAITING,
                "request": request_data(outcome.request),
            },
        )
    return CallToolResult(
        content=[TextContent(type="text", text=f"Run {outcome.run_id} is cancelled.")],
        structured_content={"run_id": outcome.run_id, "status": "cancelled"},
    )
