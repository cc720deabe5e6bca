"""A watch's change reports as an Atom feed (RFC 4287), for feed readers: one entry per
report, newest first, its summary line as the title and its markdown as the content.
Built with the standard library's ElementTree, which escapes every text it is given."""

from __future__ import annotations

from collections.abc import Sequence
from xml.etree import ElementTree as ET

from deepresearch.core.watch_changes import summary_line
from deepresearch.export.markdown import to_markdown
from deepresearch.export.watch_report import change_document
from deepresearch.models.watch import ChangeReport, Watch

ATOM = "http://www.w3.org/2005/Atom"


def _add(parent: ET.Element, tag: str, text: str | None = None, **attrs: str) -> ET.Element:
    element = ET.SubElement(parent, tag, attrs)
    if text is not None:
        element.text = text
    return element


def atom_feed(watch: Watch, reports: Sequence[ChangeReport], *, base: str) -> bytes:
    """The feed of ``watch``'s ``reports`` (newest first); ``base`` is the feed's URL."""
    feed = ET.Element("feed", {"xmlns": ATOM})
    _add(feed, "id", f"urn:deepresearch:watch:{watch.id}")
    _add(feed, "title", f"deepresearch watch: {watch.question}")
    updated = reports[0].created_at if reports else watch.created_at
    _add(feed, "updated", updated.isoformat())
    _add(feed, "link", rel="self", href=base)
    author = _add(feed, "author")
    _add(author, "name", "deepresearch")
    for report in reports:
        entry = _add(feed, "entry")
        _add(entry, "id", f"urn:deepresearch:watch:{watch.id}:run:{report.run_id}")
        _add(entry, "title", summary_line(report))
        _add(entry, "updated", report.created_at.isoformat())
        _add(entry, "content", to_markdown(change_document(report)), type="text")
    xml: bytes = ET.tostring(feed, encoding="utf-8", xml_declaration=True)
    return xml
