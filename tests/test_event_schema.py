"""Typed events (``models.events``): every type has a payload model, the checked-in JSON
Schema and docs/events.md are what the models make, emitting is strict and reading back
is lenient."""

from __future__ import annotations

import importlib
import json
import pkgutil
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

import pytest
from pydantic import ValidationError

from deepresearch.events import EventBus
from deepresearch.models import RunEvent
from deepresearch.models.evaluation import DIMENSIONS
from deepresearch.models.event_checks import EvalCompleted
from deepresearch.models.event_payloads import (
    InjectionWarning,
    ReportReady,
    SourceFetched,
    StageCompleted,
)
from deepresearch.models.event_schema import (
    BLOCKS,
    event_schema,
    generated_block,
    main,
    markdown_blocks,
    schema_json,
)
from deepresearch.models.events import Payload, StoredData, event_types, payload_variants

from .event_schema import SCHEMA_PATH, schema_errors

DOCS = Path(__file__).resolve().parents[1] / "docs"


def loaded(kind: str, data: dict[str, Any]) -> RunEvent:
    """An event as the store or an SSE stream gives it back: JSON."""
    raw = {"run_id": "r", "seq": 3, "ts": "2026-01-02T03:04:05Z", "type": kind, "data": data}
    return RunEvent.model_validate_json(json.dumps(raw))


def test_the_checked_in_schema_is_what_the_models_make() -> None:
    assert SCHEMA_PATH.read_text() == schema_json(), (
        "docs/events.schema.json is stale: python -m deepresearch.models.event_schema "
        "--schema > docs/events.schema.json"
    )
    schema = event_schema()
    assert schema["discriminator"]["propertyName"] == "type"
    assert set(schema["discriminator"]["mapping"]) == set(event_types())


def test_the_docs_tables_are_what_the_models_make() -> None:
    text = (DOCS / "events.md").read_text()
    made = markdown_blocks()
    for name in BLOCKS:
        assert generated_block(text, name) == made[name], (
            f"docs/events.md's {name} table is stale: "
            "python -m deepresearch.models.event_schema --markdown docs/events.md"
        )
    for event_type in event_types():
        assert f"### `{event_type}`" in text


