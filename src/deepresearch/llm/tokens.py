"""The token estimate used when a provider does not report usage.

Heuristic: one token per four characters, rounded up (``ceil(len(text) / 4)``), summed
over message contents. It is the usual rule of thumb for English with BPE tokenizers
(OpenAI, Anthropic, Llama); it overestimates code and underestimates CJK text. It is
only used for counting and budgets, never for truncating prompts. The gateway and the
scripted test model share it, so estimated and scripted numbers agree.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

from langchain_core.messages import BaseMessage

CHARS_PER_TOKEN = 4


def estimate_tokens(text: str) -> int:
    """Estimated token count of ``text``: ``ceil(len(text) / 4)``."""
    return math.ceil(len(text) / CHARS_PER_TOKEN)


def message_text(message: BaseMessage) -> str:
    """The plain text of a message, whatever shape its content has."""
    return message.text


def estimate_messages(messages: Iterable[BaseMessage]) -> int:
    """Estimated input tokens of a prompt: the sum over its messages' text."""
    return sum(estimate_tokens(message_text(message)) for message in messages)


def token_usage(
    message: BaseMessage, prompt: Sequence[BaseMessage], reply: str
) -> tuple[int, int, str]:
    """(input, output, source) of a call: the provider's counts, else the estimate."""
    reported = getattr(message, "usage_metadata", None)
    if reported:
        input_tokens = int(reported.get("input_tokens") or 0)
        output_tokens = int(reported.get("output_tokens") or 0)
        if input_tokens or output_tokens:
            return input_tokens, output_tokens, "reported"
    return estimate_messages(prompt), estimate_tokens(reply), "estimated"
