"""What the MCP tools declare (issue 27), checked against the server in-process through
the SDK's own client: bounds taken from their owners (the question's length from
``core.sanitize``, the listing's limit from ``service.schemas``, as the API's), an output
schema for every tool that the results match, the MCP spec's annotations, and
``research``'s ``review_findings``, whose findings pause reads as the others do."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from mcp import Client

from deepresearch.core.sanitize import MAX_QUESTION_CHARS
from deepresearch.mcp.outcomes import Finished, Outcome, Waiting
from deepresearch.mcp.server import RunInfo, RunResult, build_server
from deepresearch.models.pause import FindingItem, InputRequest
from deepresearch.service.schemas import MAX_LIST_LIMIT, InputReply

FINDINGS = InputRequest(
    run_id="run-0123456789ab",
    id="pause-1",
    kind="findings",
    findings=[
        FindingItem(
            id="q1-e1",
            claim="Bees dance.",
            quote="Honey bees dance to say where flowers are.",
            source_url="http://127.0.0.1/bees",
        )
    ],
)


class Backend:
    """Records what the tools hand it; answers with a findings pause or a report."""

    def __init__(self) -> None:
        self.options: list[dict[str, Any]] = []
        self.limits: list[int] = []

    @property
    def pdf_fonts(self) -> Sequence[Path]:
        return ()

    async def research(
        self, ctx: Any, question: str, options: dict[str, Any], on_event: Any
    ) -> Outcome:
        self.options.append(options)
        if options.get("review_findings"):
            return Waiting(FINDINGS)
        return Finished("run-0123456789ab", "synthesized", "# Bees\n")

    async def reply(self, ctx: Any, run_id: str, body: InputReply, on_event: Any) -> Outcome:
        return Finished(run_id, "synthesized", "# Bees\n")

    async def follow_up(
        self, ctx: Any, run_id: str, question: str, options: dict[str, Any], on_event: Any
    ) -> Outcome:
        return Finished("run-ba9876543210", "synthesized", "# More bees\n")

    async def result(self, ctx: Any, run_id: str) -> RunResult | Waiting:
        return Waiting(FINDINGS)

    async def runs(self, ctx: Any, limit: int) -> list[RunInfo]:
        self.limits.append(limit)
        return []


async def test_every_tool_declares_its_bounds_output_and_annotations() -> None:
    async with Client(build_server(Backend())) as client:
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
    # they read stored runs or watches only; removing a watch stays in our store too
    readers = ("get_report", "list_runs", "search_library", "list_watches", "watch_report")
    closed = (*readers, "remove_watch")
    for name, tool in tools.items():
        assert tool.output_schema and tool.output_schema.get("properties"), name
        assert tool.annotations is not None, name
        assert tool.annotations.open_world_hint is (name not in closed)
        assert tool.annotations.read_only_hint is (name in readers)
    assert tools["reply"].annotations is not None and tools["reply"].annotations.idempotent_hint
    for name in ("research", "follow_up"):
        question = tools[name].input_schema["properties"]["question"]
        assert (question["minLength"], question["maxLength"]) == (1, MAX_QUESTION_CHARS)
    limit = tools["list_runs"].input_schema["properties"]["limit"]
    assert (limit["minimum"], limit["maximum"]) == (1, MAX_LIST_LIMIT)
    assert "review_findings" in tools["research"].input_schema["properties"]
    assert "review_report" in tools["research"].input_schema["properties"]
    reply = tools["reply"].input_schema["properties"]
    assert {"sentences", "feedback"} <= set(reply)
    outcome = tools["research"].output_schema["properties"]
    assert set(outcome) == {"run_id", "status", "kind", "request"}


async def test_the_listing_limit_is_bounded_by_the_schema() -> None:
    backend = Backend()
    async with Client(build_server(backend)) as client:
        for limit in (0, MAX_LIST_LIMIT + 1):
            refused = await client.call_tool("list_runs", {"limit": limit})
            assert refused.is_error
            assert "invalid arguments for list_runs: limit" in refused.content[0].text  # type: ignore[union-attr]
        listed = await client.call_tool("list_runs", {"limit": MAX_LIST_LIMIT})
        assert not listed.is_error and listed.structured_content == {"runs": []}
    assert backend.limits == [MAX_LIST_LIMIT]


async def test_research_asks_for_a_findings_review_when_told() -> None:
    backend = Backend()
    async with Client(build_server(backend)) as client:
        asked = await client.call_tool(
            "research", {"question": "How do bees talk?", "review_findings": True}
        )
        report = await client.call_tool("get_report", {"run_id": "run-0123456789ab"})
        plain = await client.call_tool("research", {"question": "How do bees talk?"})
    assert backend.options == [{"review_findings": True}, {}]
    assert not asked.is_error and asked.structured_content is not None
    assert asked.structured_content["status"] == "awaiting_input"
    assert asked.structured_content["request"]["findings"][0]["id"] == "q1-e1"
    text = asked.content[0].text  # type: ignore[union-attr]
    assert "verified findings" in text and '"action": "drop"' in text and "q1-e1" in text
    assert report.structured_content is not None
    assert report.structured_content["status"] == "awaiting_input"
    assert plain.structured_content == {
        "run_id": "run-0123456789ab",
        "status": "completed",
        "kind": "synthesized",
    }


async def test_research_reuses_the_library_unless_told_not_to() -> None:
    backend = Backend()
    async with Client(build_server(backend)) as client:
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
        schema = tools["research"].input_schema["properties"]["use_library"]
        assert schema["default"] is True
        await client.call_tool("research", {"question": "How do bees talk?", "use_library": False})
        await client.call_tool("research", {"question": "How do bees talk?", "use_library": True})
    assert backend.options == [{"use_library": False}, {}]


async def test_research_skips_the_presearch_when_told() -> None:
    """Issue 26: the pre-search can be turned off from MCP as from the CLI and the API;
    every option the tool passes on is a setting of the run's."""
    from deepresearch.settings import Settings

    backend = Backend()
    async with Client(build_server(backend)) as client:
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
        await client.call_tool("research", {"question": "How do bees talk?", "presearch": False})
    assert backend.options == [{"presearch": False}]
    passed_on = set(tools["research"].input_schema["properties"]) - {"question"}
    assert passed_on <= set(Settings.model_fields)