def test_the_command_writes_both(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    page = tmp_path / "events.md"
    stale = (DOCS / "events.md").read_text().replace("| `run_failed` |", "| `run_broke` |")
    page.write_text(stale)
    assert main(["--schema", "--markdown", str(page)]) == 0
    assert page.read_text() == (DOCS / "events.md").read_text()
    assert capsys.readouterr().out == SCHEMA_PATH.read_text()


def test_every_type_has_a_payload_and_every_shape_its_own_value() -> None:
    for event_type in event_types():
        variants = payload_variants(event_type)
        assert variants, event_type
        assert all(cls.event_type == event_type for cls in variants)
    codes = [cls.model_fields["code"].annotation for cls in payload_variants("warning")]
    assert len(set(codes)) == len(codes) >= 3


def test_a_recipe_payload_loads_without_importing_the_recipe_first() -> None:
    # a fresh process that reads a stored employer event: the registry loads the recipes
    code = (
        "from deepresearch.models import RunEvent\n"
        "e = RunEvent.model_validate({'run_id': 'r', 'ts': '2026-01-01T00:00:00Z', "
        "'type': 'phase', 'data': {'phase': 'connecting'}})\n"
        "print(type(e.data).__name__)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "PhaseStarted"


def test_a_payload_refuses_a_misspelt_a_missing_or_a_mistyped_field() -> None:
    fields = {"url": "https://a/", "title": "A", "domain": "a", "kind": "html", "chars": 3}
    with pytest.raises(ValidationError, match="from_provider"):
        SourceFetched.model_validate(fields)  # missing
    with pytest.raises(ValidationError, match="extra_forbidden"):
        SourceFetched.model_validate({**fields, "from_provider": False, "titel": "A"})
    with pytest.raises(ValidationError, match="kind"):
        SourceFetched.model_validate({**fields, "from_provider": False, "kind": "video"})
    with pytest.raises(ValidationError, match="code"):
        InjectionWarning.model_validate({"code": "fetch_refused", "url": "u", "phrase": "p"})


def test_an_event_cannot_name_one_type_and_carry_another() -> None:
    with pytest.raises(ValidationError, match="source_failed"):
        RunEvent(
            run_id="r",
            ts=datetime.now(UTC),
            type="source_failed",
            data=StageCompleted(),
        )
    bus = EventBus("r")
    event = bus.emit(ReportReady(kind="abort"), stage="abort")
    assert event.type == "report_ready"  # the type comes from the payload
    with pytest.raises(TypeError):
        bus.emit(StoredData.from_stored({"kind": "abort"}))


def test_an_optional_field_that_does_not_apply_is_left_out() -> None:
    bus = EventBus("r")
    event = bus.emit(StageCompleted(), stage="plan")
    assert json.loads(event.model_dump_json())["data"] == {}
    wave = bus.emit(StageCompleted(wave=1, sources=2, fetched=1, evidence=0), stage="research")
    assert json.loads(wave.model_dump_json())["data"] == {
        "wave": 1,
        "sources": 2,
        "fetched": 1,
        "evidence": 0,
    }


def test_reading_back_keeps_what_this_version_does_not_know() -> None:
    # a newer version's source_fetched with a field this one lacks: typed, and kept
    data = {
        "url": "https://a/",
        "title": "A",
        "domain": "a",
        "kind": "html",
        "chars": 3,
        "from_provider": False,
        "language": "en",
    }
    event = loaded("source_fetched", data)
    assert isinstance(event.data, SourceFetched) and event.data.chars == 3
    assert event.data.stored_extra == {"language": "en"}
    assert json.loads(event.model_dump_json())["data"] == data
    # an optional field stored as null: typed, and written back as null
    nulls = loaded("stage_completed", {"wave": 1, "sources": None})
    assert isinstance(nulls.data, StageCompleted) and nulls.data.wave == 1
    assert json.loads(nulls.model_dump_json())["data"] == {"wave": 1, "sources": None}


def test_data_that_does_not_fit_is_kept_whole_never_refused() -> None:
    # other versions' events: a warning without a code, a count that was a string, a code
    # this version does not know, a required field stored as null
    for kind, data in [
        ("warning", {"url": "https://a/", "phrase": "ignore all"}),
        ("evidence_added", {"sub_question": "q1", "count": "three"}),
        ("warning", {"code": "some_new_code", "detail": [1, 2]}),
        ("source_failed", {"url": "https://a/", "domain": "a", "reason": None}),
    ]:
        event = loaded(kind, data)
        assert isinstance(event.data, StoredData), (kind, data)
        assert event.data.raw == data
        assert json.loads(event.model_dump_json())["data"] == data  # served as it was stored
        assert RunEvent.model_validate_json(event.model_dump_json()) == event
    assert isinstance(loaded("stage_started", {}).data, payload_variants("stage_started")[0])


def test_the_schema_rejects_what_the_models_reject() -> None:
    good = json.loads(
        EventBus("r")
        .emit(InjectionWarning(code="injection", url="https://a/", phrase="ignore"))
        .model_dump_json()
    )
    assert schema_errors(good) == []
    for bad_data in [
        {**good["data"], "code": "fetch_refused", "phrase": "x"},  # a field of another code
        {"code": "injection"},  # missing its url and phrase
        {**good["data"], "hidden": "yes"},
    ]:
        assert schema_errors({**good, "data": bad_data}), bad_data
    assert schema_errors({**good, "type": "warnings"})


def _subclasses(cls: type[Payload]) -> set[type[Payload]]:
    found: set[type[Payload]] = set()
    for sub in cls.__subclasses__():
        found |= {sub, *_subclasses(sub)}
    return found


def test_every_payload_class_in_the_package_is_registered() -> None:
    # import every module of the package: a payload class anywhere in src/ is seen
    package = importlib.import_module("deepresearch")
    for module in pkgutil.walk_packages(package.__path__, "deepresearch."):
        if ".migrations." not in module.name and not module.name.endswith("__main__"):
            importlib.import_module(module.name)
    registered = {cls for kind in event_types() for cls in payload_variants(kind)}
    # a class with a field (or a code) of its own is an event's data: it must be registered
    bases = {
        cls for cls in _subclasses(Payload) if any(c in registered for c in cls.__subclasses__())
    }
    missing = {
        cls
        for cls in _subclasses(Payload) - registered - bases - {StoredData}
        if cls.__module__.startswith("deepresearch.")  # not a test's own class
    }
    assert not missing, f"payload classes that do not register themselves: {missing}"
    assert StoredData not in registered


def test_an_unregistered_payload_is_refused_when_emitted() -> None:
    class Stray(StageCompleted):
        """A class a stage might define and forget to register."""

    bus = EventBus("r")
    with pytest.raises(ValidationError, match="not a registered payload of 'stage_completed'"):
        bus.emit(Stray(), stage="plan")
    assert bus.history == []


def test_the_evaluation_event_has_a_field_per_dimension() -> None:
    fields = EvalCompleted.model_fields
    assert all(dimension in fields for dimension in DIMENSIONS)


def test_a_second_payload_for_a_type_is_refused_when_defined() -> None:
    before = event_types()
    with pytest.raises(ValueError, match="'run_started' is already registered"):

        class Twin(Payload):
            event_type = "run_started"

    with pytest.raises(ValueError, match="two shapes have the same 'code'"):

        class TwinWarning(InjectionWarning):  # a shape of its own, with a code taken
            code: Literal["injection"]

    assert event_types() == before


def test_the_shared_event_models_name_no_recipe() -> None:
    # a recipe's event types are its own (recipes/<name>/events.py), registered when the
    # recipe registry loads it: the shared modules neither name nor import them
    from deepresearch.recipes.employer import events as employer

    recipe_types = {
        cls.event_type for cls in _subclasses(Payload) if cls.__module__ == employer.__name__
    }
    assert recipe_types >= {"phase", "thought", "phase_complete", "route_decided"}
    models = Path(__file__).resolve().parents[1] / "src" / "deepresearch" / "models"
    for path in models.glob("event*.py"):
        source = path.read_text()
        assert "deepresearch.recipes" not in source, path.name
        assert not [kind for kind in recipe_types if f'"{kind}"' in source], path.name
