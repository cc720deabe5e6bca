"""Reuse of the library (issue 25, done-when): from a fresh data folder, offline, a run over
a loopback web, then a related run that takes the first one's verified quotes from the
library and fetches none of the library's fresh pages (the server counts them), its
report marking them; then the page changes on the server, the freshness window has
passed (``library_fresh_days = 0``), and the changed quote is not reused, which the
report says. Every run here is also replayed byte for byte (``conftest.py``)."""

from __future__ import annotations

import io
import json
import re
import shutil
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pypdf
import pytest

from deepresearch.compose.replay import replay_run
from deepresearch.export.formats import render_bytes, render_text
from deepresearch.models import Report, RunEvent
from deepresearch.models.event_payloads import LibraryReused
from deepresearch.recipes.registry import get_recipe
from deepresearch.runner import run_recipe
from deepresearch.testing.corpus import CorpusDocument
from deepresearch.testing.web import OfflineWeb

from .helpers import offline_settings

CHANGED = "The toroidal field coils of a tokamak produce the main magnetic field"
TOKAMAK = (
    "A tokamak is a device that confines a hot plasma with strong magnetic fields in the "
    "shape of a torus. "
    f"{CHANGED} that holds the plasma away from the walls. "
    "A current driven through the plasma creates the poloidal field that twists the field "
    "lines and keeps the plasma stable. "
    "The first tokamaks were built in the Soviet Union in the 1950s and 1960s."
)
DOCS = [
    CorpusDocument(id="tokamak", title="Tokamak", text=TOKAMAK),
    CorpusDocument(
        id="stellarator",
        title="Stellarator",
        text="A stellarator confines plasma with twisted external coils instead of a plasma "
        "current. The Wendelstein 7-X stellarator in Germany began operation in 2015. "
        "Stellarators avoid the disruptions that a plasma current can cause in a tokamak.",
    ),
    CorpusDocument(
        id="iter",
        title="ITER",
        text="ITER is the largest tokamak under construction, in southern France. Its "
        "eighteen toroidal field coils are made of niobium-tin superconductor and weigh 360 "
        "tonnes each. ITER aims to produce 500 megawatts of fusion power.",
    ),
    CorpusDocument(id="bread", title="Bread", text="Bread is made from flour, water and yeast."),
]
FIRST = "How does a tokamak confine plasma?"
SECOND = "Which magnetic field coils does a tokamak use to hold the plasma?"


@pytest.fixture
def web() -> Iterator[OfflineWeb]:
    with OfflineWeb(DOCS) as served:  # its own: this test changes a page
        yield served


async def _run(
    settings: Any, question: str, run_id: str, owner: str | None = None
) -> tuple[Report, list[RunEvent]]:
    recipe = get_recipe("research")
    events: list[RunEvent] = []
    report = await run_recipe(
        recipe,
        recipe.request(question, {}),
        settings,
        run_id=run_id,
        sinks=[events.append],
        owner=owner,
    )
    assert isinstance(report, Report)
    return report, events


def _text_of(report: Report, fmt: str) -> str:
    """The words of a binary report (docx: its document part; pdf: its extracted text)."""
    data = render_bytes(get_recipe("research"), report, fmt)
    if fmt == "docx":
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            xml = archive.read("word/document.xml").decode("utf-8")
        return "".join(re.findall(r"<w:t[^>]*>([^<]*)</w:t>", xml))
    reader = pypdf.PdfReader(io.BytesIO(data))
    return " ".join(" ".join((page.extract_text() or "").split()) for page in reader.pages)


def _pages(web: OfflineWeb, since: int) -> list[str]:
    return [r.path for r in web.requests[since:] if r.path.startswith("/page/")]


def _reused(events: list[RunEvent]) -> LibraryReused | None:
    found = [e.data for e in events if isinstance(e.data, LibraryReused)]
    assert len(found) <= 1
    return found[0] if found else None


