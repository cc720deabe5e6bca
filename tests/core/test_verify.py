"""Quote verification (seed 002, S04): exact, normalized with the original span, and a fuzzy
word-set Jaccard window with a 0.8 floor."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

import pytest

from deepresearch.core.verify import (
    FUZZY_FLOOR,
    best_window,
    normalize,
    normalize_with_map,
    verify_quote,
)

_TOKEN = re.compile(r"[^\W_]+")


def tokens(text: str) -> list[str]:
    return _TOKEN.findall(text.lower())


def brute_force_jaccard(quote: str, source: str) -> float:
    """The best word-set Jaccard of any window of as many source words as the quote has,
    computed the slow, obvious way."""
    wanted = set(tokens(quote))
    found = tokens(source)
    size = min(len(tokens(quote)), len(found))
    if not wanted or not found:
        return 0.0
    best = 0.0
    for i in range(len(found) - size + 1):
        window = set(found[i : i + size])
        best = max(best, len(window & wanted) / len(window | wanted))
    return best


def assert_span_matches(quote: str, source: str) -> None:
    result = verify_quote(quote, source)
    assert result.status == "PASS", result
    assert result.start is not None and result.end is not None
    assert normalize(source[result.start : result.end]) == normalize(quote)


def test_the_floor_is_the_seeds() -> None:
    assert FUZZY_FLOOR == 0.8


# -- exact -------------------------------------------------------------------------------


def test_exact_match_returns_the_span() -> None:
    source = "Intro. The Eiffel Tower is 330 metres tall. Outro."
    quote = "The Eiffel Tower is 330 metres tall."
    result = verify_quote(quote, source)
    assert (result.status, result.method, result.score) == ("PASS", "exact", 1.0)
    assert source[result.start : result.end] == quote
    assert result.start == 7


def test_exact_match_takes_the_first_occurrence() -> None:
    result = verify_quote("same words", "same words and then same words")
    assert (result.start, result.end) == (0, 10)


# -- normalized --------------------------------------------------------------------------

SOURCE = (
    "The committee\u2019s \u201cfinal\u201d report \u2014 published in 2019 \u2013 was "
    "co\u00adoperative and wide\u200branging.  It   said\n\tso\ufeff. AT&T agreed \u2026"
)


@pytest.mark.parametrize(
    ("quote", "expected_span"),
    [
        # straight quotes for curly ones
        ('The committee\'s "final" report', "The committee\u2019s \u201cfinal\u201d report"),
        # hyphens for dashes
        (
            "report - published in 2019 - was",
            "report \u2014 published in 2019 \u2013 was",
        ),
        # soft hyphen and zero-width space dropped
        ("was cooperative and wideranging.", "was co\u00adoperative and wide\u200branging."),
        # whitespace runs, tabs, newlines and a BOM
        ("It said so.", "It   said\n\tso\ufeff."),
        # case
        ("IT SAID SO", "It   said\n\tso"),
        # entities in the quote
        ("report &mdash; published", "report \u2014 published"),
        ("AT&amp;T agreed", "AT&T agreed"),
        ("committee&#8217;s", "committee\u2019s"),
        # an ellipsis character in the source, three dots in the quote
        ("AT&T agreed ...", "AT&T agreed \u2026"),
        # leading and trailing whitespace in the quote
        ("   It said   ", "It   said"),
    ],
)
def test_normalized_match_maps_back_to_the_original_span(quote: str, expected_span: str) -> None:
    result = verify_quote(quote, SOURCE)
    assert (result.status, result.method, result.score) == ("PASS", "normalized", 1.0)
    assert result.start is not None and result.end is not None
    assert SOURCE[result.start : result.end] == expected_span
    assert normalize(SOURCE[result.start : result.end]) == normalize(quote)


def test_nbsp_entity_in_the_quote_is_whitespace() -> None:
    assert_span_matches("published&nbsp;in 2019", SOURCE)


def test_curly_quotes_in_the_quote_match_straight_ones_in_the_source() -> None:
    source = 'He said "yes" and left -- it\'s over.'
    quote = "he said \u201cyes\u201d and left -- it\u2019s over"
    assert_span_matches(quote, source)
    assert verify_quote(quote, source).method == "normalized"


def test_normalize_with_map_points_every_character_at_its_origin() -> None:
    text = "  A\u2019b \u00ad\t\nC\u2014d\u2026 "
    normalized, mapping = normalize_with_map(text)
    assert normalized == "a'b c-d..."
    assert len(mapping) == len(normalized)
    assert mapping == sorted(mapping)
    for char, origin in zip(normalized, mapping, strict=True):
        if char != " ":
            assert normalize(text[origin]) in {char, "..."}


# -- fuzzy -------------------------------------------------------------------------------

TEN = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet"]


def _source(window: list[str]) -> str:
    return "Some unrelated lead words come first. " + " ".join(window) + ". Then zulu yankee."


def test_one_substituted_word_of_ten_passes_fuzzily() -> None:
    quote = " ".join(TEN)
    source = _source([*TEN[:9], "kilo"])
    expected = 9 / 11  # 9 shared words, 11 distinct in the union
    assert brute_force_jaccard(quote, source) == pytest.approx(expected)
    result = verify_quote(quote, source)
    assert (result.status, result.method) == ("PASS", "fuzzy")
    assert result.score == round(expected, 4)
    span = source[result.start : result.end]
    # a neighbouring word in place of "kilo" scores the same; the first window wins
    assert span == "first. alpha bravo charlie delta echo foxtrot golf hotel india"


def test_two_substituted_words_of_ten_fail() -> None:
    quote = " ".join(TEN)
    source = _source([*TEN[:8], "kilo", "lima"])
    expected = 8 / 12
    assert brute_force_jaccard(quote, source) == pytest.approx(expected)
    result = verify_quote(quote, source)
    assert (result.status, result.method) == ("FAIL", "fuzzy")
    assert result.score == round(expected, 4)
    assert result.start is None and result.end is None


def test_exactly_the_floor_passes() -> None:
    # two words missing and replaced by repeats: 8 shared, nothing extra -> 8/10
    quote = " ".join(TEN)
    source = _source([*TEN[:8], "alpha", "bravo"])
    result = verify_quote(quote, source)
    assert (result.status, result.method, result.score) == ("PASS", "fuzzy", 0.8)


TWENTY = [f"term{i}x" for i in range(20)]


@pytest.mark.parametrize(
    ("window", "expected", "status"),
    [
        ([*TWENTY[:16], *TWENTY[:4]], 16 / 20, "PASS"),  # at the floor
        ([*TWENTY[:17], "other", *TWENTY[:2]], 17 / 21, "PASS"),  # just above
        ([*TWENTY[:16], "other", *TWENTY[:3]], 16 / 21, "FAIL"),  # just below
        ([*TWENTY[:19], "other"], 19 / 21, "PASS"),
        (list(reversed(TWENTY)), 1.0, "PASS"),  # same words, another order
    ],
)
def test_fuzzy_boundaries(window: list[str], expected: float, status: str) -> None:
    quote = " ".join(TWENTY)
    source = "lead in " + " ".join(window) + " trailing words"
    assert brute_force_jaccard(quote, source) == pytest.approx(expected)
    result = verify_quote(quote, source)
    assert result.method == "fuzzy"
    assert result.status == status
    assert result.score == round(expected, 4)


def test_a_higher_floor_fails_what_the_default_passes() -> None:
    quote = " ".join(TEN)
    source = _source([*TEN[:9], "kilo"])
    assert verify_quote(quote, source).status == "PASS"
    assert verify_quote(quote, source, floor=0.9).status == "FAIL"


def test_repeated_quote_words_count_once_in_the_set() -> None:
    quote = "the cat and the hat"
    source = "the cat and a hat"  # window {the, cat, and, a, hat} vs {the, cat, and, hat}
    result = verify_quote(quote, source)
    assert result.score == round(4 / 5, 4)
    assert result.status == "PASS"


def test_a_quote_longer_than_the_source_is_compared_with_the_whole_source() -> None:
    score, start, end = best_window("one two three four five", "one two three")
    assert score == pytest.approx(3 / 5)
    assert (start, end) == (0, 13)


def test_best_window_reports_the_first_best_window() -> None:
    source = "aa bb cc dd. aa bb cc dd."
    score, start, end = best_window("bb cc dd", source)
    assert score == 1.0
    assert source[start:end] == "bb cc dd"
    assert start == 3


@pytest.mark.parametrize(
    ("quote", "source"),
    [("", "some text"), ("   \n", "some text"), ("some", ""), ("", "")],
)
def test_empty_inputs_fail(quote: str, source: str) -> None:
    result = verify_quote(quote, source)
    assert (result.status, result.method, result.score) == ("FAIL", "none", 0.0)
    assert result.start is None and result.end is None


def test_a_quote_of_punctuation_only_fails() -> None:
    result = verify_quote("?!", "Some source text.")
    assert result.status == "FAIL"
    assert result.score == 0.0


def test_an_unrelated_quote_fails_with_score_zero() -> None:
    result = verify_quote("completely different words", "Nothing in common here at all.")
    assert (result.status, result.score) == ("FAIL", 0.0)


def test_fuzzy_pass_span_has_the_claimed_score() -> None:
    source = _source([*TEN[:9], "kilo"])
    result = verify_quote(" ".join(TEN), source)
    assert result.start is not None and result.end is not None
    span = source[result.start : result.end]
    assert brute_force_jaccard(" ".join(TEN), span) == pytest.approx(result.score, abs=1e-4)


def test_linear_pass_agrees_with_brute_force_on_random_texts() -> None:
    rng = random.Random(7)
    vocabulary = [f"w{i}" for i in range(12)]
    for _ in range(300):
        source = " ".join(rng.choice(vocabulary) for _ in range(rng.randint(1, 40)))
        quote = " ".join(rng.choice(vocabulary) for _ in range(rng.randint(1, 12)))
        score, start, end = best_window(normalize(quote), source)
        assert score == pytest.approx(brute_force_jaccard(quote, source))
        assert brute_force_jaccard(quote, source[start:end]) == pytest.approx(score)


# -- real sentences (WiCE) ---------------------------------------------------------------


def _wice_rows(shared_data: Path, count: int) -> list[dict[str, object]]:
    path = shared_data / "claims" / "wice" / "dev.jsonl"
    if not path.is_file():
        pytest.skip(f"{path} not found")
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
    rows = [row for row in rows if len(row["evidence"]) <= 300]
    return rows[:count]


def _gold(row: dict[str, object]) -> list[str]:
    evidence = row["evidence"]
    assert isinstance(evidence, list)
    indices = sorted({i for group in row["supporting_sentences"] for i in group})  # type: ignore[attr-defined]
    return [evidence[i] for i in indices if len(evidence[i].split()) >= 3]


def test_wice_gold_sentences_verify_exactly(shared_data: Path) -> None:
    checked = 0
    for row in _wice_rows(shared_data, 120):
        text = "\n".join(row["evidence"])  # type: ignore[arg-type]
        for sentence in _gold(row):
            result = verify_quote(sentence, text)
            assert (result.status, result.method) == ("PASS", "exact"), sentence
            assert text[result.start : result.end] == sentence
            checked += 1
    assert checked > 150


def test_wice_shuffled_sentences_pass_fuzzily_with_jaccard_one(shared_data: Path) -> None:
    rng = random.Random(11)
    checked = 0
    for row in _wice_rows(shared_data, 60):
        text = "\n".join(row["evidence"])  # type: ignore[arg-type]
        for sentence in _gold(row)[:2]:
            parts = sentence.split()
            if len(set(tokens(sentence))) < 5:
                continue
            shuffled = parts[:]
            rng.shuffle(shuffled)
            quote = " ".join(shuffled)
            if normalize(quote) in normalize(text):
                continue
            # the same words in another order: the sentence's own window has Jaccard 1
            result = verify_quote(quote, text)
            assert (result.status, result.method, result.score) == ("PASS", "fuzzy", 1.0)
            assert set(tokens(text[result.start : result.end])) == set(tokens(quote))
            checked += 1
    assert checked > 40


def test_wice_damaged_sentences_pass_or_fail_as_jaccard_predicts(shared_data: Path) -> None:
    rng = random.Random(3)
    outcomes = {"PASS": 0, "FAIL": 0}
    for row in _wice_rows(shared_data, 60):
        text = "\n".join(row["evidence"])  # type: ignore[arg-type]
        for n, sentence in enumerate(_gold(row)[:2]):
            parts = sentence.split()
            if len(parts) < 8:
                continue
            damaged = parts[:]
            for k in range(1 + n % 3):  # replace 1, 2 or 3 words with words nowhere in the text
                damaged[rng.randrange(len(damaged))] = f"qqxz{k}"
            rng.shuffle(damaged)
            quote = " ".join(damaged)
            expected = brute_force_jaccard(quote, text)
            result = verify_quote(quote, text)
            assert result.method == "fuzzy"
            assert result.score == round(expected, 4)
            assert result.status == ("PASS" if expected >= FUZZY_FLOOR else "FAIL")
            outcomes[result.status] += 1
    assert outcomes["PASS"] > 5 and outcomes["FAIL"] > 5, outcomes
