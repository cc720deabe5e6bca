"""Leads: the things verified quotes revealed that the run has not searched yet, scored by
how they connect to the question, turned into the next wave's sub-questions and merged
with a model's follow-ups."""

from __future__ import annotations

from deepresearch.core.leads import find_leads, lead_sub_questions, merge_follow_ups
from deepresearch.core.questions import analyze_question
from deepresearch.models import Evidence, SubQuestion, Verification

QUESTION = "Who wrote the novel that is set on the shore of Lake Varmo?"


def ev(eid: str, source: str, quote: str, score: float = 1.0) -> Evidence:
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


FIRST = ev(
    "q1-a",
    "lake",
    'Lake Varmo lies in the Ostrel Highlands. The novel "The Glass Orchard" is set on its '
    "shore, among the farms of Tomas Berg.",
)


def test_a_bridge_named_near_the_question_words_leads() -> None:
    leads = find_leads(analyze_question(QUESTION), [FIRST], limit=5)
    texts = [lead.text for lead in leads]
    # the quoted title next to "novel ... set ... shore" comes first
    assert texts[0] == "The Glass Orchard"
    assert set(texts) == {"The Glass Orchard", "Ostrel Highlands", "Tomas Berg"}
    first = leads[0]
    assert first.kind == "bridge" and first.evidence_ids == ("q1-a",)
    assert first.remaining == ("wrote",)  # what the quote left of the question


def test_a_quote_about_something_else_reveals_no_lead() -> None:
    other = ev("q1-b", "mill", "The Dunmere Mill was built by Anna Berg.")
    assert find_leads(analyze_question(QUESTION), [other]) == []


def test_what_was_followed_searched_or_read_is_no_lead() -> None:
    profile = analyze_question(QUESTION)
    leads = find_leads(
        profile,
        [FIRST],
        followed=["glass orchard"],
        searched=["Tomas Berg farms"],
        read_titles=["Ostrel Highlands - Wikipedia"],
    )
    assert leads == []


def test_a_thing_many_pages_name_is_a_weaker_lead() -> None:
    profile = analyze_question("Who founded the mill that stands by Lake Varmo?")
    quote = ev("q1-a", "lake", "By Lake Varmo stand the Amber Mill and the Dunmere Mill.")
    pages = ["The Amber Mill and a school.", "Amber Mill is old.", "The Dunmere Mill."]
    leads = find_leads(profile, [quote], read_texts=pages, limit=2)
    assert [lead.text for lead in leads] == ["Dunmere Mill", "Amber Mill"]
    assert leads[0].score == 2 * leads[1].score


def test_the_kind_of_thing_described_is_preferred() -> None:
    profile = analyze_question("In what year was the man that ran the Varmo Ferry born?")
    quote = ev("q1-a", "ferry", "The Varmo Ferry is run by Dunmere Port and Zofia Berg.")
    leads = find_leads(profile, [quote], limit=2)
    assert [lead.text for lead in leads] == ["Zofia Berg", "Dunmere Port"]  # "the man"


def test_a_compared_thing_nobody_quoted_leads_and_bridges_do_not() -> None:
    profile = analyze_question("Are Irena Kovalska and Tomas Berg both novelists?")
    quote = ev("q1-a", "irena", "Irena Kovalska wrote The Glass Orchard in Dunmere.")
    leads = find_leads(profile, [quote], limit=5)
    assert [(lead.text, lead.kind) for lead in leads] == [("Tomas Berg", "option")]
    assert find_leads(profile, [quote], followed=["tomas berg"]) == []


def test_limit_bounds_the_leads() -> None:
    profile = analyze_question(QUESTION)
    assert len(find_leads(profile, [FIRST], limit=1)) == 1
    assert find_leads(profile, [FIRST], limit=0) == []


def existing() -> list[SubQuestion]:
    return [SubQuestion(id="q1", text=QUESTION, queries=[QUESTION], status="covered")]


def test_a_lead_becomes_a_sub_question_that_searches_it() -> None:
    leads = find_leads(analyze_question(QUESTION), [FIRST], limit=1)
    (sq,) = lead_sub_questions(leads, existing(), wave=1, per_question=3, operators=True)
    assert (sq.id, sq.wave, sq.status, sq.lead) == ("q2", 2, "pending", "The Glass Orchard")
    assert sq.text == "The Glass Orchard (wrote)"
    assert sq.queries[0] == '"The Glass Orchard" wrote'
    assert all("The Glass Orchard" in query for query in sq.queries)
    plain = lead_sub_questions(leads, existing(), wave=1, per_question=3, operators=False)
    assert all('"' not in query for query in plain[0].queries)


def test_a_lead_the_model_already_follows_is_merged_away() -> None:
    leads = find_leads(analyze_question(QUESTION), [FIRST], limit=2)
    lead_units = lead_sub_questions(leads, existing(), wave=1, per_question=2, operators=False)
    model = [
        SubQuestion(id="q2", text="Who wrote The Glass Orchard?", queries=["Glass Orchard author"])
    ]
    merged = merge_follow_ups(model, lead_units, room=5)
    assert [sq.text for sq in merged] == [
        "Who wrote The Glass Orchard?",
        lead_units[1].text,
    ]
    assert [sq.id for sq in merged] == ["q2", "q3"]
    assert merge_follow_ups(model, lead_units, room=1) == model
    assert merge_follow_ups([], lead_units, room=0) == []
