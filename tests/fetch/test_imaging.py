"""A figure's image re-encoded before it is embedded (issue 26): metadata stripped, the
longest side capped, too many pixels refused, WebP and GIF made PNG, the same bytes for
the same input."""

from __future__ import annotations

import io

import pytest
from PIL import Image
from PIL.PngImagePlugin import PngInfo

from deepresearch.errors import FetchBlocked
from deepresearch.fetch.imaging import reencode


def _save(image: Image.Image, fmt: str, **options: object) -> bytes:
    out = io.BytesIO()
    image.save(out, format=fmt, **options)
    return out.getvalue()


def test_a_jpeg_stays_jpeg_without_its_exif() -> None:
    exif = Image.Exif()
    exif[0x010F] = "SecretCam"  # Make
    data = _save(Image.new("RGB", (40, 30), (200, 10, 10)), "JPEG", exif=exif.tobytes())
    assert b"SecretCam" in data
    encoded = reencode(data)
    assert encoded.mime == "image/jpeg" and (encoded.width, encoded.height) == (40, 30)
    assert b"SecretCam" not in encoded.data and b"Exif" not in encoded.data


def test_png_text_chunks_are_dropped() -> None:
    info = PngInfo()
    info.add_text("Author", "someone@example.org")
    data = _save(Image.new("RGBA", (20, 20), (0, 0, 0, 128)), "PNG", pnginfo=info)
    encoded = reencode(data)
    assert encoded.mime == "image/png" and b"someone@example.org" not in encoded.data
    with Image.open(io.BytesIO(encoded.data)) as image:
        assert image.mode == "RGBA" and not image.text  # type: ignore[attr-defined]


@pytest.mark.parametrize("fmt", ["WEBP", "GIF"])
def test_webp_and_gif_become_png(fmt: str) -> None:
    encoded = reencode(_save(Image.new("RGB", (16, 9), (1, 2, 3)), fmt))
    assert encoded.mime == "image/png" and (encoded.width, encoded.height) == (16, 9)


def test_an_animated_gif_keeps_its_first_frame() -> None:
    frames = [Image.new("RGB", (10, 10), colour) for colour in ((255, 0, 0), (0, 0, 255))]
    out = io.BytesIO()
    frames[0].save(out, format="GIF", save_all=True, append_images=frames[1:])
    encoded = reencode(out.getvalue())
    with Image.open(io.BytesIO(encoded.data)) as image:
        assert image.convert("RGB").getpixel((5, 5)) == (255, 0, 0)


def test_the_longest_side_is_capped() -> None:
    encoded = reencode(_save(Image.new("RGB", (400, 100)), "PNG"), max_side=200)
    assert (encoded.width, encoded.height) == (200, 50)


def test_too_many_pixels_are_refused_before_decoding() -> None:
    with pytest.raises(FetchBlocked, match="too many pixels"):
        reencode(_save(Image.new("L", (100, 100)), "PNG"), max_pixels=9_999)


@pytest.mark.parametrize(
    "data", [b"<svg xmlns='http://www.w3.org/2000/svg'/>", b"BM" + b"\x00" * 60, b"\x89PNG\r\n"]
)
def test_what_is_not_an_allowed_image_is_refused(data: bytes) -> None:
    with pytest.raises(FetchBlocked):
        reencode(data)


def test_the_same_image_gives_the_same_bytes() -> None:
    data = _save(Image.new("RGB", (30, 30), (9, 9, 9)), "WEBP")
    assert reencode(data).data == reencode(data).data
