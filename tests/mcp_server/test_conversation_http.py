"""Conversations over the MCP endpoint of ``deepresearch serve``, driven with the SDK's own
client: a run that asks a clarifying question returns at once with the question and its
run id (``research`` no longer forces ``no_clarify``), ``list_runs`` and ``get_report``
show what it waits for, ``reply`` answers it through the API's own answer path (the same
checks, outcomes and limits as ``POST /v1/research/{id}/input``) and follows the run to
its report; ``follow_up`` continues the thread without fetching a page again. Another
key's run is "not found" exactly as a run that does not exist. Only the model's words are
scripted (an intake that asks back); the web, service, database and workers are real."""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
from langchain_core.messages import BaseMessage

from deepresearch.recipes.research.stages import intake, plan
from deepresearch.service.app import create_app
from deepresearch.service.app.jobs import Runtime
from deepresearch.service.db import open_database
from deepresearch.service.keys import create_key
from deepresearch.service.server import BackgroundServer
from deepresearch.service.store import JobStore
from deepresearch.settings import load_settings
from deepresearch.settings_values import ROLES
from deepresearch.testing.research_script import research_script
from deepresearch.testing.scripted import ScriptedChatModel
from deepresearch.testing.web import OfflineWeb

from ..export.conftest import QUESTION, run_options
from .test_http import MCP_DOC, session, text_of

ASKED = "Do you mean honey bees or bumble bees?"
ANSWER = "Honey bees, in orchards"
FOLLOW = "How do honey bees communicate the direction of flowers?"
INTAKE = intake.SYSTEM.splitlines()[0]


def clarifying_model() -> ScriptedChatModel:
    """The research script, except that intake asks one clarifying question (unless the
    run may not ask: then intake is not asked at all)."""
    research = research_script()

    def reply(messages: list[BaseMessage]) -> str:
        if str(messages[0].content).startswith(INTAKE):
            return json.dumps({"intent": "clarify", "reply": ASKED})
        return research(messages)

    return ScriptedChatModel(reply)


@contextmanager
def serving_model(
    web: OfflineWeb, tmp_path: Path, model: ScriptedChatModel, keys: int
) -> Iterator[tuple[str, list[str]]]:
    """The service on a loopback port with ``model`` for every role and ``keys`` API keys;
    no page cache, so a page fetched again is seen by the web."""
    options = {k: v for k, v in run_options(web, tmp_path / "data").items() if k != "model"}
    settings = load_settings(
        **options, database_url=f"sqlite:///{tmp_path / 'jobs.db'}", page_cache_ttl_s=0
    )
    engine = open_database(settings)
    tokens = [create_key(JobStore(engine), f"key{i}")[1] for i in range(keys)]
    app = create_app(settings, engine=engine, runtime=Runtime(models=dict.fromkeys(ROLES, model)))
    try:
        with BackgroundServer(app) as server:
            yield server.url, tokens
    finally:
        engine.dispose()


@asynccontextmanager
async def raw_client(url: str, token: str) -> AsyncIterator[httpx.AsyncClient]:
    headers = {"Authorization": f"Bearer {token}"}
    async with httpx.AsyncClient(base_url=url, headers=headers, timeout=60) as client:
        yield client


def pages(web: OfflineWeb) -> list[str]:
    return [r.path for r in web.requests if r.path.startswith("/page/") and r.method == "GET"]


