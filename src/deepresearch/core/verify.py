"""Quote verification (seed 002, S04): is this quote really in the source's stored text?

1. exact substring;
2. exact after normalization (whitespace, quotes, dashes, case, soft hyphens, zero-width
   characters, HTML entities in the quote), mapped back to the original character span;
3. fuzzy: the best window of the source's words, by word-set Jaccard, with 0.8 as the
   floor (the seed's threshold).

A PASS carries its exact score and the matched span. A FAIL carries the best window's
Jaccard, except when too few of the quote's words occur in the source for any window to
reach the floor: then no window is scored and the score is an upper bound (``_fuzzy``).
FAIL quotes never reach a report.

Speed. Sources are whole articles and quotes a sentence, and most calls answer FAIL or
find the quote in one place, so the work is arranged to touch the whole source only with
C-speed operations (``str.lower``/``replace``/``find``/``split``, ``bytes.translate``)
and to run Python loops only over the few places that can matter: the windows around the
quote's longest words, and the handful of length-changing characters before a match (the
original-offset map is built lazily, for the two ends of a match). A regex tokenizer or
a per-character Python loop over the source would cost more than the whole check; see
``bench/quote_verification.py``. Nothing is cached between calls.
"""

from __future__ import annotations

import html
import math
import re
from bisect import bisect_right
from collections import Counter
from collections.abc import Callable, Iterator
from itertools import compress, filterfalse, islice

from deepresearch.models import Verification

FUZZY_FLOOR = 0.8

_Span = tuple[int, int]

# -- folding: one source character in, its normalized form out ----------------------------

_QUOTES = dict.fromkeys("‘’‚‛′`´", "'") | dict.fromkeys("“”„‟″«»", '"')
_DASHES = dict.fromkeys("‐‑‒–—―−", "-")
_DROPPED = dict.fromkeys("\u00ad\u200b\u200c\u200d\ufeff", "")  # soft hyphen, zero-widths, BOM
#: Every character whose normalized form is not simply ``char.lower()``. Two are here only
#: so that a whole-string ``str.lower()`` equals lowering character by character: capital
#: sigma (the only character ``str.lower`` treats by context: a final "ς") and dotted
#: capital I (the only one whose lowercase is two characters). No ``lower()`` of another
#: character yields one of these keys, so replacing them first and lowering after is the
#: same as translating and lowering each character (tests/core/test_verify.py checks all
#: code points).
_FOLD = {**_QUOTES, **_DASHES, **_DROPPED, "…": "...", "\u03a3": "\u03c3", "\u0130": "i\u0307"}
_ASCII_FOLD = [char for char in _FOLD if char.isascii()]
#: the folded characters whose replacement is not one character long: the only places
#: where folded and original offsets drift apart
_RESIZED = "".join(char for char, folded in _FOLD.items() if len(folded) != 1)
_CHUNK = re.compile(r"\S+")

# -- words: maximal runs of ``[^\W_]`` (= ``str.isalnum``), as seed 002 tokenizes ----------

_ASCII = bytes(range(0x80))
#: UTF-8 bytes: ASCII letters and digits, and every byte of a multi-byte character, stay;
#: every other ASCII byte (punctuation, whitespace, "_") becomes a space
_ASCII_WORD_BYTES = bytes(b if b >= 0x80 or chr(b).isalnum() else 0x20 for b in range(256))


def _fold(text: str) -> str:
    """``text`` with every character replaced by its normalized form (``_FOLD``, then
    lowercase), whitespace untouched. ``char in text`` is a C scan, far faster than a
    regex or ``str.translate`` with a dict; most texts hold one or two of these
    characters, an ASCII text at most the backtick."""
    for char in [char for char in (_ASCII_FOLD if text.isascii() else _FOLD) if char in text]:
        text = text.replace(char, _FOLD[char])
    return text.lower()


