"""The deterministic support checker: figures, dates and names must agree with the cited
passages; paraphrases with the same facts pass; the embedding only moves the lexical bar.
Its quality on real claims is gated in tests/eval/test_wice_gate.py."""

from __future__ import annotations

import sys
from collections.abc import Sequence

import pytest

from deepresearch import embeddings
from deepresearch.core.support import (
    EMBEDDING_PIVOT,
    EMBEDDING_WEIGHT,
    PARTIAL_LEXICAL,
    SUPPORTED_LEXICAL,
    check_support,
    entities,
    is_factual,
)
from deepresearch.embeddings import (
    WordLlamaEmbedder,
    load_default_embedder,
    wordllama_available,
)
from deepresearch.errors import ConfigError


class FixedEmbedder:
    """The sentence (first text) gets one vector, every passage another."""

    def __init__(self, sentence: list[float], passage: list[float]) -> None:
        self.sentence = sentence
        self.passage = passage

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        return [self.sentence] + [self.passage for _ in texts[1:]]


# -- contradictions ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("sentence", "passage", "reason"),
    [
        (
            "The mine produced 5 million tonnes of copper in 2019.",
            "In 2019, the mine produced 80,000 tonnes of copper.",
            "number 5 million contradicts 80,000",
        ),
        (
            "Unemployment fell to 4.5% in March 2020.",
            "Unemployment fell to 5.4% in March 2020, the agency said.",
            "number 4.5% contradicts 5.4%",
        ),
        (
            "The bridge opened in 1932.",
            "The bridge opened in 1937 after five years of work.",
            "year 1932 contradicts 1937",
        ),
        (
            "The couple has two children.",
            "They have three children.",
            "number two contradicts three",
        ),
        (
            "The vaccine was approved in December 2020.",
            "The vaccine was approved in November 2020.",
            "month December contradicts November",
        ),
    ],
)
def test_a_contradicted_figure_is_unsupported(sentence: str, passage: str, reason: str) -> None:
    verdict = check_support(sentence, [passage])
    assert verdict.verdict == "unsupported"
    assert verdict.score <= 0.25
    assert any(r.startswith(reason) for r in verdict.reasons), verdict.reasons


def test_a_contradicted_figure_fails_even_with_a_perfect_embedding() -> None:
    same = FixedEmbedder([1.0, 0.0], [1.0, 0.0])
    verdict = check_support(
        "The mine produced 5 million tonnes of copper.",
        ["The mine produced 80,000 tonnes of copper."],
        embedder=same,
    )
    assert verdict.verdict == "unsupported"
    assert verdict.components.embedding == pytest.approx(1.0)


def test_a_figure_missing_from_the_passage_is_never_supported() -> None:
    verdict = check_support(
        "The mine produced 5 million tonnes of copper.", ["The mine produced copper for decades."]
    )
    assert verdict.verdict == "partial"
    assert "number 5 million not in the cited passage" in verdict.reasons
    assert verdict.components.numbers == 0.0


# -- agreement -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("sentence", "passage"),
    [
        (
            "The Eiffel Tower, completed in 1889, is 330 metres tall.",
            "Completed in 1889, the Eiffel Tower stands 330 metres tall.",
        ),
        (
            "The population reached 5.2 million in 2020.",
            "According to the 2020 census, the population reached 5,213,000.",
        ),
        (
            "Revenue grew 12 percent to $3.4bn in 2022.",
            "In 2022, revenue rose 12% to $3.4 billion.",
        ),
        (
            "The vaccine was approved on 2 December 2020.",
            "Regulators approved the vaccine on Dec. 2, 2020.",
        ),
        (
            "The renaming takes effect during the 2018–19 academic year.",
            "The renaming takes effect over the 2018-2019 academic year.",
        ),
        ("The library holds over 260,000 volumes.", "The library holds 262,000 volumes."),
    ],
)
def test_a_paraphrase_with_the_same_facts_is_supported(sentence: str, passage: str) -> None:
    verdict = check_support(sentence, [passage])
    assert verdict.verdict == "supported", verdict.reasons
    assert verdict.best_passage == 0
    assert verdict.reasons == []
    assert verdict.components.embedding is None


def test_a_missing_name_is_not_supported() -> None:
    verdict = check_support(
        "The treaty was signed by France and Germany in 1951.",
        ["The treaty was signed by France and Italy in 1951."],
    )
    assert verdict.verdict != "supported"
    assert "name 'Germany' not in the cited passage" in verdict.reasons
    assert verdict.components.entities == 0.5


def test_an_unrelated_passage_is_unsupported() -> None:
    verdict = check_support(
        "Copper prices rose sharply last year.",
        ["The museum reopened after renovation, with a new wing for modern art."],
    )
    assert verdict.verdict == "unsupported"
    assert verdict.score == 0.0
    assert verdict.components.lexical == 0.0


