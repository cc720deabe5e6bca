"""Key facts: the dates, numbers and (for a who/where/which question) names that the
report's verified quotes state, as a table a reader can scan. Pure, no model.

Each row is one fact: the fact as the quote writes it, what kind of fact it is, the words
around it in the quote (verbatim, so the row can be checked against its source like any
quote), and the evidence it comes from. Only evidence the report already cites is used, so
every row's source is in the report's numbered sources.

What counts as a fact:

- a date (a year, a full date) or a number of at least two digits ("3" in "Python 3" is
  rarely a fact worth a row; "1889", "324 metres" and "42%" are);
- a name, only when the question asks for a person, a place or a thing by name
  (``core.answers.answer_candidates``): in an explanatory question most names are just
  the subject matter.

At most ``MAX_FACTS`` rows, in the order of the evidence given (the report's reading
order), one row per distinct fact.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from deepresearch.core.answers import answer_candidates
from deepresearch.core.mentions import Mention, mentions, name_role
from deepresearch.core.questions import QuestionProfile
from deepresearch.models import Evidence, Section, Table, TableRow

HEADING = "Key facts"
COLUMNS = ["Fact", "Kind", "In the source's words"]
MAX_FACTS = 8
CONTEXT_WORDS = 8  # words kept on each side of the fact
_DIGITS = re.compile(r"\d")
_ROLES = {"person": "person", "place": "place", "org": "organisation", "other": "name"}


def key_facts(profile: QuestionProfile, evidence: Sequence[Evidence]) -> Section | None:
    """The key facts section of ``evidence`` (verified, in reading order), or None when
    the quotes state no fact worth a row."""
    rows: list[TableRow] = []
    seen: set[str] = set()
    for item in evidence:
        if not item.verified:
            continue
        for mention, kind in _facts(profile, item.quote):
            if mention.key in seen:
                continue
            seen.add(mention.key)
            rows.append(
                TableRow(
                    cells=[mention.text, kind, _context(item.quote, mention)],
                    citations=[item.id],
                )
            )
            if len(rows) == MAX_FACTS:
                return _section(rows)
    return _section(rows) if rows else None


def _section(rows: list[TableRow]) -> Section:
    return Section(heading=HEADING, kind="key_facts", table=Table(columns=COLUMNS, rows=rows))


def _facts(profile: QuestionProfile, quote: str) -> list[tuple[Mention, str]]:
    named = {m.start for m in answer_candidates(profile, quote) if m.kind in ("name", "title")}
    wants_names = profile.answer_type in ("person", "place", "entity")
    out = []
    for mention in mentions(quote):
        if mention.kind == "date":
            out.append((mention, "date"))
        elif mention.kind == "number" and len(_DIGITS.findall(mention.text)) >= 2:
            out.append((mention, "number"))
        elif wants_names and mention.start in named:
            kind = "title" if mention.kind == "title" else _ROLES[name_role(quote, mention)]
            out.append((mention, kind))
    return out


def _context(quote: str, mention: Mention) -> str:
    """The words around ``mention``, verbatim, with an ellipsis where the quote goes on."""
    before = quote[: mention.start].split()
    after = quote[mention.end :].split()
    head = before[-CONTEXT_WORDS:]
    tail = after[:CONTEXT_WORDS]
    start = _start_of(quote, mention.start, len(head))
    end = _end_of(quote, mention.end, len(tail))
    text = " ".join(quote[start:end].split())
    return ("…" if start > 0 else "") + text + ("…" if end < len(quote.rstrip()) else "")


def _start_of(quote: str, at: int, count: int) -> int:
    """Where the ``count`` words before ``at`` begin."""
    spans = [m.start() for m in re.finditer(r"\S+", quote[:at])]
    return spans[-count] if count else at


def _end_of(quote: str, at: int, count: int) -> int:
    """Where the ``count`` words after ``at`` end."""
    ends = [at + m.end() for m in re.finditer(r"\S+", quote[at:])]
    return ends[count - 1] if count else at