async def test_clarify_reply_report_then_a_follow_up_over_http(
    bee_web: OfflineWeb, tmp_path: Path
) -> None:
    model = clarifying_model()
    with serving_model(bee_web, tmp_path, model, keys=1) as (url, (key,)):
        progress: list[float] = []

        async def on_progress(value: float, total: float | None, message: str | None) -> None:
            progress.append(value)

        async with session(url, key) as client:
            asked = await client.call_tool("research", {"question": QUESTION})
            assert not asked.is_error, text_of(asked)
            waiting = asked.structured_content
            run_id = waiting["run_id"]
            assert waiting["status"] == "awaiting_input"
            assert waiting["request"]["kind"] == "clarification"
            assert waiting["request"]["question"] == ASKED
            assert ASKED in text_of(asked) and f'"run_id": "{run_id}"' in text_of(asked)
            assert "reply tool" in text_of(asked)

            # the waiting run, as list_runs and get_report show it
            (row,) = (await client.call_tool("list_runs", {})).structured_content["runs"]
            assert (row["run_id"], row["status"]) == (run_id, "awaiting_input")
            assert row["request"]["question"] == ASKED
            shown = await client.call_tool("get_report", {"run_id": run_id})
            assert not shown.is_error and shown.structured_content["status"] == "awaiting_input"
            assert ASKED in text_of(shown)

            # bad answers: the API's checks, the run keeps waiting
            for arguments, says in (
                ({"run_id": run_id}, "give either answer"),
                ({"run_id": run_id, "answer": " \x07 "}, "the answer is empty"),
                ({"run_id": run_id, "action": "approve"}, "answer it with text"),
                ({"run_id": run_id, "answer": "x", "action": "approve"}, "not both"),
                ({"run_id": run_id, "answer": "x" * 5000}, "answer: String should have at most"),
            ):
                refused = await client.call_tool("reply", arguments)
                assert refused.is_error, arguments
                assert says in text_of(refused), text_of(refused)
                assert "Traceback" not in text_of(refused)
            still = await client.call_tool("get_report", {"run_id": run_id})
            assert still.structured_content["status"] == "awaiting_input"

            done = await client.call_tool(
                "reply",
                {"run_id": run_id, "answer": f"  {ANSWER}\n"},
                progress_callback=on_progress,
            )
            assert not done.is_error, text_of(done)
            assert done.structured_content == {
                "run_id": run_id,
                "status": "completed",
                "kind": "synthesized",
            }
            assert "waggle dance" in text_of(done)
            assert progress and progress == sorted(set(progress)) and progress[-1] == 100
            # the same answer again is harmless; another one is a conflict
            again = await client.call_tool("reply", {"run_id": run_id, "answer": ANSWER})
            assert not again.is_error and again.structured_content["status"] == "completed"
            other = await client.call_tool("reply", {"run_id": run_id, "answer": "bumble bees"})
            assert other.is_error and "already answered" in text_of(other)

            # planning saw the answer: the same run went on
            planned = [
                str(call[-1].content)
                for call in model.calls
                if str(call[0].content).startswith(plan.SYSTEM.splitlines()[0])
            ]
            # (the plan drafted alongside intake, before the question was clarified, is
            # dropped: planning asks again with the answer, once)
            assert len([prompt for prompt in planned if ANSWER in prompt]) == 1
            assert ANSWER in planned[-1]

            # a follow-up on the finished run reuses the thread: no page is fetched again
            before = pages(bee_web)
            assert before, "the first run read no page"
            followed = await client.call_tool(
                "follow_up",
                {"run_id": run_id, "question": FOLLOW, "no_clarify": True},
                progress_callback=on_progress,
            )
            assert not followed.is_error, text_of(followed)
            second = followed.structured_content["run_id"]
            assert second != run_id and followed.structured_content["status"] == "completed"
            fetched = pages(bee_web)[len(before) :]
            assert not set(fetched) & set(before), f"pages read again: {fetched}"
            report = json.loads(
                text_of(await client.call_tool("get_report", {"run_id": second, "format": "json"}))
            )
            assert report["followup"]["root"] == run_id
            assert report["followup"]["reused_sources"] > 0
            # a run that waits cannot be followed up; a finished one takes no answer
            unfinished = await client.call_tool("research", {"question": "What do wasps eat?"})
            assert unfinished.structured_content["status"] == "awaiting_input"
            early = await client.call_tool(
                "follow_up",
                {"run_id": unfinished.structured_content["run_id"], "question": FOLLOW},
            )
            assert early.is_error and "AWAITING_INPUT" in text_of(early)
            late = await client.call_tool("reply", {"run_id": second, "answer": "x"})
            assert late.is_error and "it asks nothing" in text_of(late)

            # a plan review's cancel ends the waiting run, as over /v1
            cancelled = await client.call_tool(
                "reply", {"run_id": unfinished.structured_content["run_id"], "action": "cancel"}
            )
            assert cancelled.structured_content["status"] == "cancelled"

        async with raw_client(url, key) as raw:  # the same run over /v1
            job = (await raw.get(f"/v1/research/{run_id}")).json()
            assert job["status"] == "COMPLETED" and job["attempts"] == 2
            assert [turn["id"] for turn in job["thread"]] == [run_id, second]
            gone = (await raw.get(f"/v1/research/{unfinished.structured_content['run_id']}")).json()
            assert gone["status"] == "CANCELLED"


