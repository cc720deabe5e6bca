"""Running hundreds of rules fast: each rule is tried only where a word it can start with
appears.

``first_words`` reads a compiled rule with the standard library's own regular-expression
parser (``re._parser``) and lists the words any match must begin with, each either a whole
word ("the") or a stem that more letters may follow ("mention" for ``mention\\w*``).
``Dispatcher`` scans a text once with one regular expression built from all those words,
and at each hit tries only the rules that can start there, anchored at that position. A
rule whose start cannot be read as a word (a chat token such as ``<|``, a Chinese phrase
inside a run of characters) is run over the whole text, as before. The result is the same
as running every rule everywhere: a rule is skipped only where it cannot match."""

from __future__ import annotations

import importlib
import re
from collections.abc import Iterator, Sequence
from typing import Any

from deepresearch.injection.rules import Rule

try:  # the parser behind re.compile; when a future Python moves it, every rule runs
    _PARSER: Any = importlib.import_module("re._parser")
    _C: Any = importlib.import_module("re._constants")
except ImportError:  # pragma: no cover - depends on the interpreter
    _PARSER = _C = None

MAX_WORDS = 400
_CJK = re.compile("[\u2e80-\u9fff\uac00-\ud7af\uf900-\ufaff\uff00-\uffef]")
# a hit is a whole word or a stem; ``True`` marks a whole word
FirstWord = tuple[str, bool]


class _Unknown(Exception):
    """The pattern can start with something other than a word."""


def first_words(pattern: re.Pattern[str]) -> frozenset[FirstWord] | None:
    """The words (lower case) any match of ``pattern`` starts with, each marked whole or
    stem; None when a match could start otherwise, or the list would be too long."""
    if _PARSER is None:
        return None
    try:
        parsed = _PARSER.parse(pattern.pattern, pattern.flags)
        found = _walk(list(parsed), "")
    except (_Unknown, RecursionError):
        return None
    except Exception:  # a parser that changed shape: fall back to running the rule
        return None
    if not found or len(found) > MAX_WORDS or any(not word for word, _ in found):
        return None
    return frozenset(found)


_STEM = ("stem", None)


def _walk(items: list[Any], prefix: str) -> set[FirstWord]:
    """Words for the sequence ``items`` when ``prefix`` has been read already."""
    for index, (op, arg) in enumerate(items):
        rest = items[index + 1 :]
        if op is _STEM:
            if prefix:
                return {(prefix, False)}
            continue
        if op == _C.AT:
            if arg in (_C.AT_BOUNDARY, _C.AT_UNI_BOUNDARY, _C.AT_LOC_BOUNDARY):
                if prefix:
                    return {(prefix, True)}
                continue
            raise _Unknown  # ^ or $: a line-start rule runs everywhere
        if op in (_C.ASSERT, _C.ASSERT_NOT):
            direction = arg[0]
            if direction < 0 or not prefix:
                continue  # a look-behind, or a look-ahead before any letter: no letters read
            return {(prefix, False)}
        if op == _C.LITERAL:
            char = chr(arg)
            if _CJK.match(char):
                raise _Unknown  # Chinese and Japanese have no spaces: no word to start at
            if char.isalnum() or char == "_":
                prefix += char.lower()
                if len(prefix) > 40:
                    raise _Unknown
                continue
            if prefix:
                return {(prefix, True)}
            raise _Unknown
        if op == _C.IN:
            letters = _letters(arg)
            if letters is None:
                if prefix:
                    return {(prefix, _ends_word(arg))}
                raise _Unknown
            return _union(_walk(rest, prefix + letter) for letter in letters)
        if op == _C.BRANCH:
            return _union(_walk(list(alt) + rest, prefix) for alt in arg[1])
        if op == _C.SUBPATTERN:
            return _walk(list(arg[-1]) + rest, prefix)
        if op in (_C.MAX_REPEAT, _C.MIN_REPEAT, getattr(_C, "POSSESSIVE_REPEAT", None)):
            low, high, sub = arg
            once = list(sub) + ([(_STEM, None)] if high != 1 else []) + rest
            if low == 0:
                return _union([_walk(rest, prefix), _walk(once, prefix)])
            return _walk(once, prefix)
        if prefix:
            return {(prefix, False)}
        raise _Unknown
    if prefix:
        return {(prefix, False)}  # the pattern ends: the word may go on
    raise _Unknown