def _spaced(text: str) -> str:
    """``text`` with every non-word character made a space: same length, so a word's
    offset in it is its offset in ``text``, and ``.split()`` gives the words.

    A regex tokenizer costs a match object per word; this costs a ``bytes.translate``
    for the ASCII punctuation and a ``str.replace`` per distinct non-ASCII symbol."""
    encoded = text.encode("utf-8", "surrogatepass")
    if not text.isascii():
        # non-ASCII punctuation and symbols ("°", "€", "→"; quotes and dashes are already
        # folded to ASCII) become spaces, letters in any script stay; deleting the ASCII
        # bytes leaves just the non-ASCII characters to look at
        others = encoded.translate(None, _ASCII).decode("utf-8", "surrogatepass")
        odd = list(filterfalse(str.isalnum, set(others)))
        for char in odd:
            text = text.replace(char, " ")
        if odd:
            encoded = text.encode("utf-8", "surrogatepass")
    return encoded.translate(_ASCII_WORD_BYTES).decode("utf-8", "surrogatepass")


def _chunk_start(text: str, index: int) -> int:
    """Where the ``index``-th whitespace-separated chunk of ``text`` starts (it exists).
    ``split`` with a limit leaves the rest of ``text``, from that chunk on, as its last
    item."""
    return len(text) - len(text.split(None, index)[-1])


class _Origins:
    """Map an offset in ``_fold(text)`` to the offset in ``text`` it came from.

    Folding replaces each character by exactly one character except the few in
    ``_RESIZED`` (dropped characters, the ellipsis, dotted capital I), so the map is the
    identity shifted at those. They are looked for on first use only: a call that needs
    no span never pays for it."""

    def __init__(self, text: str) -> None:
        self._text = text
        self._edits: list[tuple[int, int, int]] | None = None
        self._starts: list[int] = []

    def _load(self) -> list[tuple[int, int, int]]:
        found = sorted(
            (at, char)
            for char in _RESIZED
            if char in self._text
            for at in _positions(self._text, char)
        )
        edits: list[tuple[int, int, int]] = []  # (folded offset, original offset, pieces)
        drift = 0
        for at, char in found:
            pieces = len(_FOLD[char])
            edits.append((at + drift, at, pieces))
            drift += pieces - 1
        self._starts = [folded for folded, _, _ in edits]
        return edits

    def __getitem__(self, index: int) -> int:
        if self._edits is None:
            self._edits = self._load()
        # the last length-changing character that starts at or before ``index``
        at = bisect_right(self._starts, index) - 1
        if at < 0:
            return index
        folded, original, pieces = self._edits[at]
        if index < folded + pieces:  # inside an expansion: all its pieces come from it
            return original
        return original + 1 + (index - folded - pieces)


def _positions(text: str, needle: str, step: int = 1) -> Iterator[int]:
    """Offsets of ``needle`` in ``text``; the next search starts ``step`` after a hit."""
    at = text.find(needle)
    while at >= 0:
        yield at
        at = text.find(needle, at + step)


# -- public helpers ------------------------------------------------------------------------


def normalize(text: str) -> str:
    """``text`` normalized for comparison: HTML entities decoded, quotes and dashes made
    ASCII, soft hyphens and zero-width characters dropped, lowercase, whitespace runs
    collapsed to one space, no leading or trailing whitespace."""
    return " ".join(_fold(html.unescape(text)).split())


def normalize_with_map(text: str) -> tuple[str, list[int]]:
    """Normalized text (entities are not decoded) and, for each of its characters, the
    index in ``text`` it came from; a collapsed space points at the character after it.
    A full map is one Python step per character: ``verify_quote`` maps only the two ends
    of a match."""
    folded = _fold(text)
    origins = _Origins(text)
    index: list[int] = []
    for chunk in _CHUNK.finditer(folded):
        if index:  # the space before this chunk
            index.append(origins[chunk.start()])
        index.extend(origins[i] for i in range(chunk.start(), chunk.end()))
    return " ".join(folded.split()), index


def best_window(
    norm_quote: str,
    source_text: str,
    *,
    normalized: tuple[str, list[int]] | None = None,
) -> tuple[float, int, int]:
    """Best word-set Jaccard between the quote and any window of as many source words,
    over the normalized source (so a soft hyphen or a curly quote does not split a word).
    Returns (score, start, end) in source characters, the first best window; (0.0, 0, 0)
    when no window shares a word. Exact: every window is scored (no floor to prune by).
    ``normalized`` passes ``normalize_with_map(source_text)`` when the caller has it."""
    origin: Callable[[int], int]
    if normalized is None:
        text, origin = _fold(source_text), _Origins(source_text).__getitem__
    else:
        text, origin = normalized[0], normalized[1].__getitem__
    score, span = _every_window(_spaced(norm_quote).split(), _spaced(text))
    if score <= 0.0 or span is None:
        return 0.0, 0, 0
    return score, origin(span[0]), origin(span[1] - 1) + 1


