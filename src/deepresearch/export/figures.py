"""What every renderer needs of a ``models.document.Figure`` (an image block: a chart of
verified numbers, or a figure from a page): its PNG as an embedded ``data:`` address (a
page that shows it makes no request), its pixel size, and its caption as a paragraph for
a format that shows no image (markdown, ODT, LaTeX). Pure.
"""

from __future__ import annotations

import base64
import struct

from deepresearch.models.document import Figure, Paragraph

_PNG = b"\x89PNG\r\n\x1a\n"


def data_uri(figure: Figure) -> str:
    """The image as a ``data:image/png;base64,...`` address."""
    return "data:image/png;base64," + base64.b64encode(figure.image).decode("ascii")


def pixels(figure: Figure) -> tuple[int, int]:
    """The image's width and height in pixels, from its PNG header ((0, 0): not a PNG)."""
    data = figure.image
    if len(data) < 24 or not data.startswith(_PNG):
        return 0, 0
    width, height = struct.unpack(">II", data[16:24])
    return int(width), int(height)


def caption_paragraph(figure: Figure) -> Paragraph:
    """The caption as a note, for a page that shows no image."""
    return Paragraph(figure.caption, "note")
