"""The live view prints what pages and models wrote as text: control characters and
escape sequences are shown escaped, and Rich markup in them is neither obeyed nor able to
break the panel."""

from __future__ import annotations

import io
from datetime import UTC, datetime

from rich.console import Console

from deepresearch.cli.live import Renderer, RunView
from deepresearch.models import RunEvent

HOSTILE = "Read \x1b]0;PWNED\x07[bold red]page[/] [/nope] \x1b[2J\u202eend\r"


def event(type_: str, message: str = "", **data: object) -> RunEvent:
    return RunEvent(
        run_id="run-x",
        ts=datetime.now(UTC),
        type=type_,  # type: ignore[arg-type]
        stage="research",
        message=message,
        data=data,  # type: ignore[arg-type]
    )


def test_plain_lines_escape_control_characters() -> None:
    stream = io.StringIO()
    renderer = Renderer(json_events=False, stream=stream)
    with renderer:
        renderer(event("source_fetched", HOSTILE))
    line = stream.getvalue()
    assert "\x1b" not in line and "\x07" not in line and "\r" not in line
    assert "\u202e" not in line
    assert (
        line
        == "[research] Read \\x1b]0;PWNED\\x07[bold red]page[/] [/nope] \\x1b[2J\\u202eend\\x0d\n"
    )


def test_the_live_panel_shows_markup_and_escapes_as_text() -> None:
    view = RunView()
    view.apply(event("plan_ready", HOSTILE, sub_questions=[{"id": "q1", "text": HOSTILE}]))
    out = io.StringIO()
    console = Console(file=out, force_terminal=True, width=400, color_system=None)
    console.print(view.render())  # '[/nope]' as markup would raise a MarkupError
    shown = out.getvalue()
    assert "[bold red]page[/] [/nope]" in shown  # printed literally, twice
    assert shown.count("[/nope]") == 2
    assert "\x1b]0;" not in shown and "\x07" not in shown and "\u202e" not in shown
    assert "\\x1b]0;PWNED\\x07" in shown