def verify_quote(quote: str, source_text: str, *, floor: float = FUZZY_FLOOR) -> Verification:
    """Check ``quote`` against ``source_text``: where it is (``locate_quote``), then whether
    the words just before it in the same sentence reverse its meaning ("It is not true
    that ...", "the myth that ..."): such a truncated quote FAILs with method "context"."""
    found = locate_quote(quote, source_text, floor=floor)
    if (
        found.status == "PASS"
        and found.start is not None
        and reverses_meaning(source_text, found.start)
    ):
        return Verification(
            status="FAIL", method="context", score=found.score, start=found.start, end=found.end
        )
    return found


_SENTENCE_START = re.compile(r"(?:[.!?][\"'”’)\]]*\s+|\n\s*\n)")
_REVERSING_LEAD = re.compile(
    r"(?:\b(?:not|never|no|nor|false|untrue|myth|myths|misconception|denied|denies|deny|"
    r"rumou?red|rumou?rs?|allegedly|disproved|debunked|refuted)\s+(?:that\s+)?"
    r"|\bit\s+is\s+not\s+(?:true|the\s+case)\s+that\s+)$",
    re.I,
)


def reverses_meaning(source_text: str, start: int, *, reach: int = 80) -> bool:
    """True when the quote at ``start`` begins mid-sentence right after words that deny or
    disown what follows, so quoting it alone would say the opposite of the source."""
    lead = source_text[max(0, start - reach) : start]
    cuts = list(_SENTENCE_START.finditer(lead))
    if cuts:
        lead = lead[cuts[-1].end() :]
    return bool(lead.strip()) and _REVERSING_LEAD.search(lead) is not None


def locate_quote(quote: str, source_text: str, *, floor: float = FUZZY_FLOOR) -> Verification:
    """Find ``quote`` in ``source_text``.

    PASS carries the method, the exact score (1.0 for exact and normalized matches, else
    the window's Jaccard, rounded to 4 places) and the matched span. FAIL carries the best
    window's Jaccard, except when fewer of the quote's distinct words occur anywhere in
    the source than a window needs to reach ``floor``: then no window can pass, none is
    scored, and the score is the upper bound (quote words found) / (quote words), both
    counted as distinct words."""
    if not quote.strip() or not source_text:
        return Verification(status="FAIL", method="none", score=0.0)
    at = source_text.find(quote)
    if at >= 0:
        return Verification(status="PASS", method="exact", score=1.0, start=at, end=at + len(quote))
    norm_quote = normalize(quote)
    plan = _Plan(_spaced(norm_quote).split(), floor)
    folded = _fold(source_text)
    source = _Words(_spaced(folded))
    origins = _Origins(source_text)
    span = _normalized_span(norm_quote, plan, source, folded)
    if span is not None:
        start, end = origins[span[0]], origins[span[1] - 1] + 1
        return Verification(status="PASS", method="normalized", score=1.0, start=start, end=end)
    score, span = _fuzzy(plan, source)
    if score < floor:
        return Verification(status="FAIL", method="fuzzy", score=round(score, 4))
    # (no span only for a floor of 0 or less and no shared word: an empty PASS)
    start, end = (origins[span[0]], origins[span[1] - 1] + 1) if span else (0, 0)
    return Verification(status="PASS", method="fuzzy", score=round(score, 4), start=start, end=end)


# -- the quote's words ---------------------------------------------------------------------


class _Plan:
    """The quote's side of the search: its words, the window size ``n``, its distinct
    words Q, and ``need``: a window scores ``inside / (|Q| + outside) <= inside / |Q|``,
    so it reaches ``floor`` only with ``need`` distinct quote words, the smallest count
    with ``need / |Q| >= floor``."""

    def __init__(self, quote_words: list[str], floor: float) -> None:
        self.words = quote_words
        self.n = len(quote_words)
        self.wanted = set(quote_words)
        self.size = len(self.wanted)
        self.floor = floor
        self.need = _words_needed(self.size, floor)
        #: long words first: they tend to be rare, and an edited quote's stray word is
        #: often one
        self.longest = sorted(sorted(self.wanted), key=len, reverse=True)


