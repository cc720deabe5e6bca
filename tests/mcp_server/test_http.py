"""The MCP endpoint of ``deepresearch serve`` (the app on a loopback port), driven with the
SDK's own client (``streamable_http_client`` and ``ClientSession``): the same API keys as
/v1, each key's runs its own, research through the job queue and its limits."""

from __future__ import annotations

import asyncio
import base64
import re
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any

import httpx
import httpx2
import pytest
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.types import TextContent

from deepresearch.service.app import create_app
from deepresearch.service.db import open_database
from deepresearch.service.keys import create_key
from deepresearch.service.server import BackgroundServer
from deepresearch.service.store import JobStore
from deepresearch.settings import load_settings
from deepresearch.testing.web import OfflineWeb

from ..export.conftest import QUESTION, run_options
from ..export.reading import pdf_text

TOOLS = {
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
MCP_DOC = (Path(__file__).resolve().parents[2] / "docs" / "mcp.md").read_text()
ACCEPT = {"Accept": "application/json, text/event-stream"}
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "raw", "version": "0"},
    },
}


@contextmanager
def serving(
    web: OfflineWeb, tmp_path: Path, key_limits: tuple[int, ...] = (), **extra: Any
) -> Iterator[tuple[str, list[str]]]:
    """The service app on a loopback port, with one API key per entry of ``key_limits``
    (its active-run limit); yields its URL and the keys' tokens."""
    settings = load_settings(
        **run_options(web, tmp_path / "data"),
        database_url=f"sqlite:///{tmp_path / 'jobs.db'}",
        **extra,
    )
    engine = open_database(settings)
    store = JobStore(engine)
    tokens = [create_key(store, f"key{i}", max_active_runs=n)[1] for i, n in enumerate(key_limits)]
    try:
        with BackgroundServer(create_app(settings, engine=engine)) as server:
            yield server.url, tokens
    finally:
        engine.dispose()


@asynccontextmanager
async def served(
    web: OfflineWeb, tmp_path: Path, key_limits: tuple[int, ...] = (), **extra: Any
) -> AsyncIterator[tuple[str, list[str], httpx.AsyncClient]]:
    """``serving``, with a plain HTTP client for the requests the MCP client would not send."""
    with serving(web, tmp_path, key_limits, **extra) as (url, tokens):
        async with httpx.AsyncClient(base_url=url, timeout=60) as raw:
            yield url, tokens, raw


@asynccontextmanager
async def session(url: str, token: str | None) -> AsyncIterator[ClientSession]:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    async with (
        httpx2.AsyncClient(headers=headers, timeout=120) as http,
        streamable_http_client(f"{url}/mcp", http_client=http) as (read, write),
        ClientSession(read, write) as client,
    ):
        await client.initialize()
        yield client


def text_of(result: Any) -> str:
    block = result.content[0]
    assert isinstance(block, TextContent)
    return block.text


async def test_the_endpoint_takes_the_same_keys_and_keeps_each_keys_runs_apart(
    bee_web: OfflineWeb, tmp_path: Path
) -> None:
    async with served(bee_web, tmp_path, key_limits=(1, 1)) as (url, (alice, bob), raw):
        # no key, or a wrong one: the API's 401 problem, before any MCP handling
        for headers in ({}, {"Authorization": "Bearer dr_not-a-key"}):
            refused = await raw.post("/mcp", json=INITIALIZE, headers={**ACCEPT, **headers})
            assert refused.status_code == 401
            assert refused.headers["content-type"] == "application/problem+json"
            assert refused.headers["www-authenticate"].startswith("Bearer")

        progress: list[float] = []

        async def on_progress(value: float, total: float | None, message: str | None) -> None:
            progress.append(value)

        async with session(url, alice) as client:
            assert {t.name for t in (await client.list_tools()).tools} == TOOLS
            result = await client.call_tool(
                "research", {"question": QUESTION}, progress_callback=on_progress
            )
            assert not result.is_error, text_of(result)
            run_id = result.structured_content["run_id"]
            assert "waggle dance" in text_of(result)
            assert progress == sorted(set(progress)) and progress[-1] == 100 and len(progress) > 5
            runs = (await client.call_tool("list_runs", {})).structured_content["runs"]
            assert [(r["run_id"], r["status"]) for r in runs] == [(run_id, "completed")]
            pdf = await client.call_tool("get_report", {"run_id": run_id, "format": "pdf"})
            assert "waggle dance" in pdf_text(base64.b64decode(pdf.content[0].resource.blob))
            # the finished run is in alice's library
            found = await client.call_tool("search_library", {"query": "waggle dance"})
            hits = found.structured_content["results"]
            assert hits and {hit["run"]["run_id"] for hit in hits} == {run_id}

        # the run is a job of the service: the same key sees it over /v1 too
        job = await raw.get(f"/v1/research/{run_id}", headers={"Authorization": f"Bearer {alice}"})
        assert job.status_code == 200 and job.json()["status"] == "COMPLETED"
        # evaluated over /v1 afterwards: get_report shows it, as the API's report does
        evaluated = await raw.post(
            f"/v1/research/{run_id}/eval", headers={"Authorization": f"Bearer {alice}"}
        )
        assert evaluated.status_code == 200, evaluated.text
        async with session(url, alice) as client:
            report = await client.call_tool("get_report", {"run_id": run_id, "format": "md"})
            assert "## Evaluation" in text_of(report)
            assert "Citation precision 100%: 4 of 4 cited sentences" in text_of(report)

        async with session(url, bob) as client:
            assert (await client.call_tool("list_runs", {})).structured_content["runs"] == []
            theirs = await client.call_tool("search_library", {"query": "waggle dance"})
            assert theirs.structured_content["results"] == []  # alice's library is hers
            bad = await client.call_tool("search_library", {"query": "x" * 10_000})
            assert bad.is_error and "longer than 500" in text_of(bad)
            other = await client.call_tool("get_report", {"run_id": run_id})
            assert other.is_error and f"no run '{run_id}'" in text_of(other)

        # an MCP session belongs to the key that opened it
        opened = await raw.post(
            "/mcp", json=INITIALIZE, headers={**ACCEPT, "Authorization": f"Bearer {alice}"}
        )
        assert opened.status_code == 200
        assert opened.headers["x-content-type-options"] == "nosniff"  # the API's headers
        session_id = opened.headers["mcp-session-id"]
        listing = {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}
        for token, status in ((bob, 404), (alice, 200)):
            reply = await raw.post(
                "/mcp",
                json=listing,
                headers={
                    **ACCEPT,
                    "Authorization": f"Bearer {token}",
                    "Mcp-Session-Id": session_id,
                    "Mcp-Protocol-Version": "2025-06-18",
                },
            )
            assert reply.status_code == status, reply.text


