"""What the page's JavaScript takes from run events, read from its syntax tree (tree-sitter),
and checked against the events' JSON Schema (docs/events.schema.json).

The page reads an event's data in one place, ``events.js``: ``READERS`` maps an event type
to a function of its ``data`` that reads ``data.field`` (or ``data.field.sub``), or hands a
list field's items to another function with ``items(data.field, reader)``. Anything else
done with ``data`` is reported rather than guessed at, so a read this module cannot follow
fails the test instead of passing unchecked. The other files must not read ``.data`` at all
(an API response's ``{ data }`` from ``api(...)`` aside), and every event type they name (a
``switch`` on a type, a comparison with a type, a constant named ``*EVENT*``) must exist."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import tree_sitter_javascript
from tree_sitter import Language, Node, Parser

JAVASCRIPT = Language(tree_sitter_javascript.language())
FUNCTIONS = ("arrow_function", "function_expression", "function", "function_declaration")


def parse(source: str) -> Node:
    tree = Parser(JAVASCRIPT).parse(source.encode())
    return tree.root_node


def text(node: Node | None) -> str:
    return node.text.decode() if node is not None and node.text is not None else ""


def walk(node: Node) -> Iterator[Node]:
    yield node
    for child in node.children:
        yield from walk(child)


def same(a: Node | None, b: Node | None) -> bool:
    return (
        a is not None
        and b is not None
        and (a.start_byte, a.end_byte, a.type)
        == (
            b.start_byte,
            b.end_byte,
            b.type,
        )
    )


def string_value(node: Node | None) -> str | None:
    """The value of a plain string literal, None for anything else."""
    if node is None or node.type != "string":
        return None
    return text(node)[1:-1]


class SchemaView:
    """The JSON Schema of events, navigated by field name."""

    def __init__(self, schema: dict[str, Any]) -> None:
        self.defs: dict[str, Any] = schema["$defs"]
        self.mapping: dict[str, str] = schema["discriminator"]["mapping"]

    @property
    def event_types(self) -> set[str]:
        return set(self.mapping)

    def resolve(self, schema: dict[str, Any]) -> list[dict[str, Any]]:
        """A schema as the alternatives it allows ($ref followed, unions flattened)."""
        if "$ref" in schema:
            return self.resolve(self.defs[schema["$ref"].rsplit("/", 1)[-1]])
        for key in ("oneOf", "anyOf"):
            if key in schema:
                return [found for part in schema[key] for found in self.resolve(part)]
        return [schema]

    def data(self, event_type: str) -> list[dict[str, Any]]:
        envelope = self.defs[self.mapping[event_type].rsplit("/", 1)[-1]]
        return self.resolve(envelope["properties"]["data"])

    def field(self, schemas: list[dict[str, Any]], name: str) -> list[dict[str, Any]]:
        """What ``name`` may hold in any of ``schemas`` (empty: no such field)."""
        found: list[dict[str, Any]] = []
        for schema in schemas:
            properties = schema.get("properties", {})
            if name in properties:
                found += self.resolve(properties[name])
            elif isinstance(schema.get("additionalProperties"), dict):
                found += self.resolve(schema["additionalProperties"])
        return found

    def items(self, schemas: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return [
            found
            for schema in schemas
            if schema.get("type") == "array"
            for found in self.resolve(schema.get("items", {}))
        ]


@dataclass
class Findings:
    """Field reads (``type: path``) and problems, each with its line."""

    reads: set[str] = field(default_factory=set)
    problems: list[str] = field(default_factory=list)

    def problem(self, node: Node, what: str) -> None:
        self.problems.append(f"line {node.start_point[0] + 1}: {what}")


def _functions(root: Node) -> dict[str, Node]:
    """The module's named functions (``function f`` and ``const f = (...) =>``)."""
    found: dict[str, Node] = {}
    for node in walk(root):
        if node.type == "function_declaration":
            found[text(node.child_by_field_name("name"))] = node
        elif node.type == "variable_declarator":
            value = node.child_by_field_name("value")
            if value is not None and value.type in FUNCTIONS:
                found[text(node.child_by_field_name("name"))] = value
    return found


