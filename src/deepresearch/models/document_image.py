"""An image block of a ``models.document.Document``: encoded bytes, their media type and
pixel size, a caption, and where the image came from (a source's title, address and
number, cited like a quote). Generic on purpose: a figure from a source and a chart drawn
from the report's own numbers are both one (only the caption and credit differ). Pure
data; each renderer decides how it looks (HTML embeds it as a ``data:`` URI, so the page
makes no request; PDF, DOCX and ODT embed the bytes; markdown and LaTeX show the caption
and credit)."""

from __future__ import annotations

import base64
from dataclasses import dataclass
from typing import Literal

#: the encodings every renderer can embed
ImageMime = Literal["image/png", "image/jpeg"]


@dataclass(frozen=True)
class ImageCitation:
    """A citation ``[number]`` of an image: the cited source's number in the report, its
    address, and ``note``, what it stands for (a figure's caption as its page has it, a
    chart point's quote)."""

    number: int
    url: str | None = None
    note: str = ""


@dataclass(frozen=True)
class ImageBlock:
    """An image and its caption. ``credit`` says where it came from (a figure's page
    title, linked to ``url``), ``citations`` the sources it is cited as (a figure its
    page; a chart the quotes its points come from); ``alt`` is the text a page shows in
    its place."""

    data: bytes
    mime: ImageMime
    width: int
    height: int
    caption: str
    alt: str = ""
    credit: str = ""
    url: str | None = None
    citations: tuple[ImageCitation, ...] = ()

    def data_uri(self) -> str:
        """The image as a ``data:`` URI (embedded: nothing is requested to show it)."""
        return f"data:{self.mime};base64," + base64.b64encode(self.data).decode("ascii")

    @property
    def extension(self) -> str:
        return "png" if self.mime == "image/png" else "jpg"
