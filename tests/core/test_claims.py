"""The claim ledger: grouping, uncertainty markers, contradictions, seed 003 scores."""

from __future__ import annotations

import pytest

from deepresearch.core.claims import (
    DEFAULT_SOURCE_SCORE,
    GROUP_OVERLAP,
    build_ledger,
    detect_contradictions,
    uncertainty_markers,
)
from deepresearch.models import Evidence


def ev(
    id: str, claim: str, source: str, *, score: float = 0.0, sq: str = "q1", quote: str = ""
) -> Evidence:
    return Evidence(
        id=id,
        sub_question_id=sq,
        claim=claim,
        quote=quote or claim,
        source_id=source,
        source_url=f"https://{source}.example/page",
        start=0,
        end=len(quote or claim),
        score=score,
    )


COMPLETED_1889 = "The Eiffel Tower was completed in 1889."
COMPLETED_1887 = "The Eiffel Tower was completed in 1887."


# uncertainty markers


@pytest.mark.parametrize(
    ("text", "markers"),
    [
        ("The deal was reportedly signed.", ["reportedly"]),
        ("He allegedly fled; the figure is unconfirmed.", ["allegedly", "unconfirmed"]),
        ("Prices may rise and could fall, or might not.", ["may", "could", "might"]),
        (
            "An estimated 5,000 attended, approximately half of them locals.",
            ["estimated", "approximately"],
        ),
        ("About 300 people came, around 40 left.", ["about", "around"]),
        ("According to the ministry, IT IS UNCLEAR who won.", ["according to", "it is unclear"]),
        ("The results are preliminary and disputed.", ["preliminary", "disputed"]),
        (
            "A rumored merger; a rumoured sale; the claimed record.",
            ["rumored", "rumoured", "claimed"],
        ),
        ("It may rain. It may snow.", ["may"]),
    ],
)
def test_uncertainty_markers_positive(text: str, markers: list[str]) -> None:
    assert uncertainty_markers(text) == markers


@pytest.mark.parametrize(
    "text",
    [
        "The mayor opened the bridge.",  # "may" only as a whole word
        "The tower opened in May 1889.",  # the month is no hedge
        "A book about Paris.",  # "about" hedges numbers only
        "They walked around the lake.",
        "The couldron and mightiest estimates were reportedlyy wrong.",  # no word boundary
        "The Eiffel Tower was completed in 1889.",
        "",
    ],
)
def test_uncertainty_markers_negative(text: str) -> None:
    assert uncertainty_markers(text) == []


# grouping


def test_near_duplicates_from_several_sources_and_sub_questions_form_one_claim() -> None:
    ledger = build_ledger(
        [
            ev("e1", "Construction of the Eiffel Tower was completed in 1889.", "s1", score=0.4),
            ev("e2", "The Eiffel Tower was completed in 1889.", "s2", score=0.9, sq="q2"),
            ev("e3", "The Eiffel Tower is 330 metres tall.", "s1", score=0.7),
        ],
        {"s1": 0.8, "s2": 0.6},
    )
    assert ledger.claim_count == 2
    first, second = ledger.claims
    assert first.id == "c1" and second.id == "c2"
    # the text comes from the highest-scored record, which leads the supporting list
    assert first.text == "The Eiffel Tower was completed in 1889."
    assert first.supporting == ["e2", "e1"]
    assert first.sub_question_id == "q2"
    assert first.sub_question_ids == ["q2", "q1"]
    assert first.source_ids == ["s2", "s1"]
    assert first.source_urls == ["https://s2.example/page", "https://s1.example/page"]
    # strength (0.6 + 0.8) / 2 = 0.7; two sources: 0.7 + 0.1 = 0.8
    assert first.support_strength == pytest.approx(0.7)
    assert first.confidence == pytest.approx(0.8)
    # one source at 0.8: 0.8 + 0.05 = 0.85
    assert second.supporting == ["e3"]
    assert second.confidence == pytest.approx(0.85)
    assert ledger.source_count == 2
    # (0.8 + 0.85) / 2 = 0.825, scaled by 2 / 10
    assert ledger.job_confidence == pytest.approx(0.165)
    assert not ledger.has_contradictions


def test_records_of_one_source_count_that_source_once() -> None:
    ledger = build_ledger(
        [ev("e1", COMPLETED_1889, "s1"), ev("e2", "The Eiffel Tower was completed in 1889", "s1")],
        {"s1": 0.6},
    )
    (claim,) = ledger.claims
    assert claim.supporting == ["e1", "e2"]
    assert claim.source_ids == ["s1"]
    assert claim.confidence == pytest.approx(0.65)  # 0.6 + 1 * 0.05
    assert ledger.source_count == 1


