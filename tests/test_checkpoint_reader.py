"""``checkpoints.SharedReader``: one checkpoint store connection for a process's reads (the
service's ``GET`` of a finished job lists its thread through it), opened at the first
read, kept, dropped after an error that is not ours, closed at the end."""

from __future__ import annotations

from pathlib import Path

import pytest

from deepresearch.checkpoints import SharedReader
from deepresearch.errors import InvalidInput
from deepresearch.recipes.registry import checkpoint_types
from deepresearch.recipes.research.threads import thread_turns
from deepresearch.settings import load_settings


async def test_reads_share_one_connection_until_an_error(tmp_path: Path) -> None:
    settings = load_settings(data_dir=tmp_path)
    reader = SharedReader(settings, checkpoint_types())
    try:
        async with reader.saver() as first:
            pass
        async with reader.saver() as again:
            assert again is first  # not opened again
        with pytest.raises(InvalidInput):  # ours: the connection stays
            async with reader.saver():
                raise InvalidInput("not a run id")
        async with reader.saver() as kept:
            assert kept is first
        with pytest.raises(OSError):  # the store's: dropped, the next read opens another
            async with reader.saver():
                raise OSError("connection lost")
        async with reader.saver() as fresh:
            assert fresh is not first
        # a thread read through it: no such run, no turns
        assert await thread_turns(settings, "run-000000000000", reader) == []
    finally:
        await reader.close()
    await reader.close()  # twice is harmless