async def test_a_related_run_reuses_verified_quotes_and_a_changed_page_is_checked_again(
    web: OfflineWeb, tmp_path: Path
) -> None:
    settings = offline_settings(web, tmp_path, model="none", page_cache_ttl_s=0)
    first, events = await _run(settings, FIRST, "run-first")
    assert _reused(events) is None  # a fresh library offers nothing
    assert first.library is None
    kept = {item.source_url for item in first.evidence if item.verified}
    assert any(url.endswith("/page/tokamak") for url in kept)

    before = len(web.requests)
    second, events = await _run(settings, SECOND, "run-second")
    reused = _reused(events)
    assert reused is not None and reused.reused > 0 and reused.runs == ["run-first"]
    assert reused.refetched == 0 and reused.dropped == 0
    fetched = _pages(web, before)
    # no page the library holds was fetched again: its stored text was used
    assert not {f"/page/{url.rsplit('/', 1)[1]}" for url in kept} & set(fetched), fetched
    done = next(e.data for e in events if e.type == "run_completed")
    assert done.fetches == len(fetched)  # type: ignore[union-attr]
    from_library = {item.evidence_id for item in second.library.reused}  # type: ignore[union-attr]
    assert from_library & set(second.cited_evidence_ids())
    marked = [ref for ref in second.sources if ref.library_run == "run-first"]
    assert marked and all(ref.fetched_at is not None for ref in marked)
    markdown = render_text(get_recipe("research"), second, "md")
    assert "From your library: " in markdown and "from your library (run-first)" in markdown
    assert '"library_run": "run-first"' in render_text(get_recipe("research"), second, "json")
    assert "from your library (run-first)" in render_text(get_recipe("research"), second, "html")
    for fmt in ("docx", "pdf"):
        assert "from your library (run-first)" in _text_of(second, fmt), fmt

    # the page changes, and the window has passed: the page is fetched again
    web.revise(
        CorpusDocument(
            id="tokamak", title="Tokamak", text=TOKAMAK.replace(CHANGED, "Large copper magnets")
        )
    )
    stale = settings.model_copy(update={"library_fresh_days": 0})
    before = len(web.requests)
    third, events = await _run(stale, SECOND, "run-third")
    reused = _reused(events)
    assert reused is not None and reused.refetched >= 1 and reused.dropped >= 1
    assert "/page/tokamak" in _pages(web, before)
    assert third.library is not None
    dropped = [item for item in third.library.dropped if CHANGED in item.quote]
    assert dropped and dropped[0].reason == "no longer on its page"
    assert not any(CHANGED in item.quote for item in third.evidence if item.verified)
    markdown = render_text(get_recipe("research"), third, "md")
    assert "not reused, no longer on its page" in markdown


async def test_no_library_turns_reuse_off_for_one_run(web: OfflineWeb, tmp_path: Path) -> None:
    settings = offline_settings(web, tmp_path, model="none", page_cache_ttl_s=0)
    await _run(settings, FIRST, "run-first")
    before = len(web.requests)
    off = settings.model_copy(update={"use_library": False})
    report, events = await _run(off, SECOND, "run-off")
    assert _reused(events) is None and report.library is None
    assert not any(ref.library_run for ref in report.sources)
    assert "/page/tokamak" in _pages(web, before)  # fetched as ever


async def test_a_recording_made_before_the_library_was_taped_replays_without_one(
    web: OfflineWeb, tmp_path: Path
) -> None:
    settings = offline_settings(web, tmp_path, model="none", page_cache_ttl_s=0)
    report, _ = await _run(settings, FIRST, "run-first")
    copy = tmp_path / "older"
    shutil.copytree(settings.data_dir / "recordings" / "run-first", copy)
    assert (copy / "library.jsonl").is_file()  # an empty library's answers are kept too
    (copy / "library.jsonl").unlink()
    manifest = json.loads((copy / "manifest.json").read_text(encoding="utf-8"))
    manifest["holds"] = [kind for kind in manifest["holds"] if kind != "library"]
    (copy / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    recipe, replayed = await replay_run(offline_settings(web, tmp_path / "other"), folder=copy)
    for fmt in ("md", "json"):
        assert render_text(recipe, replayed, fmt) == render_text(recipe, report, fmt)


async def test_a_run_reuses_only_its_owners_library(web: OfflineWeb, tmp_path: Path) -> None:
    settings = offline_settings(web, tmp_path, model="none", page_cache_ttl_s=0)
    await _run(settings, FIRST, "run-alice", owner="key-alice")
    _, events = await _run(settings, SECOND, "run-bob", owner="key-bob")
    assert _reused(events) is None  # another key's library is not looked in
    _, events = await _run(settings, SECOND, "run-alice-2", owner="key-alice")
    reused = _reused(events)
    assert reused is not None and reused.runs == ["run-alice"]