def test_different_numbers_negation_or_topic_keep_claims_apart() -> None:
    ledger = build_ledger(
        [
            ev("e1", COMPLETED_1889, "s1"),
            ev("e2", COMPLETED_1887, "s2"),
            ev("e3", "The Eiffel Tower was not completed in 1889.", "s3"),
            ev("e4", "Paris is the capital of France.", "s4"),
        ],
        {},
    )
    assert [claim.supporting for claim in ledger.claims] == [["e1"], ["e2"], ["e3"], ["e4"]]


def test_the_overlap_threshold() -> None:
    assert GROUP_OVERLAP == 0.6
    # {eiffel, tower, completed} vs {eiffel, tower, completed, construction}: 3/4 -> merged
    merged = build_ledger(
        [
            ev("e1", COMPLETED_1889, "s1"),
            ev("e2", "Construction of the Eiffel Tower was completed in 1889.", "s2"),
        ],
        {},
    )
    assert merged.claim_count == 1
    # {paris, capital, france} vs {paris, largest, city, france}: 2/5 -> apart
    apart = build_ledger(
        [
            ev("e1", "Paris is the capital of France.", "s1"),
            ev("e2", "Paris is the largest city of France.", "s2"),
        ],
        {},
    )
    assert apart.claim_count == 2


def test_unknown_sources_score_the_default_and_scores_are_clamped() -> None:
    assert DEFAULT_SOURCE_SCORE == 0.5
    ledger = build_ledger(
        [ev("e1", COMPLETED_1889, "unknown"), ev("e2", "Paris is the capital of France.", "s2")],
        {"s2": 1.7},
    )
    unknown, high = ledger.claims
    assert unknown.support_strength == 0.5 and unknown.confidence == pytest.approx(0.55)
    assert high.support_strength == 1.0 and high.confidence == 1.0


def test_repeated_evidence_ids_count_once() -> None:
    record = ev("e1", COMPLETED_1889, "s1")
    ledger = build_ledger([record, record], {"s1": 0.8})
    assert ledger.claims[0].supporting == ["e1"]


def test_an_empty_ledger() -> None:
    ledger = build_ledger([], {})
    assert ledger.claims == [] and ledger.claim_count == 0 and ledger.source_count == 0
    assert ledger.job_confidence == 0.0 and not ledger.has_contradictions


def test_claims_carry_the_uncertainty_of_their_wording_and_quotes() -> None:
    ledger = build_ledger(
        [
            ev(
                "e1",
                "The tower cost 7.8 million francs.",
                "s1",
                quote="It reportedly cost 7.8 million francs.",
            ),
            ev("e2", "The tower allegedly cost 7.8 million francs.", "s2"),
        ],
        {},
    )
    (claim,) = ledger.claims
    assert claim.uncertainty == ["reportedly", "allegedly"]


# contradictions


def test_contradictions_are_surfaced_and_penalized() -> None:
    evidence = [
        ev("e1", COMPLETED_1889, "s1", score=0.9),
        ev("e2", "Construction of the Eiffel Tower was completed in 1889.", "s2", score=0.5),
        ev("e3", COMPLETED_1887, "s3", score=0.4),
    ]
    pairs = detect_contradictions(evidence)
    assert pairs == [("e1", "e3"), ("e2", "e3")]
    ledger = build_ledger(evidence, {"s1": 0.8, "s2": 0.6, "s3": 0.9}, contradictions=pairs)
    agreed, disputed = ledger.claims
    assert ledger.has_contradictions
    assert ledger.contradicted == [agreed, disputed]
    assert agreed.contradiction and agreed.contradicting == ["e3"]
    assert agreed.contradicting_claims == ["c2"]
    assert disputed.contradiction and disputed.contradicting == ["e1", "e2"]
    assert disputed.contradicting_claims == ["c1"]
    # (0.8 + 0.6) / 2 = 0.7; + 2 * 0.05 = 0.8; - 1 * 0.15 = 0.65
    assert agreed.confidence == pytest.approx(0.65)
    # 0.9 + 0.05 = 0.95; - 2 * 0.15 = 0.65
    assert disputed.confidence == pytest.approx(0.65)
    # (0.65 + 0.65) / 2 * 3 / 10
    assert ledger.job_confidence == pytest.approx(0.195)
    assert ledger.claim_of("e2") == agreed
    assert ledger.claim_of("nope") is None


def test_given_pairs_are_never_merged_and_unknown_ids_are_ignored() -> None:
    evidence = [ev("e1", COMPLETED_1889, "s1"), ev("e2", COMPLETED_1889 + " ", "s2")]
    ledger = build_ledger(
        evidence, {}, contradictions=[("e1", "e2"), ("e1", "ghost"), ("e1", "e1")]
    )
    first, second = ledger.claims
    assert first.supporting == ["e1"] and first.contradicting == ["e2"]
    assert second.supporting == ["e2"] and second.contradicting == ["e1"]


