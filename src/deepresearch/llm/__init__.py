"""The model gateway: every chat-model call in deepresearch goes through here.

Ownership map:

- ``providers``  ``provider:model`` spec → configured LangChain chat model (the only place
  that knows provider names, keys and extras).
- ``gateway``    ``Gateway``: role → model, a slot at the model's endpoint, timeout, retries,
  structured output with repair and one corrective retry, usage, cache, redaction. Stages
  call nothing else.
- ``endpoints``  which server (or hosted API) a role's model talks to, its label and limit.
- ``slots``      calls in flight per endpoint, shared by the gateways on one event loop.
- ``preflight``  before a run: is every configured endpoint reachable (and the key taken)?
- ``structured`` pure helpers: reply → JSON text → validated pydantic object.
- ``failures``   classify an exception (retry? disable the model?) without SDK imports.
- ``cache``      SQLite cache of successful replies.
- ``redact``     scrub secrets and key-shaped strings from messages.
- ``tokens``     the documented token estimate used when a provider reports no usage.

Nothing here may import a stage, the graph or a front end.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from deepresearch.llm.cache import ResponseCache
    from deepresearch.llm.gateway import Gateway
    from deepresearch.llm.providers import build_chat_model, build_role_models
    from deepresearch.llm.redact import redact
    from deepresearch.llm.structured import (
        StructuredOutputError,
        extract_json_text,
        parse_structured,
        schema_instructions,
    )

#: each name and its module, imported on first use: ``llm.redact`` (used by the CLI and
#: the runner's error paths) must not load LangChain with the gateway (issue 19)
_EXPORTS = {
    "Gateway": "gateway",
    "ResponseCache": "cache",
    "StructuredOutputError": "structured",
    "build_chat_model": "providers",
    "build_role_models": "providers",
    "extract_json_text": "structured",
    "parse_structured": "structured",
    "redact": "redact",
    "schema_instructions": "structured",
}
__all__ = [
    "Gateway",
    "ResponseCache",
    "StructuredOutputError",
    "build_chat_model",
    "build_role_models",
    "extract_json_text",
    "parse_structured",
    "redact",
    "schema_instructions",
]


def __getattr__(name: str) -> Any:
    if name in _EXPORTS:
        return getattr(importlib.import_module(f"deepresearch.llm.{_EXPORTS[name]}"), name)
    raise AttributeError(f"module 'deepresearch.llm' has no attribute {name!r}")
