"""One attempt at a model call, bounded by its timeout (``llm.gateway`` retries around it),
the messages a call sends, and the key that names a call (a run's recording keeps each
reply, budget decision and cut attempt under it)."""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
from collections.abc import Sequence

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage

logger = logging.getLogger("deepresearch.llm.gateway")  # the messages' logger stays the gateway's

# How long a call cancelled at its timeout may take to stop before its slot is given back.
CANCEL_GRACE_S = 5.0


class CallTimedOut(TimeoutError):
    """An attempt cut at its timeout by :func:`invoke` (not a timeout the model's client
    raised itself, which the model reports as its own failure)."""


async def invoke(model: BaseChatModel, messages: list[BaseMessage], timeout_s: float) -> AIMessage:
    """``model.ainvoke(messages)`` within ``timeout_s`` (TimeoutError after it).

    A call cancelled at its timeout normally stops at once (its connection closes, and a
    streaming server stops generating). One that does not stop within ``CANCEL_GRACE_S``
    is left to finish on its own, so it cannot hold its endpoint's slot, and every call
    waiting for it, beyond its timeout."""
    call = asyncio.ensure_future(model.ainvoke(messages))
    try:
        done, _ = await asyncio.wait({call}, timeout=timeout_s)
    except BaseException:  # we were cancelled: so is the call
        call.cancel()
        raise
    if call in done:
        return call.result()
    call.cancel()
    done, _ = await asyncio.wait({call}, timeout=CANCEL_GRACE_S)
    if not done:
        logger.warning(
            "a model call cancelled at its %.0f s timeout had not stopped %.0f s later; "
            "its slot was given back anyway",
            timeout_s,
            CANCEL_GRACE_S,
        )
    call.add_done_callback(_consume)
    raise CallTimedOut(f"no reply within {timeout_s:.0f} s")


def _consume(call: asyncio.Task[AIMessage]) -> None:
    """Retrieve a finished call's outcome, so asyncio does not report it as never seen."""
    if not call.cancelled():
        call.exception()


def prompt(system: str, user: str) -> list[BaseMessage]:
    """The system message (when there is one) and the user's."""
    messages: list[BaseMessage] = [SystemMessage(content=system)] if system else []
    messages.append(HumanMessage(content=user))
    return messages


def call_key(model: str, messages: Sequence[BaseMessage]) -> str:
    """The key of one chat request: the model's name and every message's type and text
    (never the order calls were made in, so concurrent calls are told apart by what they
    ask)."""
    payload = json.dumps([model, [[m.type, m.content] for m in messages]], ensure_ascii=False)
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()
