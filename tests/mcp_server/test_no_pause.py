"""Whether an MCP research call may stop to ask back: a run whose intake model wants to ask
a clarifying question waits for ``reply`` by default, researches the question as given
with the tool's ``no_clarify``, and follows the server's own ``--no-clarify`` when the call
does not say (driven in-process with the SDK's client)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from langchain_core.messages import BaseMessage
from mcp import Client

from deepresearch.mcp.local import LocalBackend
from deepresearch.mcp.server import build_server
from deepresearch.recipes.research.stages import intake
from deepresearch.settings import load_settings
from deepresearch.settings_values import ROLES
from deepresearch.testing.research_script import research_script
from deepresearch.testing.scripted import ScriptedChatModel
from deepresearch.testing.web import OfflineWeb

QUESTION = "How do honey bees communicate?"


async def test_a_run_asks_back_unless_the_call_or_the_server_says_no_clarify(
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
    flags: dict[str, Any] = {
        "search": "searxng",
        "searxng_url": bee_web.base_url,
        "allow_hosts": [bee_web.base_url.removeprefix("http://")],
        "min_domains": 1,
        "min_evidence": 1,
        "data_dir": tmp_path / "data",
        "fetch_min_interval_s": 0,
    }

    async def status(server_flags: dict[str, Any], arguments: dict[str, Any]) -> str:
        backend = LocalBackend(
            load_settings(**server_flags),
            record_options=server_flags,
            models=dict.fromkeys(ROLES, model),
        )
        async with Client(build_server(backend)) as client:  # the SDK's client, in-process
            result = await client.call_tool("research", {"question": QUESTION, **arguments})
        assert not result.is_error, result
        return str((result.structured_content or {})["status"])

    assert await status(flags, {}) == "awaiting_input"
    assert await status(flags, {"no_clarify": False}) == "awaiting_input"
    assert await status(flags, {"no_clarify": True}) == "completed"
    server_says_no = {**flags, "no_clarify": True}  # deepresearch mcp --no-clarify
    assert await status(server_says_no, {}) == "completed"
    assert await status(server_says_no, {"no_clarify": False}) == "awaiting_input"
    assert asked  # the model wanted to ask (once: later runs read its answer from the cache)
