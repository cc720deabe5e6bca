"""Which figure goes in which section (issue 26). Pure.

A candidate is a captioned figure (``models.figures.PageFigure``) on a page the finished
report cites, a page read in full (never a snippet, never a page dropped for trying to
instruct the model: such a page is never cited). Each is scored against each section of
findings (a body section, the Verified Findings, the key facts; not the contradictions)
by what the section is about: its heading and the sub-questions of the evidence it cites.
The figure's caption and alt text count most, the text around it on the page less, and a
figure from a page the section itself cites a little more. ``rank_figures`` gives every
pair above ``MIN_SCORE``, best first; the stage takes them in that order, one figure a
section and each image once, up to its limit, skipping those whose image cannot be had.
Ties go to the earlier section, then the lower source number, then the page's order."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from deepresearch.core.lexical import terms
from deepresearch.models import Report, Section, Source, SubQuestion
from deepresearch.models.figures import PageFigure

#: the sections a figure may illustrate: what the report found, not where sources disagree
FIGURE_SECTIONS = frozenset({"body", "verified_findings", "key_facts"})
#: the least score a figure needs to be placed in a section
MIN_SCORE = 0.25
#: figures a report shows at most
MAX_REPORT_FIGURES = 3
#: the weights of the caption (with the alt text) and of the text around the figure
CAPTION_WEIGHT = 0.75
CONTEXT_WEIGHT = 0.25
#: added when the section cites the figure's own page
CITED_HERE_BONUS = 0.1


@dataclass(frozen=True)
class FigureChoice:
    """A figure for a section: where it goes, which cited source it is from, its score."""

    section: int
    source_id: str
    figure: PageFigure
    score: float


def rank_figures(
    report: Report, sources: Mapping[str, Source], sub_questions: Sequence[SubQuestion]
) -> list[FigureChoice]:
    """Every (section, figure) pair scoring at least ``MIN_SCORE``, best first."""
    cited = {ref.id for ref in report.sources}
    numbers = {ref.id: ref.number for ref in report.sources}
    candidates = [
        (source.id, index, figure)
        for source in sources.values()
        if source.id in cited and source.fetched and source.kind == "html"
        for index, figure in enumerate(source.figures)
    ]
    if not candidates:
        return []
    asked = {sq.id: sq.text for sq in sub_questions}
    by_evidence = {item.id: item for item in report.evidence}
    out: list[tuple[tuple[float, int, int, int], FigureChoice]] = []
    for number, section in enumerate(report.sections):
        if section.kind not in FIGURE_SECTIONS:
            continue
        ids = _cited_ids(section)
        asks = {asked.get(by_evidence[i].sub_question_id, "") for i in ids if i in by_evidence}
        about = " ".join([section.heading, *sorted(asks)])
        here = {by_evidence[i].source_id for i in ids if i in by_evidence}
        for source_id, index, figure in candidates:
            score = figure_score(about, figure) + (CITED_HERE_BONUS if source_id in here else 0.0)
            if score >= MIN_SCORE:
                key = (-score, number, numbers.get(source_id, 0), index)
                out.append((key, FigureChoice(number, source_id, figure, round(score, 4))))
    return [choice for _, choice in sorted(out, key=lambda pair: pair[0])]


def figure_score(about: str, figure: PageFigure) -> float:
    """How well ``figure`` matches what a section is ``about`` (0..1): the share of the
    section's terms its caption and alt text hold, and those the text around it holds."""
    wanted = set(terms(about))
    if not wanted:
        return 0.0
    caption = set(terms(f"{figure.caption} {figure.alt}"))
    context = set(terms(figure.context))
    if not wanted & caption:
        return 0.0  # the caption must say something about it: context alone is not enough
    return CAPTION_WEIGHT * len(wanted & caption) / len(wanted) + CONTEXT_WEIGHT * len(
        wanted & context
    ) / len(wanted)


def placed(choices: Iterable[FigureChoice], limit: int = MAX_REPORT_FIGURES) -> list[FigureChoice]:
    """The choices a report shows when every image can be had: one a section, each
    image once, at most ``limit`` (the stage applies the same rule while fetching)."""
    out: list[FigureChoice] = []
    for choice in choices:
        if len(out) >= limit:
            break
        if fits(choice, out):
            out.append(choice)
    return out


def fits(choice: FigureChoice, taken: Sequence[FigureChoice]) -> bool:
    """True when neither ``choice``'s section nor its image is taken yet."""
    return all(
        other.section != choice.section and other.figure.image_url != choice.figure.image_url
        for other in taken
    )


def _cited_ids(section: Section) -> list[str]:
    ids = [cid for p in section.paragraphs for s in p.sentences for cid in s.citations]
    if section.table is not None:
        ids += [cid for row in section.table.rows for cid in row.citations]
    return ids


#: candidates a section offers the writer at most (its best-matching ones)
OFFERED_PER_SECTION = 3


def offered(choices: Sequence[FigureChoice]) -> dict[int, list[FigureChoice]]:
    """The candidates the writer may choose among, by section: each section's best
    ``OFFERED_PER_SECTION`` (distinct images), only for sections with more than one (with
    one there is nothing to choose)."""
    by_section: dict[int, list[FigureChoice]] = {}
    for choice in choices:
        mine = by_section.setdefault(choice.section, [])
        seen = {c.figure.image_url for c in mine}
        if len(mine) < OFFERED_PER_SECTION and choice.figure.image_url not in seen:
            mine.append(choice)
    return {section: mine for section, mine in by_section.items() if len(mine) > 1}


def with_picks(
    choices: Sequence[FigureChoice],
    offers: Mapping[int, Sequence[FigureChoice]],
    picks: Mapping[int, str],
) -> list[FigureChoice]:
    """``choices`` with the writer's picks first. ``picks``: section -> the image address
    the writer chose for it. A pick counts only when it is one of the candidates offered
    for that section; any other (a section not offered, an address not offered) is
    ignored, so that section keeps its best match."""
    chosen = [
        choice
        for section, offer in offers.items()
        for choice in offer
        if picks.get(section) == choice.figure.image_url
    ]
    chosen.sort(key=choices.index)  # the picks in ranking order, best first
    return [*chosen, *(choice for choice in choices if choice not in chosen)]
