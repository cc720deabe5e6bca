"""Tokenizing, keywords, sentence spans and clipping."""

from __future__ import annotations

import itertools

import pytest

from deepresearch.core.text import clip, content_words, keywords, sentence_spans, words


def sentences(text: str) -> list[str]:
    spans = sentence_spans(text)
    for start, end in spans:
        piece = text[start:end]
        assert piece == piece.strip() and piece, (start, end)
    return [text[start:end] for start, end in spans]


def test_words_lowercases_and_keeps_apostrophes_inside_words() -> None:
    assert words("Don't STOP: rock_n roll, it’s 1999!") == [
        "don't",
        "stop",
        "rock",
        "n",
        "roll",
        "it’s",
        "1999",
    ]


def test_content_words_drop_stopwords_only() -> None:
    assert content_words("What is the capital of France and Spain?") == [
        "capital",
        "france",
        "spain",
    ]


def test_keywords_are_distinct_in_order_skip_single_letters_and_respect_limit() -> None:
    text = "Solar panels: solar cells, panels and a B grid x"
    assert keywords(text) == ["solar", "panels", "cells", "grid"]
    assert keywords(text, limit=2) == ["solar", "panels"]
    assert keywords("What is it?") == []


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "Dr. Smith went to Washington. He met the U.S. president there. It rained.",
            ["Dr. Smith went to Washington.", "He met the U.S. president there.", "It rained."],
        ),
        (
            "Tools, e.g. hammers, are useful. They help. Mr. Jones agrees.",
            ["Tools, e.g. hammers, are useful.", "They help.", "Mr. Jones agrees."],
        ),
        (
            "J. R. R. Tolkien wrote books. He was born in 1892.",
            ["J. R. R. Tolkien wrote books.", "He was born in 1892."],
        ),
        (
            "The value rose 3.5 percent. Then it fell to 2.25 percent.",
            ["The value rose 3.5 percent.", "Then it fell to 2.25 percent."],
        ),
        (
            'He said "Stop." Then he left. She asked \u201cWhy?\u201d He shrugged.',
            ['He said "Stop."', "Then he left.", "She asked \u201cWhy?\u201d", "He shrugged."],
        ),
        (
            "I like it. (Really.) Ok then.",
            ["I like it.", "(Really.)", "Ok then."],
        ),
        ("It was big! Was it? Yes… Okay.", ["It was big!", "Was it?", "Yes…", "Okay."]),
        # a lowercase continuation is not a new sentence
        ("See the demo. it works. Fine.", ["See the demo. it works.", "Fine."]),
        (
            "Prices in Jan. 2020 rose. Feb. was calm.",
            ["Prices in Jan. 2020 rose.", "Feb. was calm."],
        ),
    ],
)
def test_sentence_spans_split_on_real_sentence_ends_only(text: str, expected: list[str]) -> None:
    assert sentences(text) == expected


def test_paragraph_breaks_end_a_sentence_even_without_punctuation() -> None:
    text = "First paragraph without a period\n\nSecond paragraph here. Another one."
    assert sentences(text) == [
        "First paragraph without a period",
        "Second paragraph here.",
        "Another one.",
    ]


@pytest.mark.parametrize("gap", ["\n\n", "\n   \n", "\r\n\r\n", "\n\t\n\n"])
def test_any_blank_line_is_a_paragraph_break(gap: str) -> None:
    text = f"Heading line{gap}body text continues"
    assert sentences(text) == ["Heading line", "body text continues"]


def test_single_newline_is_not_a_paragraph_break() -> None:
    assert sentences("A line that wraps\nonto the next line.") == [
        "A line that wraps\nonto the next line."
    ]


def test_spans_trim_surrounding_whitespace_and_skip_blank_text() -> None:
    text = "   Leading space. Trailing space.   \n\n   \n\n"
    spans = sentence_spans(text)
    assert [text[a:b] for a, b in spans] == ["Leading space.", "Trailing space."]
    assert spans[0][0] == 3
    assert sentence_spans("") == []
    assert sentence_spans(" \n\n \t ") == []


def test_spans_are_ordered_and_disjoint() -> None:
    text = "One. Two? Three!\n\nFour… Five. Six"
    spans = sentence_spans(text)
    assert len(spans) == 6
    for (_, end), (start, _) in itertools.pairwise(spans):
        assert end <= start


@pytest.mark.parametrize(
    ("text", "limit", "expected"),
    [
        ("short", 10, "short"),
        ("exactly ten", 11, "exactly ten"),
        ("one two three four", 10, "one two…"),
        ("alpha, beta gamma", 8, "alpha…"),
        ("alpha beta: gamma delta", 14, "alpha beta…"),
    ],
)
def test_clip_cuts_at_a_word_boundary(text: str, limit: int, expected: str) -> None:
    assert clip(text, limit) == expected


def test_clip_never_cuts_inside_a_word_that_has_a_boundary_before_it() -> None:
    text = "The quick brown fox jumps over the lazy dog " * 5
    for limit in range(4, len(text)):
        out = clip(text, limit)
        body = out.removesuffix("…")
        assert text.startswith(body)
        assert text[len(body)] in " ,;:" or out == text


def test_clip_survives_leading_whitespace_longer_than_the_limit() -> None:
    out = clip(" " * 20 + "Title", 5)
    assert len(out) <= 6
