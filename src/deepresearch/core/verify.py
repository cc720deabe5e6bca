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
from collections.abc import Callable, Iterable, Iterator
from itertools import filterfalse

from deepresearch.models import Verification

FUZZY_FLOOR = 0.8

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
    characters."""
    for char in [char for char in _FOLD if char in text]:
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
    """Check ``quote`` against ``source_text``.

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
    if span is not None and score >= floor:
        return Verification(
            status="PASS",
            method="fuzzy",
            score=round(score, 4),
            start=origins[span[0]],
            end=origins[span[1] - 1] + 1,
        )
    return Verification(status="FAIL", method="fuzzy", score=round(score, 4))


# -- the quote's words ---------------------------------------------------------------------


class _Plan:
    """What the search needs from the quote alone.

    A window scores ``inside / (|Q| + outside) <= inside / |Q|``, so to reach ``floor``
    it needs ``need`` distinct quote words, the smallest count with
    ``need / |Q| >= floor``, and misses at most ``|Q| - need`` of them: among any
    ``|Q| - need + pair`` quote words it holds ``pair`` (pigeonhole). ``keys`` are that
    many quote words, the longest (long words are rare, and an edited quote's stray word
    is often one). With ``pair = 2``, a window that can pass holds two different keys."""

    def __init__(self, quote_words: list[str], floor: float) -> None:
        self.words = quote_words
        self.n = len(quote_words)
        self.wanted = set(quote_words)
        self.size = len(self.wanted)
        self.floor = floor
        self.need = _words_needed(self.size, floor)
        self.pair = min(2, self.need)
        self.longest = sorted(self.wanted, key=lambda word: (-len(word), word))
        self.keys = self.longest[: max(0, self.size - self.need + self.pair)]


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


class _Words:
    """Whole-word search in ``spaced`` (``_spaced`` of the folded source).

    In ``" " + spaced + " "`` a word occurs whole exactly where ``" word "`` does, so
    ``str.find`` answers "where is this word" in C, with no tokenizing and no hashing of
    the source's words; a check needs this for a few words only."""

    def __init__(self, spaced: str) -> None:
        self.spaced = spaced
        self._padded = f" {spaced} "
        self._found: dict[str, list[int]] = {}

    def occurrences(self, word: str) -> list[int]:
        """Offsets in ``spaced`` where ``word`` starts, as a whole word."""
        if word not in self._found:
            # the padded offset of the space before the word is the word's offset in
            # ``spaced``; the space after it may open the next occurrence
            needle = f" {word} "
            self._found[word] = list(_positions(self._padded, needle, len(word) + 1))
        return self._found[word]

    def has(self, word: str) -> bool:
        found = self._found.get(word)
        return bool(found) if found is not None else f" {word} " in self._padded

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
    # keys, which the fuzzy search looks up anyway ...
    inner = set(plan.words[1:-1])
    if not all(source.occurrences(word) for word in plan.keys if word in inner):
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

Span = tuple[int, int]


def _fuzzy(plan: _Plan, source: _Words) -> tuple[float, Span | None]:
    """(score, span in ``source.spaced``) of the first best window of ``plan.n`` source
    words by word-set Jaccard ``inside / (|Q| + outside)`` (Q the quote's distinct words,
    inside the distinct window words in Q, outside the others), or (upper bound, None)
    when no window can reach the floor.

    Only windows around keys (``_Plan``) can pass, so only those are scored (``_paired``,
    ``_around``, ``_best_in``); every other window has fewer than ``need`` distinct quote
    words and scores at most ``(need - 1) / |Q|``, below the floor. So:

    - if the best scored window reaches the floor, it is the first best window: PASS;
    - else, if fewer than ``need`` of the quote's words occur in the source at all, no
      window passes: return found / |Q|, an upper bound on every window's score;
    - else the best scored window is the exact best if it reaches ``(need - 1) / |Q|``;
      if not, score every window (rare: a quote whose words are all around but never
      together), so a FAIL that had a search carries the exact best score.
    """
    if not plan.size:
        return 0.0, None
    if plan.need == 0 or source.fewer_than(plan.n):  # every window passes, or just one
        return _every_window(plan.words, source.spaced)
    anchors = sorted((at, word) for word in plan.keys for at in source.occurrences(word))
    if plan.pair == 2:
        anchors = _paired(source.spaced, anchors, plan.n)
    best, span = 0.0, None
    for lo, hi in _around(source.spaced, [at for at, _ in anchors], plan.n):
        score, window = _best_in(source.spaced, lo, hi, plan)
        if score > best:
            best, span = score, window
    if best >= plan.floor:
        return best, span
    found = sum(map(source.has, plan.longest))
    if found < plan.need:
        return found / plan.size, None
    if best >= (plan.need - 1) / plan.size:
        return best, None
    return _every_window(plan.words, source.spaced)[0], None


