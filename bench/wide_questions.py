"""Broad questions over Wikipedia for ``wide``, generated without a model, each with the
set of pages that bear on it.

A broad question ("What is the history and impact of X?") has no single gold page: many
pages bear on it. Here a page bears on topic X when it is X's page, when its text names X
by its full title, or when X's page names it by its full title (two words at least: a
one-word title such as "Energy" is too often an ordinary word). Names are matched as
whole word sequences, case-sensitive, over every page of the web (``mention_index``).

Two sets, from the data alone, none picked by hand:

- **topics**: Vital articles on which at least ``MIN_RELEVANT`` (20) pages bear, the
  most-named first (by how many other pages name them), taken round-robin over the Vital
  topic groups (the most-named such article of each group in turn, then the second of
  each, ...), so that every group is asked about.
- **events**: FreshWiki articles (long, recent: events, people, places), those on which
  the most pages bear first. Recent subjects are seldom named by the Vital summaries: only
  5 of the 100 have 20 pages or more, 13 have 15 or more.

Deterministic: the same data gives the same questions and the same page sets.
"""

from __future__ import annotations

import json
import re
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from deepresearch.testing.corpora import VITAL_FILE
from deepresearch.testing.corpus import CorpusDocument

TEMPLATE = "What is the history and impact of {}?"
MAX_TITLE_WORDS = 8  # longer titles are not looked for in the text
NAME_RATIO = 5  # a one-word title is a name when capitalised 5 times as often as not
MIN_RELEVANT = 20  # pages that must bear on a question: it needs many sources
_NAME_LINKS = frozenset({"of", "de", "the", "von", "van", "del", "du", "da"})
_TOKEN = re.compile(r"[^\W_]+")


@dataclass(frozen=True)
class BroadQuestion:
    """A broad question about one page's subject and the pages that bear on it."""

    id: str
    question: str
    #: the title of the page the question is about
    topic: str
    #: titles of the pages that bear on it (the topic's page included)
    relevant: frozenset[str]


@dataclass(frozen=True)
class MentionIndex:
    """Which titles each page names: ``names[title]`` is the set of other pages' titles
    its text names (see ``mention_index``)."""

    names: dict[str, frozenset[str]]

    def named_by(self, title: str) -> set[str]:
        """The pages whose text names ``title``."""
        return {page for page, named in self.names.items() if title in named}

    def relevant(self, title: str) -> frozenset[str]:
        """The pages that bear on ``title``: its page, the pages that name it, and the
        pages it names."""
        return frozenset({title, *self.named_by(title), *self.names.get(title, frozenset())})


def _tokens(text: str) -> tuple[str, ...]:
    return tuple(_TOKEN.findall(text))


def mention_index(documents: Sequence[CorpusDocument]) -> MentionIndex:
    """Every page's mentions of the other pages' titles, in one pass over the texts.

    A title (of at most ``MAX_TITLE_WORDS`` words, the first with a letter in it; a one-word
    title only when it is a name: written in lower case in the texts at most a fifth as
    often as capitalised, as "England" and unlike "House") is named where its words occur in order, case-sensitive, as the longest title starting at that word (in
    "the Roman Empire" the title "Roman Empire" is named, not "Empire"). A one-word title
    counts only where it stands alone, not inside a longer name: no capitalised word is
    joined to it by a space, nor after it a link word and a capitalised word (in "the
    Communist Party" and "the Republic of China" neither "Party" nor "Republic" is named; a
    capitalised word that opens a sentence, as "In" in "In England", does not count)."""
    counts = Counter(word for document in documents for word in _tokens(document.text))
    by_tokens: dict[tuple[str, ...], str] = {}
    for document in documents:
        key = _tokens(document.title)
        if not 0 < len(key) <= MAX_TITLE_WORDS or not any(ch.isalpha() for ch in key[0]):
            continue
        if len(key) == 1 and counts[key[0].lower()] * NAME_RATIO > counts[key[0]]:
            continue  # "House", "Water": a common word, not only a name
        by_tokens.setdefault(key, document.title)
    longest = max((len(key) for key in by_tokens), default=0)
    names: dict[str, frozenset[str]] = {}
    for document in documents:
        names[document.title] = frozenset(_named(document.text, by_tokens, longest))
        names[document.title] -= {document.title}
    return MentionIndex(names)


