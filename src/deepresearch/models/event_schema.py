"""The event schema, from the payload models (``models.events``): one JSON Schema for every
event (a discriminated union keyed by ``type``, each type's ``data`` its payload, a
multi-shape payload itself a union keyed by its own field), and the tables of
docs/events.md. Both are checked in and a test fails when they differ from what this
module makes from the code; regenerate them with

    python -m deepresearch.models.event_schema --schema > docs/events.schema.json
    python -m deepresearch.models.event_schema --markdown docs/events.md

(``--markdown`` rewrites the generated blocks of the file and leaves its prose alone).
Every type is covered: the core's and each recipe's (``event_types()`` loads them)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Annotated, Any, Literal, Union

from pydantic import BaseModel, Field, TypeAdapter, create_model

from deepresearch.models.events import (
    Payload,
    RunEvent,
    event_types,
    facts_of,
    payload_variants,
    variant_key,
    variant_value,
)

SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema"
#: the generated blocks of docs/events.md, each between its two markers
BLOCKS = ("types", "fields", "facts")


def _camel(event_type: str) -> str:
    return "".join(part.capitalize() for part in event_type.split("_"))


def payload_type(event_type: str) -> Any:
    """The type of ``event_type``'s ``data``: its payload class, or the discriminated union
    of its shapes."""
    variants = payload_variants(event_type)
    if not variants:
        raise LookupError(f"no payload is registered for {event_type!r}")
    if len(variants) == 1:
        return variants[0]
    return Annotated[Union[variants], Field(discriminator=variant_key(event_type))]  # noqa: UP007


def _envelope(event_type: str) -> type[BaseModel]:
    """``RunEvent`` for one type: ``type`` the one value, ``data`` that type's payload."""
    fields: dict[str, Any] = {}
    for name, field in RunEvent.model_fields.items():
        if name == "type":
            fields[name] = (Literal[event_type], ...)
        elif name == "data":
            fields[name] = (payload_type(event_type), ...)
        else:
            fields[name] = (field.annotation, field)
    return create_model(f"{_camel(event_type)}Event", __doc__=_summary(event_type), **fields)


def event_schema() -> dict[str, Any]:
    """The JSON Schema of a RunEvent as it is sent and stored (docs/events.schema.json)."""
    envelopes = tuple(_envelope(event_type) for event_type in event_types())
    union = Annotated[Union[envelopes], Field(discriminator="type")]  # type: ignore[valid-type]  # noqa: UP007
    schema = TypeAdapter(union).json_schema()
    return {
        "$schema": SCHEMA_DIALECT,
        "title": "RunEvent",
        "description": "One event of a deepresearch run (docs/events.md). Emitters send "
        "exactly these fields; readers should accept keys they do not know.",
        **schema,
    }


def schema_json() -> str:
    return json.dumps(event_schema(), indent=2, ensure_ascii=False) + "\n"


# docs/events.md --------------------------------------------------------------------------------
def _summary(event_type: str) -> str:
    variants = payload_variants(event_type)
    if len(variants) == 1:
        return _doc(variants[0])
    key = variant_key(event_type)
    return f"Its data has one of {len(variants)} shapes, told apart by `{key}`."


def _doc(cls: type[Payload]) -> str:
    return " ".join((cls.__doc__ or "").split())


def _stages(event_type: str) -> str:
    """Where a type's events come from: its shapes' stages, together."""
    seen: list[str] = []
    for cls in payload_variants(event_type):
        for stage in cls.stages.split(", ") if "(" not in cls.stages else [cls.stages]:
            if stage not in seen:
                seen.append(stage)
    return ", ".join(seen) if len(seen) <= 3 and "any" not in seen else "any"


def _fields(cls: type[Payload]) -> list[str]:
    """The payload's fields but the one that tells its type's shapes apart."""
    key = variant_key(cls.event_type)
    return [name for name in cls.model_fields if name != key]


