"""The page's copies of the shared lists equal their Python owners (issue 24): the terminal
statuses and events (``service.jobs``), the report formats (``export.formats``), the reply
kinds of a report (``models.report``), the pause kinds (``models.pause``) and the model
pattern (``service.schemas``). The constants are read from the JavaScript's syntax tree
(tree-sitter), so a list that drifts from its owner fails here."""

from __future__ import annotations

from pathlib import Path

from tree_sitter import Node

from deepresearch.export import extension
from deepresearch.export.formats import FORMATS
from deepresearch.models.pause import INPUT_KINDS
from deepresearch.models.report import REPLY_KINDS
from deepresearch.service.jobs import ACTIVE, TERMINAL, TERMINAL_EVENT, TERMINAL_EVENTS
from deepresearch.service.schemas import MODEL_PATTERN
from deepresearch.service.web import WEB_DIR

from .js_events import parse, string_value, text, walk


def constant(name: str, path: Path) -> Node:
    """The value of the one ``const name = ...`` in ``path`` (at any depth)."""
    found = [
        node.child_by_field_name("value")
        for node in walk(parse(path.read_text()))
        if node.type == "variable_declarator" and text(node.child_by_field_name("name")) == name
    ]
    assert len(found) == 1 and found[0] is not None, f"{path.name}: one const {name}"
    return found[0]


def strings(node: Node) -> list[str]:
    """The strings of an array literal, or of ``new Set([...])``."""
    if node.type == "new_expression":
        arguments = node.child_by_field_name("arguments")
        assert arguments is not None and arguments.named_child_count == 1, text(node)
        node = arguments.named_children[0]
    assert node.type == "array", text(node)
    values = [string_value(item) for item in node.named_children]
    assert None not in values, text(node)
    return [value for value in values if value is not None]


def string_map(node: Node) -> dict[str, str]:
    """An object literal of string values: ``{key: "value", ...}``."""
    assert node.type == "object", text(node)
    found: dict[str, str] = {}
    for pair in node.named_children:
        key, value = pair.child_by_field_name("key"), pair.child_by_field_name("value")
        assert value is not None and string_value(value) is not None, text(pair)
        found[string_value(key) or text(key)] = string_value(value) or ""
    return found


def test_the_page_ends_a_stream_on_every_terminal_event() -> None:
    assert set(strings(constant("TERMINAL_EVENTS", WEB_DIR / "sse.js"))) == TERMINAL_EVENTS
    status = string_map(constant("TERMINAL_EVENT_STATUS", WEB_DIR / "watch.js"))
    assert status == {event: state for state, event in TERMINAL_EVENT.items()}
    assert set(strings(constant("TERMINAL", WEB_DIR / "app.js"))) == TERMINAL
    assert set(strings(constant("ACTIVE", WEB_DIR / "app.js"))) == ACTIVE


def test_the_page_offers_every_report_format() -> None:
    formats = constant("formats", WEB_DIR / "report.js")
    assert formats.type == "array"
    assert [strings(pair)[0] for pair in formats.named_children] == list(FORMATS)
    # each is saved with the extension the API's download names it by
    assert [strings(pair)[2] for pair in formats.named_children] == list(map(extension, FORMATS))


def test_the_page_tells_a_reply_from_a_report_as_the_engine_does() -> None:
    for name in ("report.js", "thread.js"):
        assert strings(constant("REPLIES", WEB_DIR / name)) == list(REPLY_KINDS), name


def test_the_page_knows_every_pause_kind_and_no_other() -> None:
    tree = parse((WEB_DIR / "input.js").read_text())
    named: set[str] = set()
    for node in walk(tree):
        # request.kind === "plan"
        if node.type == "binary_expression" and text(node.child_by_field_name("left")).endswith(
            ".kind"
        ):
            named.add(string_value(node.child_by_field_name("right")) or "")
        # "data-kind": "findings"
        if node.type == "pair" and string_value(node.child_by_field_name("key")) == "data-kind":
            named.add(string_value(node.child_by_field_name("value")) or "")
    assert named == set(INPUT_KINDS)


def test_the_page_checks_a_model_as_the_api_does() -> None:
    pattern = constant("MODEL_PATTERN", WEB_DIR / "app.js")
    assert pattern.type == "regex"
    assert text(pattern.child_by_field_name("pattern")) == MODEL_PATTERN
