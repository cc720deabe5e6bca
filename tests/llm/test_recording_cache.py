"""The recording's view of the response cache (issue 19): a reply the run stored itself
and later read back is not an answer from outside, so it is not put on the tape; a replay
stores it again and must make the call that stored it. A reply found in the cache from an
earlier run is taped, so the replay is served it without a call."""

from __future__ import annotations

from pathlib import Path

from deepresearch.llm import ResponseCache
from deepresearch.replay.ports import RecordingCache
from deepresearch.replay.tape import Tape


async def test_only_replies_from_before_the_run_are_taped(tmp_path: Path) -> None:
    inner = ResponseCache(":memory:")
    await inner.put("earlier", "from another run", model="m")
    tape = Tape(tmp_path / "tape")
    tape.write_manifest({})
    cache = RecordingCache(inner, tape)

    await cache.put("mine", "this run's reply", model="m")
    assert await cache.get("mine") == "this run's reply"
    assert await cache.get("earlier") == "from another run"
    assert await cache.get("missing") is None

    assert [entry["key"] for entry in tape.entries("cache")] == ["earlier"]