def _short(schema: dict[str, Any], defs: dict[str, Any]) -> str:
    """A property's JSON Schema as a few words: ``string``, ``list of {id, text}``..."""
    if "$ref" in schema:
        target = defs[schema["$ref"].rsplit("/", 1)[-1]]
        properties = list(target.get("properties", {}))
        if 0 < len(properties) <= 6:
            return "{" + ", ".join(properties) + "}"
        return str(target.get("title", "object"))
    if "const" in schema:
        return f"`{json.dumps(schema['const'])}`"
    if "enum" in schema:
        return " \\| ".join(f"`{json.dumps(value)}`" for value in schema["enum"])
    if "anyOf" in schema:
        parts = [_short(part, defs) for part in schema["anyOf"] if part.get("type") != "null"]
        nullable = any(part.get("type") == "null" for part in schema["anyOf"])
        # a field that may be None but has no default is sent as null; one that defaults to
        # None is left out (see models.events), so it is only optional
        return " \\| ".join(parts) + (" or null" if nullable and "default" not in schema else "")
    kind = schema.get("type")
    if kind == "array":
        return "list of " + _short(schema.get("items", {}), defs)
    if kind == "object" and isinstance(schema.get("additionalProperties"), dict):
        return "map of " + _short(schema["additionalProperties"], defs)
    return str(kind or "any")


def _field_rows(cls: type[Payload]) -> list[str]:
    schema = cls.model_json_schema()
    defs = schema.get("$defs", {})
    required = set(schema.get("required", []))
    rows = []
    for name in _fields(cls):
        prop = schema["properties"][name]
        optional = "" if name in required else " (optional)"
        description = " ".join(str(prop.get("description", "")).split())
        rows.append(f"| `{name}` | {_short(prop, defs)}{optional} | {description} |")
    return rows


def _types_block() -> list[str]:
    lines = ["| type | stage | data |", "|---|---|---|"]
    for event_type in event_types():
        variants = payload_variants(event_type)
        key = variant_key(event_type)
        if key is None:
            data = ", ".join(_fields(variants[0])) or "-"
        else:
            data = "; ".join(
                f"`{key}: {variant_value(cls, key)}`"
                + (f" ({', '.join(_fields(cls))})" if _fields(cls) else "")
                for cls in variants
            )
        lines.append(f"| `{event_type}` | {_stages(event_type)} | {data} |")
    return lines


def _fields_block() -> list[str]:
    lines: list[str] = []
    for event_type in event_types():
        variants = payload_variants(event_type)
        key = variant_key(event_type)
        lines += [f"### `{event_type}`", ""]
        if key is not None:
            lines += [f"{_summary(event_type)}", ""]
        for cls in variants:
            if key is not None:
                lines += [f"#### `{key}: {variant_value(cls, key)}`", ""]
            where = "" if cls.stages == "-" else f" Stage: {cls.stages}."
            lines += [f"{_doc(cls)}{where}", ""]
            rows = _field_rows(cls)
            if rows:
                lines += ["| field | type | meaning |", "|---|---|---|", *rows, ""]
            else:
                lines += ["No fields: `data` is `{}`.", ""]
    return lines[:-1]


def _facts_block() -> list[str]:
    lines = ["| type | the thing it is about |", "|---|---|"]
    for event_type in event_types():
        fields = facts_of(event_type)
        if fields:
            lines.append(f"| `{event_type}` | {', '.join(fields)} |")
    return lines


def markdown_blocks() -> dict[str, str]:
    """The generated blocks of docs/events.md, by name."""
    return {
        "types": "\n".join(_types_block()),
        "fields": "\n".join(_fields_block()),
        "facts": "\n".join(_facts_block()),
    }


def _markers(name: str) -> tuple[str, str]:
    return (
        f"<!-- generated:{name} (python -m deepresearch.models.event_schema --markdown) -->",
        f"<!-- end generated:{name} -->",
    )


def generated_block(text: str, name: str) -> str:
    """What ``text`` has between ``name``'s markers (ValueError without them)."""
    begin, end = _markers(name)
    if begin not in text or end not in text:
        raise ValueError(f"the markers of the generated block {name!r} are missing")
    return text.split(begin, 1)[1].split(end, 1)[0].strip("\n")


def with_blocks(text: str) -> str:
    """``text`` with every generated block replaced by what the code makes now."""
    for name, block in markdown_blocks().items():
        begin, end = _markers(name)
        old = generated_block(text, name)
        text = text.replace(f"{begin}\n{old}\n{end}", f"{begin}\n{block}\n{end}", 1)
    return text


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m deepresearch.models.event_schema", description=__doc__
    )
    parser.add_argument("--schema", action="store_true", help="print the events' JSON Schema")
    parser.add_argument(
        "--markdown", type=Path, metavar="FILE", help="rewrite FILE's generated tables"
    )
    args = parser.parse_args(argv)
    if not args.schema and args.markdown is None:
        parser.error("give --schema, --markdown FILE, or both")
    if args.schema:
        sys.stdout.write(schema_json())
    if args.markdown is not None:
        args.markdown.write_text(with_blocks(args.markdown.read_text()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
