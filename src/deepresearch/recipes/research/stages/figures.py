"""Figures: after the audit, the report's sections get figures from the pages it cites
(issue 26). ``core.figures`` ranks each captioned figure of a cited page against each
body section; this node fetches the images in that order through the run's image fetcher
(``fetch.base.ImageFetcher``: the page fetcher's guard and limits, PNG, JPEG, WebP or GIF
by their bytes, SVG refused), re-encodes each (``fetch.imaging``: metadata stripped,
pixels capped) and places at most ``MAX_REPORT_FIGURES``, one a section, each cited as its
page's source. An image that cannot be had is skipped and the next candidate tried.

Nothing happens with ``images`` off, for a report that is not research (a reply, an abort,
an unresearched answer), or without an image fetcher. The writer does not choose among the
candidates: the best-matching figure is used with or without a model, so the choice is the
same for every run over the same pages."""

from __future__ import annotations

import asyncio
import base64

from langgraph.runtime import Runtime

from deepresearch.context import RunContext
from deepresearch.core.figures import MAX_REPORT_FIGURES, FigureChoice, fits, rank_figures
from deepresearch.core.gate import domain_of
from deepresearch.errors import FetchError
from deepresearch.fetch.base import ImageFetcher
from deepresearch.fetch.imaging import MAX_IMAGE_BYTES, Encoded, reencode
from deepresearch.models.event_payloads import FiguresPlaced
from deepresearch.models.figures import ReportFigure
from deepresearch.recipes.research.state import RunState

STAGE = "figures"


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
    choices = rank_figures(report, state.get("sources", {}), state.get("sub_questions", []))
    if not choices:
        return {}
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