def _parameter(function: Node) -> str | None:
    single = function.child_by_field_name("parameter")
    if single is not None:
        return text(single)
    params = function.child_by_field_name("parameters")
    names = [c for c in params.named_children] if params is not None else []
    if len(names) == 1 and names[0].type == "identifier":
        return text(names[0])
    return None


class _Reader:
    def __init__(self, view: SchemaView, functions: dict[str, Node], out: Findings) -> None:
        self.view = view
        self.functions = functions
        self.out = out

    def function(self, node: Node, schemas: list[dict[str, Any]], path: str) -> None:
        """Check what ``node`` (a function of one value of ``schemas``) reads from it."""
        name = _parameter(node)
        body = node.child_by_field_name("body")
        if name is None or body is None:
            self.out.problem(node, f"{path}: a reader takes exactly one plain parameter")
            return
        for use in walk(body):
            if use.type not in ("identifier", "shorthand_property_identifier"):
                continue
            if text(use) != name or use.parent is None:
                continue
            parent = use.parent
            declared = parent.type == "formal_parameters" or any(
                same(parent.child_by_field_name(key), use) for key in ("name", "parameter")
            )
            if declared:
                self.out.problem(use, f"{path}: {name!r} is declared again inside its reader")
                continue
            field_name = self._field_of(parent, use)
            if field_name is None:
                self.out.problem(use, f"{path}: {name!r} is used other than to read a field")
                continue
            self.access(parent, schemas, path, field_name)

    def _field_of(self, expression: Node, obj: Node) -> str | None:
        """``obj.name`` or ``obj["name"]``: the name; None for another use of ``obj``."""
        if not same(expression.child_by_field_name("object"), obj):
            return None
        if expression.type == "member_expression":
            prop = expression.child_by_field_name("property")
            return text(prop) if prop is not None and prop.type == "property_identifier" else None
        if expression.type == "subscript_expression":
            return string_value(expression.child_by_field_name("index"))
        return None

    def access(self, expression: Node, schemas: list[dict[str, Any]], path: str, name: str) -> None:
        here = f"{path}.{name}"
        found = self.view.field(schemas, name)
        if not found:
            self.out.problem(expression, f"{here} is not in the event schema")
            return
        self.out.reads.add(here)
        outer = expression.parent
        if outer is None:
            return
        deeper = self._field_of(outer, expression) if outer.type.endswith("_expression") else None
        if deeper is not None:
            self.access(outer, found, here, deeper)
            return
        if outer.type == "subscript_expression" and same(
            outer.child_by_field_name("object"), expression
        ):  # data.list[i]: one of its items, then maybe a field of it
            items = self.view.items(found)
            if not items:
                self.out.problem(outer, f"{here} is not a list in the event schema")
                return
            after = outer.parent
            field_name = self._field_of(after, outer) if after is not None else None
            if after is not None and field_name is not None:
                self.access(after, items, f"{here}[]", field_name)
            return
        call = outer.parent if outer.type == "arguments" else None
        if call is None or call.type != "call_expression":
            return
        if text(call.child_by_field_name("function")) != "items":
            return
        args = outer.named_children
        if not same(args[0], expression):
            return
        reader = args[1] if len(args) == 2 else None
        if reader is not None and reader.type == "identifier":
            reader = self.functions.get(text(reader))
        if reader is None or reader.type not in FUNCTIONS:
            self.out.problem(call, f"{here}: items() needs a reader function")
            return
        items = self.view.items(found)
        if not items:
            self.out.problem(call, f"{here} is not a list in the event schema")
            return
        self.function(reader, items, f"{here}[]")


