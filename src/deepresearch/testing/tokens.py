"""The offline web's tokenizer: what its search engine (``testing.searchindex``) indexes
and how it reads queries (``testing.searchquery``). Deliberately its own, a plain web
search engine's, not the engine's ``core.text`` (which ranks passages)."""

from __future__ import annotations

import re

_WORD = re.compile(r"\w+")

_STOPWORD_TEXT = """a about an and are as at be been but by can did do does for from had has have
how i if in into is it its of on or that the their there these they this to was were what when
where which who whom why will with you your"""

#: A short English stopword list: words too common to help ranking.
STOPWORDS: frozenset[str] = frozenset(_STOPWORD_TEXT.split())


def words(text: str) -> list[str]:
    """Lowercased unicode word tokens of ``text``, stopwords kept (used for phrases)."""
    return _WORD.findall(text.lower())


def tokenize(text: str) -> list[str]:
    """Lowercased unicode word tokens of ``text`` without stopwords (used for ranking)."""
    return [token for token in _WORD.findall(text.lower()) if token not in STOPWORDS]
