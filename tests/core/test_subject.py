"""A question about something no page names aborts rather than report quotes about
something else (``core.subject``): each named thing has a word no page read contains."""

from __future__ import annotations

from deepresearch.core.gate import GateThresholds, evaluate_gate
from deepresearch.core.questions import analyze_question
from deepresearch.core.subject import unseen_subject
from deepresearch.models import Evidence, SubQuestion, Verification

PAGES = [
    "Albert Einstein played the violin from the age of five and loved Mozart.",
    "The Clinton Foundation is a non-profit organization founded in 1997.",
]


def test_a_thing_no_page_names_is_unseen() -> None:
    profile = analyze_question("What did the Zorblat Quenton Foundation announce in 2019?")
    assert unseen_subject(profile, PAGES) == ["Zorblat Quenton Foundation"]


def test_one_named_thing_seen_is_enough() -> None:
    profile = analyze_question("Did Albert Einstein ever meet Varnok Thelisse?")
    assert unseen_subject(profile, PAGES) == []


def test_a_misspelt_name_is_still_seen() -> None:
    assert unseen_subject(analyze_question("Which instrument did Einstien play?"), PAGES) == []


def test_nothing_named_or_nothing_read_is_not_a_verdict() -> None:
    assert unseen_subject(analyze_question("how do violins make sound?"), PAGES) == []
    assert unseen_subject(analyze_question("What did Zorblat announce?"), []) == []


def test_the_gate_aborts_on_quotes_about_something_else() -> None:
    quote = "The Clinton Foundation is a non-profit organization founded in 1997."
    evidence = [
        Evidence(
            id=f"e{n}",
            sub_question_id="q1",
            claim=quote,
            quote=quote,
            source_id=f"s{n}",
            source_url=f"https://site{n}.example/page",
            start=0,
            end=len(quote),
            verification=Verification(status="PASS", method="exact", score=1.0),
        )
        for n in range(6)
    ]
    question = "What did the Zorblat Quenton Foundation announce in 2019?"
    subs = [SubQuestion(id="q1", text=question, queries=["zorblat"])]
    loose = GateThresholds(min_evidence=1, min_cited_evidence=1, min_domains=1)
    result = evaluate_gate(evidence, subs, loose, question=question, texts=PAGES)
    assert result.status == "abort"
    assert result.reasons[0].startswith("no page read names Zorblat Quenton Foundation")
    # the same quotes for a question about what the pages name pass as before
    named = "When was the Clinton Foundation founded?"
    assert evaluate_gate(evidence, subs, loose, question=named, texts=PAGES).status == "pass"
