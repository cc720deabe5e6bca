"""Checks that events are what docs/events.schema.json says: every event a real run emits
(or the service serves) validates against the checked-in schema, and none of them is an
untyped ``StoredData``."""

from __future__ import annotations

import json
from collections.abc import Iterable
from functools import cache
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator

from deepresearch.models import RunEvent
from deepresearch.models.events import StoredData

SCHEMA_PATH = Path(__file__).resolve().parents[1] / "docs" / "events.schema.json"


@cache
def validator() -> Draft202012Validator:
    schema = json.loads(SCHEMA_PATH.read_text())
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(schema)


def schema_errors(event: dict[str, Any]) -> list[str]:
    """What is wrong with one event as JSON, by the checked-in schema."""
    return [
        f"{'/'.join(str(p) for p in error.absolute_path)}: {error.message}"
        for error in validator().iter_errors(event)
    ]


def assert_events_match_schema(events: Iterable[RunEvent]) -> set[str]:
    """Every event typed and valid by the schema; the types seen."""
    seen: set[str] = set()
    for event in events:
        assert not isinstance(event.data, StoredData), f"untyped {event.type}: {event.data.raw}"
        as_json = json.loads(event.model_dump_json())
        errors = schema_errors(as_json)
        assert not errors, (event.type, errors, as_json["data"])
        seen.add(event.type)
    return seen
