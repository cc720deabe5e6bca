"""The payload base class and the registry of event types. Each event type is declared
once, by its payload class (``event_type``): defining the class registers it, so the list
of event types, their schema (``event_schema``) and docs/events.md follow from the classes
and nothing lists them again.

A type with several shapes (a warning's ``code``, a recipe phase's ``phase``) has a base
class that names its type and the field that tells the shapes apart (``shapes_by``); each
subclass that declares that field as a one-value Literal is one shape. The order of the
types (and of a type's shapes) is the order in which their classes are defined: the core
types' modules first (``models.events`` imports them), then each recipe's: the first
look-up of a type not yet known runs the loaders installed packages declare as entry
points of the group ``deepresearch.event_payloads`` (this package's: the recipe registry,
which loads every recipe), so the shared models name no recipe and import none.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from importlib.metadata import entry_points
from inspect import get_annotations
from typing import Any, ClassVar, Self, get_args

from pydantic import (
    BaseModel,
    ConfigDict,
    JsonValue,
    PrivateAttr,
    SerializerFunctionWrapHandler,
    ValidationError,
    model_serializer,
)

#: the name of an event type: one that a payload class declares (``event_types()``)
EventType = str


# the registry -------------------------------------------------------------------------------
_VARIANTS: dict[str, tuple[type[Payload], ...]] = {}
#: the field that tells the shapes of a multi-shape type apart
_KEYS: dict[str, str] = {}
#: the entry point group of the loaders of payload classes outside the core
PAYLOAD_SOURCES = "deepresearch.event_payloads"
#: loaders of the payload modules outside ``models`` (the recipes'), run once on the first
#: look-up of a type not yet registered; None until the entry points are read
_SOURCES: list[Callable[[], object]] | None = None
# threads that look a type up while a source loads wait for it (re-entrant: loading a
# recipe may itself look a type up)
_loading = threading.RLock()


def _register(cls: type[Payload]) -> None:
    """Register ``cls`` when its class body declares an event type (a one-shape type) or
    the shape field its type's base names (one shape); a base class, or a subclass that
    adds neither, is not an event's data (and is refused when emitted)."""
    own = vars(cls)
    key = cls.shapes_by
    if key is None and "event_type" in own:
        _add(cls.event_type, cls, None)
    elif key is not None and key in get_annotations(cls):  # its own, not inherited
        _add(cls.event_type, cls, key)


def _add(event_type: str, cls: type[Payload], key: str | None) -> None:
    # a module imported again (importlib.reload) defines its classes again: they replace
    # the earlier ones of the same name
    def same(other: type[Payload]) -> bool:
        return (other.__module__, other.__qualname__) == (cls.__module__, cls.__qualname__)

    known = _VARIANTS.get(event_type, ())
    shapes = tuple(other for other in known if not same(other))
    if key is None and shapes:
        raise ValueError(f"the payload of {event_type!r} is already registered")
    if key is not None:
        if _KEYS.setdefault(event_type, key) != key:
            raise ValueError(f"{event_type!r}'s shapes are told apart by {_KEYS[event_type]!r}")
        value = variant_value(cls, key)
        if any(variant_value(other, key) == value for other in shapes):
            raise ValueError(f"{event_type!r}: two shapes have the same {key!r}")
    again = len(shapes) < len(known)
    _VARIANTS[event_type] = (
        tuple(cls if same(other) else other for other in known) if again else (*known, cls)
    )


def variant_value(cls: type[Payload], key: str) -> str:
    """The one value of ``cls``'s Literal field ``key``."""
    field = cls.model_fields.get(key)
    values = get_args(field.annotation) if field is not None else ()
    if len(values) != 1 or not isinstance(values[0], str):
        raise ValueError(f"{cls.__name__}.{key} must be a one-value string Literal")
    return values[0]


def _load_sources() -> None:
    """Run the declared loaders once (a loader that looks a type up meanwhile does not
    run them again)."""
    global _SOURCES
    with _loading:
        if _SOURCES is None:
            found = entry_points(group=PAYLOAD_SOURCES)
            _SOURCES = [entry.load() for entry in sorted(found, key=lambda e: e.name)]
        while _SOURCES:
            _SOURCES.pop(0)()


def event_types() -> tuple[EventType, ...]:
    """Every registered event type, in the order their classes were defined."""
    _load_sources()
    return tuple(_VARIANTS)


def payload_variants(event_type: str) -> tuple[type[Payload], ...]:
    """The payload classes of ``event_type`` (several for a multi-shape type)."""
    if event_type not in _VARIANTS:
        _load_sources()
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
    not fit (never an error: see ``models.events``)."""
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


class Payload(BaseModel):
    """The ``data`` of one event type (or of one shape of it). Subclasses set
    ``event_type``; their docstring and their fields' descriptions are the event's
    documentation (docs/events.md is generated from them)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    event_type: ClassVar[EventType]
    #: set on the base class of a multi-shape type: the field that tells its shapes apart
    shapes_by: ClassVar[str | None] = None
    #: where the event comes from, for docs/events.md
    stages: ClassVar[str] = "-"
    #: the fields that name the one thing a fact-announcing event is about
    #: (``events.fact_key``: a resumed run does not announce it again)
    fact: ClassVar[tuple[str, ...]] = ()

    @classmethod
    def __pydantic_init_subclass__(cls, **kwargs: Any) -> None:
        super().__pydantic_init_subclass__(**kwargs)
        _register(cls)

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
