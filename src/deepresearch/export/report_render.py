"""A research report in each text format (md, html, json): ``render``. Pure.

Markdown and HTML are drawn from the report's page-neutral document
(``export.report_document``), as the PDF and DOCX are."""

from __future__ import annotations

import json

from deepresearch.core.charts import Chart, report_charts
from deepresearch.export import html, markdown
from deepresearch.export.report_document import report_document
from deepresearch.models import Report


def to_markdown(report: Report) -> str:
    """The report as markdown."""
    return markdown.to_markdown(report_document(report))


def to_html(report: Report) -> str:
    """The report as one HTML page."""
    return html.to_html(report_document(report))


def to_json(report: Report) -> str:
    """The Report model as JSON, plus ``markdown``: the same report as readable text, and
    ``charts`` when the report has any (each point with the id of its quote). Evidence
    that did not pass verification is left out, and so are the figures' images (their
    metadata stays: address, page, caption, size, sha256)."""
    data = report.model_dump(mode="json")
    data["evidence"] = [
        item for item, keep in zip(data["evidence"], report.evidence, strict=True) if keep.verified
    ]
    for figure in data["figures"]:  # its metadata: the image itself is in html, pdf, docx
        figure.pop("data", None)
    charts = report_charts(report)
    if charts:  # only then: a report without one keeps the JSON it always had
        data["charts"] = [_chart(chart) for chart in charts]
    data["markdown"] = to_markdown(report)
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def _chart(chart: Chart) -> dict[str, object]:
    return {
        "title": chart.title,
        "unit": chart.unit,
        "points": [
            {
                "label": point.label,
                "value": point.value,
                "text": point.text,
                "evidence_id": point.evidence_id,
            }
            for point in chart.points
        ],
    }


def render(report: Report, fmt: str) -> str:
    """``report`` as ``md``, ``html`` or ``json``; ValueError for another format."""
    if fmt == "md":
        return to_markdown(report)
    if fmt == "html":
        return to_html(report)
    if fmt == "json":
        return to_json(report)
    raise ValueError(f"unknown report format {fmt!r}")
