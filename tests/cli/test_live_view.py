"""The live view prints what pages and models wrote as text: control characters and
escape sequences are shown escaped, and Rich markup in them is neither obeyed nor able to
break the panel."""

from __future__ import annotations

import io
from datetime import UTC, datetime

from rich.console import Console

from deepresearch.cli.live import Renderer, RunView
from deepresearch.models import RunEvent
from deepresearch.models.event_payloads import PlannedUnit, PlanReady, SourceFetched
from deepresearch.models.events import Payload

HOSTILE = "Read \x1b]0;PWNED\x07[bold red]page[/] [/nope] \x1b[2J\u202eend\r"


def event(data: Payload, message: str = "") -> RunEvent:
    return RunEvent(
        run_id="run-x",
        ts=datetime.now(UTC),
        type=data.event_type,
        stage="research",
        message=message,
        data=data,
    )


def test_plain_lines_escape_control_characters() -> None:
    stream = io.StringIO()
    renderer = Renderer(json_events=False, stream=stream)
    with renderer:
        page = SourceFetched(
            url="https://a/", title=HOSTILE, domain="a", kind="html", chars=1, from_provider=False
        )
        renderer(event(page, HOSTILE))
    line = stream.getvalue()
    assert "\x1b" not in line and "\x07" not in line and "\r" not in line
    assert "\u202e" not in line
    assert (
        line
        == "[research] Read \\x1b]0;PWNED\\x07[bold red]page[/] [/nope] \\x1b[2J\\u202eend\\x0d\n"
    )


def test_the_live_panel_shows_markup_and_escapes_as_text() -> None:
    view = RunView()
    unit = PlannedUnit(id="q1", text=HOSTILE, queries=[])
    view.apply(event(PlanReady(brief="", sub_questions=[unit], fallback=True), HOSTILE))
    out = io.StringIO()
    console = Console(file=out, force_terminal=True, width=400, color_system=None)
    console.print(view.render())  # '[/nope]' as markup would raise a MarkupError
    shown = out.getvalue()
    assert "[bold red]page[/] [/nope]" in shown  # printed literally, twice
    assert shown.count("[/nope]") == 2
    assert "\x1b]0;" not in shown and "\x07" not in shown and "\u202e" not in shown
    assert "\\x1b]0;PWNED\\x07" in shown