def _letters(arg: list[tuple[Any, Any]]) -> list[str] | None:
    """The letters of a small character class such as ``[sz]``, else None."""
    letters: list[str] = []
    for op, value in arg:
        if op != _C.LITERAL:
            return None
        char = chr(value)
        if not (char.isalnum() or char == "_"):
            return None
        letters.append(char.lower())
    return sorted(set(letters)) if len(letters) <= 4 else None


def _ends_word(arg: list[tuple[Any, Any]]) -> bool:
    """Whether a character class can only match characters that end a word."""
    for op, value in arg:
        if op == _C.CATEGORY and value in (_C.CATEGORY_SPACE, _C.CATEGORY_UNI_SPACE):
            continue
        if op == _C.LITERAL and not (chr(value).isalnum() or chr(value) == "_"):
            continue
        return False
    return True


def _union(parts: Any) -> set[FirstWord]:
    out: set[FirstWord] = set()
    for part in parts:
        out |= part
        if len(out) > MAX_WORDS:
            raise _Unknown
    return out


class Dispatcher:
    """The rules, indexed by the words they start with."""

    def __init__(self, rules: Sequence[Rule]) -> None:
        self.rules = tuple(rules)
        self.whole: dict[str, list[int]] = {}
        self.stems: dict[str, list[int]] = {}
        self.everywhere: list[int] = []
        self.cjk: list[int] = []  # run only over text with Chinese or Japanese in it
        for number, rule in enumerate(self.rules):
            words = first_words(rule.pattern)
            if words is None:
                cjk = _CJK.search(rule.pattern.pattern) is not None
                (self.cjk if cjk else self.everywhere).append(number)
                continue
            for word, whole in words:
                (self.whole if whole else self.stems).setdefault(word, []).append(number)
        keys = sorted({*self.whole, *self.stems}, key=len, reverse=True)
        self.stem_lengths = sorted({len(stem) for stem in self.stems})
        self._scan = re.compile(r"\b(?:" + _trie(keys) + r")\w*", re.I) if keys else None
        self._candidates: dict[str, tuple[int, ...]] = {}

    def _lookup(self, word: str) -> tuple[int, ...]:
        """The rules that can start at ``word``: its own, and those of its stems."""
        numbers = list(self.whole.get(word, ()))
        for length in self.stem_lengths:
            if length > len(word):
                break
            numbers += self.stems.get(word[:length], ())
        if len(self._candidates) > 50_000:
            self._candidates.clear()  # words seen across many texts: keep the memory bounded
        return tuple(dict.fromkeys(numbers))

    def matches(self, text: str) -> Iterator[tuple[Rule, re.Match[str]]]:
        """Every match of every rule in ``text``, by rule order then position."""
        found: list[tuple[int, int, re.Match[str]]] = []
        everywhere = self.everywhere + (self.cjk if _CJK.search(text) else [])
        for number in everywhere:
            found += [(number, m.start(), m) for m in self.rules[number].pattern.finditer(text)]
        if self._scan is not None:
            for hit in self._scan.finditer(text):
                start = hit.start()
                word = hit.group(0).lower()
                numbers = self._candidates.get(word)
                if numbers is None:
                    numbers = self._candidates[word] = self._lookup(word)
                for number in numbers:
                    match = self.rules[number].pattern.match(text, start)
                    if match is not None:
                        found.append((number, start, match))
        found.sort(key=lambda item: (item[0], item[1]))
        seen: set[tuple[int, int]] = set()
        for number, start, match in found:
            if (number, start) not in seen:
                seen.add((number, start))
                yield self.rules[number], match


def _trie(words: Sequence[str]) -> str:
    """One regular expression matching any of ``words`` (lower case, matched ignoring
    case), shaped as a trie so each position costs a few comparisons, not one per word."""
    tree: dict[str, Any] = {}
    for word in words:
        node = tree
        for char in word:
            node = node.setdefault(char, {})
        node[""] = {}
    return _node(tree)


def _node(node: dict[str, Any]) -> str:
    branches = [re.escape(char) + _node(child) for char, child in sorted(node.items()) if char]
    optional = "" in node
    if not branches:
        return ""
    body = branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"
    return f"(?:{body})?" if optional else body
