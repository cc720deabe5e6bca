"""Questions normalised the same way at every edge, and untrusted text made safe to
print in a terminal."""

from __future__ import annotations

import unicodedata

import pytest

from deepresearch.core.sanitize import (
    MAX_QUESTION_CHARS,
    clean_text,
    for_terminal,
    normalize_question,
    strip_controls,
)
from deepresearch.errors import InvalidInput

# (raw question, what is stored and researched)
QUESTIONS = [
    ("What is X?", "What is X?"),
    ("  What\tis\n\nX?  ", "What is X?"),
    ("What\x00 is\x07 X?", "What is X?"),
    ("What is \x1b]0;PWNED\x07X?", "What is X?"),  # OSC ended by BEL
    ("What is \x1b]2;PWNED\x1b\\X?", "What is X?"),  # OSC ended by ST
    ("What is \x1b[31;1mX\x1b[0m?", "What is X?"),  # CSI (colour)
    ("What is \x9b31mX?", "What is X?"),  # 8-bit CSI
    ("What is \x1bPq#0;2;0;0;0\x1b\\X?", "What is X?"),  # DCS (sixel)
    ("What is \x1bcX?", "What is X?"),  # RIS (terminal reset)
    ("What\r is X?", "What is X?"),
    ("What is X\x7f?", "What is X?"),
    ("What is \u202eX\u202c?", "What is X?"),  # bidi override (Trojan Source)
    ("What is \udcffX?", "What is X?"),  # a lone surrogate from an undecodable argv byte
    ("Cafe\u0301 prices?", "Caf\u00e9 prices?"),  # NFC
    ("What\u2028is\u00a0X?", "What is X?"),  # Unicode line separator, no-break space
]


@pytest.mark.parametrize(("raw", "stored"), QUESTIONS)
def test_questions_are_normalised(raw: str, stored: str) -> None:
    assert normalize_question(raw) == stored
    assert normalize_question(stored) == stored  # idempotent: every edge may apply it


@pytest.mark.parametrize("raw", ["", "   ", "\x00\x07", "\x1b]0;title\x07", "\t\n"])
def test_an_empty_question_is_refused(raw: str) -> None:
    with pytest.raises(InvalidInput, match="the question is empty"):
        normalize_question(raw)


def test_one_length_limit_after_normalisation() -> None:
    assert len(normalize_question("x" * MAX_QUESTION_CHARS)) == MAX_QUESTION_CHARS
    # whitespace that collapses does not count against the limit
    assert (
        len(normalize_question("x" * (MAX_QUESTION_CHARS - 2) + "    \n\n y")) == MAX_QUESTION_CHARS
    )
    with pytest.raises(InvalidInput, match="100,000 characters long; the limit is 4,000"):
        normalize_question("x" * 100_000)


def test_multiline_text_keeps_its_lines_and_loses_its_controls() -> None:
    posting = "Acme Corp\r\nSenior Engineer\x1b[2J\n\n- Python\x00  \n"
    assert clean_text(posting, multiline=True) == "Acme Corp\nSenior Engineer\n\n- Python"


def test_strip_controls_keeps_whitespace() -> None:
    assert strip_controls("a\tb\nc\x1b[1md\x00e") == "a\tb\ncde"


def test_for_terminal_shows_controls_instead_of_obeying_them() -> None:
    shown = for_terminal("title\x1b]0;PWNED\x07 \x9b2J\u202eevil\r\x00end")
    assert shown == "title\\x1b]0;PWNED\\x07 \\x9b2J\\u202eevil\\x0d\\x00end"
    assert not any(unicodedata.category(c) == "Cc" for c in shown)
    assert for_terminal("two\nlines\tand tab") == "two lines and tab"
    assert for_terminal("two\nlines", multiline=True) == "two\nlines"
    assert for_terminal("[bold]not markup[/]") == "[bold]not markup[/]"  # plain text stays
