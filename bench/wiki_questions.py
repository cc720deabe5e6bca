"""Held-out questions over Wikipedia, generated without a model, for ``retrieval``.

HotpotQA's 100 questions are the development set of the research loop; these check that
what was built there is not fit to them. None of the articles they ask about was read
while the method was designed. Two kinds:

- **single**: one question per FreshWiki article outside the 25 that ``end_to_end``'s
  offline web serves (long, recent articles: the answer sits deep in a long page): the
  first sentence of its body (after the lead section) that holds exactly one year, or
  exactly one large number written with digit groups ("2,148,000"), and not both. The
  answer is that value; the question is "In what year" / "How many", the article's title
  and three other content words of that sentence, in order ("In what year Eiffel Tower
  completed entrance?"), the words a searcher would type.
- **two_hop**: a Vital summary A, set aside by a hash of its title (``held_out``: one in
  ten), whose text names another Vital article B by its
  full title (two words at least), where B's summary has such a year sentence (its
  opening one too). The
  question describes B (by its Wikipedia short description) instead of naming it: "In
  what year <two words of B's sentence> the <B's description> that <A's title> <two of
  A's words near B>?"; the gold pages are A and B, the answer B's year. B's name is not in
  the question: a run must read A to find it.

Deterministic: the same data gives the same questions.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Sequence
from pathlib import Path

from deepresearch.core.text import content_words, sentence_spans, words
from deepresearch.testing.corpora import (
    VITAL_FILE,
    HotpotQuestion,
    freshwiki_documents,
    vital_documents,
)
from deepresearch.testing.corpus import CorpusDocument

HELD_OUT_BUCKET = 7  # of ten
KEYWORDS = 3
DESIGN_FRESHWIKI = 25  # the FreshWiki articles end_to_end's offline web serves
_YEAR = re.compile(r"(?<![\d,.])(1[5-9]\d\d|20[0-2]\d)(?![\d,])")
_GROUPED = re.compile(r"(?<![\d,.])\d{1,3}(?:,\d{3})+(?![\d,])")


def held_out(title: str) -> bool:
    """One article in ten, by a hash of its title: set aside from the method's design."""
    return hashlib.sha256(title.encode("utf-8")).digest()[0] % 10 == HELD_OUT_BUCKET


def _sentences(text: str) -> list[str]:
    return [
        text[start:end]
        for start, end in sentence_spans(text)
        if not text[start:end].lstrip().startswith("#")
    ]


def _value(sentence: str) -> tuple[str, str] | None:
    """(question words, answer) when the sentence holds exactly one year (and no grouped
    number) or exactly one grouped number (and no year)."""
    if not 8 <= len(words(sentence)) <= 45:
        return None
    years = _YEAR.findall(sentence)
    grouped = _GROUPED.findall(sentence)
    if len(years) == 1 and not grouped:
        return "In what year", years[0]
    if len(grouped) == 1 and not years:
        return "How many", grouped[0]
    return None


def _keywords(sentence: str, leave_out: str, answer: str) -> list[str]:
    skip = set(words(leave_out)) | set(words(answer))
    out: list[str] = []
    for word in content_words(sentence):
        if word not in skip and not word.isdigit() and word not in out and len(word) > 2:
            out.append(word)
    return out[:KEYWORDS]


def single_hop(data_dir: Path, *, limit: int, design: bool = False) -> list[HotpotQuestion]:
    """At most ``limit`` single-hop questions, one per FreshWiki article outside the first
    ``DESIGN_FRESHWIKI``, in order (``design``: from those first ones instead, the
    articles the method may be looked at on)."""
    out: list[HotpotQuestion] = []
    articles = freshwiki_documents(data_dir)
    chosen = articles[:DESIGN_FRESHWIKI] if design else articles[DESIGN_FRESHWIKI:]
    for document in chosen:
        if len(out) >= limit:
            break
        body = document.text.split("\n## ", 1)[-1]  # after the lead section
        for sentence in _sentences(body):
            found = _value(sentence)
            if found is None:
                continue
            wh, answer = found
            terms = _keywords(sentence, document.title, answer)
            if len(terms) < KEYWORDS:
                continue
            out.append(
                HotpotQuestion(
                    id=f"single-{document.id}",
                    question=f"{wh} {document.title} {' '.join(terms)}?",
                    answer=answer,
                    supporting_facts=[(document.title, 0)],
                    supporting_sentences=[sentence],
                    type="single",
                )
            )
            break
    return out


def two_hop(
    data_dir: Path, documents: Sequence[CorpusDocument], *, limit: int
) -> list[HotpotQuestion]:
    """At most ``limit`` two-hop questions from Vital summaries (see the module doc)."""
    entries = json.loads((data_dir / VITAL_FILE).read_text(encoding="utf-8"))
    by_title = {d.title: d for d in documents}
    names = sorted(
        (t for t in by_title if len(t.split()) >= 2 and t in entries and "(" not in t),
        key=len,
        reverse=True,
    )
    out: list[HotpotQuestion] = []
    used: set[str] = set()  # one question per second article, for variety
    for first in documents:
        if len(out) >= limit:
            break
        if not held_out(first.title) or first.title not in entries:
            continue
        for sentence in _sentences(first.text):
            second = next(
                (n for n in names if n != first.title and n not in used and n in sentence), None
            )
            if second is None:
                continue
            fact = next(
                (s for s in _sentences(by_title[second].text) if _value(s) is not None), None
            )
            description = str(entries[second].get("description") or "").strip()
            if fact is None or not description or len(description) > 60:
                continue
            if any(ch.isdigit() for ch in description):  # "1949 play by ...": a give-away
                continue
            wh, answer = _value(fact) or ("", "")
            near = _keywords(sentence, f"{first.title} {second}", answer)[:2]
            terms = _keywords(fact, f"{second} {description}", answer)[:2]
            if wh != "In what year" or len(terms) < 2:
                continue
            out.append(
                HotpotQuestion(
                    id=f"two-hop-{first.id}",
                    question=(
                        f"In what year {' '.join(terms)} the {description.lower()} that "
                        f"{first.title} {' '.join(near)}?"
                    ),
                    answer=answer,
                    supporting_facts=[(first.title, 0), (second, 0)],
                    supporting_sentences=[sentence, fact],
                    type="two_hop",
                )
            )
            used.add(second)
            break
    return out


def wiki_corpus(data_dir: Path) -> list[CorpusDocument]:
    """The held-out web: every FreshWiki article and every Vital summary."""
    return [*freshwiki_documents(data_dir), *vital_documents(data_dir)]
