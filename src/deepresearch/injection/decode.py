"""Undoing the disguises an attacker puts on an instruction so that a model still reads it
but a filter does not: invisible and look-alike characters, l33tspeak, s p a c e d
letters, Unicode tag characters, base64, HTML entities, percent-encoding, reversed text.
Each function returns the text as a model would read it, or "" when there is nothing to
undo, so the scanner only rescans what changed."""

from __future__ import annotations

import base64
import binascii
import html
import re
import unicodedata
from collections.abc import Iterator
from urllib.parse import unquote_plus

_INVISIBLE = re.compile(
    "[\u00ad\u034f\u061c\u115f\u1160\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064"
    "\u2066-\u2069\ufeff]"
)
_TAG_RUN = re.compile("[\U000e0000-\U000e007f]+")
_BASE64 = re.compile(r"(?<![A-Za-z0-9+/_=-])[A-Za-z0-9+/_-]{24,}={0,2}(?![A-Za-z0-9+/_=-])")
_MAX_BLOBS = 40
_ENTITY = re.compile(r"&(?:#[0-9]{2,7}|#x[0-9a-f]{2,6}|[a-z][a-z0-9]{1,30});", re.I)
_PERCENT = re.compile(r"%[0-9a-f]{2}", re.I)
# Cyrillic and Greek letters that look Latin, and l33tspeak digits and symbols
_LOOKALIKE = {
    **dict.fromkeys("аАαΑ", "a"),
    **dict.fromkeys("еЕεΕ", "e"),
    **dict.fromkeys("оОοΟ", "o"),
    **dict.fromkeys("іІιΙӀ", "i"),
    **dict.fromkeys("ѕЅ", "s"),
    **dict.fromkeys("рРρΡ", "p"),
    **dict.fromkeys("сСϲ", "c"),
    **dict.fromkeys("уУ", "y"),
    **dict.fromkeys("хХχΧ", "x"),
    **dict.fromkeys("јЈ", "j"),
    **dict.fromkeys("ԁ", "d"),
    **dict.fromkeys("ɡ", "g"),
    **dict.fromkeys("νΝ", "v"),
    **dict.fromkeys("κΚкК", "k"),
    **dict.fromkeys("мМμΜ", "m"),
    **dict.fromkeys("тТτΤ", "t"),
    **dict.fromkeys("нНηΗ", "h"),
    **dict.fromkeys("вВβΒ", "b"),
    **dict.fromkeys("ԛ", "q"),
    **dict.fromkeys("ԝ", "w"),
    **dict.fromkeys("ΖΖ", "z"),
}
_LEET = {
    **dict.fromkeys("4@", "a"),
    "3": "e",
    **dict.fromkeys("0", "o"),
    **dict.fromkeys("1!|", "i"),
    **dict.fromkeys("5$", "s"),
    **dict.fromkeys("7+", "t"),
    "8": "b",
    "9": "g",
}
_LOOKALIKE_TABLE = str.maketrans(_LOOKALIKE)
_FOLD_TABLE = str.maketrans({**_LOOKALIKE, **_LEET})
# a token that mixes letters with look-alikes or l33t digits: "іgnоrе", "1gn0r3", "m0d3ls"
_TOKEN = re.compile(r"[^\s.,;:?\"'()\[\]{}<>/]+")
_LATIN = re.compile(r"[a-z]", re.I)
_ADDRESS = re.compile(r"(?:(?:https?|ftp)://|www\.)\S+|[\w.+-]+@[\w-]+(?:\.[\w-]+)+", re.I)
_LONE_DIGIT = re.compile(r"(?<![\w.,])[0134](?![\w.,])")
_FOREIGN_LOOKALIKE = re.compile("[" + "".join(_LOOKALIKE) + "]")
_LEET_CHARS = re.compile(r"[0-9@$!|+]")
# letters s p a c e d out, or s.e.p.a.r.a.t.e.d by one symbol: four letters or more
_SPACED = re.compile(r"(?<!\w)(?:[^\W\d_][ .\-_*·|/]){2,}[^\W\d_](?!\w)")
_SPACED_SEPARATOR = re.compile(r"[ .\-_*·|/]")
_SPACED_GAP = re.compile(r"(?<=\w)(?:[ .\-_*·|/]{2,}|\s{2,})(?=\w)")


def normalize(text: str) -> str:
    """``text`` as a reader sees it: compatibility forms folded (full-width and
    mathematical letters), zero-width and bidi-control characters removed."""
    return _INVISIBLE.sub("", unicodedata.normalize("NFKC", text))


def decode_tags(text: str) -> str:
    """The ASCII that Unicode tag characters (U+E0020-U+E007E) spell, one line per run."""
    runs = []
    for match in _TAG_RUN.finditer(text):
        decoded = "".join(
            chr(ord(char) - 0xE0000)
            for char in match.group(0)
            if 0x20 <= ord(char) - 0xE0000 < 0x7F
        )
        if decoded.strip():
            runs.append(decoded)
    return "\n".join(runs)