def check_readers(source: str, view: SchemaView) -> Findings:
    """events.js: every reader in READERS is for a known type and reads only its fields."""
    out = Findings()
    root = parse(source)
    if root.has_error:
        out.problem(root, "events.js does not parse")
        return out
    functions = _functions(root)
    readers = next(
        (
            node.child_by_field_name("value")
            for node in walk(root)
            if node.type == "variable_declarator"
            and text(node.child_by_field_name("name")) == "READERS"
        ),
        None,
    )
    if readers is None or readers.type != "object":
        out.problem(root, "events.js has no READERS object")
        return out
    reader = _Reader(view, functions, out)
    for entry in readers.named_children:
        if entry.type == "comment":
            continue
        if entry.type == "pair":
            key = entry.child_by_field_name("key")
            event_type = string_value(key) or text(key)
            function = entry.child_by_field_name("value")
        elif entry.type == "method_definition":
            event_type, function = text(entry.child_by_field_name("name")), entry
        else:
            out.problem(entry, f"READERS has a {entry.type}, not a reader")
            continue
        if event_type not in view.event_types:
            out.problem(entry, f"{event_type!r} is not an event type")
            continue
        if function is None or function.type not in (*FUNCTIONS, "method_definition"):
            out.problem(entry, f"{event_type}: its reader is not a function")
            continue
        reader.function(function, view.data(event_type), event_type)
    # the one place that takes an event's data is eventData
    for node in walk(root):
        if _reads_data(node) and not _inside(node, functions.get("eventData")):
            out.problem(node, "events.js reads .data outside eventData()")
    return out


def _reads_data(node: Node) -> bool:
    if node.type == "member_expression":
        return text(node.child_by_field_name("property")) == "data"
    if node.type == "subscript_expression":
        return string_value(node.child_by_field_name("index")) == "data"
    return False


def _inside(node: Node, container: Node | None) -> bool:
    return container is not None and (
        container.start_byte <= node.start_byte and node.end_byte <= container.end_byte
    )


def data_reads_elsewhere(source: str) -> Findings:
    """A file other than events.js: it must not read an event's ``data``. It may read no
    ``.data`` at all, and destructure ``{ data }`` only from what ``api(...)`` returns."""
    out = Findings()
    root = parse(source)
    if root.has_error:
        out.problem(root, "the file does not parse")
    for node in walk(root):
        if _reads_data(node):
            out.problem(node, f"reads {text(node)!r}: go through eventData() in events.js")
        elif node.type in ("shorthand_property_identifier_pattern", "pair_pattern"):
            key = node if node.type.startswith("shorthand") else node.child_by_field_name("key")
            if text(key) == "data" and not _from_api(node):
                out.problem(node, "destructures data from something other than api(...)")
    return out


def _from_api(pattern: Node) -> bool:
    node: Node | None = pattern
    while node is not None and node.type not in ("variable_declarator", "assignment_expression"):
        node = node.parent
    if node is None:
        return False
    value = node.child_by_field_name("value") or node.child_by_field_name("right")
    return value is not None and any(
        call.type == "call_expression" and text(call.child_by_field_name("function")) == "api"
        for call in walk(value)
    )


def event_type_literals(source: str) -> list[tuple[int, str]]:
    """Every string the file uses as an event type, with its line: a ``case`` of a switch
    on a type, a side of a comparison with a type, an element or key of a constant whose
    name has EVENT in it."""
    found: list[tuple[int, str]] = []

    def add(node: Node | None) -> None:
        value = string_value(node)
        if node is not None and value is not None:
            found.append((node.start_point[0] + 1, value))

    for node in walk(parse(source)):
        if node.type == "switch_statement" and _is_type(node.child_by_field_name("value")):
            for case in walk(node.child_by_field_name("body") or node):
                if case.type == "switch_case":
                    add(case.child_by_field_name("value"))
        elif node.type == "binary_expression" and text(node.child_by_field_name("operator")) in (
            "===",
            "!==",
            "==",
            "!=",
        ):
            left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
            if _is_type(left):
                add(right)
            elif _is_type(right):
                add(left)
        elif node.type == "variable_declarator" and "EVENT" in text(
            node.child_by_field_name("name")
        ):
            for part in walk(node.child_by_field_name("value") or node):
                if part.type == "pair":
                    add(part.child_by_field_name("key"))
                elif (
                    part.type == "string"
                    and part.parent is not None
                    and part.parent.type == "array"
                ):
                    add(part)
    return found


def _is_type(node: Node | None) -> bool:
    """``type``, ``(type)`` or ``something.type``."""
    while node is not None and node.type == "parenthesized_expression":
        node = node.named_children[0] if node.named_children else None
    if node is None:
        return False
    if node.type == "identifier":
        return text(node) == "type"
    return node.type == "member_expression" and text(node.child_by_field_name("property")) == "type"
