"""The planned report: the writer's outline (title, summary and the sections to write,
each with a layout and its notes), then every section written in parallel, validated
(``core.section_check``), sent back once to a reflector when it fails, and replaced by its
verified quotes when the repair fails too. The write stage calls ``planned_report``.

On the critical path this is the outline call, the slowest section call, and a repair
call only when some section failed."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from deepresearch.context import RunContext
from deepresearch.core.outline import OutlineDraft, SectionPlan, sane_outline
from deepresearch.core.section_check import (
    Cited,
    SectionCheck,
    SectionDraft,
    check_section,
    fallback_section,
)
from deepresearch.core.table_rows import read_in_context
from deepresearch.injection.untrusted import DATA_RULE, data_block
from deepresearch.models import Evidence, Section
from deepresearch.models.report import SectionLayout
from deepresearch.recipes.research.state import RunState

STAGE = "write"
#: the writer's notes as a prompt block: (notes, evidence id -> label) -> text
NotesBlock = Callable[[list[Evidence], Mapping[str, str]], str]

SECTION_SYSTEM = f"""You write one section of a research report from verified evidence. {DATA_RULE}
Rules: use only facts stated in the evidence; everything you write (a sentence, a list
item, a table cell) cites the evidence it rests on by label, e.g. ["E3", "E7"]; never cite
a label for something it does not say; copy every number, date and name exactly as a quote
you cite states it. Each note says how well it is supported ("Support") and which notes
disagree with it ("Disagrees with"): say in plain words how sure each point is ("several
independent sources agree", "only one source reports"), and where notes disagree, say
that the sources disagree and what each says, citing both."""

REPAIR_SYSTEM = f"""You repair one section of a research report that failed its checks. {DATA_RULE}
You are given the section's evidence, your earlier draft and the problems found in it.
Return the section again in the same layout with every problem fixed: cite only the
evidence labels given, and only for what that quote says; state no number, date or name
that is not in a quote the same sentence, item or cell cites; give a table one cell per
column. Leave out what cannot be supported."""

LAYOUT_HINTS: dict[SectionLayout, str] = {
    "prose": 'Fill "paragraphs": one to three paragraphs of sentences, each {"text", "cite"}.',
    "list": 'Fill "items": two to eight entries, each {"text", "cite"}.',
    "table": (
        'Fill "columns" (two to five names) and "rows": each row one cell per column, each '
        'cell {"text", "cite"}; a cell with nothing to say is "—" with no citation.'
    ),
    "timeline": (
        'Fill "columns" (["Date", "Event"]) and "rows": one row per dated event in order, '
        'the date first, each cell {"text", "cite"}.'
    ),
    "comparison": (
        'Fill "columns" (the aspect compared, then one column per thing compared) and "rows": '
        'one row per aspect, each cell {"text", "cite"}; "—" where a thing has no quote.'
    ),
}


@dataclass(frozen=True)
class Planned:
    """What the planned writing produced. ``labels``: label -> evidence id of the notes."""

    title: str
    summary: list[Cited]
    sections: list[Section]
    labels: dict[str, str]
    stats: SectionStats


@dataclass(frozen=True)
class SectionStats:
    """How the sections fared: planned, passed on the first draft, passed after repair,
    fell back to their verified quotes (a fallback with no verified quote is dropped)."""

    planned: int = 0
    first_pass: int = 0
    repaired: int = 0
    fallback: int = 0


async def planned_report(
    ctx: RunContext,
    state: RunState,
    attempts: list[list[Evidence]],
    render: NotesBlock,
    outline_system: str,
) -> Planned | None:
    """The outline (asked once per list of notes in ``attempts`` until one answers: seed
    004 retries with fewer notes), then its sections. None when no outline came back."""
    for notes in attempts:
        labels = {item.id: f"E{i}" for i, item in enumerate(notes, start=1)}
        outline = await ctx.gateway.structured(
            "writer", OutlineDraft, system=outline_system, user=render(notes, labels), stage=STAGE
        )
        if outline is not None:
            break
    else:
        return None
    by_label = {labels[item.id]: item for item in notes}
    plans = sane_outline(outline, by_label)
    results = await asyncio.gather(
        *(_section(ctx, state, plan, by_label, render) for plan in plans)
    )
    stats = SectionStats(
        planned=len(plans),
        first_pass=sum(outcome == "first" for outcome, _ in results),
        repaired=sum(outcome == "repaired" for outcome, _ in results),
        fallback=sum(outcome == "fallback" for outcome, _ in results),
    )
    return Planned(
        title=" ".join(outline.title.split()),
        summary=outline.summary,
        sections=[section for _, section in results if section is not None],
        labels={label: item.id for label, item in by_label.items()},
        stats=stats,
    )


async def _section(
    ctx: RunContext,
    state: RunState,
    plan: SectionPlan,
    labels: Mapping[str, Evidence],
    render: NotesBlock,
) -> tuple[str, Section | None]:
    """One section: ("first" | "repaired" | "fallback", the section)."""
    notes = [labels[key] for key in plan.labels]
    user = (
        f"Question: {state['question']}\nSection: {plan.heading}\nLayout: {plan.layout}\n"
        f"{LAYOUT_HINTS[plan.layout]}\n\n{render(notes, {labels[k].id: k for k in plan.labels})}"
    )
    draft = await ctx.gateway.structured(
        "writer", SectionDraft, system=SECTION_SYSTEM, user=user, stage=STAGE
    )
    checked: SectionCheck | None = None
    if draft is not None:
        checked = _check(draft, plan, labels, state)
        if checked.section is not None:
            return "first", checked.section
        shown = data_block(
            "source",
            draft.model_dump_json()
            + "\nProblems:\n"
            + "\n".join(f"- {p}" for p in checked.problems),
            kind="draft",
        )
        fixed = await ctx.gateway.structured(
            "writer",
            SectionDraft,
            system=REPAIR_SYSTEM,
            user=f"{user}\n\nYour draft and its problems:\n{shown}",
            stage=STAGE,
        )
        if fixed is not None:
            repaired = _check(fixed, plan, labels, state)
            if repaired.section is not None:
                return "repaired", repaired.section
    planned = [labels[key].id for key in plan.labels]
    by_id = {item.id: item for item in labels.values()}
    cited = checked.cited if checked is not None else []
    return "fallback", fallback_section(plan.heading, [*planned, *cited], by_id)


def _check(
    draft: SectionDraft, plan: SectionPlan, labels: Mapping[str, Evidence], state: RunState
) -> SectionCheck:
    # a table row's quote is read under its page's title and table's header
    read = read_in_context(labels, state.get("sources", {}))
    return check_section(draft, heading=plan.heading, layout=plan.layout, labels=read)
