"""How much a read page gives to write from: seed 001's content-quality tier (HIGH /
MEDIUM / LOW / INSUFFICIENT), from its length, its structure and what the extraction
left. Pure.

Seed 001's enricher "assesses content quality (HIGH/MEDIUM/LOW/INSUFFICIENT)" after it
extracts a page and names no rule; these are ours, each signal measured on the stored
text every quote is verified against:

- words: how much there is (the seed's full content is "~8000 chars per source");
- prose sentences (five words or more, ending in ``.``, ``!`` or ``?``) and the share of
  the words in them: a navigation list, a table of figures or a menu the extractor kept
  is words without sentences;
- paragraphs of twenty words or more: a page with a body, not one long line;
- the share of letters among the visible characters: what an extraction that went wrong
  leaves (markup, code, mojibake) has few.

INSUFFICIENT: nothing was fetched (a search snippet stands in) or fewer than 10 words.
LOW: under 150 words, under a third of them in prose (a list, a calendar, a menu), or
under 60% letters; a one-sentence definition is LOW, not INSUFFICIENT: it can answer a
question and be quoted. HIGH: 600 words or more in 10 prose sentences or more, in 3 paragraphs or
more, with 60% of the words in prose. MEDIUM: the rest.
"""

from __future__ import annotations

import re

from pydantic import BaseModel, ConfigDict

from deepresearch.models.source import CONTENT_QUALITIES, ContentQuality

MIN_WORDS = 10
LOW_WORDS = 150
LOW_PROSE_SHARE = 1 / 3
LOW_LETTER_SHARE = 0.6
HIGH_WORDS = 600
HIGH_SENTENCES = 10
HIGH_PARAGRAPHS = 3
HIGH_PROSE_SHARE = 0.6
SENTENCE_WORDS = 5
PARAGRAPH_WORDS = 20

_WORD = re.compile(r"\w[\w'’-]*")
#: Chinese, Japanese and Korean script, written without spaces between words
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af]")
_ENDS = ".!?。！？"
_SENTENCE_END = re.compile(r"(?<=[.!?])[\"'”’)\]]*\s+|(?<=[。！？])|\n")


class ContentAssessment(BaseModel):
    """A page's tier with the figures it was decided from (``reason`` says them)."""

    model_config = ConfigDict(frozen=True)

    tier: ContentQuality
    words: int = 0
    sentences: int = 0
    paragraphs: int = 0
    prose_share: float = 0.0
    letter_share: float = 0.0
    reason: str = ""


def assess_content(text: str, *, fetched: bool = True) -> ContentAssessment:
    """The tier of a page whose stored text is ``text`` (``fetched`` False: only the
    search snippet is known)."""
    if not fetched:
        return ContentAssessment(tier="INSUFFICIENT", reason="not fetched: a search snippet")
    words = _count_words(text)
    prose = [s for s in _sentences(text) if _count_words(s) >= SENTENCE_WORDS]
    prose_words = sum(_count_words(s) for s in prose)
    m = ContentAssessment(
        tier="INSUFFICIENT",
        words=words,
        sentences=len(prose),
        paragraphs=_paragraphs(text),
        prose_share=round(prose_words / words, 3) if words else 0.0,
        letter_share=round(_letter_share(text), 3),
    )
    reason = (
        f"{m.words} words, {m.sentences} prose sentences, {m.paragraphs} paragraphs, "
        f"{m.prose_share:.0%} in prose, {m.letter_share:.0%} letters"
    )
    return m.model_copy(update={"tier": _tier(m), "reason": reason})


def _tier(m: ContentAssessment) -> ContentQuality:
    if m.words < MIN_WORDS:
        return "INSUFFICIENT"
    if m.words < LOW_WORDS or m.prose_share < LOW_PROSE_SHARE or m.letter_share < LOW_LETTER_SHARE:
        return "LOW"
    if (
        m.words >= HIGH_WORDS
        and m.sentences >= HIGH_SENTENCES
        and m.paragraphs >= HIGH_PARAGRAPHS
        and m.prose_share >= HIGH_PROSE_SHARE
    ):
        return "HIGH"
    return "MEDIUM"


def at_least(tier: ContentQuality | None, floor: ContentQuality) -> bool:
    """Whether ``tier`` is ``floor`` or better; an unknown tier (a source read before
    tiers were kept) counts as good enough."""
    return tier is None or CONTENT_QUALITIES.index(tier) <= CONTENT_QUALITIES.index(floor)


def _sentences(text: str) -> list[str]:
    """Stretches that end a sentence (or a line): a sentence must end in ``.``, ``!`` or
    ``?`` to count as prose."""
    parts = (part.strip() for part in _SENTENCE_END.split(text))
    return [part for part in parts if part and part.rstrip("\"'”’)]」")[-1:] in _ENDS]


def _count_words(text: str) -> int:
    """Words, with a run of CJK script counted as one word per two characters (it has
    no spaces between words; two characters is about a word of Japanese or Chinese)."""
    count = 0
    for token in _WORD.findall(text):
        cjk = len(_CJK.findall(token))
        count += (cjk + 1) // 2 + (len(token) > cjk) if cjk else 1
    return count


def _paragraphs(text: str) -> int:
    """Blocks of twenty words or more, split on blank lines (on line breaks when the
    text has no blank line)."""
    blocks = re.split(r"\n\s*\n", text) if re.search(r"\n\s*\n", text) else text.splitlines()
    return sum(1 for block in blocks if _count_words(block) >= PARAGRAPH_WORDS)


def _letter_share(text: str) -> float:
    visible = [char for char in text if not char.isspace()]
    if not visible:
        return 0.0
    return sum(1 for char in visible if char.isalpha()) / len(visible)
