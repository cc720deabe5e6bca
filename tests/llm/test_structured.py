"""Reply → JSON text → validated object, and the schema instructions."""

from __future__ import annotations

import json

import pytest
from pydantic import BaseModel, Field

from deepresearch.errors import ModelOutputError
from deepresearch.llm.structured import (
    StructuredOutputError,
    extract_json_text,
    parse_structured,
    schema_instructions,
    strip_reasoning,
)


class Item(BaseModel):
    title: str
    score: float = Field(ge=0, le=1)


class Plan(BaseModel):
    brief: str
    items: list[Item]


GOOD = '{"brief": "b", "items": [{"title": "t", "score": 0.5}]}'


@pytest.mark.parametrize(
    "reply",
    [
        GOOD,
        f"```json\n{GOOD}\n```",
        f"```\n{GOOD}\n```",
        f"Sure! Here is the plan:\n\n```json\n{GOOD}\n```\nHope this helps.",
        f"Here is the JSON you asked for: {GOOD} Let me know if you need more.",
        f"<think>The user wants a plan. {{not json}} Let me think.</think>\n{GOOD}",
        f"<think>\nreasoning\n</think>\n\n```json\n{GOOD}\n```",
        f"reasoning whose opening tag was in the prompt</think>{GOOD}",
    ],
)
def test_extracts_json_from_common_reply_shapes(reply: str) -> None:
    assert json.loads(extract_json_text(reply)) == json.loads(GOOD)


def test_extract_returns_empty_when_no_json() -> None:
    assert extract_json_text("I cannot help with that.") == ""
    assert extract_json_text("<think>{'a': 1}</think>") == ""


def test_unclosed_think_block_leaves_nothing() -> None:
    assert strip_reasoning("Answer.<think>ran out of tokens while thinking {") == "Answer."


def test_object_beats_a_bracket_in_leading_prose() -> None:
    reply = 'See [1] below: {"brief": "b", "items": []}'
    assert json.loads(extract_json_text(reply)) == {"brief": "b", "items": []}


@pytest.mark.parametrize(
    "broken",
    [
        "{'brief': 'b', 'items': [{'title': 't', 'score': 0.5},],}",  # single quotes, commas
        '{brief: "b", items: [{title: "t", score: 0.5}]}',  # unquoted keys
        '{"brief": "b", "items": [{"title": "t", "score": 0.5}',  # cut off
        '[{"brief": "b", "items": [{"title": "t", "score": 0.5}]}]',  # wrapped in a list
    ],
)
def test_repairs_broken_json(broken: str) -> None:
    plan = parse_structured(broken, Plan)
    assert plan == Plan(brief="b", items=[Item(title="t", score=0.5)])


def test_validation_error_is_short_and_model_readable() -> None:
    reply = '{"items": [{"title": "t", "score": 7}]}'
    with pytest.raises(StructuredOutputError) as caught:
        parse_structured(reply, Plan)
    problem = caught.value.problem
    assert "brief: Field required" in problem
    assert "items.0.score" in problem and "(got 7)" in problem
    assert "Traceback" not in problem and "https://" not in problem
    assert isinstance(caught.value, ModelOutputError)
    assert caught.value.schema == "Plan"


def test_no_json_at_all() -> None:
    with pytest.raises(StructuredOutputError, match="no JSON"):
        parse_structured("Sorry, I can't do that.", Plan)


def test_long_values_are_truncated_in_the_problem() -> None:
    reply = json.dumps({"brief": "b", "items": [{"title": "t", "score": "x" * 500}]})
    with pytest.raises(StructuredOutputError) as caught:
        parse_structured(reply, Plan)
    assert len(caught.value.problem) < 200


def test_schema_instructions_are_compact_json_schema() -> None:
    text = schema_instructions(Plan)
    assert "JSON" in text and "no Markdown code fences" in text
    schema = json.loads(text[text.index("{") :])
    assert set(schema["properties"]) == {"brief", "items"}
    # pydantic's generated titles are dropped, a field called "title" is kept
    assert "title" not in schema
    assert "title" in schema["$defs"]["Item"]["properties"]
    assert "title" not in schema["$defs"]["Item"]["properties"]["title"]
    assert "\n" not in text[text.index("{") :]
