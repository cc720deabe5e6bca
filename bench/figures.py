"""figures: what figures from the sources cost a report (issue 26).

Two source images stand for what pages serve: a photo (a 2400 x 1600 JPEG of smooth
gradients and noise, about what a camera gives) and a chart (a 1600 x 1000 PNG of flat
colours and lines). ``reencode_*_ms`` is ``fetch.imaging.reencode`` on each (decode,
scale to 1200 px, encode without metadata; median of 5), ``*_kb`` the sizes before and
after. Then one hand-made extractive report (three sections of ten sentences, three cited
sources) is rendered without figures and with three (the photo twice, the chart once: the
most a report shows): ``render_<format>_ms`` (median of 5) and ``<format>_kb`` for html,
pdf and docx, each with and without (``*.with`` / ``*.without``). The PDF embeds the fonts
``find_fonts`` finds, as ``deepresearch report`` does.
"""

from __future__ import annotations

import base64
import functools
import io
import random
import statistics
import time
from collections.abc import Callable

from PIL import Image, ImageDraw

from bench.common import BenchResult, Options
from deepresearch.export.formats import render_bytes
from deepresearch.fetch.imaging import Encoded, reencode
from deepresearch.models import Paragraph, Report, Section, Sentence, SourceRef
from deepresearch.models.figures import ReportFigure
from deepresearch.recipes.registry import get_recipe

RUNS = 5
FORMATS = ("html", "pdf", "docx")
NOTES = (
    "Median of 5. reencode_photo_ms / reencode_chart_ms: fetch.imaging.reencode of a "
    "2400x1600 JPEG photo and a 1600x1000 PNG chart (to at most 1200 px, metadata dropped); "
    "*_in_kb / *_out_kb their sizes before and after. render_<fmt>_ms and <fmt>_kb: one "
    "extractive report (3 sections of 10 sentences, 3 sources) rendered through "
    "export.formats.render_bytes without figures (.without) and with three (.with: the "
    "photo twice, the chart once), the PDF with the fonts find_fonts finds."
)


def _photo() -> bytes:
    rng = random.Random(26)
    image = Image.linear_gradient("L").resize((2400, 1600)).convert("RGB")
    noise = Image.frombytes("RGB", (2400, 1600), rng.randbytes(2400 * 1600 * 3))
    out = io.BytesIO()
    Image.blend(image, noise, 0.15).save(out, format="JPEG", quality=90)
    return out.getvalue()


def _chart() -> bytes:
    image = Image.new("RGB", (1600, 1000), "white")
    draw = ImageDraw.Draw(image)
    for i in range(12):
        top = 900 - 60 * (i % 7) - 100
        draw.rectangle((100 + i * 120, top, 180 + i * 120, 900), fill=(30, 90, 200))
    draw.line((80, 900, 1550, 900), fill="black", width=3)
    out = io.BytesIO()
    image.save(out, format="PNG")
    return out.getvalue()


def _median_ms(work: Callable[[], object]) -> float:
    times = []
    for _ in range(RUNS):
        started = time.perf_counter()
        work()
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times)


def _report(images: list[Encoded]) -> Report:
    refs = [
        SourceRef(id=f"s{n}", number=n, url=f"https://site{n}.example/page", title=f"Page {n}",
                  domain=f"site{n}.example")
        for n in (1, 2, 3)
    ]  # fmt: skip
    sentence = "Rain falls in Paris on about 110 days each year, spread over the months."
    sections = [
        Section(
            heading=f"Section {n}",
            paragraphs=[Paragraph(sentences=[Sentence(text=sentence)] * 10)],
        )
        for n in (1, 2, 3)
    ]
    figures = [
        ReportFigure(
            section=n,
            source_id=f"s{n + 1}",
            image_url=f"https://site{n + 1}.example/image",
            page_url=f"https://site{n + 1}.example/page",
            caption="Rain in Paris by month",
            mime=image.mime,
            width=image.width,
            height=image.height,
            bytes=len(image.data),
            sha256=image.sha256,
            data=base64.b64encode(image.data).decode("ascii"),
        )
        for n, image in enumerate(images)
    ]
    return Report(
        run_id="bench-figures",
        question="How much rain falls in Paris?",
        title="Rain in Paris",
        kind="extractive",
        sections=sections,
        sources=refs,
        figures=figures,
    )


def run(options: Options) -> BenchResult:
    result = BenchResult(notes=NOTES, params={"runs": RUNS})
    photo, chart = _photo(), _chart()
    encoded: dict[str, Encoded] = {}
    for name, data in (("photo", photo), ("chart", chart)):
        result.add(f"reencode_{name}_ms", _median_ms(functools.partial(reencode, data)), "ms")
        encoded[name] = reencode(data)
        result.add(f"{name}_in_kb", len(data) / 1024, "KiB", digits=1)
        result.add(f"{name}_out_kb", len(encoded[name].data) / 1024, "KiB", digits=1)
    recipe = get_recipe("research")
    reports = {
        "without": _report([]),
        "with": _report([encoded["photo"], encoded["chart"], encoded["photo"]]),
    }
    for fmt in FORMATS:
        for label, report in reports.items():
            rendered = render_bytes(recipe, report, fmt)
            ms = _median_ms(functools.partial(render_bytes, recipe, report, fmt))
            result.add(f"render_{fmt}_ms.{label}", ms, "ms", digits=1)
            result.add(f"{fmt}_kb.{label}", len(rendered) / 1024, "KiB", digits=1)
    return result
