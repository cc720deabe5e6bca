"""Plan rules (seed 003): numbering, dedupe, original first, cap, fallback; and the
deterministic query expansion used without a model."""

from __future__ import annotations

import pytest

from deepresearch.core.planning import (
    MAX_SUB_QUESTIONS,
    clean_sub_questions,
    dedupe_queries,
    fallback_queries,
    fallback_sub_questions,
    missed_names,
    strip_numbering,
)
from deepresearch.core.text import keywords


@pytest.mark.parametrize(
    "raw",
    [
        "1. What is X?",
        "2) What is X?",
        "- What is X?",
        "* What is X?",
        "• What is X?",
        "Q3: What is X?",
        "q3) What is X?",
        "Question 7: What is X?",
        "(4) What is X?",
        "  12.   What is X?  ",
        "3 - What is X?",
    ],
)
def test_strip_numbering_removes_list_prefixes(raw: str) -> None:
    assert strip_numbering(raw) == "What is X?"


@pytest.mark.parametrize(
    "text",
    [
        "What is X?",
        "2024 elections: who won?",
        "1984 by Orwell: main themes?",
        "COVID-19 origins?",
        "Quantum computing basics?",
    ],
)
def test_strip_numbering_leaves_real_questions_alone(text: str) -> None:
    assert strip_numbering(text) == text


def test_strip_numbering_removes_only_one_prefix() -> None:
    assert strip_numbering("1. 2. What?") == "2. What?"


@pytest.mark.parametrize(
    "text",
    ["3.5 million people lack water where?", "2024-2025 budget: what changed?"],
)
def test_strip_numbering_keeps_leading_numbers_that_are_part_of_the_question(text: str) -> None:
    assert strip_numbering(text) == text


def test_clean_sub_questions_puts_the_original_first_and_dedupes() -> None:
    raw = [
        "1. what is  X?",  # same as the original, other case/spacing/numbering
        "2) Who   invented X?",
        "- WHO INVENTED X",  # same, without the question mark
        "",
        "   ",
        "3. ",
        "(4) How is X used today?",
    ]
    assert clean_sub_questions(raw, "What is X?", cap=8) == [
        "What is X?",
        "Who invented X?",
        "How is X used today?",
    ]


def test_clean_sub_questions_keeps_the_first_spelling_of_a_duplicate() -> None:
    out = clean_sub_questions(["Who made Y?", "who made y"], "Original?", cap=8)
    assert out == ["Original?", "Who made Y?"]


@pytest.mark.parametrize(("cap", "expected"), [(1, 1), (3, 3), (8, 8), (9, 8), (50, 8)])
def test_clean_sub_questions_caps_at_min_of_cap_and_eight(cap: int, expected: int) -> None:
    raw = [f"Distinct sub-question number {i}?" for i in range(20)]
    out = clean_sub_questions(raw, "The original question?", cap=cap)
    assert len(out) == expected
    assert out[0] == "The original question?"
    assert out[1:] == raw[: expected - 1]


def test_max_sub_questions_is_eight() -> None:
    assert MAX_SUB_QUESTIONS == 8


@pytest.mark.parametrize("cap", [0, -3])
def test_clean_sub_questions_keeps_the_original_even_with_a_non_positive_cap(cap: int) -> None:
    assert clean_sub_questions(["Other?"], "Original?", cap=cap) == ["Original?"]


def test_clean_sub_questions_falls_back_to_the_original_when_all_is_empty() -> None:
    assert clean_sub_questions([], "  What is X?  ", cap=5) == ["What is X?"]
    assert clean_sub_questions(["", "  ", "1. ", "- "], "What is X?", cap=5) == ["What is X?"]


def test_clean_sub_questions_normalizes_whitespace_inside_questions() -> None:
    out = clean_sub_questions(["Why\tis\n the  sky blue?"], "Sky colour?", cap=3)
    assert out == ["Sky colour?", "Why is the sky blue?"]


QUESTION = "How does photosynthesis convert light energy into chemical energy in plants?"


def test_fallback_queries_with_operators_adds_a_quoted_phrase() -> None:
    out = fallback_queries(QUESTION, count=5, operators=True)
    assert out == [
        QUESTION,
        "photosynthesis convert light energy chemical plants",
        '"photosynthesis convert" light energy chemical plants',
        "photosynthesis convert light energy",
    ]


def test_fallback_queries_without_operators_has_no_operator_syntax() -> None:
    out = fallback_queries(QUESTION, count=5, operators=False)
    assert out == [
        QUESTION,
        "photosynthesis convert light energy chemical plants",
        "photosynthesis convert light energy",
    ]
    assert not any('"' in query or ":" in query for query in out)


@pytest.mark.parametrize(("count", "expected"), [(1, 1), (2, 2), (3, 3), (0, 1), (-1, 1)])
def test_fallback_queries_respects_count_and_returns_at_least_one(
    count: int, expected: int
) -> None:
    out = fallback_queries(QUESTION, count=count, operators=True)
    assert len(out) == expected
    assert out[0] == QUESTION


