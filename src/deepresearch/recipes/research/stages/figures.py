"""Figures: after the audit, the report's sections get figures from the pages it cites
(issue 26). ``core.figures`` ranks each captioned figure of a cited page against each
body section; this node fetches the images in that order through the run's image fetcher
(``fetch.base.ImageFetcher``: the page fetcher's guard and limits, PNG, JPEG, WebP or GIF
by their bytes, SVG refused), re-encodes each (``fetch.imaging``: metadata stripped,
pixels capped) and places at most ``MAX_REPORT_FIGURES``, one a section, each cited as its
page's source. An image that cannot be had is skipped and the next candidate tried.

Nothing happens with ``images`` off, for a report that is not research (a reply, an abort,
an unresearched answer), or without an image fetcher. With a writer model, a section that
has more than one candidate is offered its best ones (caption, alt text, page) in one small
call, and the figure the writer picks is tried first; a pick that is not one of the
section's candidates (or no answer) leaves the best match. Without a model the
best-matching figure is used, so the choice is the same for every run over the same
pages."""

from __future__ import annotations

import asyncio
import base64
from collections.abc import Mapping

from langgraph.runtime import Runtime
from pydantic import BaseModel, Field

from deepresearch.context import RunContext
from deepresearch.core.figures import (
    MAX_REPORT_FIGURES,
    FigureChoice,
    fits,
    offered,
    rank_figures,
    with_picks,
)
from deepresearch.core.gate import domain_of
from deepresearch.errors import FetchError
from deepresearch.fetch.base import ImageFetcher
from deepresearch.fetch.imaging import MAX_IMAGE_BYTES, Encoded, reencode
from deepresearch.injection.untrusted import DATA_RULE, block_of_blocks, data_block
from deepresearch.models import Report, Source
from deepresearch.models.event_payloads import FiguresPlaced
from deepresearch.models.figures import ReportFigure
from deepresearch.recipes.research.state import RunState

STAGE = "figures"

SYSTEM = f"""You choose the figure that best illustrates each section of a research report.
{DATA_RULE}
Each section (S1, S2, ...) lists its candidate figures (F1, F2, ...), each with its caption,
alt text and the page it is on. For each section give the label of the one candidate that
best shows what the section says, or no pick when none does better than the first."""


class FigurePick(BaseModel):
    section: str = Field(description="a section label such as S1")
    figure: str = Field(description="the label of one of that section's candidates, e.g. F2")


class FigurePicks(BaseModel):
    picks: list[FigurePick] = Field(default_factory=list)


async def figures(state: RunState, runtime: Runtime[RunContext]) -> RunState:
    ctx = runtime.context
    report = state.get("report")
    fetcher = ctx.images
    if (
        report is None
        or fetcher is None
        or not ctx.policy.images
        or report.kind not in ("synthesized", "extractive")
    ):
        return {}
    sources = state.get("sources", {})
    choices = rank_figures(report, sources, state.get("sub_questions", []))
    if not choices:
        return {}
    if ctx.gateway.has_model("writer"):
        choices = await _writer_picks(ctx, report, sources, choices)
    taken: list[FigureChoice] = []
    shown: list[ReportFigure] = []
    images: dict[str, Encoded | str] = {}  # by address: the image, or why it was refused
    for choice in choices:
        if len(taken) >= MAX_REPORT_FIGURES:
            break
        if not fits(choice, taken):
            continue
        url = choice.figure.image_url
        if url not in images:
            images[url] = await _image(fetcher, url)
        image = images[url]
        if isinstance(image, str):
            continue
        taken.append(choice)
        shown.append(_placed(choice, image))
    refused = [f"{domain_of(url)}: {why}" for url, why in images.items() if isinstance(why, str)]
    ctx.bus.emit(
        FiguresPlaced(candidates=len(choices), placed=len(shown), refused=refused),
        stage=STAGE,
        message=f"Figures: {len(shown)} placed from the cited sources"
        + (f", {len(refused)} refused" if refused else ""),
    )
    return {"report": report.model_copy(update={"figures": shown})}


async def _writer_picks(
    ctx: RunContext, report: Report, sources: Mapping[str, Source], choices: list[FigureChoice]
) -> list[FigureChoice]:
    """``choices`` with the writer's pick for each section offered a choice tried first
    (``core.figures.with_picks`` keeps only offered candidates); unchanged when no section
    has more than one candidate or the call fails."""
    offers = offered(choices)
    if not offers:
        return choices
    user, labels = _offer(report, sources, offers)
    reply = await ctx.gateway.structured(
        "writer", FigurePicks, system=SYSTEM, user=user, stage=STAGE
    )
    picks: dict[int, str] = {}
    for pick in reply.picks if reply is not None else []:
        key = (_label(pick.section), _label(pick.figure))
        if (choice := labels.get(key)) is not None:
            picks.setdefault(choice.section, choice.figure.image_url)
    return with_picks(choices, offers, picks)


def _offer(
    report: Report, sources: Mapping[str, Source], offers: Mapping[int, list[FigureChoice]]
) -> tuple[str, dict[tuple[str, str], FigureChoice]]:
    """The writer's prompt: each section offered a choice (S1, S2, ...) with its candidates
    (F1, F2, ...: caption, alt text, page), fenced as page data; and each (section label,
    figure label) the candidate it stands for."""
    labels: dict[tuple[str, str], FigureChoice] = {}
    parts = []
    for i, (number, offer) in enumerate(offers.items(), start=1):
        blocks = []
        for j, choice in enumerate(offer, start=1):
            labels[(f"S{i}", f"F{j}")] = choice
            source = sources.get(choice.source_id)
            page = choice.figure.page_url
            page = f"{source.title} ({page})" if source else page
            text = f"Caption: {choice.figure.caption}\nAlt: {choice.figure.alt}\nPage: {page}"
            blocks.append(data_block("figure", text, label=f"F{j}"))
        heading = report.sections[number].heading
        parts.append(block_of_blocks("section", blocks, label=f"S{i}", heading=heading))
    return "\n\n".join(parts), labels


def _label(raw: str) -> str:
    return raw.strip().strip("[]").upper()


async def _image(fetcher: ImageFetcher, url: str) -> Encoded | str:
    """The image at ``url`` re-encoded, or why it cannot be shown."""
    try:
        page = await fetcher.fetch_image(url, max_bytes=MAX_IMAGE_BYTES)
        return await asyncio.to_thread(reencode, page.content)
    except FetchError as exc:  # FetchBlocked too: a policy or an image rule
        return exc.message


def _placed(choice: FigureChoice, image: Encoded) -> ReportFigure:
    figure = choice.figure
    return ReportFigure(
        section=choice.section,
        source_id=choice.source_id,
        image_url=figure.image_url,
        page_url=figure.page_url,
        caption=figure.caption,
        alt=figure.alt,
        score=choice.score,
        mime=image.mime,
        width=image.width,
        height=image.height,
        bytes=len(image.data),
        sha256=image.sha256,
        data=base64.b64encode(image.data).decode("ascii"),
    )
