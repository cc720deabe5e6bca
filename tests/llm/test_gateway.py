"""The gateway with the scripted chat model: structured output, retries, usage, cache."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path

import pytest
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage
from pydantic import BaseModel

from deepresearch.llm import Gateway, ResponseCache
from deepresearch.llm.tokens import estimate_messages, estimate_tokens
from deepresearch.models.usage import ModelCall
from deepresearch.settings_values import ROLES, Role
from deepresearch.testing.scripted import Script, ScriptedChatModel, scripted_models


class Verdict(BaseModel):
    supported: bool
    reason: str


VALID = '{"supported": true, "reason": "the passage says so"}'


def make_gateway(
    models: Mapping[Role, BaseChatModel | None],
    *,
    timeout_s: float = 5.0,
    max_retries: int = 2,
    calls: list[ModelCall] | None = None,
    cache: ResponseCache | None = None,
) -> Gateway:
    return Gateway(
        models,
        model_names={role: "scripted:test" for role in ROLES},
        timeout_s=timeout_s,
        max_retries=max_retries,
        retry_base_s=0.001,
        retry_max_s=0.01,
        on_call=None if calls is None else calls.append,
        cache=cache,
    )


def scripted(script: Script, **options: float) -> tuple[ScriptedChatModel, Gateway]:
    model = ScriptedChatModel(script, **options)
    return model, make_gateway(dict.fromkeys(ROLES, model))


async def test_valid_json_is_one_call() -> None:
    calls: list[ModelCall] = []
    model = ScriptedChatModel([f"```json\n{VALID}\n```"])
    gateway = make_gateway({"judge": model}, calls=calls)
    verdict = await gateway.structured(
        "judge", Verdict, system="You check claims.", user="Claim: x", stage="audit"
    )
    assert verdict == Verdict(supported=True, reason="the passage says so")
    assert len(model.calls) == 1
    system, user = model.calls[0]
    assert isinstance(system, SystemMessage) and isinstance(user, HumanMessage)
    assert system.text.startswith("You check claims.")
    assert '"supported"' in system.text  # the schema travels in the system prompt
    assert user.text == "Claim: x"
    assert [call.ok for call in calls] == [True]
    assert calls[0].role == "judge" and calls[0].stage == "audit"
    assert calls[0].model == "scripted:test" and calls[0].attempts == 1


async def test_invalid_then_corrected_is_two_calls() -> None:
    model, gateway = scripted(['{"supported": "maybe"}', VALID])
    verdict = await gateway.structured("judge", Verdict, system="s", user="u", stage="audit")
    assert verdict is not None and verdict.supported is True
    assert gateway.usage.calls == 2
    assert gateway.usage.by_stage["audit"].calls == 2
    retry = model.calls[1]
    assert isinstance(retry[-2], AIMessage) and retry[-2].text == '{"supported": "maybe"}'
    correction = retry[-1].text
    assert "could not be used" in correction
    assert "reason: Field required" in correction
    assert "supported" in correction


async def test_invalid_twice_falls_back() -> None:
    model, gateway = scripted(["not json at all", '{"reason": 5}'])
    assert await gateway.structured("judge", Verdict, system="s", user="u", stage="audit") is None
    assert len(model.calls) == 2
    assert gateway.usage.calls == 2 and gateway.usage.failed_calls == 0


async def test_timeout_is_retried_then_falls_back() -> None:
    calls: list[ModelCall] = []
    model = ScriptedChatModel(lambda _: VALID, latency_s=1.0)
    gateway = make_gateway({"writer": model}, timeout_s=0.05, max_retries=2, calls=calls)
    assert await gateway.text("writer", system="s", user="u", stage="write") is None
    assert len(model.calls) == 3
    assert len(calls) == 1
    assert calls[0].ok is False and calls[0].attempts == 3
    assert gateway.usage.failed_calls == 1
    assert any("timed out" in error for error in gateway.errors)
    assert gateway.has_model("writer")  # a timeout does not disable the model


class RateLimitError(Exception):
    status_code = 429


class BadRequestError(Exception):
    status_code = 400


async def test_rate_limit_is_retried() -> None:
    calls: list[ModelCall] = []
    model = ScriptedChatModel([RateLimitError("slow down"), RateLimitError("slow down"), "hello"])
    gateway = make_gateway({"writer": model}, calls=calls)
    assert await gateway.text("writer", system="s", user="u", stage="write") == "hello"
    assert calls[0].attempts == 3 and calls[0].ok


async def test_bad_request_is_not_retried() -> None:
    model, gateway = scripted([BadRequestError("too long"), "never sent"])
    assert await gateway.text("writer", system="s", user="u", stage="write") is None
    assert len(model.calls) == 1
    assert gateway.errors == [
        "model scripted:test rejected the request (HTTP 400) on the first attempt; "
        "a deterministic fallback was used for that step"
    ]


async def test_auth_failure_disables_the_model_for_every_role() -> None:
    class AuthenticationError(Exception):
        status_code = 401

    model, gateway = scripted([AuthenticationError("bad key sk-live-abcdef1234567890")])
    assert await gateway.text("planner", system="s", user="u", stage="plan") is None
    assert not gateway.has_model("planner") and not gateway.has_model("writer")
    assert await gateway.text("writer", system="s", user="u", stage="write") is None
    assert len(model.calls) == 1
    assert gateway.errors == [
        "model scripted:test refused the API key (HTTP 401); the run used deterministic fallbacks"
    ]


async def test_usage_per_stage_and_role_reported_by_the_model() -> None:
    models = scripted_models(lambda messages: VALID)
    gateway = make_gateway(models)
    await gateway.structured("planner", Verdict, system="s", user="plan it", stage="plan")
    await gateway.structured("judge", Verdict, system="s", user="judge it", stage="audit")
    await gateway.text("writer", system="s", user="write it", stage="write")
    usage = gateway.usage
    assert usage.calls == 3
    assert set(usage.by_stage) == {"plan", "audit", "write"}
    assert set(usage.by_role) == {"planner", "judge", "writer"}
    assert usage.output_tokens == 3 * estimate_tokens(VALID)
    assert usage.total_tokens == usage.input_tokens + usage.output_tokens
    assert usage.by_role["writer"].input_tokens == estimate_messages(
        [SystemMessage("s"), HumanMessage("write it")]
    )


async def test_usage_is_estimated_when_not_reported() -> None:
    calls: list[ModelCall] = []
    model = ScriptedChatModel(["x" * 41], report_usage=False)
    gateway = make_gateway({"writer": model}, calls=calls)
    await gateway.text("writer", system="abcd" * 10, user="hi", stage="write")
    assert calls[0].usage_source == "estimated"
    assert calls[0].output_tokens == 11  # ceil(41 / 4)
    assert calls[0].input_tokens == 10 + 1


async def test_reported_usage_is_taken_as_is() -> None:
    calls: list[ModelCall] = []
    reply = AIMessage(
        content="ok", usage_metadata={"input_tokens": 120, "output_tokens": 3, "total_tokens": 123}
    )
    gateway = make_gateway({"writer": ScriptedChatModel([reply])}, calls=calls)
    assert await gateway.text("writer", system="s", user="u", stage="write") == "ok"
    assert (calls[0].input_tokens, calls[0].output_tokens) == (120, 3)
    assert calls[0].usage_source == "reported"


async def test_text_drops_reasoning_blocks() -> None:
    _, gateway = scripted(["<think>plan the answer</think>\n\nThe answer."])
    assert await gateway.text("writer", system="s", user="u", stage="write") == "The answer."


async def test_empty_text_reply_falls_back() -> None:
    _, gateway = scripted(["<think>only thoughts</think>  "])
    assert await gateway.text("writer", system="s", user="u", stage="write") is None


async def test_no_model_means_none_without_calls() -> None:
    gateway = Gateway.disabled()
    assert not gateway.has_model("planner")
    assert await gateway.text("planner", system="s", user="u", stage="plan") is None
    assert await gateway.structured("judge", Verdict, system="s", user="u", stage="a") is None
    assert gateway.usage.calls == 0
    partial = make_gateway({"writer": ScriptedChatModel(["hi"])})
    assert partial.has_model("writer") and not partial.has_model("judge")
    assert partial.model_name("judge") == "none"


async def test_latency_is_measured_and_simulated() -> None:
    calls: list[ModelCall] = []
    model = ScriptedChatModel(["abcd" * 10], latency_s=0.02, per_token_s=0.001)
    gateway = make_gateway({"writer": model}, calls=calls)
    await gateway.text("writer", system="s", user="u", stage="write")
    assert calls[0].latency_s >= 0.02 + 10 * 0.001


async def test_cache_hit_avoids_a_call(tmp_path: Path) -> None:
    cache = ResponseCache(tmp_path / "cache" / "replies.sqlite")
    first_model = ScriptedChatModel([VALID, "prose answer"])
    first = make_gateway({"judge": first_model}, cache=cache)
    assert await first.structured("judge", Verdict, system="s", user="u", stage="audit")
    assert await first.text("judge", system="s", user="u", stage="audit") == "prose answer"
    cache.close()

    reopened = ResponseCache(tmp_path / "cache" / "replies.sqlite")
    second_model = ScriptedChatModel([])
    second = make_gateway({"judge": second_model}, cache=reopened)
    verdict = await second.structured("judge", Verdict, system="s", user="u", stage="audit")
    assert verdict == Verdict(supported=True, reason="the passage says so")
    assert await second.text("judge", system="s", user="u", stage="audit") == "prose answer"
    assert second_model.calls == []
    assert second.cache_hits == 2
    assert second.usage.calls == 0 and second.usage.total_tokens == 0
    # a different prompt is a miss
    assert await second.text("judge", system="s", user="other", stage="audit") is None


async def test_the_same_question_asked_at_once_is_asked_once() -> None:
    """Identical questions in flight together (the audit judging a summary sentence and
    the same sentence in the body) make one call, whichever would have come back first:
    the same run always counts the same calls."""
    import asyncio

    cache = ResponseCache(":memory:")
    model = ScriptedChatModel([VALID, "prose"], latency_s=0.02)
    gateway = make_gateway({"judge": model}, cache=cache)
    ask = gateway.structured("judge", Verdict, system="s", user="u", stage="audit")
    both = await asyncio.gather(
        ask, gateway.structured("judge", Verdict, system="s", user="u", stage="audit")
    )
    assert both[0] == both[1] == Verdict(supported=True, reason="the passage says so")
    texts = await asyncio.gather(
        *(gateway.text("judge", system="s", user="t", stage="audit") for _ in range(3))
    )
    assert texts == ["prose"] * 3
    assert len(model.calls) == 2 and gateway.usage.calls == 2 and gateway.cache_hits == 3
    # nothing is left held once every ask has finished
    assert len(gateway._asking) == 0


async def test_invalid_replies_are_not_cached() -> None:
    cache = ResponseCache(":memory:")
    model = ScriptedChatModel(["nope", "still nope", VALID])
    gateway = make_gateway({"judge": model}, cache=cache)
    assert await gateway.structured("judge", Verdict, system="s", user="u", stage="a") is None
    assert len(cache) == 0
    assert await gateway.structured("judge", Verdict, system="s", user="u", stage="a")
    assert len(cache) == 1


async def test_corrected_reply_is_cached_under_the_original_prompt() -> None:
    cache = ResponseCache(":memory:")
    model = ScriptedChatModel(["{bad", VALID])
    gateway = make_gateway({"judge": model}, cache=cache)
    assert await gateway.structured("judge", Verdict, system="s", user="u", stage="a")
    again = await gateway.structured("judge", Verdict, system="s", user="u", stage="a")
    assert again is not None and gateway.cache_hits == 1 and len(model.calls) == 2


def test_scripted_model_sync_and_function_scripts() -> None:
    def echo(messages: list[BaseMessage]) -> str:
        return json.dumps({"n": len(messages), "last": messages[-1].text})

    model = ScriptedChatModel(echo)
    reply = model.invoke([SystemMessage("s"), HumanMessage("hello")])
    assert json.loads(reply.text) == {"n": 2, "last": "hello"}
    assert reply.usage_metadata is not None
    assert reply.usage_metadata["output_tokens"] == estimate_tokens(reply.text)
    assert model._llm_type == "scripted"
    assert len(model.calls) == 1


def test_list_script_runs_out_loudly() -> None:
    model = ScriptedChatModel(["only one"])
    assert model.invoke("hi").text == "only one"
    with pytest.raises(RuntimeError, match="ran out"):
        model.invoke("again")


class ServiceUnavailable(Exception):
    """Named like google-api-core's 503; no status attribute."""


