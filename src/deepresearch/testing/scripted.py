"""A chat model whose words are scripted: for tests, benchmarks and offline demos.

``ScriptedChatModel`` is a real LangChain ``BaseChatModel``, so it goes through the model
gateway exactly like a provider's model. Its replies come from a function of the
messages it receives, or from a list consumed in order (an item may be an exception
instance, which is raised: handy for testing retries). It can simulate latency per call
and per output token, reports ``usage_metadata`` estimated with the gateway's documented
heuristic (``deepresearch.llm.tokens``: one token per four characters), and records every
prompt it received in ``calls``.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable, Iterable
from typing import Any

from langchain_core.callbacks import AsyncCallbackManagerForLLMRun, CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.messages.ai import UsageMetadata
from langchain_core.outputs import ChatGeneration, ChatResult
from pydantic import PrivateAttr

from deepresearch.llm.tokens import estimate_messages, estimate_tokens
from deepresearch.settings_values import ROLES, Role

Reply = str | AIMessage
ScriptFn = Callable[[list[BaseMessage]], Reply]
Script = ScriptFn | Iterable[Reply | BaseException]


class ScriptExhausted(RuntimeError):
    """A list-scripted model was called more times than it had replies."""


class ScriptedChatModel(BaseChatModel):
    """A chat model answering from a script instead of a network service."""

    latency_s: float = 0.0
    """Simulated delay of every call, in seconds."""
    per_token_s: float = 0.0
    """Simulated generation time per output token, in seconds."""
    report_usage: bool = True
    """Whether replies carry ``usage_metadata`` (False: like a server that reports none)."""
    model_name: str = "scripted"

    _script: ScriptFn = PrivateAttr()
    _calls: list[list[BaseMessage]] = PrivateAttr(default_factory=list)
    _lock: threading.Lock = PrivateAttr(default_factory=threading.Lock)

    def __init__(self, script: Script, /, **data: Any) -> None:
        super().__init__(**data)
        self._script = script if callable(script) else self._from_list(list(script))

    @property
    def calls(self) -> list[list[BaseMessage]]:
        """The messages of every call received, in order."""
        return self._calls

    @property
    def _llm_type(self) -> str:
        return "scripted"

    @property
    def _identifying_params(self) -> dict[str, Any]:
        return {"model_name": self.model_name}

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        message = self._respond(messages)
        delay = self._delay(message)
        if delay > 0:
            time.sleep(delay)
        return ChatResult(generations=[ChatGeneration(message=message)])

    async def _agenerate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        message = self._respond(messages)
        delay = self._delay(message)
        if delay > 0:
            await asyncio.sleep(delay)
        return ChatResult(generations=[ChatGeneration(message=message)])

    def _respond(self, messages: list[BaseMessage]) -> AIMessage:
        received = list(messages)
        with self._lock:
            self._calls.append(received)
        reply = self._script(list(received))
        message = reply if isinstance(reply, AIMessage) else AIMessage(content=reply)
        if message.usage_metadata is None and self.report_usage:
            input_tokens = estimate_messages(received)
            output_tokens = estimate_tokens(message.text)
            message = message.model_copy(
                update={
                    "usage_metadata": UsageMetadata(
                        input_tokens=input_tokens,
                        output_tokens=output_tokens,
                        total_tokens=input_tokens + output_tokens,
                    )
                }
            )
        return message

    def _delay(self, message: AIMessage) -> float:
        output_tokens = estimate_tokens(message.text)
        return self.latency_s + self.per_token_s * output_tokens

    def _from_list(self, replies: list[Reply | BaseException]) -> ScriptFn:
        pending = list(replies)

        def next_reply(_: list[BaseMessage]) -> Reply:
            with self._lock:
                if not pending:
                    raise ScriptExhausted(f"scripted model ran out of its {len(replies)} replies")
                reply = pending.pop(0)
            if isinstance(reply, BaseException):
                raise reply
            return reply

        return next_reply


def scripted_models(
    script: Script, *, latency_s: float = 0.0, per_token_s: float = 0.0
) -> dict[Role, BaseChatModel]:
    """Every role mapped to the same scripted model (one shared script and ``calls``)."""
    model = ScriptedChatModel(script, latency_s=latency_s, per_token_s=per_token_s)
    return {role: model for role in ROLES}
