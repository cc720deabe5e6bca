"""Adding a watch takes the same options in every front end (``WATCH_ADD_OPTIONS``: the
CLI, Python, MCP and the API's body), with the same rules: Python and MCP took neither a
thread, a webhook nor a depth before (issue 25); a refused one stores nothing."""

from __future__ import annotations

import inspect
from pathlib import Path

import pytest
import typer
from mcp import Client

from deepresearch import watches
from deepresearch.cli.watch import watch as watch_cli
from deepresearch.errors import InvalidInput
from deepresearch.mcp.local import LocalBackend
from deepresearch.mcp.server import build_server
from deepresearch.models.event_payloads import RunCompleted
from deepresearch.models.library import LOCAL_OWNER
from deepresearch.models.watch import WATCH_ADD_OPTIONS
from deepresearch.service.db import open_database
from deepresearch.service.schemas import RunOptions
from deepresearch.service.store import JobStore
from deepresearch.service.watch_routes import WatchRequest
from deepresearch.settings import Settings, load_settings

from .service.helpers import queue_job

HOOK = "http://127.0.0.1:9/hook"  # loopback: allowed, and never called here


def test_every_front_end_takes_the_same_options() -> None:
    expected = set(WATCH_ADD_OPTIONS)
    python = set(inspect.signature(watches.add).parameters) - {"question", "settings", "data_dir"}
    command = typer.main.get_command(watch_cli).commands["add"]  # type: ignore[attr-defined]
    cli = {p.name for p in command.params} - {"question", "key", "database_url"}
    api = set(WatchRequest.model_fields) - {"question", "options"}
    assert python == cli == expected
    assert api | {"depth"} == expected and "depth" in RunOptions.model_fields


async def test_mcp_takes_the_same_options(tmp_path: Path) -> None:
    async with Client(build_server(LocalBackend(load_settings(data_dir=tmp_path)))) as client:
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
    schema = tools["add_watch"].input_schema["properties"]
    assert set(schema) - {"question"} == set(WATCH_ADD_OPTIONS)


def _finished_job(settings: Settings, owner: str = LOCAL_OWNER) -> str:
    store = JobStore(open_database(settings))
    try:
        job = queue_job(store, "What is new in CPython?", owner=owner).job
        store.claim("w1", lease_s=30)
        counts = RunCompleted(
            kind="report", sources=0, evidence=0, fetches=0, input_tokens=0, output_tokens=0
        )
        store.finish(job.id, "w1", "COMPLETED", message="done", ttl_s=3600, completed=counts)
        return job.id
    finally:
        store.engine.dispose()


def test_python_adds_a_thread_a_webhook_and_a_depth(tmp_path: Path) -> None:
    settings = load_settings(data_dir=tmp_path)
    finished = _finished_job(settings)
    others = _finished_job(settings, owner="key-b")
    q = "What is new in CPython?"
    with pytest.raises(InvalidInput, match="no finished job"):
        watches.add(q, every="1d", thread=others, settings=settings)  # another owner's
    with pytest.raises(InvalidInput, match="private"):
        watches.add(q, every="1d", webhook="https://192.168.1.1/in", settings=settings)
    with pytest.raises(InvalidInput, match="depth"):
        watches.add(q, every="1d", depth="bottomless", settings=settings)  # type: ignore[arg-type]
    assert watches.list_watches(settings=settings) == []  # nothing stored half-way

    added = watches.add(
        q, every="1d", depth="quick", thread=finished, webhook=HOOK, settings=settings
    )
    assert (added.thread, added.webhook_url, added.options) == (
        finished,
        HOOK,
        {"depth": "quick"},
    )
    assert added.webhook_secret  # read it now: it is never shown again
    [listed] = watches.list_watches(settings=settings)
    assert listed.thread == finished and listed.webhook_url == HOOK


async def test_mcp_adds_them_and_shows_the_signing_secret_once(tmp_path: Path) -> None:
    settings = load_settings(data_dir=tmp_path)
    finished = _finished_job(settings)
    args = {"question": "Is the sky blue?", "every": "1d"}
    async with Client(build_server(LocalBackend(settings))) as client:
        refused = await client.call_tool("add_watch", {**args, "thread": "run-nope"})
        assert refused.is_error
        added = await client.call_tool(
            "add_watch", {**args, "depth": "deep", "thread": finished, "webhook": HOOK}
        )
        assert not added.is_error
        assert added.structured_content["signing_secret"]
        listed = await client.call_tool("list_watches", {})
        assert "signing_secret" not in listed.structured_content["watches"][0]
    [stored] = watches.list_watches(settings=settings)
    assert (stored.thread, stored.webhook_url, stored.options) == (
        finished,
        HOOK,
        {"depth": "deep"},
    )