async def test_breaker_stops_calling_a_model_that_keeps_failing() -> None:
    def down(_: list[BaseMessage]) -> str:
        raise ServiceUnavailable("down")

    model = ScriptedChatModel(down)
    gateway = make_gateway(dict.fromkeys(ROLES, model), max_retries=1)
    for _ in range(3):
        assert await gateway.text("writer", system="s", user="u", stage="write") is None
    assert len(model.calls) == 6  # 3 calls x (1 try + 1 retry)
    assert not gateway.has_model("writer") and not gateway.has_model("judge")
    assert await gateway.text("judge", system="s", user="u", stage="audit") is None
    assert len(model.calls) == 6
    assert gateway.errors == [
        "model scripted:test was unavailable after 2 attempts; "
        "a deterministic fallback was used for that step",
        "model scripted:test failed 3 calls in a row; "
        "the rest of the run used deterministic fallbacks",
    ]


async def test_a_success_resets_the_breaker() -> None:
    replies: list[str | BaseException] = [ServiceUnavailable(), ServiceUnavailable(), "ok"] * 2
    model = ScriptedChatModel([*replies, ServiceUnavailable(), ServiceUnavailable(), "ok"])
    gateway = make_gateway({"writer": model}, max_retries=0)
    results = [await gateway.text("writer", system="s", user="u", stage="w") for _ in range(9)]
    assert results == [None, None, "ok"] * 3
    assert gateway.has_model("writer")


async def test_a_step_can_have_its_own_shorter_timeout() -> None:
    from pydantic import BaseModel as _BaseModel

    from deepresearch.llm.gateway import Gateway as _Gateway
    from deepresearch.testing.scripted import ScriptedChatModel as _Scripted

    class Answer(_BaseModel):
        ok: bool

    slow = _Scripted(lambda messages: '{"ok": true}', latency_s=0.3)
    gateway = _Gateway({"judge": slow}, model_names={"judge": "slow"}, timeout_s=5.0, max_retries=0)
    assert (
        await gateway.structured(
            "judge", Answer, system="s", user="u", stage="rank", timeout_s=0.05
        )
        is None
    )
    assert await gateway.structured("judge", Answer, system="s", user="u2", stage="rank") == Answer(
        ok=True
    )
