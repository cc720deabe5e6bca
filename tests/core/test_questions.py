"""What a question asks for, read without a model: the kind of answer, the things compared,
and whether it describes an unnamed thing through another (a multi-hop question)."""

from __future__ import annotations

import pytest

from deepresearch.core.questions import analyze_question, stem


@pytest.mark.parametrize(
    ("question", "answer_type"),
    [
        ("Who painted the ceiling of the Varga Chapel?", "person"),
        ("When did the Orlen Bridge open?", "date"),
        ("In what year was the Orlen Bridge opened?", "date"),
        ("Where is the headquarters of Marrow House?", "place"),
        ("Marrow House is based in what city?", "place"),
        ("How many people live in Dunmere?", "number"),
        ("What was the population of Dunmere in 2011?", "number"),
        ("Which actress starred in The Glass Orchard?", "person"),
        ("Which company published The Glass Orchard?", "entity"),
        ("Is Dunmere larger than Leeds?", "yesno"),
        ("The Glass Orchard, published in which year, is a book by Irena Kovalska.", "date"),
        ("Tell me about the Orlen Bridge", "unknown"),
    ],
)
def test_the_answer_type_follows_the_question_word_and_its_noun(
    question: str, answer_type: str
) -> None:
    assert analyze_question(question).answer_type == answer_type


def test_the_things_compared_are_the_names_either_side_of_or() -> None:
    profile = analyze_question("Which band was formed first, The Velvet Moths or Salt Harbour?")
    assert profile.comparison and profile.options == ("Velvet Moths", "Salt Harbour")
    profile = analyze_question(
        "Which came first, the founding of Marrow House or the birth of Irena Kovalska?"
    )
    assert profile.options == ("Marrow House", "Irena Kovalska")


def test_a_yes_no_question_about_two_things_compares_them() -> None:
    profile = analyze_question("Are Irena Kovalska and Tomas Berg both novelists?")
    assert profile.answer_type == "yesno"
    assert profile.options == ("Irena Kovalska", "Tomas Berg")


def test_or_inside_a_description_compares_nothing() -> None:
    profile = analyze_question("Who directed the film shot in or around Dunmere, Ostrelia in 1986?")
    assert profile.options == () and not profile.comparison


@pytest.mark.parametrize(
    ("question", "bridge_type"),
    [
        ("Who directed the film that was shot in Dunmere in 1986?", "entity"),
        ("In what year was the man that resigned as mayor of Dunmere born?", "person"),
        ("What was the population of the city where Irena Kovalska was born?", "place"),
        ("Which label released the album produced by a man born in Leeds?", "entity"),
        ("When did the singer known for The Glass Orchard die?", "person"),
    ],
)
def test_a_described_thing_makes_the_question_nested(question: str, bridge_type: str) -> None:
    profile = analyze_question(question)
    assert profile.nested
    assert profile.bridge_type == bridge_type


def test_a_question_that_names_its_subject_is_not_nested() -> None:
    assert not analyze_question("Who wrote The Glass Orchard?").nested


def test_relation_words_are_the_question_words_outside_its_names() -> None:
    profile = analyze_question("Who wrote the novel that is set on the shore of Lake Varmo?")
    assert profile.relation == ("wrote", "novel", "set", "shore")
    assert profile.entity_keys == {"lake varmo"}


def test_the_question_names_a_key_by_its_words_or_holds_it_within_a_longer_name() -> None:
    profile = analyze_question("Are Scott Hale and Tomas Berg both film directors?")
    assert profile.mentions_key("directors") and profile.mentions_key("director")
    assert profile.mentions_key("herbert scott hale iii")  # a longer form of a named one
    assert not profile.mentions_key("irena kovalska")


@pytest.mark.parametrize(
    ("words", "same"),
    [
        (("directors", "director"), True),
        (("resigned", "resignation"), True),
        (("wrote", "written"), True),
        (("cities", "city"), True),
        (("glass", "glasses"), False),
    ],
)
def test_stems_match_the_forms_of_a_word(words: tuple[str, str], same: bool) -> None:
    assert (stem(words[0]) == stem(words[1])) is same
