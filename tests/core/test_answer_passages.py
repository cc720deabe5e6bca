"""Answer-bearing passage selection (issue 17): scores that know the question's kind of
answer and what it is about, a relative floor that works for long questions, the chain
kept (a passage for each compared thing, for the lead, for the second step), and evidence
in the order a reader needs it."""

from __future__ import annotations

from deepresearch.core.lexical import overlap
from deepresearch.core.passages import (
    answer_scores,
    make_passages,
    pooled_scores,
    rank_evidence,
)
from deepresearch.core.questions import analyze_question
from deepresearch.models import Evidence, Passage, Verification


def page(sid: str, *sentences: str) -> list[Passage]:
    return make_passages(sid, "\n\n".join(sentences))


def relevant(scores: dict[str, tuple[float, bool]]) -> set[str]:
    return {pid for pid, (_, ok) in scores.items() if ok}


LONG = (
    "In which year did the empress who commissioned the marble villa on the hill above "
    "the old harbour of Dunmere, later a museum of glass and painted ceramics, first stay "
    "in its summer rooms with her court and her two daughters?"
)


def test_a_long_question_keeps_its_best_passages() -> None:
    villa = page(
        "villa",
        "The empress first stayed in the villa's summer rooms in 1861, with her court.",
        "Its gardens were planted with lemon trees brought from the south by ship.",
    )
    other = page("other", "Dunmere has a small fishing fleet and a weekly market.")
    scores = answer_scores(
        [villa, other], LONG, analyze_question(LONG), titles=["Dunmere villa", "Dunmere"]
    )
    # no passage covers a quarter of the question's words, yet the best ones pass
    assert all(overlap(LONG, p.text) < 0.25 for p in villa)
    assert relevant(scores) >= {villa[0].id}
    assert max(scores, key=lambda pid: scores[pid][0]) == villa[0].id


def test_a_passage_carrying_the_asked_kind_of_value_ranks_higher() -> None:
    question = "When did the Orlen Bridge open to traffic?"
    bridge = page(
        "bridge",
        "The Orlen Bridge carries traffic over the Varmo between two old towns.",
        "The Orlen Bridge opened to traffic in May 1962 after four years of work.",
    )
    scores = answer_scores([bridge], question, analyze_question(question), titles=["Orlen Bridge"])
    assert scores[bridge[1].id][0] == 1.0 > scores[bridge[0].id][0]


def test_a_passage_about_nothing_the_question_names_is_not_quoted() -> None:
    question = "When did the Orlen Bridge open to traffic?"
    bridge = page("bridge", "The Orlen Bridge opened to traffic in May 1962.")
    traffic = page("traffic", "Traffic on every bridge of the region doubled in the 1970s.")
    scores = answer_scores(
        [bridge, traffic], question, analyze_question(question), titles=["Orlen Bridge", "Roads"]
    )
    assert relevant(scores) == {bridge[0].id}


def test_each_compared_thing_keeps_its_best_passage() -> None:
    question = "Which band was formed first, Velvet Moths or Salt Harbour?"
    moths = page(
        "moths",
        "Velvet Moths were formed in Dunmere in 1991 and formed a label of their own, "
        "formed by friends who formed bands before.",
        "Velvet Moths formed in 1991; the band was formed again in 2001 and formed a choir.",
    )
    harbour = page("harbour", "Salt Harbour is a folk group from the coast, active since 1988.")
    scores = answer_scores(
        [moths, harbour],
        question,
        analyze_question(question),
        titles=["Velvet Moths", "Salt Harbour"],
    )
    assert harbour[0].id in relevant(scores)


def test_a_lead_unit_quotes_the_leads_own_page_where_it_speaks_to_the_question() -> None:
    question = "Who wrote the novel that is set on the shore of Lake Varmo?"
    profile = analyze_question(question)
    book = page("book", "The Glass Orchard is a book.", "Irena Kovalska wrote The Glass Orchard.")
    mention = page("mention", "A reading of The Glass Orchard was held in the Dunmere library.")
    country = page("country", "The Ostrel Highlands are low mountains with glacial lakes.")
    scores = answer_scores(
        [book, mention],
        "The Glass Orchard (wrote)",
        profile,
        titles=["The Glass Orchard", "Dunmere library"],
        focus=["The Glass Orchard"],
    )
    assert relevant(scores) <= {p.id for p in book} and book[1].id in relevant(scores)
    # a lead's page that says nothing the question asks of it gives nothing
    silent = answer_scores(
        [country],
        "Ostrel Highlands (wrote)",
        profile,
        titles=["Ostrel Highlands"],
        focus=["Ostrel Highlands"],
    )
    assert relevant(silent) == set()


def test_a_passage_is_read_with_its_page_title() -> None:
    pages = [
        page("a", "It opened to the public in 1962 after four years of work."),
        page("b", "A bridge opened to the public in 1970 after a long delay."),
    ]
    plain = pooled_scores(pages, "Orlen Bridge opened")
    titled = pooled_scores(pages, "Orlen Bridge opened", titles=["Orlen Bridge", "Roads"])
    assert plain[pages[1][0].id] == 1.0
    assert titled[pages[0][0].id] == 1.0 > titled[pages[1][0].id]