def unmask(text: str) -> str:
    """Words written with look-alike letters or l33tspeak folded to plain Latin letters
    ("іgnоrе" and "1gn0r3" -> "ignore"), and s p a c e d words joined, word gaps kept.
    Numbers, addresses, and words of a non-Latin script that merely contain look-alike
    letters stay as they are; a lone digit becomes a letter only on a line that is
    l33tspeak ("4 l4rg3 m0d3l" -> "a large model")."""
    pieces: list[str] = []
    last = 0
    for match in _ADDRESS.finditer(text):
        pieces.append(_unmask_words(text[last : match.start()]))
        pieces.append(match.group(0))
        last = match.end()
    pieces.append(_unmask_words(text[last:]))
    return "".join(pieces)


def _unmask_words(text: str) -> str:
    lines = []
    for line in text.split("\n"):
        folded = _TOKEN.sub(_unmask_token, line)
        if folded != line:
            tokens, changed = (
                line.split(),
                sum(a != b for a, b in zip(line.split(), folded.split(), strict=False)),
            )
            if tokens and changed >= 0.3 * len(tokens):
                folded = _LONE_DIGIT.sub(lambda m: _LEET[m.group(0)], folded)
        lines.append(_SPACED.sub(_join_spaced, folded))
    return "\n".join(lines)


def _unmask_token(match: re.Match[str]) -> str:
    token = match.group(0)
    if token.isascii() and not _LEET_CHARS.search(token):
        return token
    letters = sum(char.isalpha() for char in token)
    if not letters:
        return token  # a number, a price, a date
    has_latin = _LATIN.search(token) is not None
    if _FOREIGN_LOOKALIKE.search(token):
        folded = token.translate(_LOOKALIKE_TABLE)
        if has_latin or all(not c.isalpha() or c.isascii() for c in folded):
            token = folded  # mixed script, or a whole word of look-alikes
    if _LEET_CHARS.search(token) and (_LATIN.search(token) or has_latin):
        token = token.translate(_FOLD_TABLE)
    return token


def _join_spaced(match: re.Match[str]) -> str:
    run = match.group(0)
    # "I g n o r e  a l l": two or more separators mark a gap between words
    words = _SPACED_GAP.split(run)
    return " ".join(_SPACED_SEPARATOR.sub("", word) for word in words)


def squash(text: str) -> tuple[str, list[int]]:
    """The letters of ``text`` only, lower case, look-alikes and l33t folded, with the
    index in ``text`` of each letter kept: "I-g n 0 r e" -> "ignore"."""
    kept: list[int] = []
    letters: list[str] = []
    for index, char in enumerate(text):
        if char.isspace() or char in ".,;:-_*|/\\'\"()[]{}":
            continue
        folded = char.lower().translate(_FOLD_TABLE)
        if folded.isascii() and folded.isalpha():
            kept.append(index)
            letters.append(folded)
    return "".join(letters), kept


def unescape_entities(text: str) -> str:
    """HTML entities decoded (``&#73;gnore`` -> ``Ignore``), or "" when there are none."""
    if not _ENTITY.search(text):
        return ""
    decoded = html.unescape(text)
    return decoded if decoded != text else ""


def percent_decoded(text: str) -> str:
    """Percent-encoding undone where a text is full of it (``Ignore%20all%20...``), or ""."""
    if len(_PERCENT.findall(text)) < 3:
        return ""
    try:
        decoded = unquote_plus(text, errors="strict")
    except UnicodeDecodeError:
        return ""
    return decoded if decoded != text else ""


def base64_texts(text: str) -> Iterator[str]:
    """Readable text hidden in base64 blobs (standard or URL-safe alphabet)."""
    for count, match in enumerate(_BASE64.finditer(text)):
        if count >= _MAX_BLOBS:
            return
        blob = match.group(0).rstrip("=")
        if len(blob) > 20_000 or blob.isalpha() or blob.isdigit():
            continue  # a long word or number, not an encoding
        padded = blob + "=" * (-len(blob) % 4)
        try:
            raw = base64.b64decode(padded.replace("-", "+").replace("_", "/"), validate=True)
            decoded = raw.decode("utf-8")
        except (binascii.Error, ValueError):
            continue
        printable = sum(1 for char in decoded if char.isprintable() or char in "\n\t")
        # words with spaces, another base64 layer, or a script written without spaces
        readable = (
            " " in decoded
            or _BASE64.fullmatch(decoded.strip()) is not None
            or sum(1 for char in decoded if ord(char) > 0x2E80 and char.isalpha()) >= 4
        )
        if decoded and printable / len(decoded) > 0.95 and readable:
            yield decoded


def has_invisible(text: str) -> bool:
    return _INVISIBLE.search(text) is not None
