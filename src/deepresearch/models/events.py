"""The typed event stream. Front ends render only these (seed 004's runtime-parity rule):
if it is not in an event, it did not happen.

A ``RunEvent`` is an envelope (``run_id``, ``seq``, ``ts``, ``type``, ``stage``,
``message``) around ``data``, and each event type's ``data`` is a model: a ``Payload``
subclass that names the type it belongs to (``event_type``). Some types have several
shapes, told apart by one field (a warning's ``code``, a recipe phase's ``phase``): each
shape is its own class and the type is their union. The core types' payloads are in
``event_payloads`` (and ``event_checks``, a run's checks of its own work); a recipe's
own are in its package and join the registry when the recipe is loaded. ``event_schema`` turns them all into one JSON Schema (a discriminated
union keyed by ``type``: docs/events.schema.json) and into docs/events.md.

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

import importlib
import threading
from collections.abc import Mapping
from datetime import datetime
from typing import Any, ClassVar, Literal, Self, get_args

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    JsonValue,
    PrivateAttr,
    SerializeAsAny,
    SerializerFunctionWrapHandler,
    ValidationError,
    model_serializer,
    model_validator,
)

EventType = Literal[
    "run_started",
    "run_resumed",
    "stage_started",
    "stage_completed",
    "followup_started",
    "intake_decided",
    "plan_ready",
    "council_decided",
    "wave_started",
    "search_completed",
    "sources_ranked",
    "source_fetched",
    "source_failed",
    "source_summarized",
    "evidence_added",
    "gate_evaluated",
    "reflection",
    "findings_checked",
    "claims_extracted",
    # a run that waits for a person (issue 15): what it asks, and the answer arriving
    "input_requested",
    "input_received",
    # recipes (seed 000, section 15): a recipe's phases, its tool calls, observations and
    # reasoning, and its routing decisions
    "phase",
    "thought",
    "phase_complete",
    "route_decided",
    "model_call",
    "model_call_waiting",
    "model_call_started",
    "budget_exhausted",
    "warning",
    "report_ready",
    "audit_completed",
    "eval_completed",
    "run_completed",
    "run_failed",
    "run_cancelled",
    "run_expired",
]
EVENT_TYPES: tuple[EventType, ...] = get_args(EventType)


class Payload(BaseModel):
    """The ``data`` of one event type (or of one shape of it). Subclasses set
    ``event_type``; their docstring and their fields' descriptions are the event's
    documentation (docs/events.md is generated from them)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    event_type: ClassVar[EventType]
    #: where the event comes from, for docs/events.md
    stages: ClassVar[str] = "-"
    #: the fields that name the one thing a fact-announcing event is about
    #: (``events.fact_key``: a resumed run does not announce it again)
    fact: ClassVar[tuple[str, ...]] = ()

    # keys of a loaded event that this version's model does not know, written back as read
    _stored_extra: dict[str, JsonValue] = PrivateAttr(default_factory=dict)

    @model_serializer(mode="wrap")
    def _wire(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        data: dict[str, Any] = handler(self)
        for name, field in type(self).model_fields.items():
            if field.default is None and name in data and data[name] is None:
                del data[name]  # an optional field that does not apply: left out
        for key, value in self._stored_extra.items():
            data.setdefault(key, value)
        return data

    @classmethod
    def from_stored(cls, data: Mapping[str, Any]) -> Self:
        """``data`` read back from JSON: validated against the model's fields, with the
        keys it does not know kept aside (see the module docstring)."""
        fields = cls.model_fields
        known: dict[str, Any] = {}
        kept: dict[str, JsonValue] = {}
        for key, value in data.items():
            field = fields.get(key)
            # an optional field stored as null is kept as such: written back, not left out
            if field is None or (value is None and field.default is None):
                kept[key] = value
            else:
                known[key] = value
        payload = cls.model_validate(known)
        payload._stored_extra = kept
        return payload

    @property
    def stored_extra(self) -> dict[str, JsonValue]:
        """The keys of a loaded event that this version does not know (empty when emitted)."""
        return dict(self._stored_extra)


class StoredData(Payload):
    """An event's ``data`` that does not fit its type's model in this version (an older or
    newer version's event, read back from storage or a stream): kept as it was, never
    refused. It has no typed fields; it serialises to exactly the object that was read."""

    @classmethod
    def from_stored(cls, data: Mapping[str, Any]) -> Self:
        payload = cls()
        payload._stored_extra = dict(data)
        return payload

    @property
    def raw(self) -> dict[str, JsonValue]:
        return self.stored_extra


# the registry -------------------------------------------------------------------------------
_VARIANTS: dict[str, tuple[type[Payload], ...]] = {}
#: the field that tells the shapes of a multi-shape type apart
_KEYS: dict[str, str] = {}
_loaded = False
# the first look-up of a recipe's type imports the recipes; threads that ask meanwhile wait
# (re-entrant: importing a recipe may itself look a type up)
_loading = threading.RLock()


def register_payloads(*classes: type[Payload], key: str | None = None) -> None:
    """Declare the payload of an event type: one class, or several shapes told apart by
    ``key`` (a field every shape has as a one-value Literal)."""
    types = {cls.event_type for cls in classes}
    if len(types) != 1:
        raise ValueError(f"one event type at a time, not {sorted(types)}")
    (event_type,) = types
    if event_type not in EVENT_TYPES:
        raise ValueError(f"{event_type!r} is not an EventType")
    if event_type in _VARIANTS:
        raise ValueError(f"the payload of {event_type!r} is already registered")
    if len(classes) > 1:
        if key is None:
            raise ValueError(f"{event_type!r} has several shapes: name the field that tells them")
        values = [variant_value(cls, key) for cls in classes]
        if len(set(values)) != len(values):
            raise ValueError(f"{event_type!r}: two shapes have the same {key!r}")
        _KEYS[event_type] = key
    _VARIANTS[event_type] = classes


def variant_value(cls: type[Payload], key: str) -> str:
    """The one value of ``cls``'s Literal field ``key``."""
    field = cls.model_fields.get(key)
    values = get_args(field.annotation) if field is not None else ()
    if len(values) != 1 or not isinstance(values[0], str):
        raise ValueError(f"{cls.__name__}.{key} must be a one-value string Literal")
    return values[0]


def _load_all() -> None:
    """Import every module that registers payloads: the core types' and each recipe's
    (through the recipe registry, the one place that loads recipes)."""
    global _loaded
    with _loading:
        if _loaded:
            return
        _loaded = True  # set first: a look-up during the imports below does not recurse
        importlib.import_module("deepresearch.models.event_payloads")
        importlib.import_module("deepresearch.models.event_checks")
        importlib.import_module("deepresearch.models.event_pauses")
        registry = importlib.import_module("deepresearch.recipes.registry")
        registry.all_recipes()


def payload_variants(event_type: str) -> tuple[type[Payload], ...]:
    """The payload classes of ``event_type`` (several for a multi-shape type)."""
    if event_type not in _VARIANTS:
        _load_all()
    return _VARIANTS.get(event_type, ())


def variant_key(event_type: str) -> str | None:
    """The field that tells ``event_type``'s shapes apart, None for a one-shape type."""
    payload_variants(event_type)
    return _KEYS.get(event_type)


def facts_of(event_type: str) -> tuple[str, ...]:
    """The fields that name what a fact-announcing event of this type is about."""
    fields: list[str] = []
    for cls in payload_variants(event_type):
        fields += [name for name in cls.fact if name not in fields]
    return tuple(fields)


def load_payload(event_type: str, data: Mapping[str, Any]) -> Payload:
    """``data`` read back from JSON as its type's payload, or as StoredData when it does
    not fit (never an error: see the module docstring)."""
    variants = payload_variants(event_type)
    key = _KEYS.get(event_type)
    if key is not None:
        variants = tuple(cls for cls in variants if variant_value(cls, key) == data.get(key))
    if len(variants) == 1:
        try:
            return variants[0].from_stored(data)
        except ValidationError:
            pass
    return StoredData.from_stored(data)


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
                "add it to register_payloads"
            )
        return self
