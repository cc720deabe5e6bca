"""The MCP watch tools over stdio's backend (issue 25): the local owner's watches, the
same as ``deepresearch watch`` and ``deepresearch.watches`` see, with the tools' refusals
as one-line tool errors. The key's watches over HTTP: ``test_http.py``."""

from __future__ import annotations

from pathlib import Path

from mcp import Client
from mcp.types import TextContent

from deepresearch import watches
from deepresearch.mcp.local import LocalBackend
from deepresearch.mcp.server import build_server
from deepresearch.settings import load_settings


def _text(result: object) -> str:
    block = result.content[0]  # type: ignore[attr-defined]
    assert isinstance(block, TextContent)
    return block.text


async def test_the_tools_work_on_the_local_owners_watches(tmp_path: Path) -> None:
    settings = load_settings(data_dir=tmp_path)
    async with Client(build_server(LocalBackend(settings))) as client:
        added = await client.call_tool(
            "add_watch", {"question": "Is the sky blue?", "cron": "0 7 * * *"}
        )
        assert not added.is_error, _text(added)
        watch_id = added.structured_content["id"]
        assert [w.id for w in watches.list_watches(settings=settings)] == [watch_id]
        listed = await client.call_tool("list_watches", {})
        assert listed.structured_content["watches"][0]["state"] == "active"
        bad = await client.call_tool("add_watch", {"question": "q?", "cron": "* * * * * *"})
        assert bad.is_error and "\n" not in _text(bad)
        neither = await client.call_tool("add_watch", {"question": "q?"})
        assert neither.is_error
        unknown = await client.call_tool("watch_report", {"watch_id": "watch-nope"})
        assert unknown.is_error and "no watch 'watch-nope'" in _text(unknown)
        removed = await client.call_tool("remove_watch", {"watch_id": watch_id})
        assert not removed.is_error
    assert watches.list_watches(settings=settings) == []