def _words_needed(size: int, floor: float) -> int:
    """The smallest ``a`` with ``a / size >= floor`` as floats compare (``size + 1`` if
    none; 0 for no words)."""
    if not size:
        return 0
    need = max(0, math.ceil(floor * size) - 2)  # a start just below, whatever the rounding
    while need <= size and need / size < floor:
        need += 1
    return need


# -- the source's words --------------------------------------------------------------------


#: a word found more often than this is too common to anchor a window search on
_COMMON = 8


class _Words:
    """Whole-word search in ``spaced`` (``_spaced`` of the folded source).

    In ``" " + spaced + " "`` a word occurs whole exactly where ``" word "`` does, so
    ``str.find`` answers "where is this word" in C, with no tokenizing and no hashing of
    the source's words; a check needs this for a few words only."""

    def __init__(self, spaced: str) -> None:
        self.spaced = spaced
        self._padded = f" {spaced} "
        self._found: dict[str, list[int]] = {}
        self._reach: dict[tuple[int, int], int] = {}

    def occurrences(self, word: str) -> list[int]:
        """Offsets in ``spaced`` where ``word`` starts as a whole word, in order: all of
        them, or the first ``_COMMON + 1`` for a common word."""
        if word not in self._found:
            # the padded offset of the space before the word is the word's offset in
            # ``spaced``; the space after it may open the next occurrence
            found = _positions(self._padded, f" {word} ", len(word) + 1)
            self._found[word] = list(islice(found, _COMMON + 1))
        return self._found[word]

    def has(self, word: str) -> bool:
        found = self._found.get(word)
        return bool(found) if found is not None else f" {word} " in self._padded

    def reach(self, at: int, n: int) -> int:
        """Where the ``n``-th word after the word at ``at`` starts (or the text's end)."""
        if (at, n) not in self._reach:
            after = self.spaced[at:].split(None, n)  # [that word, n - 1 words, rest]
            end = len(self.spaced) - len(after[n]) if len(after) > n else len(self.spaced)
            self._reach[at, n] = end
        return self._reach[at, n]

    def fewer_than(self, count: int) -> bool:
        """Whether the source has fewer than ``count`` words (``count >= 1``), splitting
        off at most ``count`` of them."""
        return len(self.spaced.split(None, count - 1)) < count


# -- the normalized match ------------------------------------------------------------------


def _normalized_span(
    norm_quote: str, plan: _Plan, source: _Words, folded: str
) -> tuple[int, int] | None:
    """Where the normalized quote occurs in the normalized source, as offsets in
    ``folded`` (the source folded, its whitespace as it was), or None."""
    if not norm_quote:
        return None
    # Collapsing the source's whitespace costs a split and a join of the whole text, so
    # first two cheap necessary conditions. Where the quote occurs, each of its words but
    # the first and the last (which may be cut) is a whole word of the source: check the
    # longest, which the fuzzy search looks up anyway ...
    inner = set(plan.words[1:-1])
    longest = plan.longest[: plan.size - plan.need + 2]
    if not all(source.occurrences(word) for word in longest if word in inner):
        return None
    # ... and every space-free chunk of the quote is in ``folded`` (a chunk cannot span
    # whitespace), longest first.
    chunks = sorted(set(norm_quote.split(" ")), key=len, reverse=True)
    if not all(chunk in folded for chunk in chunks):
        return None
    norm_source = " ".join(folded.split())
    at = norm_source.find(norm_quote)
    if at < 0:
        return None
    last = at + len(norm_quote) - 1  # the quote is stripped: both ends are chunk characters
    return _unsplit(norm_source, folded, at), _unsplit(norm_source, folded, last) + 1


def _unsplit(norm_source: str, folded: str, index: int) -> int:
    """The offset in ``folded`` of the non-space character at ``index`` of
    ``" ".join(folded.split())``: same chunk, same place in it."""
    chunk = norm_source.count(" ", 0, index)
    within = index - (norm_source.rfind(" ", 0, index) + 1)
    return _chunk_start(folded, chunk) + within