def ev(eid: str, source: str, quote: str, score: float) -> Evidence:
    return Evidence(
        id=eid,
        sub_question_id="q1",
        claim=quote,
        quote=quote,
        source_id=source,
        source_url=f"https://example.org/{source}",
        start=0,
        end=len(quote),
        score=score,
        verification=Verification(status="PASS", method="exact", score=1.0),
    )


def test_evidence_comes_in_the_order_a_reader_needs_it() -> None:
    profile = analyze_question("Are Irena Kovalska and Tomas Berg both novelists?")
    items = [
        ev("e1", "irena", "Irena Kovalska is a novelist from Dunmere.", 1.0),
        ev("e2", "irena", "Irena Kovalska grew up near Lake Varmo.", 0.9),
        ev("e3", "list", "Tomas Berg appears in a list of painters.", 0.5),
        ev("e4", "tomas", "He is a novelist and a painter.", 0.2),
    ]
    titles = {"irena": "Irena Kovalska", "list": "Painters", "tomas": "Tomas Berg"}
    order = [e.id for e in rank_evidence(profile, items, titles, profile.options)]
    # a quote for each compared thing first (from its own page), then the rest by score
    assert order == ["e1", "e4", "e2", "e3"]


def test_answer_bearing_quotes_come_before_better_scored_others() -> None:
    profile = analyze_question("When did the Orlen Bridge open?")
    items = [
        ev("e1", "a", "The Orlen Bridge is long and carries a road and a railway.", 1.0),
        ev("e2", "a", "The Orlen Bridge opened in May 1962.", 0.4),
    ]
    assert [e.id for e in rank_evidence(profile, items, {"a": "Orlen Bridge"})] == ["e2", "e1"]


def test_a_describing_question_is_about_its_words_not_only_its_setting() -> None:
    question = "How do generators and the yield statement work in Python?"
    # the page that answers never repeats the setting ("Python"); pages that name it
    # say nothing about generators
    answer = page(
        "yield",
        "Using yield in a function definition is sufficient to cause that definition to "
        "create a generator function instead of a normal function.",
        "Yield expressions and statements are only used when defining a generator function.",
    )
    setting = page(
        "exec",
        "A Python program is constructed from code blocks that are executed as a unit.",
        "The Python interpreter raises an exception when it detects a run-time error.",
    )
    scores = answer_scores(
        [answer, setting],
        question,
        analyze_question(question),
        titles=['The "yield" statement', "Execution model"],
    )
    assert relevant(scores) >= {p.id for p in answer}
    assert not relevant(scores) & {p.id for p in setting}
    best = max(scores, key=lambda pid: scores[pid][0])
    assert best in {p.id for p in answer}


def test_a_factoid_question_still_needs_its_named_thing() -> None:
    question = "When was Ada Lovelace born?"
    named = page("ada", "Ada Lovelace was born in London on 10 December 1815 to a poet.")
    other = page("other", "The poet was born in London in 1788 and travelled widely abroad.")
    scores = answer_scores(
        [named, other], question, analyze_question(question), titles=["Ada Lovelace", "A poet"]
    )
    assert relevant(scores) == {named[0].id}


def test_the_own_page_of_each_named_thing_keeps_its_best_passage() -> None:
    question = (
        "Which studio released the album that Mirela Okafor recorded with the Dunmere "
        "Harbour Choir in the winter of the great flood?"
    )
    choir = page(
        "choir",
        "The Dunmere Harbour Choir recorded an album with Mirela Okafor in the winter of "
        "the great flood, released by a studio in the capital.",
        "The Dunmere Harbour Choir sang at the harbour in the winter of the flood with "
        "Mirela Okafor, whose album the studio released.",
    )
    # her own page says little in the question's words, but it is her page
    own = page("own", "She grew up on a farm in the north and studied the violin as a child.")
    scores = answer_scores(
        [choir, own],
        question,
        analyze_question(question),
        titles=["Dunmere Harbour Choir", "Mirela Okafor (singer)"],
    )
    assert scores[own[0].id][0] < 0.3  # below the floor: kept only as her own page's best
    assert own[0].id in relevant(scores)


def test_a_quote_from_the_things_own_page_covers_it_first() -> None:
    profile = analyze_question("Who produced the album Mirela Okafor recorded in Dunmere?")
    items = [
        ev("e1", "album", "Lake Songs is the second album by Mirela Okafor.", 1.0),
        ev("e2", "own", "She grew up on a farm near Lake Varmo.", 0.3),
    ]
    titles = {"album": "Lake Songs (Mirela Okafor album)", "own": "Mirela Okafor"}
    order = [e.id for e in rank_evidence(profile, items, titles, ["Mirela Okafor"])]
    # the album's page names her twice (text and title), yet her own page covers her
    assert order[0] == "e2"
