"""Conversations with ``deepresearch mcp`` (a subprocess on stdin/stdout, driven with the
SDK's own client): a run that asks a clarifying question returns what it asks with its
run id, recorded ``awaiting_input`` like a CLI run that waits; ``reply`` continues the same
run to its report (checked as ``deepresearch reply`` checks an answer); ``follow_up``
continues the thread without fetching a page again; a plan under review is edited, and
what is searched is what the reply wrote. The model is an OpenAI-compatible server on
loopback whose words come from the research script, except that intake asks back."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
from langchain_core.messages import BaseMessage
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from deepresearch.recipes.research.stages import intake
from deepresearch.testing.research_script import research_script
from deepresearch.testing.web import OfflineWeb

from ..cli.chat_server import SECRET, ChatServer, chat_server  # noqa: F401  (a fixture)
from ..export.conftest import QUESTION
from .test_conversation_http import ANSWER, ASKED, FOLLOW, pages
from .test_stdio import server_args, text_of

INTAKE = intake.SYSTEM.splitlines()[0]


@pytest.fixture
def clarifying(chat_server: ChatServer, monkeypatch: pytest.MonkeyPatch) -> ChatServer:  # noqa: F811
    research = research_script()

    def script(messages: list[BaseMessage]) -> str:
        if str(messages[0].content).startswith(INTAKE):
            return json.dumps({"intent": "clarify", "reply": ASKED})
        return research(messages)

    monkeypatch.setattr(chat_server.RequestHandlerClass, "script", staticmethod(script))
    return chat_server


def with_model(args: list[str], server: ChatServer) -> list[str]:
    """``args`` with the chat server as the model instead of none."""
    base_url = f"http://127.0.0.1:{server.server_address[1]}/v1"
    at = args.index("--model")
    return [
        *args[:at],
        "--model",
        "openai:local-model",
        "--model-base-url",
        base_url,
        *args[at + 2 :],
    ]


def environment(data_dir: Path) -> dict[str, str]:
    return {
        "DEEPRESEARCH_DATA_DIR": str(data_dir),
        "DEEPRESEARCH_FETCH_MIN_INTERVAL_S": "0",
        "DEEPRESEARCH_PAGE_CACHE_TTL_S": "0",  # a page read again reaches the web
        "DEEPRESEARCH_MODEL_API_KEY": SECRET,
    }


@asynccontextmanager
async def connect(args: list[str], data_dir: Path) -> AsyncIterator[ClientSession]:
    params = StdioServerParameters(command=sys.executable, args=args, env=environment(data_dir))
    with (data_dir.parent / "server-stderr.log").open("w") as errlog:
        async with (
            stdio_client(params, errlog=errlog) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            yield session


def deepresearch(data_dir: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "deepresearch.cli.app", *args],
        capture_output=True,
        text=True,
        env={**os.environ, **environment(data_dir)},
        check=False,
    )


def runs_listed(data_dir: Path) -> dict[str, str]:
    listed = deepresearch(data_dir, "runs", "list", "--json")
    return {row["run_id"]: row["status"] for row in map(json.loads, listed.stdout.splitlines())}


async def test_clarify_reply_report_then_a_follow_up_over_stdio(
    bee_web: OfflineWeb,
    clarifying: ChatServer,
    tmp_path: Path,
) -> None:
    data_dir = tmp_path / "data"
    async with connect(with_model(server_args(bee_web), clarifying), data_dir) as session:
        asked = await session.call_tool("research", {"question": QUESTION, "depth": "quick"})
        assert not asked.is_error, text_of(asked)
        run_id = asked.structured_content["run_id"]
        assert asked.structured_content["status"] == "awaiting_input"
        assert asked.structured_content["request"]["question"] == ASKED
        assert ASKED in text_of(asked) and "reply tool" in text_of(asked)
        # the run waits as a CLI run waits: recorded, checkpointed, answerable either way
        assert (await asyncio.to_thread(runs_listed, data_dir))[run_id] == "awaiting_input"
        (row,) = (await session.call_tool("list_runs", {})).structured_content["runs"]
        assert row["status"] == "awaiting_input" and row["request"]["question"] == ASKED
        shown = await session.call_tool("get_report", {"run_id": run_id, "format": "pdf"})
        assert shown.structured_content["status"] == "awaiting_input"

        for arguments, says in (
            ({"run_id": run_id, "answer": " \x07 "}, "the answer is empty"),
            ({"run_id": run_id, "action": "approve"}, "answer it with text"),
            ({"run_id": run_id}, "give either answer"),
            ({"run_id": "run-000000000000", "answer": "x"}, "no run 'run-000000000000'"),
        ):
            refused = await session.call_tool("reply", arguments)
            assert refused.is_error and says in text_of(refused), text_of(refused)
            assert "Traceback" not in text_of(refused)
        # the wrong kind of reply: the hint is in the tool's arguments, not the API's JSON
        wrong = text_of(await session.call_tool("reply", {"run_id": run_id, "action": "approve"}))
        assert "call reply with answer (text)" in wrong and '{"answer"' not in wrong
        assert (await asyncio.to_thread(runs_listed, data_dir))[run_id] == "awaiting_input"

        progress: list[float] = []

        async def on_progress(value: float, total: float | None, message: str | None) -> None:
            progress.append(value)

        prompts = len(clarifying.prompts)
        done = await session.call_tool(
            "reply", {"run_id": run_id, "answer": ANSWER}, progress_callback=on_progress
        )
        assert not done.is_error, text_of(done)
        assert done.structured_content == {
            "run_id": run_id,
            "status": "completed",
            "kind": "synthesized",
        }
        assert "waggle dance" in text_of(done)
        assert progress == sorted(set(progress)) and progress[-1] == 100
        later = clarifying.prompts[prompts:]
        assert later and not any(p.startswith(INTAKE) for p in later)  # the same run went on
        late = await session.call_tool("reply", {"run_id": run_id, "answer": ANSWER})
        assert late.is_error and "not waiting for input" in text_of(late)

        before = pages(bee_web)
        followed = await session.call_tool(
            "follow_up", {"run_id": run_id, "question": FOLLOW, "no_clarify": True}
        )
        assert not followed.is_error, text_of(followed)
        second = followed.structured_content["run_id"]
        assert followed.structured_content["status"] == "completed"
        fetched = pages(bee_web)[len(before) :]
        assert not set(fetched) & set(before), f"pages read again: {fetched}"
        report = json.loads(
            text_of(await session.call_tool("get_report", {"run_id": second, "format": "json"}))
        )
        assert report["followup"]["root"] == run_id and report["followup"]["reused_sources"] > 0

    listed = await asyncio.to_thread(runs_listed, data_dir)
    assert (listed[run_id], listed[second]) == ("complete", "complete")


async def test_a_plan_under_review_is_edited_or_cancelled_over_stdio(
    bee_web: OfflineWeb, tmp_path: Path
) -> None:
    data_dir = tmp_path / "data"
    async with connect(server_args(bee_web), data_dir) as session:  # model none
        shown = await session.call_tool(
            "research", {"question": QUESTION, "depth": "quick", "review_plan": True}
        )
        run_id = shown.structured_content["run_id"]
        request = shown.structured_content["request"]
        assert shown.structured_content["status"] == "awaiting_input"
        assert request["kind"] == "plan" and request["sub_questions"]
        assert '"action": "approve"' in text_of(shown) and "Sub-questions:" in text_of(shown)
        # seed 004: the plan's scope, evidence strategy and output format are shown too
        for shown_line in ("Scope: ", "Evidence strategy: ", "Output format: "):
            assert shown_line in text_of(shown)

        too_many = [f"Question number {i}?" for i in range(9)]
        refused = await session.call_tool(
            "reply", {"run_id": run_id, "action": "edit", "sub_questions": too_many}
        )
        assert refused.is_error and "1 to 8 sub-questions" in text_of(refused)

        edited = ["How do honey bees pollinate almonds?", "What is the waggle dance?"]
        queries = len(bee_web.search_queries())
        done = await session.call_tool(
            "reply",
            {"run_id": run_id, "action": "edit", "sub_questions": edited},
        )
        assert not done.is_error, text_of(done)
        assert done.structured_content["status"] == "completed"
        # what is searched is what the reply wrote (the edited plan's own queries)
        searched = bee_web.search_queries()[queries:]
        assert set(edited) <= set(searched), searched
        planned = {item["text"] for item in request["sub_questions"]}
        assert not planned & set(searched), searched

        other = await session.call_tool(
            "research", {"question": QUESTION, "depth": "quick", "review_plan": True}
        )
        other_id = other.structured_content["run_id"]
        cancelled = await session.call_tool("reply", {"run_id": other_id, "action": "cancel"})
        assert cancelled.structured_content == {"run_id": other_id, "status": "cancelled"}
        runs = (await session.call_tool("list_runs", {})).structured_content["runs"]
        assert {r["run_id"]: r["status"] for r in runs} == {
            run_id: "completed",
            other_id: "cancelled",
        }
        again = await session.call_tool("reply", {"run_id": other_id, "action": "approve"})
        assert again.is_error and "not waiting for input" in text_of(again)
    assert (await asyncio.to_thread(runs_listed, data_dir))[other_id] == "cancelled"


async def test_a_report_under_review_is_edited_and_its_edit_audited_over_stdio(
    bee_web: OfflineWeb,
    chat_server: ChatServer,  # noqa: F811
    tmp_path: Path,
) -> None:
    """Issue 28: ``review_report`` shows the finished report's sentences; a bad edit is a
    tool error and the run keeps waiting; an edit its citations do not support is audited
    away, as the writer's would be."""
    unsupported = "Honey bees were first domesticated on the Moon in 1999 by 4000 astronauts."
    data_dir = tmp_path / "data"
    async with connect(with_model(server_args(bee_web), chat_server), data_dir) as session:
        shown = await session.call_tool(
            "research", {"question": QUESTION, "depth": "quick", "review_report": True}
        )
        assert not shown.is_error, text_of(shown)
        run_id = shown.structured_content["run_id"]
        request = shown.structured_content["request"]
        assert shown.structured_content["status"] == "awaiting_input"
        assert request["kind"] == "report" and request["sentences"] and request["rewrite"]
        assert '"action": "edit"' in text_of(shown) and '"action": "feedback"' in text_of(shown)
        first = request["sentences"][0]
        assert f"{first['id']} (" in text_of(shown)

        refused = await session.call_tool(
            "reply", {"run_id": run_id, "action": "edit", "sentences": {"s999": "x"}}
        )
        assert refused.is_error and "no sentence has the id 's999'" in text_of(refused)
        done = await session.call_tool(
            "reply",
            {"run_id": run_id, "action": "edit", "sentences": {first["id"]: unsupported}},
        )
        assert not done.is_error, text_of(done)
        assert done.structured_content["status"] == "completed"
        assert unsupported not in text_of(done)
        assert "review edited 1 sentence(s)" in text_of(done)