# -- the fuzzy window ----------------------------------------------------------------------


def _fuzzy(plan: _Plan, source: _Words) -> tuple[float, _Span | None]:
    """(score, span in ``source.spaced``) of the first best window of ``plan.n`` source
    words by word-set Jaccard ``inside / (|Q| + outside)`` (Q the quote's distinct words,
    inside the distinct window words in Q, outside the others); or, when fewer than
    ``need`` of the quote's words occur in the source at all so that no window can reach
    the floor (the prefilter), (found / |Q|, None): an upper bound on every window's
    score, the ``inside / |Q|`` of a window holding every quote word found.

    The window search goes by levels (``_Levels``): after level ``L`` every window not
    scored has fewer than ``L`` distinct quote words, so scores at most ``(L - 1) / |Q|``.
    Level ``need`` leaves only windows below the floor unscored, so if its best window
    passes, it is the first best window. Otherwise the best so far is the best window
    as soon as it reaches the next bound down: a FAIL past the prefilter carries the
    exact best score. When a level would cost more than one pass over every window, that
    pass is made instead."""
    if not plan.size:
        return 0.0, None
    if plan.need == 0:  # a floor of 0 or less: every window passes
        return _every_window(plan.words, source.spaced)
    search = _Levels(plan, source)
    level = plan.need
    # (a floor above 1 needs more words than the quote has; a source shorter than the
    # quote has a single window, the whole text: one pass below)
    searched = level <= plan.size and not source.fewer_than(plan.n) and search.run(level)
    if searched and search.best >= plan.floor:
        return search.best, search.span
    # the prefilter: for a quote that is not there, the longest words were looked up
    # above, and those missing are usually enough for found < need
    found = sum(map(source.has, plan.longest))
    if found < plan.need:
        return found / plan.size, None
    while searched:
        if search.best >= (level - 1) / plan.size:
            return search.best, None
        level -= 1
        searched = search.run(level)
    return _every_window(plan.words, source.spaced)


class _Levels:
    """The window search, one level at a time, keeping the first best window so far.

    Level ``L``: a window with ``L`` distinct quote words misses at most ``|Q| - L`` of
    them, so among any ``|Q| - L + pair`` quote words it holds ``pair`` (pigeonhole;
    ``pair = 2``, 1 at level 1). Take that many rare quote words as keys and score the
    windows that hold ``pair`` different keys and ``L`` quote-word tokens (``_regions``,
    ``_best_in``): no other window has ``L`` distinct quote words."""

    def __init__(self, plan: _Plan, source: _Words) -> None:
        self.plan = plan
        self.source = source
        self.best = 0.0
        self.span: _Span | None = None
        self._candidates = iter(plan.longest)
        self._rare: list[str] = []  # quote words found at most _COMMON times, longest first
        self._budget = len(source.spaced)  # characters to score before one pass is cheaper

    def run(self, level: int) -> bool:
        """Score level ``level``; False, scoring nothing, if its keys would include a
        common word or its windows would use up the budget."""
        pair = min(2, level)
        keys = self._keys(self.plan.size - level + pair)
        if keys is None:
            return False
        anchors = sorted((at, key) for key in keys for at in self.source.occurrences(key))
        regions = _regions(self.source, anchors, self.plan.n, pair)
        self._budget -= sum(hi - lo for lo, hi in regions)
        if self._budget < 0:
            return False
        for lo, hi in regions:
            score, span = _best_in(self.source.spaced, lo, hi, self.plan, level)
            if score > self.best:  # regions come in order: the first best stays
                self.best, self.span = score, span
        return True

    def _keys(self, count: int) -> list[str] | None:
        """The quote's ``count`` longest rare words, looked up only as far as needed."""
        while len(self._rare) < count:
            word = next(self._candidates, None)
            if word is None:
                return None
            if len(self.source.occurrences(word)) <= _COMMON:
                self._rare.append(word)
        return self._rare[:count]


