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


async def test_a_resumed_part_of_the_run_does_not_tape_what_its_first_part_stored(
    tmp_path: Path,
) -> None:
    """A run that paused for an answer (or crashed) goes on with a new RecordingCache on
    the same tape: a reply its first part stored is still its own, and its replay (one
    cache for every part) stores it again, so taping the hit would let the replay skip the
    call that stored it."""
    inner = ResponseCache(":memory:")
    tape = Tape(tmp_path / "tape")
    tape.write_manifest({})
    await RecordingCache(inner, tape).put("before the pause", "reply", model="m")

    resumed = RecordingCache(inner, tape)
    assert await resumed.get("before the pause") == "reply"
    await resumed.put("before the pause", "reply", model="m")  # noted once
    assert list(tape.entries("cache")) == []
    assert [entry["key"] for entry in tape.entries("stored")] == ["before the pause"]
