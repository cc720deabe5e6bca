"""Quote verification (seed 002, S04): exact, normalized with the original span, and a fuzzy
word-set Jaccard window with a 0.8 floor."""

from __future__ import annotations

import html
import json
import random
import re
from pathlib import Path

import pytest

from deepresearch.core.verify import (
    _FOLD,
    FUZZY_FLOOR,
    _fold,
    _spaced,
    best_window,
    normalize,
    normalize_with_map,
    verify_quote,
)
from deepresearch.models import Verification

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


# -- a slow, obvious reference: the per-character normalization as first written, and every
# window scored from scratch --------------------------------------------------------------

_REFERENCE_TABLE = (
    dict.fromkeys(map(ord, "\u2018\u2019\u201a\u201b\u2032`\u00b4"), "'")
    | dict.fromkeys(map(ord, "\u201c\u201d\u201e\u201f\u2033\u00ab\u00bb"), '"')
    | dict.fromkeys(map(ord, "\u2010\u2011\u2012\u2013\u2014\u2015\u2212"), "-")
    | dict.fromkeys(map(ord, "\u00ad\u200b\u200c\u200d\ufeff"))
    | {ord("\u2026"): "..."}
)


def reference_normalize_with_map(text: str) -> tuple[str, list[int]]:
    out: list[str] = []
    index: list[int] = []
    pending_space = False
    for i, char in enumerate(text):
        mapped = char.translate(_REFERENCE_TABLE)
        if not mapped:
            continue
        if mapped.isspace():
            pending_space = bool(out)
            continue
        if pending_space:
            out.append(" ")
            index.append(i)
            pending_space = False
        for piece in mapped.lower():
            out.append(piece)
            index.append(i)
    return "".join(out), index


def reference_normalize(text: str) -> str:
    return reference_normalize_with_map(html.unescape(text))[0]


def reference_window(norm_quote: str, source: str) -> tuple[float, int, int]:
    """Every window of as many normalized source words as the quote has, scored from
    scratch; the first best, its span mapped back with the reference map."""
    norm_source, index = reference_normalize_with_map(source)
    quote_words = _TOKEN.findall(norm_quote)
    wanted = set(quote_words)
    found = list(_TOKEN.finditer(norm_source))
    if not wanted or not found:
        return 0.0, 0, 0
    size = min(len(quote_words), len(found))
    best = (0.0, 0, 0)
    for i in range(len(found) - size + 1):
        window = {match.group() for match in found[i : i + size]}
        score = len(window & wanted) / len(window | wanted)
        if score > best[0]:
            best = (score, index[found[i].start()], index[found[i + size - 1].end() - 1] + 1)
    return best


def found_share(quote: str, source: str) -> float:
    """The share of the quote's distinct words that occur in the source at all: the
    prefilter's upper bound on any window's score."""
    wanted = set(_TOKEN.findall(reference_normalize(quote)))
    present = set(_TOKEN.findall(reference_normalize_with_map(source)[0]))
    return len(wanted & present) / len(wanted) if wanted else 0.0


def reference_verify(quote: str, source: str, floor: float = FUZZY_FLOOR) -> Verification:
    if not quote.strip() or not source:
        return Verification(status="FAIL", method="none", score=0.0)
    at = source.find(quote)
    if at >= 0:
        return Verification(status="PASS", method="exact", score=1.0, start=at, end=at + len(quote))
    norm_quote = reference_normalize(quote)
    norm_source, index = reference_normalize_with_map(source)
    at = norm_source.find(norm_quote) if norm_quote else -1
    if at >= 0:
        end = index[at + len(norm_quote) - 1] + 1
        return Verification(status="PASS", method="normalized", score=1.0, start=index[at], end=end)
    score, start, end = reference_window(norm_quote, source)
    if score >= floor:
        return Verification(
            status="PASS", method="fuzzy", score=round(score, 4), start=start, end=end
        )
    # a FAIL's score is the best window's, or the prefilter's bound when too few quote
    # words occur for any window to reach the floor
    share = found_share(quote, source)
    return Verification(
        status="FAIL", method="fuzzy", score=round(score if share >= floor else share, 4)
    )


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
            if found_share(quote, text) >= FUZZY_FLOOR:
                assert result.score == round(expected, 4)
            else:  # the prefilter: no window searched, the score is its upper bound
                assert result.score == round(found_share(quote, text), 4) >= round(expected, 4)
            assert result.status == ("PASS" if expected >= FUZZY_FLOOR else "FAIL")
            outcomes[result.status] += 1
    assert outcomes["PASS"] > 5 and outcomes["FAIL"] > 5, outcomes


