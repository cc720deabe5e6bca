"""Text that providers send with markup in it (search-match highlights, entities, line
breaks inside XML elements), made plain for titles and snippets."""

from __future__ import annotations

import html
import re

from deepresearch.core.text import clip

_TAG = re.compile(r"<[^>]+>")
_SPACE = re.compile(r"\s+")
#: a snippet longer than this (an arXiv or PubMed abstract) is cut at a word boundary
SNIPPET_CHARS = 1_000


def collapse(text: str) -> str:
    """``text`` with every run of whitespace (line breaks too) as one space, stripped."""
    return _SPACE.sub(" ", text).strip()


def plain(fragment: str) -> str:
    """An HTML ``fragment`` as text: tags removed, entities decoded, whitespace collapsed."""
    return collapse(html.unescape(_TAG.sub("", fragment)))


def snippet(text: str, limit: int = SNIPPET_CHARS) -> str:
    """Plain ``text`` (not HTML) collapsed and cut to at most ``limit`` characters."""
    return clip(collapse(text), limit)
