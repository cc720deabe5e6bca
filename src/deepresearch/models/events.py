"""The typed event stream. Front ends render only these (seed 004's runtime-parity rule):
if it is not in an event, it did not happen.

A ``RunEvent`` is an envelope (``run_id``, ``seq``, ``ts``, ``type``, ``stage``,
``message``) around ``data``, and each event type's ``data`` is a model: a ``Payload``
subclass that names the type it belongs to (``event_type``). Some types have several
shapes, told apart by one field (a warning's ``code``, a recipe phase's ``phase``): each
shape is its own class and the type is their union. The core types' payloads are in
``event_payloads`` (and ``event_checks``, a run's checks of its own work, and
``event_pauses``), imported here; a recipe's own are in its package and join the registry
(``event_registry``: a payload class registers itself) when the recipe registry loads the
recipe. ``event_schema`` turns them all into one JSON Schema (a discriminated union keyed
by ``type``: docs/events.schema.json) and into docs/events.md.

Strict on emit, lenient on load:

- code builds a payload with its constructor (``extra="forbid"``, every field typed, so a
  misspelled or missing field is a mypy error and a ValidationError) and emits it;
- an event read back from JSON (the service's stored events, an SSE stream, a file) whose
  ``data`` has keys this version's model does not know is parsed all the same, and the
  unknown keys are kept and written back as they were; ``data`` that does not fit its
  type's model at all (a missing or mistyped field: an older or newer version's event) is
  kept whole as ``StoredData``, which Python consumers skip and which serialises to exactly
  what was read. A stored event is never refused, and never changed.

On the wire ``data`` is a JSON object; a field whose value is None (one that does not
apply to this event, such as a research-only count on another stage's event) is left out.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any, Self

from pydantic import BaseModel, Field, SerializeAsAny, field_validator, model_validator

from deepresearch.models import event_checks, event_pauses, event_payloads
from deepresearch.models.event_registry import (
    EventType,
    Payload,
    StoredData,
    event_types,
    facts_of,
    load_payload,
    payload_variants,
    variant_key,
    variant_value,
)

__all__ = [
    "CORE_PAYLOADS",
    "EventType",
    "Payload",
    "RunEvent",
    "StoredData",
    "event_types",
    "facts_of",
    "load_payload",
    "payload_variants",
    "variant_key",
    "variant_value",
]

#: the modules of the core event types, imported here so that they are registered (in
#: this order) before any event is built or read
CORE_PAYLOADS = (event_payloads, event_checks, event_pauses)


class RunEvent(BaseModel):
    """One thing that happened in a run. ``data`` is the payload of its ``type``
    (docs/events.md lists each type's fields)."""

    run_id: str
    seq: int = Field(default=0, description="1, 2, 3... within one process (or one job)")
    ts: datetime
    type: EventType
    stage: str | None = Field(default=None, description="the stage or phase it comes from")
    message: str = Field(default="", description="one line for a person to read")
    data: SerializeAsAny[Payload]

    @field_validator("type")
    @classmethod
    def _known_type(cls, value: str) -> str:
        if not payload_variants(value):
            raise ValueError(f"{value!r} is not an event type (one a payload class declares)")
        return value

    @model_validator(mode="before")
    @classmethod
    def _typed_data(cls, value: Any) -> Any:
        """A dict's ``data`` (an event read back from JSON) becomes its type's payload."""
        if isinstance(value, Mapping):
            data = value.get("data")
            if data is None or isinstance(data, Mapping):
                kind = value.get("type")
                payload = load_payload(kind, data or {}) if isinstance(kind, str) else data
                return {**value, "data": payload}
        return value

    @model_validator(mode="after")
    def _type_matches(self) -> Self:
        if isinstance(self.data, StoredData):
            return self
        if self.data.event_type != self.type:
            raise ValueError(
                f"a {type(self.data).__name__} is the data of a {self.data.event_type!r} "
                f"event, not of a {self.type!r} one"
            )
        # an unregistered class would be emitted, then read back as StoredData and missed
        # by the schema and docs/events.md: refused here, so any run that emits it fails
        if type(self.data) not in payload_variants(self.type):
            raise ValueError(
                f"{type(self.data).__name__} is not a registered payload of {self.type!r}: "
                "declare its event_type (or its type's shape field) in its class body"
            )
        return self