# -- the fast paths against the reference ---------------------------------------------------

#: pieces that exercise folding: case, capital sigma and dotted I, quotes, dashes, dropped
#: characters, the ellipsis, entities, non-ASCII letters and symbols, odd whitespace
_PIECES = ["a", "b", "ab", "ba", "abc", "The", "THE", "the", "\u03a3", "\u03c3", "\u03c2"]
_PIECES += ["\u0130", "i", "\u00f6", "\u00c9", "x1", "42", "\u0416", "\u5efa"]
_GLUE = [" ", "  ", "\n", "\t", "\r\n", ", ", ". ", "-", "\u2014", "\u2013", "\u2019", "'"]
_GLUE += ["\u201c", "\u201d", "\u00ad", "\u200b", "\ufeff", "\u2026", "...", "_", "\u00b0"]
_GLUE += ["&amp;", "&mdash;", "&", "(", ")", "\u00a0", "\u2009", "\u20ac", "\ud800"]


def _random_text(rng: random.Random, pieces: int) -> str:
    return "".join(rng.choice(_PIECES) + rng.choice(_GLUE) for _ in range(pieces))


def _random_case(rng: random.Random) -> tuple[str, str]:
    """A source and a quote cut from it (then shouted, re-spaced, reordered or edited),
    or one made of the same pieces."""
    source = _random_text(rng, rng.randint(0, 30))
    if source and rng.random() < 0.6:
        start = rng.randrange(len(source))
        quote = source[start : start + rng.randint(1, 60)]
        if rng.random() < 0.4:
            quote = quote.upper()
        if rng.random() < 0.3:
            quote = quote.replace(" ", "  \n")
        if rng.random() < 0.3:
            words = quote.split()
            rng.shuffle(words)
            quote = " ".join([*words, rng.choice(_PIECES)])
        return quote, source
    return _random_text(rng, rng.randint(1, 10)), source


def test_folding_equals_lowering_each_character_on_every_code_point() -> None:
    # ``_fold`` replaces the ``_FOLD`` keys, then lowers the whole string at once; that
    # is translating and lowering each character only if (1) no other character's
    # lowercase is longer than one character or depends on its neighbours (Python's only
    # such are dotted capital I and capital sigma, both keys), (2) no other character
    # lowercases into a key, and (3) lowering a lowercase form changes nothing
    longer, into_key, unstable = [], [], []
    for code in range(0x110000):
        char = chr(code)
        lowered = char.lower()
        if char in _FOLD:
            continue
        if len(lowered) != 1:
            longer.append(char)
        if any(piece in _FOLD for piece in lowered):
            into_key.append(char)
        if lowered.lower() != lowered:
            unstable.append(char)
    assert (longer, into_key, unstable) == ([], [], [])
    assert ("A\u03a3".lower(), _fold("A\u03a3")) == ("a\u03c2", "a\u03c3")  # no final sigma


def test_fold_and_normalize_match_the_reference_on_random_text() -> None:
    rng = random.Random(5)
    for _ in range(400):
        text = _random_text(rng, rng.randint(0, 25))
        assert normalize_with_map(text) == reference_normalize_with_map(text), repr(text)
        assert normalize(text) == reference_normalize(text), repr(text)