def _regions(source: _Words, anchors: list[tuple[int, str]], n: int, pair: int) -> list[_Span]:
    """Character ranges of ``source.spaced``, in order, holding every window of ``n`` words
    that contains ``pair`` (1 or 2) different keys among the anchors (offset, key), sorted.

    A range runs from the ``n - 1``-th word before its first anchor to the ``n - 1``-th
    after its last one (or the ends of the text); anchors closer than that share a range,
    so no window holds anchors of two ranges."""
    # reach[i]: where the n-th word from anchor i starts; an anchor before it is within
    # one window of anchor i
    reach = [source.reach(at, n) for at, _ in anchors]
    if pair == 2:
        kept = [False] * len(anchors)
        for i, (_, key) in enumerate(anchors):
            j = i + 1
            while j < len(anchors) and anchors[j][0] < reach[i]:
                if anchors[j][1] != key:
                    kept[i] = kept[j] = True
                j += 1
        anchors = list(compress(anchors, kept))
        reach = list(compress(reach, kept))
    regions = []
    i = 0
    while i < len(anchors):
        before = source.spaced[: anchors[i][0]].rsplit(None, n - 1)  # [rest, n - 1 words]
        lo = len(before[0]) if len(before) == n else 0
        hi = reach[i]
        i += 1
        while i < len(anchors) and anchors[i][0] < hi:
            hi = reach[i]
            i += 1
        regions.append((lo, hi))
    return regions


def _best_in(spaced: str, lo: int, hi: int, plan: _Plan, need: int) -> tuple[float, _Span | None]:
    """The first best window of ``plan.n`` words in ``spaced[lo:hi]``, scoring only from
    the first window with ``need`` quote-word tokens to the last (a window with fewer
    tokens has fewer distinct quote words)."""
    wanted, n = plan.wanted, plan.n
    text = spaced[lo:hi]
    words = text.split()
    if len(wanted.intersection(words)) < need:
        return 0.0, None
    hits = list(compress(range(len(words)), map(wanted.__contains__, words)))
    # the first window holding hits[0 .. need - 1] starts at hits[need - 1] - n + 1; the
    # last holding hits[-need ..] starts at hits[-need]
    start, end = max(0, hits[need - 1] - n + 1), min(hits[-need], len(words) - n)
    if start > end:
        return 0.0, None
    best, first = _scan(words, wanted, n, start, end)
    window = _word_span(text, words, first, n)
    return best, (lo + window[0], lo + window[1])


def _every_window(quote_words: list[str], spaced: str) -> tuple[float, _Span | None]:
    """The first best window over all windows of ``min(len(quote_words), words)`` words:
    exact, one pass."""
    words = spaced.split()
    wanted = set(quote_words)
    if not words or not wanted:
        return 0.0, None
    n = min(len(quote_words), len(words))
    score, first = _scan(words, wanted, n, 0, len(words) - n)
    return score, _word_span(spaced, words, first, n) if score > 0 else None


def _scan(words: list[str], wanted: set[str], n: int, lo: int, hi: int) -> tuple[float, int]:
    """Best (score, first word) of the windows of ``n`` words starting at ``lo`` .. ``hi``,
    the first on ties, sliding one word at a time with running counts."""
    counts = Counter(words[lo : lo + n])
    inside = len(wanted.intersection(counts))
    outside = len(counts) - inside
    size = len(wanted)
    best, first = inside / (size + outside), lo
    for start in range(lo + 1, hi + 1):
        old, new = words[start - 1], words[start + n - 1]
        if old == new:
            continue  # same words, same score, and an earlier window already had it
        left = counts[old] - 1
        if left:
            counts[old] = left
        else:
            del counts[old]
            if old in wanted:
                inside -= 1
            else:
                outside -= 1
        if new in counts:
            counts[new] += 1
        else:
            counts[new] = 1
            if new in wanted:
                inside += 1
            else:
                outside += 1
        score = inside / (size + outside)
        if score > best:
            best, first = score, start
    return best, first


def _word_span(spaced: str, words: list[str], first: int, n: int) -> _Span:
    """Character offsets in ``spaced`` from the start of word ``first`` to the end of word
    ``first + n - 1`` (``words`` is ``spaced.split()``)."""
    start = _chunk_start(spaced, first)
    last = start + _chunk_start(spaced[start:], n - 1)
    return start, last + len(words[first + n - 1])