async def test_another_keys_run_is_not_found_and_bad_arguments_are_plain_errors(
    bee_web: OfflineWeb, tmp_path: Path
) -> None:
    with serving_model(bee_web, tmp_path, clarifying_model(), keys=2) as (url, (alice, bob)):
        async with session(url, alice) as client:
            asked = await client.call_tool("research", {"question": QUESTION})
            run_id = asked.structured_content["run_id"]
            assert asked.structured_content["status"] == "awaiting_input"
        missing = "run-000000000000"
        async with session(url, bob) as client:
            calls: list[tuple[str, dict[str, Any]]] = [
                ("reply", {"answer": ANSWER}),
                ("reply", {"action": "cancel"}),
                ("follow_up", {"question": FOLLOW}),
                ("get_report", {}),
            ]
            for tool, arguments in calls:
                theirs = await client.call_tool(tool, {"run_id": run_id, **arguments})
                nothing = await client.call_tool(tool, {"run_id": missing, **arguments})
                assert theirs.is_error and nothing.is_error, tool
                # word for word the answer for a run that does not exist
                assert text_of(theirs) == text_of(nothing).replace(missing, run_id), tool
                assert f"no run '{run_id}'" in text_of(theirs)
            assert (await client.call_tool("list_runs", {})).structured_content["runs"] == []

            # arguments that do not fit a tool: which one, and what is wrong, in a line
            for tool, arguments, says in (
                ("research", {}, "question: Field required"),
                ("research", {"question": QUESTION, "depth": "huge"}, "depth: Input should be"),
                ("research", {"question": QUESTION, "no_clarify": "maybe"}, "no_clarify:"),
                ("reply", {"run_id": run_id, "sub_questions": "one"}, "sub_questions:"),
                ("reply", {"run_id": run_id, "action": "delete"}, "action: Input should be"),
                ("follow_up", {"run_id": run_id}, "question: Field required"),
                ("list_runs", {"limit": "many"}, "limit: Input should be a valid integer"),
                ("research", {"question": QUESTION, "no_clarfy": True}, "unknown no_clarfy"),
                ("reply", {"run_id": run_id, "answr": "x"}, "unknown answr (it takes: action,"),
                ("reply", {"run_id": "../x", "answer": "x"}, "is not a run id"),
            ):
                result = await client.call_tool(tool, arguments)
                assert result.is_error, (tool, arguments)
                text = text_of(result)
                assert says in text, text
                assert "Traceback" not in text and "errors.pydantic.dev" not in text, text
                assert "\n" not in text, text

        async with session(url, alice) as client:  # bob changed nothing
            runs = (await client.call_tool("list_runs", {})).structured_content["runs"]
            assert [(r["run_id"], r["status"]) for r in runs] == [(run_id, "awaiting_input")]


async def test_the_documented_python_client_answers_a_run_that_asks_back(
    bee_web: OfflineWeb, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (example,) = re.findall(r"```python\n(.*?)```", MCP_DOC, re.S)
    namespace: dict[str, Any] = {}
    exec(compile(example, "docs/mcp.md", "exec"), namespace)
    prompts: list[str] = []

    def answer(prompt: str) -> str:
        prompts.append(prompt)
        return ANSWER

    with serving_model(bee_web, tmp_path, clarifying_model(), keys=1) as (url, (key,)):
        report = await namespace["ask"](QUESTION, url=f"{url}/mcp", key=key, answer=answer)
    assert prompts == [f"{ASKED} "]
    assert report.startswith("# ") and "waggle dance" in report
    assert capsys.readouterr().out.splitlines()[-1].startswith("100.0% [done]")
