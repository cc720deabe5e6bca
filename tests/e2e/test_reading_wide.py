"""Reading widely (issue 17, part 6): a run whose gate passes after its first wave keeps
reading, through the leads its quotes name and then the next-best results of its
sub-questions, until it has read its depth's floor of sources (``min_sources_read``; 20 at
deep); a lead's unit reads only pages that name the lead. No model; the corpus is made up,
so no page is found by luck."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import unquote, urlsplit

from deepresearch.models import Report, RunEvent
from deepresearch.models.event_payloads import (
    GateEvaluated,
    Reflected,
    SourceFetched,
    SourcesRanked,
)
from deepresearch.runner import run_research
from deepresearch.testing.corpus import CorpusDocument
from deepresearch.testing.web import OfflineWeb

from .helpers import assert_citations_hold, offline_settings

QUESTION = "What is the history of Varmo lacquer?"
FLOOR = 8


def doc(doc_id: str, title: str, text: str) -> CorpusDocument:
    return CorpusDocument(id=doc_id, title=title, text=text)


CORPUS = [
    doc(
        "varmo-lacquer",
        "Varmo lacquer",
        "Varmo lacquer is a red resin finish first made in the town of Varmo in 1612. "
        "Its history begins with the workshop of Tessa Orlane, who mixed the resin with "
        "crushed river shells.\n\nIn 1688 the Ostrel Guild took over the trade in Varmo "
        "lacquer and sold it to cabinet makers across the coast. The history of the "
        "lacquer after 1750 is that of the Kelda Workshop, which made it until 1901.",
    ),
    doc(
        "varmo-town",
        "Varmo (town)",
        "Varmo is a harbour town known for Varmo lacquer, whose history is told in its "
        "museum. The town's lacquer makers sold their work at the spring fair.",
    ),
    doc(
        "lacquer-trade",
        "Lacquer trade of the coast",
        "The lacquer trade of the coast grew with Varmo lacquer in the seventeenth "
        "century. Merchants carried Varmo lacquer history books and samples to the capital.",
    ),
    doc(
        "orlane",
        "Tessa Orlane",
        "Tessa Orlane was a resin maker of Varmo who founded the first lacquer workshop "
        "there in 1612. She trained eleven apprentices.",
    ),
    doc(
        "orlane-letters",
        "Letters of Tessa Orlane",
        "The letters of Tessa Orlane describe how she bought shells from river fishermen "
        "and how she priced her finish.",
    ),
    doc(
        "guild",
        "Ostrel Guild",
        "The Ostrel Guild was a merchants' guild that controlled the coastal trade in "
        "finishes and dyes from 1688 until its dissolution in 1799.",
    ),
    doc(
        "kelda",
        "Kelda Workshop",
        "The Kelda Workshop was a family business in Varmo that made lacquer and inlaid "
        "boxes from 1750 to 1901, when its last owner sold the building.",
    ),
    doc(
        "varmo-museum",
        "Varmo Museum",
        "The Varmo Museum shows the history of Varmo lacquer in four rooms, from the "
        "first resin pots to the last boxes of the Kelda era.",
    ),
    doc(
        "rain",
        "A history of rain",
        "A history of rain in the northern valleys: records of rainfall go back to 1820 "
        "and show wet springs in most decades.",
    ),
    doc(
        "bridges",
        "History of bridges",
        "The history of bridges begins with logs laid over streams; stone arches came later.",
    ),
]


def _doc(url: str) -> str:
    return unquote(urlsplit(url).path.removeprefix("/page/"))


async def _run(tmp_path: Path, floor: int) -> tuple[Report, list[RunEvent], OfflineWeb]:
    events: list[RunEvent] = []
    with OfflineWeb(CORPUS) as web:
        settings = offline_settings(
            web,
            tmp_path / str(floor),
            model="none",
            depth="deep",
            sources_per_question=3,
            min_sources_read=floor,
        )
        report = await run_research(QUESTION, settings, sinks=[events.append])
        assert report is not None
        assert_citations_hold(report, web)
    return report, events, web


def _read(events: list[RunEvent]) -> list[str]:
    return [_doc(e.data.url) for e in events if isinstance(e.data, SourceFetched)]


async def test_without_a_floor_the_run_stops_when_the_gate_passes(tmp_path: Path) -> None:
    _, events, _ = await _run(tmp_path, 0)
    gates = [e.data for e in events if isinstance(e.data, GateEvaluated)]
    assert [gate.status for gate in gates] == ["pass"]
    assert len(_read(events)) == 3


async def test_a_run_below_its_floor_reads_on_through_leads_and_further_results(
    tmp_path: Path,
) -> None:
    report, events, _ = await _run(tmp_path, FLOOR)
    read = _read(events)
    assert len(read) >= FLOOR
    assert len(set(read)) == len(read)  # each page read once
    first_gate = next(e.data for e in events if isinstance(e.data, GateEvaluated))
    assert first_gate.status == "pass"

    queued = [q for e in events if isinstance(e.data, Reflected) for q in e.data.queued]
    leads = {q.id: q.lead for q in queued if q.lead}
    assert leads, "the quotes' names are followed although the gate passed"
    # a lead's unit reads only pages that name its lead: never "A history of rain"
    by_unit: dict[str, list[str]] = {}
    for e in events:
        if isinstance(e.data, SourcesRanked):
            by_unit.setdefault(e.data.sub_question, []).extend(_doc(c.url) for c in e.data.chosen)
    texts = {d.id: f"{d.title} {d.text}" for d in CORPUS}
    for unit, lead in leads.items():
        for page in by_unit.get(unit, []):
            assert all(word in texts[page] for word in lead.split()), (lead, page)
    assert not {"rain", "bridges"} & set(read)
    # the report cites pages the first wave did not read
    first_wave = set(read[:3])
    assert {_doc(ref.url) for ref in report.sources} - first_wave
