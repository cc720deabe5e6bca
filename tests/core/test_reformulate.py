"""Reformulation for weak sub-questions (seed 001, 4.2): broaden, narrow, synonyms."""

from __future__ import annotations

import pytest

from deepresearch.core.reformulate import reformulate, strategy_for, strip_operators

Q = "How does intermittent fasting affect insulin sensitivity in adults?"
OPERATOR_MARKS = ('"', "intitle:", "site:", "inurl:", "filetype:", "(", ")")


@pytest.mark.parametrize(
    ("attempt", "strategy"),
    [
        (-1, "broaden"),
        (0, "broaden"),
        (1, "broaden"),
        (2, "narrow"),
        (3, "synonyms"),
        (9, "synonyms"),
    ],
)
def test_strategy_order(attempt: int, strategy: str) -> None:
    assert strategy_for(attempt) == strategy


def test_broaden_uses_fewer_terms() -> None:
    out = reformulate(Q, attempt=1, operators=True)
    assert out == ["intermittent fasting affect", "intermittent fasting", "fasting affect insulin"]
    assert all(len(query.split()) <= 3 for query in out)
    assert reformulate(Q, attempt=1, operators=False) == out


def test_narrow_with_operators_adds_a_phrase_and_intitle() -> None:
    out = reformulate(Q, attempt=2, operators=True)
    assert out == [
        '"intermittent fasting" affect insulin sensitivity adults',
        "intitle:intermittent fasting affect insulin sensitivity",
        "intermittent fasting affect insulin sensitivity adults",
    ]


def test_narrow_without_operators_has_no_operator_syntax() -> None:
    out = reformulate(Q, attempt=2, operators=False)
    assert out == ["intermittent fasting affect insulin sensitivity adults"]
    assert not any(mark in query for query in out for mark in OPERATOR_MARKS)


@pytest.mark.parametrize("operators", [True, False])
def test_synonyms_rephrase_the_head_terms_and_ask_other_kinds_of_sources(operators: bool) -> None:
    out = reformulate(Q, attempt=3, operators=operators, count=10)
    head = "intermittent fasting affect insulin"
    paper = f"{head} research paper" + (" filetype:pdf" if operators else "")
    assert out == [
        f"{head} overview",
        f"what is {head}",
        f"{head} encyclopedia",
        paper,
        f"{head} news report",
        f"{head} official site",
    ]
    assert reformulate(Q, attempt=3, operators=operators) == out[:3]


@pytest.mark.parametrize("attempt", [1, 2, 3])
def test_no_operator_ever_appears_when_unsupported(attempt: int) -> None:
    text = '"climate change" site:nasa.gov -site:reddit.com intitle:warming effects'
    for query in reformulate(text, attempt=attempt, operators=False, count=10):
        assert not any(mark in query for mark in OPERATOR_MARKS), query


def test_reformulate_reads_through_operators_in_the_input() -> None:
    text = '"climate change" site:nasa.gov effects'
    assert reformulate(text, attempt=2, operators=True) == [
        '"climate change" effects',
        "intitle:climate change effects",
        "climate change effects",
    ]


@pytest.mark.parametrize("count", [1, 2])
def test_count_caps_the_queries(count: int) -> None:
    for attempt in (1, 2, 3):
        assert len(reformulate(Q, attempt=attempt, operators=True, count=count)) == count


def test_queries_are_distinct_and_non_blank() -> None:
    for attempt in (1, 2, 3):
        out = reformulate("Photosynthesis", attempt=attempt, operators=True, count=10)
        assert out
        assert len({q.lower() for q in out}) == len(out)
        assert all(q.strip() for q in out)


def test_narrow_never_returns_an_empty_phrase() -> None:
    assert '""' not in reformulate("What is it?", attempt=2, operators=True)


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        (
            '"climate change" site:nasa.gov -site:reddit.com intitle:warming filetype:pdf (a OR b)',
            "climate change warming a OR b",
        ),
        ("inurl:docs python asyncio", "docs python asyncio"),
        ("SITE:Example.com INTITLE:News today", "News today"),
        ("plain words only", "plain words only"),
        ('  "  spaced  "  ', "spaced"),
        ("", ""),
    ],
)
def test_strip_operators(query: str, expected: str) -> None:
    assert strip_operators(query) == expected