def test_spaced_words_are_the_seed_tokens() -> None:
    rng = random.Random(8)
    alphabet = [chr(code) for code in rng.sample(range(0x20, 0x3000), 600)]
    alphabet += [*"abcXYZ019_-.,;:!?()[]/\\ \t\n", "\U0001f600", "\U00020000", "\ud800"]
    for _ in range(400):
        text = "".join(rng.choices(alphabet, k=rng.randint(0, 40)))
        spaced = _spaced(text)
        assert len(spaced) == len(text)
        assert spaced.split() == _TOKEN.findall(text), repr(text)


def test_verify_quote_matches_the_reference_on_random_text() -> None:
    rng = random.Random(13)
    for _ in range(1500):
        quote, source = _random_case(rng)
        floor = rng.choice([FUZZY_FLOOR] * 4 + [0.5, 1.0, 0.0, 1.5])
        expected = reference_verify(quote, source, floor)
        assert verify_quote(quote, source, floor=floor) == expected, (quote, source, floor)


def _long_case(rng: random.Random) -> tuple[str, str]:
    """Hundreds of words from a skewed vocabulary (so some quote words are common and the
    window search has to go down levels) and a quote of up to 30 words: cut from the
    source and edited, or drawn from the vocabulary."""
    vocabulary = [f"w{i}" if rng.random() < 0.7 else f"Long{i}word" for i in range(80)]
    weights = [1 / (rank + 1) for rank in range(len(vocabulary))]
    words = rng.choices(vocabulary, weights, k=rng.randint(1, 400))
    glue = [" "] * 12 + [", ", ". ", "\n", "  ", " - ", "\u2019", "\u00ad"]
    source = "".join(word + rng.choice(glue) for word in words)
    size = rng.randint(1, 30)
    if rng.random() < 0.7:
        at = rng.randrange(len(words))
        picked = words[at : at + size]
        for _ in range(rng.choice([0, 1, 2, 3, 5])):
            picked[rng.randrange(len(picked))] = rng.choice([*vocabulary, "zz1", "zz2"])
        if rng.random() < 0.3:
            rng.shuffle(picked)
    else:
        picked = rng.choices([*vocabulary, "zz1"], k=size)
    return " ".join(picked), source


def test_verify_quote_matches_the_reference_on_long_texts() -> None:
    rng = random.Random(21)
    for _ in range(250):
        quote, source = _long_case(rng)
        floor = rng.choice([FUZZY_FLOOR] * 6 + [0.6, 0.9])
        expected = reference_verify(quote, source, floor)
        assert verify_quote(quote, source, floor=floor) == expected, (quote, source, floor)


def test_best_window_is_exact_against_the_reference() -> None:
    rng = random.Random(34)
    for _ in range(300):
        quote, source = _long_case(rng) if rng.random() < 0.5 else _random_case(rng)
        norm_quote = normalize(quote)
        assert best_window(norm_quote, source) == reference_window(norm_quote, source)
        mapped = normalize_with_map(source)
        assert best_window(norm_quote, source, normalized=mapped) == reference_window(
            norm_quote, source
        )


def test_the_prefilter_bound_is_never_below_the_best_score() -> None:
    rng = random.Random(55)
    bounded = 0
    for _ in range(600):
        quote, source = _long_case(rng) if rng.random() < 0.5 else _random_case(rng)
        result = verify_quote(quote, source)
        if result.method != "fuzzy":
            continue
        norm_source = reference_normalize_with_map(source)[0]  # (no entities decoded)
        best = brute_force_jaccard(reference_normalize(quote), norm_source)
        assert result.score >= round(best, 4)
        assert result.status == ("PASS" if best >= FUZZY_FLOOR else "FAIL")
        if result.status == "PASS" or found_share(quote, source) >= FUZZY_FLOOR:
            assert result.score == round(best, 4)
        else:
            bounded += 1
            assert result.score == round(found_share(quote, source), 4) < FUZZY_FLOOR
    assert bounded > 50


