"""``deepresearch mcp`` as an MCP client starts it: a subprocess on stdin/stdout, driven
with the SDK's own client (``stdio_client`` and ``ClientSession``)."""

from __future__ import annotations

import asyncio
import base64
import json
import os
import subprocess
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.types import EmbeddedResource, TextContent

from deepresearch.testing.web import OfflineWeb

from ..export.conftest import QUESTION
from ..export.reading import docx_text, odt_text, pdf_links, pdf_text
from ..export.test_cli_export import offline

Progress = list[tuple[float, float | None, str | None]]


def server_args(web: OfflineWeb, *extra: str) -> list[str]:
    return ["-m", "deepresearch.cli.app", "mcp", *offline(web), *extra]


@asynccontextmanager
async def connect(args: list[str], data_dir: Path) -> AsyncIterator[ClientSession]:
    env = {"DEEPRESEARCH_DATA_DIR": str(data_dir), "DEEPRESEARCH_FETCH_MIN_INTERVAL_S": "0"}
    params = StdioServerParameters(command=sys.executable, args=args, env=env)
    with (data_dir.parent / "server-stderr.log").open("w") as errlog:
        async with (
            stdio_client(params, errlog=errlog) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            yield session


def text_of(result: object) -> str:
    content = result.content  # type: ignore[attr-defined]
    assert isinstance(content[0], TextContent)
    return content[0].text


async def test_research_over_stdio_with_progress_then_the_report_in_every_format(
    bee_web: OfflineWeb, tmp_path: Path
) -> None:
    data_dir = tmp_path / "data"
    async with connect(server_args(bee_web), data_dir) as session:
        tools = {tool.name: tool for tool in (await session.list_tools()).tools}
        assert set(tools) == {
            "research",
            "reply",
            "follow_up",
            "get_report",
            "list_runs",
            "search_library",
            "add_watch",
            "list_watches",
            "watch_report",
            "remove_watch",
        }
        schema = tools["research"].input_schema
        assert schema["required"] == ["question"]
        assert set(schema["properties"]) == {
            "question",
            "depth",
            "no_clarify",
            "review_plan",
            "review_findings",
            "review_report",
            "use_library",
            "images",
            "presearch",
        }

        progress: Progress = []

        async def on_progress(value: float, total: float | None, message: str | None) -> None:
            progress.append((value, total, message))

        result = await session.call_tool(
            "research", {"question": QUESTION, "depth": "quick"}, progress_callback=on_progress
        )
        assert not result.is_error, text_of(result)
        run_id, kind = result.structured_content["run_id"], result.structured_content["kind"]
        markdown = text_of(result)
        assert markdown.startswith("# ") and f"Run {run_id}" in markdown
        assert "Honey bees communicate the direction of flowers with the waggle dance" in markdown

        # progress: strictly growing, out of 100, ending at 100, naming stage and findings
        values = [value for value, _, _ in progress]
        assert len(values) >= 8 and values == sorted(set(values)) and values[-1] == 100
        assert all(total == 100 for _, total, _ in progress)
        messages = [message or "" for _, _, message in progress]
        assert any(m.startswith("[research, wave 1]") for m in messages)
        assert any("2 sources read" in m or "3 sources read" in m for m in messages)
        assert messages[-1].startswith("[done]") and run_id in messages[-1]

        runs = (await session.call_tool("list_runs", {})).structured_content["runs"]
        assert [(r["run_id"], r["recipe"], r["status"], r["question"]) for r in runs] == [
            (run_id, "research", "completed", QUESTION)
        ]

        again = await session.call_tool("get_report", {"run_id": run_id})
        assert text_of(again) == markdown
        found = await session.call_tool(
            "search_library", {"query": "waggle dance", "kind": "quote"}
        )
        hits = found.structured_content["results"]
        assert hits and all(h["run"]["run_id"] == run_id and h["source"]["url"] for h in hits)
        empty_query = await session.call_tool("search_library", {"query": "  "})
        assert empty_query.is_error and "empty" in text_of(empty_query)
        pdf = await session.call_tool("get_report", {"run_id": run_id, "format": "pdf"})
        (block,) = pdf.content
        assert isinstance(block, EmbeddedResource)
        assert block.resource.mime_type == "application/pdf"
        data = base64.b64decode(block.resource.blob)
        assert "waggle dance" in pdf_text(data)
        assert pdf_links(data) and all(u.startswith(bee_web.base_url) for u in pdf_links(data))
        docx = await session.call_tool("get_report", {"run_id": run_id, "format": "docx"})
        assert "waggle dance" in docx_text(base64.b64decode(docx.content[0].resource.blob))
        odt = await session.call_tool("get_report", {"run_id": run_id, "format": "odt"})
        (block,) = odt.content
        assert isinstance(block, EmbeddedResource)
        assert str(block.resource.uri) == f"deepresearch://runs/{run_id}/report.odt"
        assert "waggle dance" in odt_text(base64.b64decode(block.resource.blob))
        # the cited sources as a bibliography, as text
        ris = await session.call_tool("get_report", {"run_id": run_id, "format": "ris"})
        assert text_of(ris).startswith("TY  - ELEC\n")

        # mistakes are tool errors that say what to do, never tracebacks
        missing = await session.call_tool("get_report", {"run_id": "run-000000000000"})
        assert missing.is_error and "no run 'run-000000000000'" in text_of(missing)
        empty = await session.call_tool("research", {"question": " \x1b[2J \x07 "})
        assert empty.is_error and "the question is empty" in text_of(empty)
        # the rules of every front end: one question limit, one run-id rule
        long = await session.call_tool("research", {"question": "Why? " * 1000})
        assert long.is_error and "the limit is 4,000" in text_of(long)
        not_an_id = await session.call_tool("get_report", {"run_id": "../runs/x"})
        assert not_an_id.is_error and "is not a run id" in text_of(not_an_id)
        for result in (missing, empty, long, not_an_id):
            assert "Traceback" not in text_of(result)
        assert len((await session.call_tool("list_runs", {})).structured_content["runs"]) == 1

    # the run is the CLI's too: same data folder, same record, same report
    def deepresearch(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "deepresearch.cli.app", *args],
            capture_output=True,
            text=True,
            env={**os.environ, "DEEPRESEARCH_DATA_DIR": str(data_dir)},
            check=False,
        )

    shown = await asyncio.to_thread(deepresearch, "report", run_id)
    assert shown.returncode == 0 and shown.stdout == markdown
    listed = await asyncio.to_thread(deepresearch, "runs", "list", "--json")
    (row,) = [json.loads(line) for line in listed.stdout.splitlines()]
    assert (row["run_id"], row["status"], row["kind"]) == (run_id, "complete", kind)
    assert row["question"] == QUESTION and kind == "extractive"  # model none


async def test_a_run_that_cannot_start_is_a_plain_tool_error(
    bee_web: OfflineWeb, tmp_path: Path
) -> None:
    args = server_args(bee_web)
    args[args.index("none")] = "openai:gpt-4.1-mini"  # and no OPENAI_API_KEY
    async with connect(args, tmp_path / "data") as session:
        result = await session.call_tool("research", {"question": QUESTION})
    assert result.is_error
    text = text_of(result)
    assert "OPENAI_API_KEY" in text and "hint:" in text and "Traceback" not in text
