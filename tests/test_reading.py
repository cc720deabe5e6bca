"""The reader shares a page's read between the research units that want it (``reading``):
a unit cut at its time limit does not cancel a read another unit still waits for, and a
read nobody waits for any more stops, to be read afresh by a later unit."""

from __future__ import annotations

import asyncio

import pytest

from deepresearch.context import RunContext
from deepresearch.errors import FetchError
from deepresearch.events import EventBus
from deepresearch.fetch.base import FetchedPage
from deepresearch.llm.gateway import Gateway
from deepresearch.models import SearchHit
from deepresearch.reading import SourceReader
from deepresearch.settings import load_settings
from deepresearch.settings_groups import SettingsGroups
from deepresearch.testing.static_search import StaticSearch

HIT = SearchHit(
    url="https://a.example/page", title="A page", snippet="About tide mills.", provider="static"
)


class HeldFetcher:
    """Holds each fetch until the test releases it, then answers with a failure (so
    nothing is extracted)."""

    def __init__(self) -> None:
        self.began = asyncio.Event()
        self.release = asyncio.Event()
        self.started = 0
        self.finished = 0

    async def fetch(self, url: str) -> FetchedPage:
        self.started += 1
        self.began.set()
        await self.release.wait()
        self.finished += 1
        raise FetchError("the page is gone")


def reader(fetcher: HeldFetcher) -> SourceReader:
    settings = load_settings(model="none", search="none")
    ctx = RunContext(
        groups=SettingsGroups.of(settings),
        gateway=Gateway({}, model_names={}, timeout_s=1.0, max_retries=0),
        search=StaticSearch([]),
        fetcher=fetcher,
        bus=EventBus("test", []),
    )
    out = SourceReader(ctx, {})
    out.provenance.add_hits([HIT])
    return out


async def test_a_unit_cut_while_another_waits_for_the_same_page_does_not_cancel_its_read() -> None:
    fetcher = HeldFetcher()
    shared = reader(fetcher)
    cut = asyncio.create_task(shared.read(HIT))
    waiting = asyncio.create_task(shared.read(HIT))
    await fetcher.began.wait()
    cut.cancel()
    with pytest.raises(asyncio.CancelledError):
        await cut
    fetcher.release.set()
    reading = await waiting
    assert reading.source.url == HIT.url and not reading.source.fetched
    assert (fetcher.started, fetcher.finished) == (1, 1)


async def test_a_read_whose_only_unit_was_cut_stops_and_is_read_afresh_later() -> None:
    fetcher = HeldFetcher()
    shared = reader(fetcher)
    cut = asyncio.create_task(shared.read(HIT))
    await fetcher.began.wait()
    cut.cancel()
    with pytest.raises(asyncio.CancelledError):
        await cut
    fetcher.release.set()
    for _ in range(5):  # a read left running would finish now
        await asyncio.sleep(0)
    assert (fetcher.started, fetcher.finished) == (1, 0)  # stopped, not left running
    reading = await shared.read(HIT)
    assert reading.source.url == HIT.url
    assert (fetcher.started, fetcher.finished) == (2, 1)
