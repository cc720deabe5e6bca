"""The page reads only what events have: every field its JavaScript takes from an event's
data exists in the events' JSON Schema (docs/events.schema.json) for that event's type,
every event type it names exists, and only events.js reads an event's data. The checker
itself is shown to catch each kind of mistake. No browser needed."""

from __future__ import annotations

import json

import pytest

from deepresearch.service.web import WEB_DIR

from ..event_schema import SCHEMA_PATH
from .js_events import (
    SchemaView,
    check_readers,
    data_reads_elsewhere,
    event_type_literals,
)

SCRIPTS = sorted(WEB_DIR.glob("*.js"))


@pytest.fixture(scope="module")
def view() -> SchemaView:
    return SchemaView(json.loads(SCHEMA_PATH.read_text()))


def test_every_field_the_page_reads_is_in_the_schema(view: SchemaView) -> None:
    found = check_readers((WEB_DIR / "events.js").read_text(), view)
    assert found.problems == []
    # what the live view shows comes from these (a reader that silently read nothing
    # would pass the check above)
    assert {
        "plan_ready.sub_questions[].id",
        "plan_ready.sub_questions[].text",
        "sources_ranked.candidates[].final",
        "sources_ranked.candidates[].decision",
        "source_fetched.url",
        "evidence_added.count",
        "model_call.input_tokens",
        "run_completed.output_tokens",
        "gate_evaluated.weak_sub_questions",
    } <= found.reads


def test_only_events_js_reads_an_events_data() -> None:
    others = [path for path in SCRIPTS if path.name != "events.js"]
    assert {p.name for p in others} >= {"app.js", "watch.js", "sse.js", "api.js", "report.js"}
    for path in others:
        assert data_reads_elsewhere(path.read_text()).problems == [], path.name


def test_every_event_type_the_page_names_exists(view: SchemaView) -> None:
    named: set[str] = set()
    for path in SCRIPTS:
        for line, value in event_type_literals(path.read_text()):
            assert value in view.event_types, f"{path.name}:{line}: {value!r} is no event type"
            named.add(value)
    # the switch of the live view, the terminal events and the log's model calls
    assert {"plan_ready", "sources_ranked", "run_completed", "run_failed", "model_call"} <= named


BAD_READERS = """
const unit = (item) => ({ id: item.id, name: item.name });
const tool = (item) => item;
export const READERS = {
  plan_ready: (data) => ({ units: items(data.sub_questions, unit), n: data.subquestions }),
  source_fetched: (data) => ({ url: data["url"], len: data.chars.size }),
  sources_ranked: (data) => ({ all: data, first: data.candidates[0].url, x: data.chosen[1].id }),
  warning: (data) => ({ code: data.code, host: data.hostname }),
  wave_started: (data) => ({ n: items(data.wave, unit), u: items(data.units, tool) }),
  model_call: (data) => { const d = data; return d.input_tokens; },
  gate_evaluated: ({ status }) => status,
  phase_complete: (data) => ({ tier: data.research_quality_tier, x: data.bogus }),
  sources_found: (data) => data.url,
};
export function eventData(event) { return READERS[event.type](event.data); }
function sneaky(event) { return event.data.url; }
"""


def test_the_checker_catches_each_kind_of_mistake(view: SchemaView) -> None:
    found = check_readers(BAD_READERS, view)
    problems = "\n".join(found.problems)
    for expected in [
        "plan_ready.sub_questions[].name is not in the event schema",  # a nested field
        "plan_ready.subquestions is not in the event schema",  # a misspelt field
        "source_fetched.chars.size is not in the event schema",  # a field of a number
        "sources_ranked: 'data' is used other than to read a field",  # passed whole
        "warning.hostname is not in the event schema",  # in no warning's shape
        "sources_ranked.chosen[].id is not in the event schema",
        "wave_started.wave is not a list in the event schema",
        "model_call: 'data' is used other than to read a field",  # an alias
        "gate_evaluated: a reader takes exactly one plain parameter",  # destructured
        "phase_complete.bogus is not in the event schema",  # a recipe's type
        "'sources_found' is not an event type",
        "reads .data outside eventData()",
    ]:
        assert expected in problems, (expected, problems)
    assert "source_fetched.url" in found.reads  # data["url"] is a read like data.url
    assert "sources_ranked.candidates[].url" in found.reads  # through an index: checked
    assert "warning.code" in found.reads  # every warning shape has a code
    assert "phase_complete.research_quality_tier" in found.reads  # one shape has it
    # the items reader that returns its item whole passes it on unchecked: reported
    assert "wave_started.units[]: 'item' is used other than to read a field" in problems

    elsewhere = data_reads_elsewhere(
        "const a = event.data.url;\n"
        "const { data } = event;\n"
        "const { data: job } = await api('v1/x');\n"
        "function f({ data }) { return data; }\n"
    ).problems
    assert len(elsewhere) == 3 and all("line 3" not in p for p in elsewhere), elsewhere

    literals = event_type_literals(
        'switch (event.type) { case "source_fetchd": break; }\n'
        'if (type === "run_complete") {}\n'
        'const DONE_EVENTS = new Set(["run_failed", "run_cancel"]);\n'
        'const LABELS = { source_fetched: "x" }; if (kind === "other") {}\n'
    )
    assert [v for _, v in literals if v not in view.event_types] == [
        "source_fetchd",
        "run_complete",
        "run_cancel",
    ]