def test_a_quote_with_too_few_words_in_the_source_fails_with_the_bound() -> None:
    # 7 of the 10 quote words occur, but far apart: the best window shares 1 word with
    # the quote; no window is searched since none could reach 8 of 10
    source = " filler filler filler ".join(TEN[:7])
    quote = " ".join([*TEN[:7], "kilo", "lima", "mike"])
    result = verify_quote(quote, source)
    assert (result.status, result.method, result.score) == ("FAIL", "fuzzy", 0.7)
    assert brute_force_jaccard(quote, source) < 0.7


def test_scattered_quote_words_fail_with_the_exact_score() -> None:
    # every quote word occurs, never two in one window: the search goes down level by
    # level and ends with the exact best score (a quote word and "pad"), not the bound 1.0
    source = " ".join(word + " pad" * 30 for word in TEN)
    quote = " ".join(TEN)
    expected = brute_force_jaccard(quote, source)
    assert expected == pytest.approx(1 / 11)
    result = verify_quote(quote, source)
    assert (result.status, result.score) == ("FAIL", round(expected, 4))


def test_quote_words_too_common_to_anchor_on_are_scored_in_one_pass() -> None:
    # each quote word occurs 12 times, scattered: no rare word to anchor the search on
    rng = random.Random(3)
    words = [rng.choice(["pad", "fill", "more"]) for _ in range(600)]
    for word in TEN:
        for _ in range(12):
            words[rng.randrange(len(words))] = word
    source = " ".join(words)
    for quote in (" ".join(TEN), " ".join([*TEN[:9], "kilo"])):
        expected = reference_verify(quote, source)
        assert verify_quote(quote, source) == expected


@pytest.mark.parametrize(
    ("floor", "status"), [(0.0, "PASS"), (1.0, "FAIL"), (1.5, "FAIL"), (-1.0, "PASS")]
)
def test_odd_floors(floor: float, status: str) -> None:
    source = _source([*TEN[:9], "kilo"])
    result = verify_quote(" ".join(TEN), source, floor=floor)
    assert result.status == status
    assert result == reference_verify(" ".join(TEN), source, floor)


# -- spans ---------------------------------------------------------------------------------

MESSY = (
    "Intro line.\r\nThe  co\u00adoperative\u2019s \u201cfinal\u201d  report \u2014 "
    "published\r\n in 2019\u2026 by AT&T \u2013 was  wide\u200branging.\r\n"
)


@pytest.mark.parametrize(
    ("quote", "method", "expected_span"),
    [
        (
            'the cooperative\'s "final" report - published in 2019',
            "normalized",
            "The  co\u00adoperative\u2019s \u201cfinal\u201d  report \u2014 published\r\n in 2019",
        ),
        ("in 2019... by AT&amp;T", "normalized", "in 2019\u2026 by AT&T"),
        ("AT&amp;T &ndash; WAS WIDERANGING", "normalized", "AT&T \u2013 was  wide\u200branging"),
        (  # one word changed: fuzzy, from the first word of the window to the last
            "the cooperative's final report - printed in 2019... by AT&T",
            "fuzzy",
            "The  co\u00adoperative\u2019s \u201cfinal\u201d  report \u2014 published\r\n"
            " in 2019\u2026 by AT&T",
        ),
        (  # punctuation left out: the same words
            "report published in 2019 by AT&T was wideranging",
            "fuzzy",
            "report \u2014 published\r\n in 2019\u2026 by AT&T \u2013 was  wide\u200branging",
        ),
    ],
)
def test_spans_map_back_through_soft_hyphens_quotes_crlf_spaces_and_entities(
    quote: str, method: str, expected_span: str
) -> None:
    result = verify_quote(quote, MESSY)
    assert (result.status, result.method) == ("PASS", method)
    assert result.start is not None and result.end is not None
    assert MESSY[result.start : result.end] == expected_span
    assert result == reference_verify(quote, MESSY)