def _paired(spaced: str, anchors: list[tuple[int, str]], n: int) -> list[tuple[int, str]]:
    """The anchors (offset, key), sorted, that have an anchor of another key less than
    ``n`` words away, so that one window of ``n`` words can hold both."""
    kept = [False] * len(anchors)
    for i, (at, key) in enumerate(anchors):
        for j in range(i + 1, len(anchors)):
            other_at, other = anchors[j]
            # n or more words from ``at`` up to ``other_at``: too far, and the anchors
            # after ``j`` are farther still
            if len(spaced[at:other_at].split(None, n - 1)) >= n:
                break
            if other != key:
                kept[i] = kept[j] = True
    return [anchor for anchor, keep in zip(anchors, kept, strict=True) if keep]


def _around(spaced: str, anchors: list[int], n: int) -> Iterator[Span]:
    """Character ranges of ``spaced``, in order, each holding some anchors (word starts)
    with the ``n - 1`` words before the first and after the last (fewer at the ends of the
    text): every window of ``n`` words that contains an anchor lies in one range. Anchors
    inside a range share it; a window cannot hold anchors of two ranges."""
    i = 0
    while i < len(anchors):
        at = anchors[i]
        before = spaced[:at].rsplit(None, n - 1)  # [rest, the n - 1 words] or fewer
        lo = len(before[0]) if len(before) == n else 0
        hi = _after(spaced, at, n)
        i += 1
        while i < len(anchors) and anchors[i] < hi:
            hi = _after(spaced, anchors[i], n)
            i += 1
        yield lo, hi


def _after(spaced: str, at: int, n: int) -> int:
    """The end of the ``n - 1``-th word after the word at ``at`` (or of the text)."""
    after = spaced[at:].split(None, n)  # [that word, n - 1 words, rest] or fewer
    return len(spaced) - len(after[n]) if len(after) > n else len(spaced)


def _best_in(spaced: str, lo: int, hi: int, plan: _Plan) -> tuple[float, Span | None]:
    """The first best window of ``plan.n`` words in ``spaced[lo:hi]`` among those holding
    at least ``need`` quote-word tokens (fewer tokens, fewer distinct quote words)."""
    wanted, n, need = plan.wanted, plan.n, plan.need
    text = spaced[lo:hi]
    words = text.split()
    if len(wanted.intersection(words)) < need:
        return 0.0, None
    hits = [k for k, word in enumerate(words) if word in wanted]
    # a window starting at s holds the tokens hits[k] .. hits[k + need - 1] when
    # hits[k + need - 1] - n + 1 <= s <= hits[k]
    last = len(words) - n
    starts = (
        (max(0, hits[k + need - 1] - n + 1), min(hits[k], last))
        for k in range(len(hits) - need + 1)
    )
    best, first = 0.0, -1
    for start, end in _merged(span for span in starts if span[0] <= span[1]):
        score, at = _scan(words, wanted, n, start, end)
        if score > best:
            best, first = score, at
    if first < 0:
        return 0.0, None
    start, end = _word_span(text, words, first, n)
    return best, (lo + start, lo + end)


def _every_window(quote_words: list[str], spaced: str) -> tuple[float, Span | None]:
    """The first best window over all windows of ``min(len(quote_words), words)`` words:
    exact, one pass."""
    words = spaced.split()
    wanted = set(quote_words)
    if not words or not wanted:
        return 0.0, None
    n = min(len(quote_words), len(words))
    score, first = _scan(words, wanted, n, 0, len(words) - n)
    return score, _word_span(spaced, words, first, n)


def _merged(spans: Iterable[Span]) -> Iterator[Span]:
    """Sorted inclusive ranges with overlapping or touching ones joined."""
    current: Span | None = None
    for lo, hi in spans:
        if current is not None and lo <= current[1] + 1:
            current = (current[0], max(current[1], hi))
            continue
        if current is not None:
            yield current
        current = (lo, hi)
    if current is not None:
        yield current


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


def _word_span(spaced: str, words: list[str], first: int, n: int) -> Span:
    """Character offsets in ``spaced`` from the start of word ``first`` to the end of word
    ``first + n - 1`` (``words`` is ``spaced.split()``)."""
    start = _chunk_start(spaced, first)
    last = start + _chunk_start(spaced[start:], n - 1)
    return start, last + len(words[first + n - 1])