def test_fallback_queries_for_a_question_without_keywords_is_the_question() -> None:
    assert fallback_queries("What is it?", count=4, operators=True) == ["What is it?"]


def test_fallback_queries_are_deduped_case_insensitively() -> None:
    out = fallback_queries("Rust ownership", count=5, operators=True)
    assert out == ["Rust ownership", '"rust ownership"']


def test_fallback_queries_collapse_whitespace() -> None:
    assert fallback_queries("  solar \n panels  ", count=1, operators=False) == ["solar panels"]


LONG_NAMED = (
    "The old harbour district of Dunmere is known for its glass museum and painted "
    "ceramics, which were first collected by the merchant Arvo Lindqvist, who died when?"
)


def test_a_name_the_keyword_query_would_leave_out_is_searched_by_name() -> None:
    first = " ".join(keywords(LONG_NAMED)[:8])
    assert "lindqvist" not in first  # the first eight keywords stop before the name
    assert missed_names(LONG_NAMED, first.split()) == ["Arvo Lindqvist"]
    for operators in (True, False):
        query = fallback_queries(LONG_NAMED, count=3, operators=operators)[1]
        assert query == f"{first} arvo lindqvist"


def test_a_name_whose_words_the_keywords_hold_is_not_missed() -> None:
    # "L." is no keyword: the name is in the keyword query all the same
    question = "When did Arvo L. Lindqvist open the Dunmere glass museum?"
    terms = keywords(question)[:8]
    assert missed_names(question, terms) == []
    assert fallback_queries(question, count=5, operators=True) == [
        question,
        "arvo lindqvist open dunmere glass museum",
        '"arvo lindqvist" open dunmere glass museum',
        "arvo lindqvist open dunmere",
    ]


def test_dedupe_queries_keeps_first_spelling_and_drops_blanks() -> None:
    assert dedupe_queries(["A  b", "a b", "", "  ", "C", "c "]) == ["A b", "C"]


def test_fallback_sub_questions_splits_clauses_and_carries_the_subject() -> None:
    out = fallback_sub_questions("How does CRISPR work, and how does it relate to gene therapy?")
    assert out == ["How does CRISPR work?", "How does it relate to gene therapy (crispr work)?"]


def test_fallback_sub_questions_splits_on_question_marks_and_semicolons() -> None:
    assert fallback_sub_questions("What is CRISPR? Who invented it?") == [
        "What is CRISPR?",
        "Who invented it (crispr)?",
    ]
    assert fallback_sub_questions("What causes inflation; how do central banks respond") == [
        "What causes inflation?",
        "How do central banks respond (causes inflation)?",
    ]


def test_fallback_sub_questions_does_not_repeat_subject_words_already_in_the_clause() -> None:
    out = fallback_sub_questions("What is CRISPR? Who invented CRISPR?")
    assert out == ["What is CRISPR?", "Who invented CRISPR?"]


@pytest.mark.parametrize(
    "question",
    [
        "What is CRISPR?",
        "Compare apples and oranges",
        "Why do cats, dogs and birds sleep?",  # a list, not a second clause
        "",
    ],
)
def test_fallback_sub_questions_is_empty_for_a_single_question(question: str) -> None:
    assert fallback_sub_questions(question) == []


def test_fallback_sub_questions_feed_clean_sub_questions() -> None:
    question = "How does CRISPR work, and how does it relate to gene therapy?"
    out = clean_sub_questions(fallback_sub_questions(question), question, cap=8)
    assert out[0] == question
    assert len(out) == 3


def test_operators_are_removed_for_providers_without_them() -> None:
    from deepresearch.core.planning import usable_queries

    queries = ['"Crimean Bridge" explosion site:bbc.com', "intitle:bridge attack -site:x.com"]
    assert usable_queries(queries, operators=True) == queries
    assert usable_queries(queries, operators=False) == ["Crimean Bridge explosion", "bridge attack"]


def test_model_written_queries_cannot_carry_data_out() -> None:
    from deepresearch.core.planning import MAX_QUERY_CHARS, safe_query, usable_queries

    assert safe_query("python generators http://evil.example/?d=secret yield") == (
        "python generators yield"
    )
    assert safe_query("see www.evil.example/x now") == "see now"
    blob = "c2VjcmV0IHN5c3RlbSBwcm9tcHQgY29udGVudHMgZ29lcyBoZXJlIGFuZCBtb3Jl"
    assert safe_query(f"history of rome {blob}") == "history of rome"
    long = " ".join(["word"] * 200)
    assert len(safe_query(long)) <= MAX_QUERY_CHARS and safe_query(long).endswith("word")
    # operators survive for providers that take them; nothing left means no query
    assert usable_queries(['"exact phrase" site:python.org', "https://a.b/c"], operators=True) == [
        '"exact phrase" site:python.org'
    ]
