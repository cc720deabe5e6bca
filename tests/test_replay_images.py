"""A run's figures on its tape (issue 26): each image fetch is recorded (the bytes or the
error, keyed by address) and a replay answers from the recording only; a recording made
before figures were kept (its settings have no ``images``) replays without them."""

from __future__ import annotations

from pathlib import Path

import pytest

from deepresearch.errors import FetchBlocked
from deepresearch.fetch.base import FetchedPage
from deepresearch.replay.ports import Player, Recorder, ReplayMiss
from deepresearch.replay.tape import Tape

PNG = b"\x89PNG\r\n\x1a\nfake"


class Images:
    async def fetch_image(self, url: str, *, max_bytes: int) -> FetchedPage:
        if url.endswith(".svg"):
            raise FetchBlocked("refused: SVG images are not embedded")
        return FetchedPage(
            url=url, final_url=url, status=200, content_type="image/png", content=PNG
        )


async def test_an_image_fetch_is_recorded_and_replayed_from_the_tape_only(tmp_path: Path) -> None:
    tape = Tape(tmp_path / "rec")
    tape.write_manifest({"settings": {"images": True}})
    recording = Recorder(tape).images(Images())
    assert recording is not None
    page = await recording.fetch_image("https://a.example/x.png", max_bytes=10)
    with pytest.raises(FetchBlocked):
        await recording.fetch_image("https://a.example/x.svg", max_bytes=10)

    replay = Player(Tape(tmp_path / "rec")).images(None)
    assert replay is not None
    assert await replay.fetch_image("https://a.example/x.png", max_bytes=10) == page
    with pytest.raises(FetchBlocked, match="SVG"):
        await replay.fetch_image("https://a.example/x.svg", max_bytes=10)
    with pytest.raises(ReplayMiss):
        await replay.fetch_image("https://a.example/other.png", max_bytes=10)


def test_a_recording_from_before_figures_replays_without_them(tmp_path: Path) -> None:
    tape = Tape(tmp_path / "old")
    tape.write_manifest({"settings": {"audit": "strict"}})
    assert Player(tape).images(None) is None
