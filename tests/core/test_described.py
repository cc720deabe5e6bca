"""``core.described``: whether a passage is about what a describing question asks to
describe, on hand-made passages."""

from __future__ import annotations

from deepresearch.core.described import about_subject, question_subject
from deepresearch.core.questions import analyze_question

GLACIERS = analyze_question(
    "How do glaciers and icebergs form in nature, and how do they relate to sea level?"
)


def test_the_key_words_are_the_first_subject_word_and_those_that_title_a_page() -> None:
    subject = question_subject(GLACIERS, ["Iceberg", "Antimony", "Sea level rise"])
    assert subject is not None
    assert subject.keys == {"glacier", "iceberg", "sea", "level"}
    alone = question_subject(GLACIERS, [])
    assert alone is not None
    assert alone.keys == {"glacier"}


def test_a_passage_sharing_only_common_words_is_not_about_the_question() -> None:
    subject = question_subject(GLACIERS, ["Glacier", "Antimony"])
    assert subject is not None
    antimony = "It occurs in nature mainly in the form of the sulfide mineral stibnite."
    assert not about_subject(subject, antimony, "Antimony")  # two words, no key word
    assert not about_subject(subject, "A glacier is big.", "Antimony")  # one word
    assert about_subject(subject, "Glaciers form where snow builds up.", "Antimony")


def test_a_page_about_the_subject_needs_one_of_its_words() -> None:
    subject = question_subject(GLACIERS, ["Glacier"])
    assert subject is not None
    assert about_subject(subject, "It moves under its own weight.", "Glacier")
    assert not about_subject(subject, "It moves under its own weight.", "Glacier National Park")


def test_a_question_with_few_subject_words_needs_one() -> None:
    profile = analyze_question("How does an elevator work?")
    subject = question_subject(profile, ["Elevator"])
    assert subject is not None
    assert about_subject(subject, "The first elevators were built by Otis.", "History")
    assert not about_subject(subject, "Steam engines work by pressure.", "Steam engine")


def test_a_question_about_a_named_thing_is_left_to_topicality() -> None:
    named = analyze_question("What is the history and impact of the Eiffel Tower?")
    assert question_subject(named, ["Eiffel Tower"]) is None
    setting = analyze_question("How do generators work in Python?")
    subject = question_subject(setting, ["Compound statements"])
    assert subject is not None
    assert not about_subject(subject, "It is solved in Python by indenting.", "Grammar")
