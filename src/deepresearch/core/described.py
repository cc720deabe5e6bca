"""Whether a passage is about what a describing question asks to describe. Pure.

A question that asks to describe or explain ("How do glaciers and icebergs form in nature,
and how do they relate to sea level?") has no answer type to look for, so the passages
most like its words are quoted without a model. Words alone mislead: a page on antimony
says it "occurs in nature in the form of" a mineral, a page on locks mentions an "async
with" statement. Two rules keep the match on the question's subject:

- **breadth**: a passage (read with its page's title) carries two of the question's
  subject words when the question has three or more (one shared word is a coincidence),
  one when the page itself is about the question's subject (its title is made of subject
  words: "Glacier", "Coroutines", 'The "yield" statement');
- **key**: at least one of them is a key word: the first subject word (what a "how do X
  ..." question is about) or one that titles a page the unit read (pages are written about
  what their titles name; "form", "nature" or "level" title none).

The subject words are the question's content words outside its named things
(``QuestionProfile.relation``), lightly stemmed. The rules hold for a question that names
nothing or names things only as its setting ("in Python"); one that names what it is about
("the history and impact of X") is checked by topicality (``core.answers``) instead.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from deepresearch.core.mentions import Mention
from deepresearch.core.questions import QuestionProfile, stem
from deepresearch.core.text import content_words

BROAD_QUESTION = 3  # subject words from which a passage must carry two
NAMED = ("name", "title")  # the mention kinds that are things (``QuestionProfile.entity_keys``)
_IN = re.compile(r"\bin\s+(?:the\s+)?$", re.IGNORECASE)


@dataclass(frozen=True)
class Subject:
    """A describing question's subject words (stems) and its key words among them."""

    words: frozenset[str]
    keys: frozenset[str]


def _stems(text: str) -> frozenset[str]:
    return frozenset(stem(word) for word in content_words(text))


def question_subject(profile: QuestionProfile, titles: Iterable[str]) -> Subject | None:
    """The subject of ``profile``'s question, its key words taken from its first subject
    word and from ``titles``, the titles of the pages read. None when the question names a
    thing that is not only its setting ("the history and impact of X"): what it is about is
    that thing, which topicality checks."""
    if any(not _setting(profile.text, m) for m in profile.entities if m.kind in NAMED):
        return None
    ordered = [stem(word) for word in profile.relation]
    words = frozenset(ordered)
    titled = frozenset().union(*(_stems(title) & words for title in titles))
    return Subject(words=words, keys=titled | frozenset(ordered[:1]))


def _setting(question: str, mention: Mention) -> bool:
    """Whether the question names ``mention`` as where its subject is ("... work in
    Python", "... in France"): right after "in"."""
    return bool(_IN.search(question[: mention.start]))


def about_subject(subject: Subject, text: str, title: str) -> bool:
    """Whether a passage ``text`` of the page titled ``title`` is about ``subject``
    (breadth and key, as the module says). Always true for a question without subject
    words."""
    if not subject.words:
        return True
    heading = _stems(title)
    carried = subject.words & (heading | _stems(text))
    own_page = bool(heading) and heading <= subject.words
    needed = 1 if own_page or len(subject.words) < BROAD_QUESTION else 2
    return len(carried) >= needed and bool(carried & subject.keys)