def test_contradicting_records_of_one_source_count_once() -> None:
    evidence = [
        ev("e1", COMPLETED_1889, "s1"),
        ev("e2", COMPLETED_1887, "s2"),
        ev("e3", "Construction of the Eiffel Tower was completed in 1887.", "s2"),
    ]
    ledger = build_ledger(evidence, {"s1": 0.8}, contradictions=[("e1", "e2"), ("e1", "e3")])
    first = ledger.claims[0]
    assert first.contradicting == ["e2", "e3"]
    assert first.confidence == pytest.approx(0.7)  # 0.8 + 0.05 - 1 * 0.15


@pytest.mark.parametrize(
    ("first", "second"),
    [
        (COMPLETED_1889, COMPLETED_1887),
        ("The Eiffel Tower is 330 metres tall.", "The Eiffel Tower is 324 metres tall."),
        (
            "In 2020 the city had 2.1 million residents.",
            "In 2020 the city had 2.2 million residents.",
        ),
        ("The treaty was signed by France.", "The treaty was never signed by France."),
        ("The company is profitable.", "The company is not profitable."),
        ("The bridge did not collapse in 1999.", "The bridge collapsed in 1999."),
        (
            "The company reported a profit in 2004.",
            "The company didn't report a profit in 2004.",
        ),
    ],
)
def test_detector_finds_clear_contradictions(first: str, second: str) -> None:
    assert detect_contradictions([ev("a", first, "s1"), ev("b", second, "s2")]) == [("a", "b")]


@pytest.mark.parametrize(
    ("first", "second"),
    [
        (COMPLETED_1889, COMPLETED_1889),  # agreement
        (COMPLETED_1889, "The Eiffel Tower was completed in March 1889."),  # more detail
        (COMPLETED_1889, "The Eiffel Tower is 330 metres tall."),  # another topic
        ("The bridge opened in 1932.", "The tunnel opened in 1931."),  # another thing
        ("About 300 people attended the rally.", "324 people attended the rally."),  # approximate
        ("More than 300 people attended the rally.", "324 people attended the rally."),
        (
            "In 2010 the city had 2.1 million residents.",
            "In 2020 the city had 2.2 million residents.",
        ),
        (
            "The tower was completed in 1889.",
            "The tower was completed in 2 years.",
        ),  # year vs count
        ("The company is profitable.", "The company may not be profitable."),  # hedged
        ("The treaty was signed by France.", "The treaty was not signed by France in 1990."),
        ("Not only France signed the treaty.", "France signed the treaty."),  # "not only"
        ("Paris is the capital of France.", "Paris is the largest city of France."),
    ],
)
def test_detector_stays_quiet_on_unclear_cases(first: str, second: str) -> None:
    assert detect_contradictions([ev("a", first, "s1"), ev("b", second, "s2")]) == []


def test_detector_ignores_records_of_one_source() -> None:
    evidence = [ev("a", COMPLETED_1889, "s1"), ev("b", COMPLETED_1887, "s1")]
    assert detect_contradictions(evidence) == []


def test_detector_reports_pairs_in_input_order_once() -> None:
    evidence = [
        ev("a", COMPLETED_1887, "s1"),
        ev("b", COMPLETED_1889, "s2"),
        ev("a", COMPLETED_1887, "s1"),
        ev("c", "The Eiffel Tower was completed in 1888.", "s3"),
    ]
    assert detect_contradictions(evidence) == [("a", "b"), ("a", "c"), ("b", "c")]
    assert detect_contradictions([]) == []


# seed 004's cap on sources per claim


def test_a_claim_keeps_at_most_max_sources_its_best_first() -> None:
    evidence = [
        ev(f"e{n}", COMPLETED_1889, f"s{n}", score=score)
        for n, score in enumerate((0.2, 0.9, 0.5, 0.7))
    ]
    uncapped = build_ledger(evidence, {})
    assert len(uncapped.claims) == 1 and len(uncapped.claims[0].source_ids) == 4
    capped = build_ledger(evidence, {}, max_sources=2).claims[0]
    assert capped.source_ids == ["s1", "s3"]  # the best-scored quotes' sources
    assert capped.source_urls == ["https://s1.example/page", "https://s3.example/page"]
    assert len(capped.supporting) == 4  # every quote still supports it
    assert capped.confidence < uncapped.claims[0].confidence  # reckoned from two sources


def test_the_model_grouped_ledger_takes_the_cap_too() -> None:
    from deepresearch.core.model_claims import claim_ledger
    from deepresearch.models.claims import ExtractedClaim, ExtractedClaims

    evidence = [ev(f"e{n}", COMPLETED_1889, f"s{n}") for n in range(3)]
    extracted = ExtractedClaims(
        claims=[ExtractedClaim(text="Completed in 1889", supporting=["e0", "e1", "e2"])]
    )
    ledger = claim_ledger(evidence, {}, extracted, max_sources=1)
    assert ledger.extracted_by == "model" and ledger.claims[0].source_ids == ["s0"]
