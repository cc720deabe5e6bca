"""Text that crosses an edge: questions as they come in (CLI, library, API), and
untrusted text as it goes out to a terminal. Pure.

Questions are normalised once, the same way everywhere: Unicode NFC, terminal escape
sequences (CSI, OSC, DCS...) and control characters removed, whitespace collapsed to
single spaces, and one length limit, :data:`MAX_QUESTION_CHARS`. Text printed to a
terminal goes through :func:`for_terminal`, which shows control characters as visible
escapes instead of letting the terminal act on them (an OSC sequence in a page title
could otherwise retitle the window or worse).
"""

from __future__ import annotations

import re
import unicodedata

from deepresearch.errors import InvalidInput

#: the longest question (in characters, after normalisation) any front end accepts
MAX_QUESTION_CHARS = 4000
#: the longest document given with a question (the employer recipe's job posting)
MAX_DOCUMENT_CHARS = 30_000

# Whole terminal sequences first, so their parameters do not survive as stray text
# ("\x1b]0;title\x07" must vanish, not leave "]0;title"): CSI, OSC, the string commands
# (DCS, SOS, PM, APC) and two-character escapes, in their 7-bit and 8-bit forms.
_TERMINAL_SEQUENCE = re.compile(
    r"(?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]?"
    r"|(?:\x1b[\]PX^_]|[\x90\x98\x9d\x9e\x9f])[^\x07\x1b\x9c\n]*(?:\x07|\x1b\\|\x9c)?"
    r"|\x1b[ -~]?"
)
# Bidirectional embeddings, overrides and isolates reorder what is displayed
# ("Trojan Source"); the plain marks (LRM, RLM, ALM) are harmless and stay.
_BIDI_CONTROLS = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


def _is_control(char: str) -> bool:
    """C0, DEL, C1, lone surrogates (from undecodable bytes) and bidi controls."""
    return char in _BIDI_CONTROLS or unicodedata.category(char) in ("Cc", "Cs")


def strip_controls(text: str) -> str:
    """``text`` without terminal sequences or control characters; whitespace (tabs, line
    breaks) is left as it is."""
    text = _TERMINAL_SEQUENCE.sub("", text)
    return "".join(c for c in text if c in "\t\n\r" or not _is_control(c))


def clean_text(text: str, *, multiline: bool = False) -> str:
    """``text`` in NFC without terminal sequences or control characters. Tabs and line
    breaks become spaces and whitespace runs one space, unless ``multiline``: then line
    breaks (normalised to ``\\n``) and tabs stay. Leading and trailing space is removed."""
    text = strip_controls(unicodedata.normalize("NFC", text))
    if multiline:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
        return "\n".join(line.rstrip() for line in text.split("\n")).strip()
    return " ".join(text.split())


def normalize_question(
    text: str, *, multiline: bool = False, limit: int = MAX_QUESTION_CHARS
) -> str:
    """The question as it is stored and researched (:func:`clean_text`), or
    :class:`InvalidInput` when nothing is left or it is longer than ``limit``."""
    question = clean_text(text, multiline=multiline)
    if not question:
        raise InvalidInput("the question is empty", hint="give a question to research")
    if len(question) > limit:
        raise InvalidInput(
            f"the question is {len(question):,} characters long; the limit is {limit:,}",
            hint="ask the question itself; background material belongs in the documents "
            "you research",
        )
    return question


def _escape(char: str) -> str:
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def for_terminal(text: str, *, multiline: bool = False) -> str:
    """Untrusted text made safe to print: every control character, escape sequence and
    bidi control is shown as a visible escape (``\\x1b``), so the terminal prints it
    instead of obeying it. Tabs become spaces; line breaks too unless ``multiline``."""
    out = []
    for char in text:
        if char == "\n" and multiline:
            out.append(char)
        elif char in "\t\n":
            out.append(" ")
        elif _is_control(char):
            out.append(_escape(char))
        else:
            out.append(char)
    return "".join(out)
