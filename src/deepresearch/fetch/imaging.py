"""A fetched figure made safe to embed, with Pillow: decoded (PNG, JPEG, WebP or GIF, by
its bytes), refused past a pixel cap before anything is decoded (a small file can claim a
huge canvas), scaled to fit ``MAX_SIDE``, and encoded again without its metadata (EXIF,
ICC profiles, comments, text chunks: none is copied), as PNG, or as JPEG when it was one.
An animated image keeps its first frame. Encoding is deterministic for the same bytes and
Pillow version, so a replay embeds the same image."""

from __future__ import annotations

import hashlib
import io
import warnings
from dataclasses import dataclass

from PIL import Image, UnidentifiedImageError

from deepresearch.errors import FetchBlocked
from deepresearch.models.figures import FigureMime

#: the largest image file fetched for a figure
MAX_IMAGE_BYTES = 3_000_000
#: the most pixels an image may claim (Pillow's own bomb limit is far higher)
MAX_PIXELS = 24_000_000
#: the longest side of the embedded image, in pixels
MAX_SIDE = 1200
_FORMATS = ("PNG", "JPEG", "WEBP", "GIF")


@dataclass(frozen=True)
class Encoded:
    """An image as embedded: its bytes, type, size in pixels and sha256."""

    data: bytes
    mime: FigureMime
    width: int
    height: int

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.data).hexdigest()


def reencode(data: bytes, *, max_pixels: int = MAX_PIXELS, max_side: int = MAX_SIDE) -> Encoded:
    """``data`` decoded and encoded again, metadata stripped and pixels capped; a
    FetchBlocked for what is not a PNG, JPEG, WebP or GIF image, or claims too many
    pixels, or cannot be decoded."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            with Image.open(io.BytesIO(data), formats=_FORMATS) as image:
                if image.width * image.height > max_pixels:
                    raise FetchBlocked("refused: the image has too many pixels")
                source_format = image.format
                image.seek(0)
                image.load()
                picture = _flattened(image, jpeg=source_format == "JPEG")
    except FetchBlocked:
        raise
    except (UnidentifiedImageError, Image.DecompressionBombError, Image.DecompressionBombWarning):
        raise FetchBlocked("refused: not a PNG, JPEG, WebP or GIF image") from None
    except (OSError, ValueError, SyntaxError, EOFError):
        raise FetchBlocked("refused: the image could not be decoded") from None
    picture.thumbnail((max_side, max_side), Image.Resampling.LANCZOS)
    out = io.BytesIO()
    if source_format == "JPEG":
        picture.save(out, format="JPEG", quality=85, optimize=False, progressive=False)
        mime: FigureMime = "image/jpeg"
    else:
        picture.save(out, format="PNG", optimize=False)
        mime = "image/png"
    return Encoded(out.getvalue(), mime, picture.width, picture.height)


def _flattened(image: Image.Image, *, jpeg: bool) -> Image.Image:
    """A new image holding only the pixels (no ``info``): RGB for a JPEG, else RGB or
    RGBA (transparency kept, a palette expanded)."""
    if jpeg:
        mode = "RGB"
    else:
        has_alpha = image.mode in ("RGBA", "LA", "PA") or "transparency" in image.info
        mode = "RGBA" if has_alpha else "RGB"
    converted = image.convert(mode)
    clean = Image.new(mode, converted.size)
    clean.paste(converted)
    return clean
