"""Turn a chat model's free-text reply into a validated pydantic object.

Pure helpers, no I/O. The gateway asks for JSON in the prompt (it works with every
provider, including small local models without tool calling), then:

1. :func:`extract_json_text` drops reasoning blocks (``<think>...</think>``), Markdown
   fences and any prose around the JSON value;
2. :func:`parse_structured` repairs broken JSON with ``json_repair`` (trailing commas,
   single quotes, unquoted keys, unterminated brackets) and validates it with pydantic.

When validation fails, :class:`StructuredOutputError` carries a short description of
what was wrong, written so it can be sent back to the model in a corrective retry.
"""

from __future__ import annotations

import json
import re
from typing import Any, TypeVar

import json_repair
from pydantic import BaseModel, ValidationError

from deepresearch.errors import ModelOutputError

T = TypeVar("T", bound=BaseModel)

_THINK_BLOCK = re.compile(r"<(think|thinking|reasoning)>.*?</\1>", re.DOTALL | re.IGNORECASE)
_THINK_CLOSE = re.compile(r"</(?:think|thinking|reasoning)>", re.IGNORECASE)
_THINK_OPEN = re.compile(r"<(?:think|thinking|reasoning)>", re.IGNORECASE)
_FENCE = re.compile(r"```[ \t]*([A-Za-z0-9_+-]*)[^\n]*\n(.*?)(?:```|\Z)", re.DOTALL)
_CLOSERS = {"{": "}", "[": "]"}
_MAX_PROBLEMS = 5
_MAX_VALUE_CHARS = 60


class StructuredOutputError(ModelOutputError):
    """A reply could not be turned into the requested schema.

    ``problem`` is a short, model-readable description (no stack trace, no raw reply).
    """

    def __init__(self, problem: str, *, schema: str) -> None:
        super().__init__(f"reply did not match {schema}: {problem}")
        self.problem = problem
        self.schema = schema


def strip_reasoning(reply: str) -> str:
    """``reply`` without the reasoning blocks that thinking models prepend.

    Handles complete ``<think>...</think>`` blocks, a dangling ``</think>`` (chat templates
    that open the block inside the prompt) and a ``<think>`` that was never closed (the
    model ran out of tokens while thinking: nothing usable follows it).
    """
    text = _THINK_BLOCK.sub("", reply)
    closes = list(_THINK_CLOSE.finditer(text))
    if closes:
        text = text[closes[-1].end() :]
    opened = _THINK_OPEN.search(text)
    if opened:
        text = text[: opened.start()]
    return text.strip()


def extract_json_text(reply: str) -> str:
    """The JSON part of a model reply: no reasoning block, no fences, no surrounding prose.

    Returns an empty string when the reply holds no ``{`` or ``[`` at all. The result is
    not guaranteed to be valid JSON; :func:`parse_structured` repairs it.
    """
    text = strip_reasoning(reply)
    fenced = _fenced_json(text)
    if fenced is not None:
        text = fenced
    return _json_span(text)


def _fenced_json(text: str) -> str | None:
    blocks = [(match.group(1).lower(), match.group(2)) for match in _FENCE.finditer(text)]
    for lang, body in blocks:
        if lang == "json":
            return body
    for _, body in blocks:
        if body.lstrip().startswith(("{", "[")):
            return body
    return None


def _json_span(text: str) -> str:
    # Schemas are objects, so an object wins over a bracket that appears first in prose.
    start = text.find("{")
    if start < 0:
        start = text.find("[")
    if start < 0:
        return ""
    end = text.rfind(_CLOSERS[text[start]])
    if end < start:
        # Unterminated (the reply was cut off): keep the rest, json_repair closes it.
        return text[start:].strip()
    return text[start : end + 1]


def parse_structured(reply: str, schema: type[T]) -> T:
    """Validate a model reply against ``schema``, repairing broken JSON on the way.

    Raises :class:`StructuredOutputError` with a short description of the problem.
    """
    name = schema.__name__
    text = extract_json_text(reply)
    if not text:
        raise StructuredOutputError("the reply contained no JSON object", schema=name)
    data = _load_json(text)
    if data is None:
        raise StructuredOutputError("the reply's JSON could not be parsed", schema=name)
    if isinstance(data, list) and len(data) == 1 and isinstance(data[0], dict):
        # Small models often wrap the one object they were asked for in a list.
        data = data[0]
    try:
        return schema.model_validate(data)
    except ValidationError as exc:
        raise StructuredOutputError(describe_validation_error(exc), schema=name) from None


def _load_json(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        pass
    repaired = json_repair.loads(text)
    if repaired in ("", None) or not isinstance(repaired, dict | list):
        return None
    return repaired


def describe_validation_error(exc: ValidationError) -> str:
    """A compact, model-readable summary of a pydantic validation error."""
    problems = []
    errors = exc.errors(include_url=False)
    for error in errors[:_MAX_PROBLEMS]:
        where = ".".join(str(part) for part in error["loc"]) or "the top-level value"
        message = error["msg"]
        if error["type"] != "missing":
            value = json.dumps(error.get("input"), default=str)
            if len(value) > _MAX_VALUE_CHARS:
                value = value[: _MAX_VALUE_CHARS - 3] + "..."
            message = f"{message} (got {value})"
        problems.append(f"{where}: {message}")
    if len(errors) > _MAX_PROBLEMS:
        problems.append(f"and {len(errors) - _MAX_PROBLEMS} more problems")
    return "; ".join(problems)


def schema_instructions(schema: type[BaseModel]) -> str:
    """The block appended to a system prompt to ask for JSON matching ``schema``."""
    compact = json.dumps(_without_titles(schema.model_json_schema()), separators=(",", ":"))
    return (
        "Answer with one JSON object and nothing else: no prose before or after it, "
        "no Markdown code fences, no comments. Use double quotes for keys and strings. "
        f"The object must match this JSON Schema:\n{compact}"
    )


def _without_titles(node: Any) -> Any:
    """The schema without pydantic's auto-generated ``title`` keys (noise for a model)."""
    if isinstance(node, list):
        return [_without_titles(item) for item in node]
    if not isinstance(node, dict):
        return node
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key == "title" and isinstance(value, str):
            continue
        if key in ("properties", "$defs") and isinstance(value, dict):
            out[key] = {name: _without_titles(sub) for name, sub in value.items()}
        else:
            out[key] = _without_titles(value)
    return out