async def test_research_obeys_the_keys_limits(bee_web: OfflineWeb, tmp_path: Path) -> None:
    limits = {"key_limits": (1,), "submissions_per_window": 2}
    async with served(bee_web, tmp_path, **limits) as (url, tokens, raw):
        auth = {"Authorization": f"Bearer {tokens[0]}"}
        bee_web.page_delay_s = 1.5  # the first job stays running for a while
        try:
            submitted = await raw.post(
                "/v1/research", json={"question": "What do bees do?"}, headers=auth
            )
            first = submitted.json()
            async with session(url, tokens[0]) as client:
                busy = await client.call_tool("research", {"question": QUESTION})
                assert busy.is_error
                assert f"{first['id']} ('What do bees do?') is still running" in text_of(busy)
        finally:
            bee_web.page_delay_s = 0.0
        deadline = time.monotonic() + 120
        while (await raw.get(f"/v1/research/{first['id']}", headers=auth)).json()["status"] in (
            "QUEUED",
            "RUNNING",
        ):
            assert time.monotonic() < deadline
            await asyncio.sleep(0.2)
        # two submissions per window: the second goes through, a third is refused
        async with session(url, tokens[0]) as client:
            assert not (await client.call_tool("research", {"question": QUESTION})).is_error
            limited = await client.call_tool("research", {"question": QUESTION})
            assert limited.is_error and "at most 2 submissions per" in text_of(limited)


async def test_without_keys_only_loopback_hosts_are_served(
    bee_web: OfflineWeb, tmp_path: Path
) -> None:
    async with served(bee_web, tmp_path) as (url, _, raw):
        rebound = await raw.post(
            "/mcp", json=INITIALIZE, headers={**ACCEPT, "Host": "attacker.example:8000"}
        )
        assert rebound.status_code == 403
        assert "loopback" in rebound.json()["detail"]
        async with session(url, None) as client:
            assert {t.name for t in (await client.list_tools()).tools} == TOOLS


async def test_the_documented_python_client_works_as_written(
    bee_web: OfflineWeb, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (example,) = re.findall(r"```python\n(.*?)```", MCP_DOC, re.S)
    namespace: dict[str, Any] = {}
    exec(compile(example, "docs/mcp.md", "exec"), namespace)
    async with served(bee_web, tmp_path, key_limits=(1,)) as (url, (key,), _):
        report = await namespace["ask"](QUESTION, url=f"{url}/mcp", key=key)
    assert report.startswith("# ") and "waggle dance" in report
    printed = capsys.readouterr().out.splitlines()
    assert printed[-1].startswith("100.0% [done] Research finished")


async def test_each_keys_watches_are_its_own(bee_web: OfflineWeb, tmp_path: Path) -> None:
    async with served(bee_web, tmp_path, key_limits=(1, 1), run_workers=False) as (
        url,
        (alice, bob),
        _,
    ):
        async with session(url, alice) as client:
            added = await client.call_tool("add_watch", {"question": QUESTION, "every": "1d"})
            assert not added.is_error, text_of(added)
            watch_id = added.structured_content["id"]
            listed = (await client.call_tool("list_watches", {})).structured_content["watches"]
            assert [w["id"] for w in listed] == [watch_id]
            report = await client.call_tool("watch_report", {"watch_id": watch_id})
            assert report.structured_content["summary"] == "no change report yet"
        async with session(url, bob) as client:
            assert (await client.call_tool("list_watches", {})).structured_content == {
                "watches": []
            }
            for tool in ("watch_report", "remove_watch"):
                theirs = await client.call_tool(tool, {"watch_id": watch_id})
                assert theirs.is_error and f"no watch {watch_id!r}" in text_of(theirs)
            too_often = await client.call_tool("add_watch", {"question": "q?", "every": "1s"})
            assert too_often.is_error
        async with session(url, alice) as client:
            removed = await client.call_tool("remove_watch", {"watch_id": watch_id})
            assert removed.structured_content == {"removed": watch_id}