def _named(text: str, by_tokens: dict[tuple[str, ...], str], longest: int) -> set[str]:
    spans = [(m.group(), m.start(), m.end()) for m in _TOKEN.finditer(text)]
    words = tuple(word for word, _, _ in spans)
    found: set[str] = set()
    start = 0
    while start < len(words):
        for size in range(min(longest, len(words) - start), 0, -1):
            title = by_tokens.get(words[start : start + size])
            if title is not None and (size > 1 or _alone(text, spans, start)):
                found.add(title)
                start += size
                break
        else:
            start += 1
    return found


def _alone(text: str, spans: list[tuple[str, int, int]], i: int) -> bool:
    """Whether word ``i`` is not part of a longer capitalised name."""

    def joined(left: int) -> bool:  # words left and left + 1 are separated by one space
        return text[spans[left][2] : spans[left + 1][1]] == " "

    def opens_sentence(j: int) -> bool:
        before = text[: spans[j][1]].rstrip(" \"'“‘(")
        return not before or before[-1] in ".!?:\n"

    def capital(j: int) -> bool:
        return j < len(spans) and spans[j][0][0].isupper()

    if i > 0 and joined(i - 1) and capital(i - 1) and not opens_sentence(i - 1):
        return False
    if i + 1 < len(spans) and joined(i) and capital(i + 1):
        return False
    # "Republic of China", "House of Lords": a link word, then a name
    linked = i + 2 < len(spans) and joined(i) and joined(i + 1)
    return not (linked and spans[i + 1][0] in _NAME_LINKS and capital(i + 2))


def _question(prefix: str, index: MentionIndex, document: CorpusDocument) -> BroadQuestion:
    return BroadQuestion(
        id=f"{prefix}-{document.id}",
        question=TEMPLATE.format(document.title),
        topic=document.title,
        relevant=index.relevant(document.title),
    )


def topic_questions(
    data_dir: Path, documents: Sequence[CorpusDocument], index: MentionIndex, *, limit: int
) -> list[BroadQuestion]:
    """At most ``limit`` questions on the most-named Vital articles with at least
    ``MIN_RELEVANT`` relevant pages, round-robin over the Vital topic groups."""
    entries = json.loads((data_dir / VITAL_FILE).read_text(encoding="utf-8"))
    named: defaultdict[str, int] = defaultdict(int)
    for mentions in index.names.values():
        for title in mentions:
            named[title] += 1
    groups: dict[str, list[CorpusDocument]] = defaultdict(list)
    for document in documents:
        entry = entries.get(document.title)
        if (
            entry is not None
            and document.id.startswith("va-")
            and len(index.relevant(document.title)) >= MIN_RELEVANT
        ):
            groups[str(entry.get("topic") or "")].append(document)
    ranked = [
        sorted(groups[group], key=lambda d: (-named[d.title], d.title)) for group in sorted(groups)
    ]
    out: list[BroadQuestion] = []
    for rank in range(max((len(group) for group in ranked), default=0)):
        for group in ranked:
            if len(out) >= limit:
                return out
            if rank < len(group):
                out.append(_question("topic", index, group[rank]))
    return out


def event_questions(
    documents: Sequence[CorpusDocument], index: MentionIndex, *, limit: int
) -> list[BroadQuestion]:
    """At most ``limit`` questions on FreshWiki articles, those on which the most pages
    bear first."""
    articles = [document for document in documents if document.id.startswith("fw-")]
    articles.sort(key=lambda d: (-len(index.relevant(d.title)), d.title))
    return [_question("event", index, d) for d in articles[:limit]]
