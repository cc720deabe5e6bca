"""A planned section as the writer drafted it, its validation, and its fallback. Pure.

A section draft is checked before it reaches the report (``check_section``):

- **schema**: its layout's shape (prose has sentences, a list has items, a table, timeline
  or comparison has columns and rows with one cell per column; a timeline's first column
  holds dates, a comparison compares at least two things);
- **citations**: every sentence, item and table cell that says something cites evidence,
  and every label it cites is a verified (PASS) quote the writer was given;
- **facts**: every number, date and name it states is in a quote it cites
  (``core.support.missing_facts``).

A draft with problems is sent back once to a reflector with the problems listed; a draft
still failing gives way to ``fallback_section``: the section's verified quotes, verbatim.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from pydantic import BaseModel, Field

from deepresearch.core.findings import quote_text
from deepresearch.core.support import is_factual, missing_facts
from deepresearch.models import Evidence, Paragraph, Section, Sentence, Table, TableRow
from deepresearch.models.report import SectionLayout

#: layouts drawn as a table
TABLE_LAYOUTS: frozenset[SectionLayout] = frozenset({"table", "timeline", "comparison"})
#: quotes a fallback section shows at most
FALLBACK_QUOTES = 4
#: cell text that states nothing and needs no citation
EMPTY_CELLS = frozenset({"", "-", "–", "—", "n/a", "none", "unknown", "not stated"})


class Cited(BaseModel):
    """A sentence, list item or table cell, and the evidence labels it cites."""

    text: str
    cite: list[str] = Field(default_factory=list)


class SectionDraft(BaseModel):
    """One section as the writer returns it; which fields it fills depends on its layout."""

    heading: str = ""
    paragraphs: list[list[Cited]] = Field(
        default_factory=list, description="prose: paragraphs of sentences"
    )
    items: list[Cited] = Field(default_factory=list, description="list: one entry per item")
    columns: list[str] = Field(default_factory=list, description="table: column names")
    rows: list[list[Cited]] = Field(
        default_factory=list, description="table: rows, one cell per column"
    )


@dataclass(frozen=True)
class SectionCheck:
    """A draft's problems (empty: it passed) and, when it passed, the section it makes.
    ``cited``: the evidence ids its citations resolve to (PASS or not), in order."""

    problems: list[str]
    section: Section | None
    cited: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems


def label_key(label: str) -> str:
    """A citation label as the writer may write it ("[e3]", " E3") in its canonical form."""
    return label.strip().strip("[]").strip().upper()


def check_section(
    draft: SectionDraft,
    *,
    heading: str,
    layout: SectionLayout,
    labels: Mapping[str, Evidence],
) -> SectionCheck:
    """Validate ``draft`` as a ``layout`` section. ``labels``: every label the writer may
    cite and the evidence it stands for (a FAIL quote among them is refused like an
    unknown label)."""
    problems: list[str] = []
    cited: dict[str, None] = {}

    def resolve(part: Cited, where: str) -> list[str]:
        """The evidence ids of ``part``'s citations; problems for each that is not a PASS
        quote, for a statement that cites nothing, and for facts no cited quote holds."""
        text = " ".join(part.text.split())
        ids: list[str] = []
        for raw in part.cite:
            key = label_key(raw)
            item = labels.get(key)
            if item is None:
                problems.append(f"{where} cites {key or 'an empty label'}, which is not evidence")
            elif not item.verified:
                problems.append(f"{where} cites {key}, a quote that failed verification")
                cited.setdefault(item.id, None)
            elif item.id not in ids:
                ids.append(item.id)
                cited.setdefault(item.id, None)
        if not ids:
            if part.cite or _states_something(text, where):
                problems.append(f"{where} cites no verified quote")
            return ids
        quotes = [labels[label_key(raw)].quote for raw in part.cite if label_key(raw) in labels]
        # a cell is a fragment: "the " keeps its first word from passing as a capital
        missing = missing_facts(f"the {text}" if where.startswith("cell") else text, quotes)
        if missing:
            problems.append(
                f"{where} states {', '.join(missing)}, which no quote it cites contains"
            )
        return ids

    section: Section | None = None
    if layout == "prose":
        paragraphs = []
        for p, raw in enumerate(draft.paragraphs, start=1):
            sentences = [
                Sentence(text=" ".join(s.text.split()), citations=resolve(s, f"sentence {p}.{i}"))
                for i, s in enumerate(raw, start=1)
                if s.text.strip()
            ]
            if sentences:
                paragraphs.append(Paragraph(sentences=sentences))
        if not paragraphs:
            problems.append("a prose section needs at least one sentence")
        section = Section(heading=heading, paragraphs=paragraphs, layout="prose")
    elif layout == "list":
        items = [
            Paragraph(
                sentences=[
                    Sentence(text=" ".join(s.text.split()), citations=resolve(s, f"item {i}"))
                ]
            )
            for i, s in enumerate(draft.items, start=1)
            if s.text.strip()
        ]
        if len(items) < 2:
            problems.append("a list needs at least two items")
        section = Section(heading=heading, paragraphs=items, layout="list")
    else:
        section = _table_section(draft, heading, layout, resolve, problems)
    return SectionCheck(problems, None if problems else section, list(cited))


def _table_section(
    draft: SectionDraft,
    heading: str,
    layout: SectionLayout,
    resolve: Callable[[Cited, str], list[str]],
    problems: list[str],
) -> Section:
    columns = [" ".join(c.split()) for c in draft.columns]
    if len(columns) < 2 or any(not c for c in columns):
        problems.append("a table needs at least two named columns")
    if layout == "comparison" and len(columns) < 3:
        problems.append("a comparison needs a column per thing compared, besides the first")
    if not draft.rows:
        problems.append("a table needs at least one row")
    rows = []
    for r, raw in enumerate(draft.rows, start=1):
        if len(raw) != len(columns):
            problems.append(f"row {r} has {len(raw)} cells for {len(columns)} columns")
            continue
        cells = [" ".join(cell.text.split()) for cell in raw]
        if layout == "timeline" and not any(ch.isdigit() for ch in cells[0]):
            problems.append(f"row {r} of a timeline has no date in its first column")
        cell_ids = [
            resolve(cell, f"cell {r}.{c}") if text.lower() not in EMPTY_CELLS else []
            for c, (cell, text) in enumerate(zip(raw, cells, strict=True), start=1)
        ]
        union = list(dict.fromkeys(cid for ids in cell_ids for cid in ids))
        if not union:
            problems.append(f"row {r} cites no verified quote")
        rows.append(TableRow(cells=cells, citations=union, cell_citations=cell_ids))
    return Section(heading=heading, layout=layout, table=Table(columns=columns, rows=rows))


def _states_something(text: str, where: str) -> bool:
    """Whether an uncited part needs a citation: a sentence or item that states a fact, a
    table cell that is not empty."""
    if where.startswith("cell"):
        return text.lower() not in EMPTY_CELLS
    return is_factual(text)


def fallback_section(
    heading: str, evidence_ids: Sequence[str], evidence: Mapping[str, Evidence]
) -> Section | None:
    """The section's verified quotes, verbatim, one paragraph each (what the extractive
    report shows): for a section whose draft failed validation twice. ``evidence_ids``:
    the evidence the section was planned on and its drafts cited, in that order; FAIL
    quotes and unknown ids are left out. None when no verified quote is left."""
    picked = [
        evidence[eid]
        for eid in dict.fromkeys(evidence_ids)
        if eid in evidence and evidence[eid].verified
    ][:FALLBACK_QUOTES]
    if not picked:
        return None
    return Section(
        heading=heading,
        paragraphs=[
            Paragraph(sentences=[Sentence(text=quote_text(item), citations=[item.id])])
            for item in picked
        ],
    )
