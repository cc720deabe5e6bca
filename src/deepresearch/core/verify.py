"""Quote verification (seed 002, S04): is this quote really in the source's stored text?

1. exact substring;
2. exact after normalization (whitespace, quotes, dashes, case, soft hyphens, zero-width
   characters, HTML entities), mapped back to the original character span;
3. fuzzy: the best window of the source's words, by word-set Jaccard, with 0.8 as the
   floor (the seed's threshold), found in one linear pass.

FAIL quotes never reach a report.
"""

from __future__ import annotations

import html
import re
from collections import Counter

from deepresearch.models import Verification

FUZZY_FLOOR = 0.8

_QUOTES = dict.fromkeys(map(ord, "‘’‚‛′`´"), "'") | dict.fromkeys(map(ord, "“”„‟″«»"), '"')
_DASHES = dict.fromkeys(map(ord, "‐‑‒–—―−"), "-")
_DROP = {
    ord("\u00ad"): None,
    ord("\u200b"): None,
    ord("\u200c"): None,
    ord("\u200d"): None,
    ord("\ufeff"): None,
}
_TABLE = {**_QUOTES, **_DASHES, **_DROP, ord("…"): "..."}
_TOKEN = re.compile(r"[^\W_]+", re.UNICODE)


def normalize_with_map(text: str) -> tuple[str, list[int]]:
    """Normalized text and, for each of its characters, the index it came from."""
    out: list[str] = []
    index: list[int] = []
    pending_space = False
    for i, char in enumerate(text):
        mapped = char.translate(_TABLE)
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


def normalize(text: str) -> str:
    return normalize_with_map(html.unescape(text))[0]


def verify_quote(quote: str, source_text: str, *, floor: float = FUZZY_FLOOR) -> Verification:
    """Check ``quote`` against ``source_text``; PASS carries the matched span."""
    if not quote.strip() or not source_text:
        return Verification(status="FAIL", method="none", score=0.0)
    at = source_text.find(quote)
    if at >= 0:
        return Verification(status="PASS", method="exact", score=1.0, start=at, end=at + len(quote))
    norm_quote = normalize(quote)
    norm_source, mapping = normalize_with_map(source_text)
    at = norm_source.find(norm_quote) if norm_quote else -1
    if at >= 0:
        start = mapping[at]
        end = mapping[at + len(norm_quote) - 1] + 1
        return Verification(status="PASS", method="normalized", score=1.0, start=start, end=end)
    score, start, end = best_window(norm_quote, source_text, normalized=(norm_source, mapping))
    if score >= floor:
        return Verification(
            status="PASS", method="fuzzy", score=round(score, 4), start=start, end=end
        )
    return Verification(status="FAIL", method="fuzzy", score=round(score, 4))


def best_window(
    norm_quote: str, source_text: str, *, normalized: tuple[str, list[int]] | None = None
) -> tuple[float, int, int]:
    """Best word-set Jaccard between the quote and any window of as many source words,
    in one pass with running counts, over the normalized source (so a soft hyphen or a
    curly quote does not split a word). Returns (score, start, end) in source characters.
    ``normalized`` passes ``normalize_with_map(source_text)`` when the caller has it."""
    quote_words = set(_TOKEN.findall(norm_quote))
    size = len(_TOKEN.findall(norm_quote))
    norm_source, mapping = normalized or normalize_with_map(source_text)
    tokens = [(m.group(0), m.start(), m.end()) for m in _TOKEN.finditer(norm_source)]
    if not quote_words or not tokens:
        return 0.0, 0, 0
    size = min(size, len(tokens))
    counts: Counter[str] = Counter()
    inside = 0  # distinct window words that are in the quote
    outside = 0  # distinct window words that are not
    best = (0.0, 0, 0)
    for i, (word, _, _) in enumerate(tokens):
        counts[word] += 1
        if counts[word] == 1:
            if word in quote_words:
                inside += 1
            else:
                outside += 1
        if i >= size:
            old = tokens[i - size][0]
            counts[old] -= 1
            if counts[old] == 0:
                del counts[old]
                if old in quote_words:
                    inside -= 1
                else:
                    outside -= 1
        if i >= size - 1:
            score = inside / (len(quote_words) + outside)
            if score > best[0]:
                start = mapping[tokens[i - size + 1][1]]
                end = mapping[tokens[i][2] - 1] + 1
                best = (score, start, end)
    return best