def test_nothing_cited_is_unsupported() -> None:
    verdict = check_support("The bridge opened in 1932.", [])
    assert verdict.verdict == "unsupported"
    assert verdict.best_passage is None
    assert verdict.reasons == ["no passage cited"]


def test_points_at_the_best_passage_and_combines_passages() -> None:
    passages = [
        "The weather was mild that spring.",
        "Kate Winslet married Ned Rocknroll in New York.",
        "The wedding took place in December 2012.",
    ]
    verdict = check_support("Kate Winslet married Ned Rocknroll in December 2012.", passages)
    assert verdict.verdict == "supported"
    assert verdict.best_passage == 1
    assert verdict.support_passages == [1, 2]
    assert verdict.components.dates == 1.0


def test_is_deterministic() -> None:
    args = ("Revenue grew 12 percent to $3.4bn in 2022.", ["In 2022, revenue rose 12% to $3.4bn."])
    assert check_support(*args) == check_support(*args)


# -- embeddings ------------------------------------------------------------------------------

SENTENCE = "Engineers installed solar panels across the northern valley farms yesterday."
PASSAGE = "Solar panels now cover farms in the valley."


def test_the_embedding_moves_the_lexical_bar() -> None:
    plain = check_support(SENTENCE, [PASSAGE])
    lexical = plain.components.lexical
    assert lexical < min(SUPPORTED_LEXICAL, PARTIAL_LEXICAL)
    assert plain.verdict == "unsupported"

    similar = check_support(SENTENCE, [PASSAGE], embedder=FixedEmbedder([1.0, 0.0], [2.0, 0.0]))
    assert similar.components.embedding == pytest.approx(1.0)
    assert lexical >= SUPPORTED_LEXICAL - EMBEDDING_WEIGHT * (1.0 - EMBEDDING_PIVOT)
    assert similar.verdict == "supported"

    unlike = check_support(SENTENCE, [PASSAGE], embedder=FixedEmbedder([1.0, 0.0], [0.0, 1.0]))
    assert unlike.components.embedding == pytest.approx(0.0)
    assert unlike.verdict == "unsupported"
    assert "low similarity to the cited passage (0.00)" in unlike.reasons


def test_a_zero_vector_does_not_break_the_check() -> None:
    verdict = check_support(SENTENCE, [PASSAGE], embedder=FixedEmbedder([0.0, 0.0], [0.0, 0.0]))
    assert verdict.components.embedding == 0.0


def test_no_embedder_when_wordllama_is_not_installed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(embeddings, "wordllama_available", lambda: False)
    assert load_default_embedder() is None


def test_a_missing_wordllama_is_a_config_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "wordllama", None)  # makes the import fail
    with pytest.raises(ConfigError, match="wordllama"):
        WordLlamaEmbedder()


@pytest.mark.skipif(not wordllama_available(), reason="wordllama is not installed")
def test_wordllama_loads_offline_and_embeds() -> None:
    embedder = load_default_embedder()
    assert embedder is not None
    assert load_default_embedder() is embedder
    vectors = embedder.embed(["The mine produced copper.", "", "Copper came from the mine."])
    assert [len(v) for v in vectors] == [256, 256, 256]
    assert not any(vectors[1])
    verdict = check_support(
        "The mine produced 80,000 tonnes of copper in 2019.",
        ["In 2019 the mine produced 80,000 tonnes of copper.", "Cats sleep a lot."],
        embedder=embedder,
    )
    assert verdict.verdict == "supported"
    assert verdict.components.embedding is not None
    assert verdict.components.embedding > 0.9


# -- names and factual sentences ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("sentence", "names"),
    [
        (
            "Kate Winslet wed Ned Rocknroll in New York.",
            ["Kate Winslet", "Ned Rocknroll", "New York"],
        ),
        ("In 1694 the Bank of England was founded.", ["Bank of England"]),
        ("Finally, Germany ratified the treaty in March.", ["Germany"]),
        ("Arnold joined CNN in 1991.", ["CNN"]),
        ("The prices rose.", []),
    ],
)
def test_entities(sentence: str, names: list[str]) -> None:
    assert entities(sentence) == names


@pytest.mark.parametrize(
    "sentence",
    [
        "The mine produced 80,000 tonnes in 2019.",
        "Marie Curie won two Nobel Prizes.",
        "Prices of copper rose sharply after the strike closed several mines.",
        "Finally, Germany ratified the treaty in 1952.",
        "As noted above, output fell 5% in 2019.",
    ],
)
def test_factual_sentences(sentence: str) -> None:
    assert is_factual(sentence)


@pytest.mark.parametrize(
    "sentence",
    [
        "",
        "## Background",
        "Key findings",
        "What happened next?",
        "The sources disagree on three points:",
        "In this section, we look at the costs.",
        "Next, we turn to the economic effects.",
        "Overall, the picture is mixed.",
        "It grew.",
    ],
)
def test_transitions_and_headings_are_not_factual(sentence: str) -> None:
    assert not is_factual(sentence)
