"""Whether the research read anything about the question's subject at all.

A question about something no page names (a made-up company, a person nobody wrote about)
still gets search results, and the passages most like its other words can pass every check
of a quote: they are real sentences of real pages, only about something else. Such a run
must say it found nothing rather than report them. The signal is plain: each thing the
question names has a word that no page the run read contains (nor a close spelling of it,
so a typo in the question is not taken for a thing nobody wrote about). One named thing
that some page does mention is enough to carry on.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable

from deepresearch.core.questions import QuestionProfile
from deepresearch.core.text import words

#: words shorter than this must be read as written (too many close spellings otherwise)
MIN_FUZZY_LENGTH = 5
#: how alike a page's word must be to count as a spelling of the question's word
FUZZY_CUTOFF = 0.84


def unseen_subject(profile: QuestionProfile, texts: Iterable[str]) -> list[str]:
    """The question's named things (names and titles, as written) when not one of them
    appears in ``texts`` (the pages read, their titles): each has a word no page contains.
    Empty when the question names nothing, or when any named thing is seen."""
    named = [m for m in profile.entities if m.kind in ("name", "title") and m.key]
    if not named:
        return []
    pages = [text.replace("’", "'").lower() for text in texts]
    if not any(page.strip() for page in pages):
        return []  # nothing was read: the gate's other checks say so
    if any(all(_written(word, pages) for word in m.key.split()) for m in named):
        return []  # the common case, settled without reading every word of every page
    vocabulary: set[str] = set()
    for page in pages:
        vocabulary.update(words(page))
    unseen = [m.text for m in named if not all(_seen(w, vocabulary) for w in m.key.split())]
    return unseen if len(unseen) == len(named) else []


def _written(word: str, pages: list[str]) -> bool:
    pattern = re.compile(rf"(?<![^\W_]){re.escape(word)}(?![^\W_])")
    return any(pattern.search(page) for page in pages)


def _seen(word: str, vocabulary: set[str]) -> bool:
    if word in vocabulary:
        return True
    if len(word) < MIN_FUZZY_LENGTH:
        return False
    near = [other for other in vocabulary if abs(len(other) - len(word)) <= 2]
    return bool(difflib.get_close_matches(word, near, n=1, cutoff=FUZZY_CUTOFF))
