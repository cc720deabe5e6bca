"""An MCP research call never stops to ask back: a run whose intake model wants to ask a
clarifying question researches the question as given (one tool call could not answer,
and a waiting run would hold the call open until it expired)."""

from __future__ import annotations

import json
from pathlib import Path

from langchain_core.messages import BaseMessage
from mcp import Client

from deepresearch.mcp.local import LocalBackend
from deepresearch.mcp.server import build_server
from deepresearch.settings import ROLES, load_settings
from deepresearch.stages import intake
from deepresearch.testing.research_script import research_script
from deepresearch.testing.scripted import ScriptedChatModel
from deepresearch.testing.web import OfflineWeb


async def test_research_over_mcp_never_waits_for_an_answer(
    bee_web: OfflineWeb, tmp_path: Path
) -> None:
    research = research_script()
    asked: list[str] = []

    def reply(messages: list[BaseMessage]) -> str:
        if str(messages[0].content).startswith(intake.SYSTEM.splitlines()[0]):
            asked.append("intake")
            return json.dumps({"intent": "clarify", "reply": "Which bees: honey or bumble?"})
        return research(messages)

    model = ScriptedChatModel(reply)
    flags = {
        "search": "searxng",
        "searxng_url": bee_web.base_url,
        "allow_hosts": [bee_web.base_url.removeprefix("http://")],
        "min_domains": 1,
        "min_evidence": 1,
        "data_dir": tmp_path / "data",
        "fetch_min_interval_s": 0,
    }
    backend = LocalBackend(
        load_settings(**flags), record_options=flags, models=dict.fromkeys(ROLES, model)
    )
    async with Client(build_server(backend)) as client:  # the SDK's client, in-process
        result = await client.call_tool("research", {"question": "How do honey bees communicate?"})
    assert not result.is_error, result
    structured = result.structured_content or {}
    assert structured.get("kind") in ("synthesized", "extractive"), structured
    assert asked == ["intake"]  # the model wanted to ask; the run researched instead
