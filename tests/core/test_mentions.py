"""Mentions found without a model: names, quoted titles, dates and numbers, each with its
span and a key for comparing them across texts."""

from __future__ import annotations

import pytest

from deepresearch.core.mentions import adjectival, mention_key, mentions, name_role


def kinds(text: str) -> list[tuple[str, str]]:
    return [(m.text, m.kind) for m in mentions(text)]


def test_names_titles_dates_and_numbers_are_found_with_their_spans() -> None:
    text = (
        'The Bank of England printed "The Silver Coin" on 2 June 1961 in Leeds, '
        "where 13,527 people lived."
    )
    found = mentions(text)
    assert [(m.text, m.kind) for m in found] == [
        ("Bank of England", "name"),
        ("The Silver Coin", "title"),
        ("2 June 1961", "date"),
        ("Leeds", "name"),
        ("13,527", "number"),
    ]
    assert all(text[m.start : m.end] == m.text for m in found)


def test_a_lone_capitalised_word_that_opens_a_sentence_is_not_a_name() -> None:
    assert kinds("Following the storm, boats stayed in port. Later it cleared.") == []
    # two words are a name wherever they stand; an acronym too
    assert kinds("Maria Lopez arrived. NASA agreed.") == [
        ("Maria Lopez", "name"),
        ("NASA", "name"),
    ]


def test_a_name_ends_at_a_sentence_end_a_possessive_or_punctuation() -> None:
    text = "It is part of the Riverside Area. A town grew after Anna Berg's visit, Oslo and Rome."
    assert [m.text for m in mentions(text) if m.kind == "name"] == [
        "Riverside Area",
        "Anna Berg",
        "Oslo",
        "Rome",
    ]


def test_initials_and_abbreviations_stay_inside_a_name() -> None:
    names = [m.text for m in mentions("Books by J.K. Rowling were sold to Dr. Smith.")]
    assert names == ["J.K. Rowling", "Dr. Smith"]


def test_months_and_weekdays_are_dates_not_names() -> None:
    assert kinds("On Monday, March 3, 2012 the storm came.") == [("March 3, 2012", "date")]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("The Exies", "exies"),
        ("Two Dollar Radio", "two dollar radio"),
        ("Dunkin’ Brands", "dunkin brands"),
    ],
)
def test_keys_are_the_lowercased_content_words(text: str, expected: str) -> None:
    assert mention_key(text) == expected


@pytest.mark.parametrize(
    ("text", "name", "role"),
    [
        ("The band played in Leland, North Carolina.", "Leland", "place"),
        ("It is based in Columbus, Ohio.", "Ohio", "place"),
        ("He joined Marrow Publishing House in 1962.", "Marrow Publishing House", "org"),
        ("The song was written by Jack Owens.", "Jack Owens", "person"),
        ("Sid Haig (born July 14, 1939) is an actor.", "Sid Haig", "person"),
    ],
)
def test_name_roles_come_from_the_words_in_and_around_a_name(
    text: str, name: str, role: str
) -> None:
    mention = next(m for m in mentions(text) if m.text == name)
    assert name_role(text, mention) == role


def test_a_nationality_before_a_noun_is_an_adjective() -> None:
    text = "She is an Australian race walker who moved to Milan in 1990."
    found = {m.text: m for m in mentions(text)}
    assert adjectival(text, found["Australian"])
    assert not adjectival(text, found["Milan"])
