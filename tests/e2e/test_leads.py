"""Lead following with no model (issue 17): a two-hop question whose answer sits on a page
that the question's own words do not find. Wave 1 reads the first step, which names the
bridge (a novel's title); reflect queues it as a lead; wave 2 searches it, reads its page
and quotes the author. The corpus is made up, so no page can be found by luck."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import unquote, urlsplit

from deepresearch.models import RunEvent
from deepresearch.models.event_payloads import Reflected, SearchCompleted, SourceFetched
from deepresearch.runner import run_research
from deepresearch.testing.corpus import CorpusDocument
from deepresearch.testing.web import OfflineWeb

from .helpers import assert_citations_hold, offline_settings

QUESTION = "Who wrote the novel that is set on the northern shore of Lake Varmo?"
CORPUS = [
    CorpusDocument(
        id="lake-varmo",
        title="Lake Varmo",
        text=(
            "Lake Varmo is a glacial lake in the Ostrel Highlands, fed by three mountain "
            "streams and frozen for half of the year.\n\n"
            'The novel "The Glass Orchard" is set on the northern shore of the lake, among '
            "the apple farms that line the water."
        ),
    ),
    CorpusDocument(
        id="glass-orchard",
        title="The Glass Orchard",
        text=(
            "The Glass Orchard is a book by Irena Kovalska, published in 1962 by Marrow "
            "House. Kovalska wrote it in a farmhouse near Dunmere over four winters.\n\n"
            "It follows three sisters who keep an orchard through a hard decade, and it "
            "was translated into eleven languages."
        ),
    ),
    CorpusDocument(
        id="ostrel",
        title="Ostrel Highlands",
        text=(
            "The Ostrel Highlands are a range of low mountains with many glacial lakes. "
            "Shepherds have kept sheep on the northern slopes for centuries."
        ),
    ),
    CorpusDocument(
        id="shore-novels",
        title="Novels set by lakes",
        text=(
            "Many novels are set on the shore of a lake, where a small town and its "
            "secrets can be shown in one summer. Readers of such novels often visit the "
            "northern shore towns they describe."
        ),
    ),
    CorpusDocument(
        id="varmo-fishing",
        title="Fishing on Lake Varmo",
        text=(
            "Fishing on Lake Varmo is allowed from May to September. The northern shore "
            "has two small piers where boats can be hired by the day."
        ),
    ),
]


def _doc(url: str) -> str:
    return unquote(urlsplit(url).path.removeprefix("/page/"))


async def test_a_two_hop_question_is_answered_through_a_lead_with_no_model(
    tmp_path: Path,
) -> None:
    events: list[RunEvent] = []
    with OfflineWeb(CORPUS) as web:
        settings = offline_settings(web, tmp_path, model="none")
        report = await run_research(QUESTION, settings, sinks=[events.append])
        assert report is not None
        assert_citations_hold(report, web)

    # wave 1 reads the first step but not the book's page: the question does not find it
    waves = [e for e in events if e.type == "wave_started"]
    assert len(waves) == 2
    second_wave_at = events.index(waves[1])
    fetched = [
        (i, _doc(e.data.url)) for i, e in enumerate(events) if isinstance(e.data, SourceFetched)
    ]
    assert "lake-varmo" in {doc for i, doc in fetched if i < second_wave_at}
    assert "glass-orchard" not in {doc for i, doc in fetched if i < second_wave_at}

    # reflect found the lead in a verified quote and queued it
    reflection = next(
        e.data for e in events if isinstance(e.data, Reflected) and e.data.route == "research"
    )
    assert reflection.leads
    first = reflection.leads[0]
    assert first.text == "The Glass Orchard" and first.followed
    unit = next(q for q in reflection.queued if q.lead == "The Glass Orchard")

    # wave 2 searches the bridge, reads its page, and the report cites it with the answer
    search = next(
        e.data
        for e in events[second_wave_at:]
        if isinstance(e.data, SearchCompleted) and e.data.sub_question == unit.id
    )
    assert search.queries
    assert all("Glass Orchard" in query for query in search.queries)
    assert "glass-orchard" in {doc for i, doc in fetched if i > second_wave_at}
    assert {_doc(ref.url) for ref in report.sources} >= {"lake-varmo", "glass-orchard"}
    text = "\n".join(sentence.text for sentence in report.all_sentences())
    assert "Irena Kovalska" in text
    assert report.kind == "extractive"