@pytest.mark.parametrize(
    ("quote", "expected_span"),
    [
        ("the final report", "The   Final Report"),
        ("then the final report, here", "then The   Final Report\u00ad, here"),
        ("\u0130STANBUL... THEN", "\u0130ST\u00adANBUL\u2026 then"),
        ("...\u0130stanbul... then the final", "\u2026\u0130ST\u00adANBUL\u2026 then The   Final"),
    ],
)
def test_a_match_after_expanding_and_dropped_characters_maps_back(
    quote: str, expected_span: str
) -> None:
    # before and inside the match, characters that fold to nothing (soft hyphen,
    # zero-width space), to three (ellipsis) and to two ("\u0130": "i" + a combining dot)
    source = "\u00ad\u200b\u2026\u0130ST\u00adANBUL\u2026 then The   Final Report\u00ad, here."
    result = verify_quote(quote, source)
    assert (result.status, result.method) == ("PASS", "normalized")
    assert result.start is not None and result.end is not None
    assert source[result.start : result.end] == expected_span
    assert result == reference_verify(quote, source)


def test_a_quote_found_twice_gives_the_first_occurrence() -> None:
    sentence = "The \u201cquick\u201d brown fox jumps over the lazy dog near the river bank"
    source = f"Start. {sentence}. Middle part of the text. {sentence}. End."
    first = source.index("The")
    normalized = verify_quote('the "quick" brown fox jumps', source)
    assert (normalized.method, normalized.start) == ("normalized", first)
    fuzzy = verify_quote("the quick brown fox leaps over the lazy dog near the river bank", source)
    assert fuzzy.method == "fuzzy"
    assert fuzzy.start == first
    assert source[fuzzy.start : fuzzy.end] == sentence


# -- real articles (FreshWiki) ---------------------------------------------------------------


def test_real_articles_match_the_reference(shared_data: Path) -> None:
    from deepresearch.testing.corpora import freshwiki_documents

    articles = [doc.text for doc in freshwiki_documents(shared_data, limit=12)]
    if len(articles) < 2:
        pytest.skip("FreshWiki articles not found")
    rng = random.Random(17)
    methods = {"exact": 0, "normalized": 0, "fuzzy": 0}
    for n, text in enumerate(articles):
        sentences = [s for s in re.split(r"(?<=[.!?])\s+", text) if 8 <= len(s.split()) <= 40]
        other = articles[(n + 1) % len(articles)]
        for sentence in rng.sample(sentences, min(4, len(sentences))):
            words = sentence.split()
            edited = words[:]
            for _ in range(rng.choice((1, 2, 3))):
                edited[rng.randrange(len(edited))] = rng.choice(("zebra", "quantum", "the"))
            shuffled = words[:]
            rng.shuffle(shuffled)
            for quote in (
                sentence,
                sentence.upper().replace(" ", "  "),
                " ".join(edited),
                " ".join(shuffled),
                rng.choice(re.split(r"(?<=[.!?])\s+", other)),
            ):
                result = verify_quote(quote, text)
                assert result == reference_verify(quote, text), quote
                methods[result.method] += 1
    assert all(count > 5 for count in methods.values()), methods


@pytest.mark.parametrize(
    ("source", "quote"),
    [
        (
            "It is not true that the vaccine causes autism, the study found.",
            "the vaccine causes autism",
        ),
        (
            "Experts call it a myth that goldfish have a three-second memory.",
            "goldfish have a three-second memory",
        ),
        (
            "The ministry denied that the minister resigned on Monday.",
            "the minister resigned on Monday",
        ),
        ("He never said the bridge was unsafe.", "said the bridge was unsafe"),
    ],
)
def test_a_quote_cut_so_its_meaning_flips_fails(source: str, quote: str) -> None:
    result = verify_quote(quote, source)
    assert result.status == "FAIL" and result.method == "context"


@pytest.mark.parametrize(
    ("source", "quote"),
    [
        (
            "No. The vaccine is safe for children over five.",
            "The vaccine is safe for children over five.",
        ),
        (
            "The bridge opened in 1932. It was not the longest bridge.",
            "It was not the longest bridge.",
        ),
        (
            "Researchers found that the vaccine is safe for children.",
            "the vaccine is safe for children",
        ),
    ],
)
def test_quotes_whose_context_does_not_reverse_them_pass(source: str, quote: str) -> None:
    assert verify_quote(quote, source).status == "PASS"
