"""The library's reuse rules (``core.library_reuse``) on hand-made inputs: which quotes a
sub-question takes, which pages are fresh, and what is reused after verifying again."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from deepresearch.core.ids import source_id
from deepresearch.core.library_reuse import (
    CHANGED,
    UNREADABLE,
    choose_offers,
    fresh_page,
    is_fresh,
    library_words,
    marked,
    pages_of,
    read_times,
    reuse,
    shelved_evidence,
    stale_pages,
    with_reused,
)
from deepresearch.core.questions import analyze_question
from deepresearch.models import Source, SourceRef, SubQuestion
from deepresearch.models.library import LibrarySource, ShelvedPage, ShelvedQuote

NOW = datetime(2026, 11, 28, 12, tzinfo=UTC)
PAGE = (
    "A tokamak confines a hot plasma with strong magnetic fields. "
    "The toroidal field coils produce the main magnetic field. "
    "Bread is baked in an oven."
)
URL = "https://example.org/tokamak"


def _quote(
    text: str, *, url: str = URL, page: str = PAGE, read: datetime | None = NOW, run: str = "run-a"
) -> ShelvedQuote:
    return ShelvedQuote(
        run_id=run,
        evidence_id=f"q1-{abs(hash(text)) % 1000}",
        quote=text,
        claim=text,
        source=LibrarySource(
            source_id=source_id(url),
            url=url,
            title="Tokamak",
            domain="example.org",
            text=page,
            fetched_at=read,
        ),
    )


SQ = SubQuestion(id="q1", text="Which magnetic field coils does a tokamak use?", queries=["x"])
PROFILE = analyze_question(SQ.text)
COILS = "The toroidal field coils produce the main magnetic field."
PLASMA = "A tokamak confines a hot plasma with strong magnetic fields."


def test_the_library_is_asked_for_the_content_words() -> None:
    assert library_words(SQ) == ["magnetic", "field", "coils", "tokamak", "use"]


def test_relevant_quotes_are_taken_best_first_and_each_quote_once() -> None:
    shelved = [
        _quote("Bread is baked in an oven."),
        _quote(PLASMA),
        _quote(COILS),
        _quote(COILS, run="run-b"),  # the same quote of the same page, kept again
    ]
    offers = choose_offers(SQ, PROFILE, shelved, limit=5)
    quotes = [offer.quote.quote for offer in offers]
    assert quotes[0] == COILS and quotes.count(COILS) == 1
    assert "Bread is baked in an oven." not in quotes
    assert choose_offers(SQ, PROFILE, shelved, limit=1)[0].quote.quote == COILS
    assert not choose_offers(SQ, PROFILE, shelved, known_urls=[URL], limit=5)
    taken = {(URL, COILS)}
    assert COILS not in [
        o.quote.quote for o in choose_offers(SQ, PROFILE, shelved, taken=taken, limit=5)
    ]


def test_freshness_is_a_window_before_now() -> None:
    assert is_fresh(NOW - timedelta(days=6), NOW, 7)
    assert not is_fresh(NOW - timedelta(days=8), NOW, 7)
    assert not is_fresh(None, NOW, 7)  # unknown age: fetched again
    assert not is_fresh(NOW, NOW, 0)  # a window of 0: always fetched again


def test_a_fresh_page_is_reused_from_its_stored_text() -> None:
    offers = choose_offers(SQ, PROFILE, [_quote(COILS), _quote(PLASMA)], limit=5)
    assert stale_pages(offers, NOW, 7) == []
    taken = reuse(offers, {}, now=NOW, days=7, offered=len(offers))
    assert len(taken.evidence) == 2 and all(item.verified for item in taken.evidence)
    assert [item.id for item in taken.evidence] == ["q1-lib1", "q1-lib2"]
    (source,) = taken.sources.values()
    assert source.text == PAGE and source.library_run == "run-a" and source.library_read == NOW
    assert source.sub_question_ids == ["q1"]
    record = taken.record
    assert record.offered == 2 and record.refetched == 0 and not record.dropped
    assert {item.refetched for item in record.reused} == {False}


def test_an_old_page_is_read_again_and_a_changed_quote_is_dropped() -> None:
    old = NOW - timedelta(days=30)
    offers = choose_offers(
        SQ, PROFILE, [_quote(COILS, read=old), _quote(PLASMA, read=old)], limit=5
    )
    assert stale_pages(offers, NOW, 7) == [URL]
    new_text = PAGE.replace(COILS, "Copper magnets were used once.")
    again = Source(id=source_id(URL), url=URL, title="Tokamak", text=new_text)
    taken = reuse(offers, {URL: again}, now=NOW, days=7, offered=len(offers))
    assert [item.quote for item in taken.evidence] == [PLASMA]
    (dropped,) = taken.record.dropped
    assert dropped.quote == COILS and dropped.reason == CHANGED and dropped.fetched_at == old
    assert taken.record.refetched == 1 and taken.record.reused[0].refetched
    assert taken.sources[source_id(URL)].text == new_text
    assert taken.record.reused[0].fetched_at == NOW


def test_a_page_that_cannot_be_read_again_gives_nothing() -> None:
    offers = choose_offers(SQ, PROFILE, [_quote(COILS, read=None)], limit=5)
    taken = reuse(offers, {URL: None}, now=NOW, days=7, offered=1)
    assert not taken.evidence and taken.record.dropped[0].reason == UNREADABLE


def test_the_latest_read_of_a_page_is_the_one_used() -> None:
    older = _quote(PLASMA, read=NOW - timedelta(days=3), page="old text")
    newer = _quote(COILS, read=NOW - timedelta(days=1))
    offers = choose_offers(SQ, PROFILE, [older, newer], limit=5)
    assert pages_of(offers)[URL].source.text == PAGE


def test_marks_times_and_shelved_evidence() -> None:
    offers = choose_offers(SQ, PROFILE, [_quote(COILS)], limit=5)
    taken = reuse(offers, {}, now=NOW, days=7, offered=1)
    sid = source_id(URL)
    refs = [
        SourceRef(id=sid, number=1, url=URL, title="T", domain="example.org"),
        SourceRef(id="other", number=2, url="https://b.org", title="B", domain="b.org"),
    ]
    first, second = marked(refs, taken.sources)
    assert first.library_run == "run-a" and first.fetched_at == NOW
    assert second.library_run is None and second.fetched_at is None
    assert read_times(taken.sources) == {URL: NOW}
    assert shelved_evidence(taken.record, taken.evidence) == {sid: taken.evidence}
    assert shelved_evidence(None, taken.evidence) == {}


def test_a_unit_reads_a_fresh_library_page_and_fetches_an_old_one() -> None:
    page = ShelvedPage(run_id="run-a", source=_quote(COILS).source)
    source = fresh_page(page, NOW + timedelta(days=1), 7)
    assert source is not None and source.text == PAGE and source.library_run == "run-a"
    assert fresh_page(page, NOW + timedelta(days=8), 7) is None
    assert fresh_page(None, NOW, 7) is None


def test_a_unit_adds_what_else_a_library_page_holds_after_its_reused_quotes() -> None:
    offers = choose_offers(SQ, PROFILE, [_quote(COILS)], limit=5)
    reused = reuse(offers, {}, now=NOW, days=7, offered=1).evidence
    again = reused[0].model_copy(update={"id": "q1-p1", "quote": " " + COILS})
    other = reused[0].model_copy(update={"id": "q1-p2", "quote": PLASMA})
    merged = with_reused(reused, [again, other])
    assert [item.id for item in merged] == ["q1-lib1", "q1-p2"]
    assert with_reused([], [other]) == [other]
