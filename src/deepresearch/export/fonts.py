"""The TrueType fonts a PDF report embeds: the ones the ``pdf_fonts`` setting names, then
well-known system fonts that cover many scripts (DejaVu Sans, Noto Sans, Liberation
Sans, Arial, and CJK fallbacks where present). Only files that exist are returned; with
none, the PDF uses a built-in Latin-1 font and says which characters it could not show.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path

#: regular faces first (the first found is the main font), then script fallbacks
SYSTEM_FONTS: tuple[str, ...] = (
    # Debian, Ubuntu (fonts-dejavu-core), Fedora, Arch, openSUSE
    "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
    "/usr/share/fonts/dejavu-sans-fonts/DejaVuSans.ttf",
    "/usr/share/fonts/dejavu/DejaVuSans.ttf",
    "/usr/share/fonts/TTF/DejaVuSans.ttf",
    "/usr/share/fonts/truetype/noto/NotoSans-Regular.ttf",
    "/usr/share/fonts/noto/NotoSans-Regular.ttf",
    "/usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf",
    "/usr/share/fonts/liberation-sans/LiberationSans-Regular.ttf",
    # macOS, Windows
    "/Library/Fonts/Arial Unicode.ttf",
    "/System/Library/Fonts/Supplemental/Arial Unicode.ttf",
    "/System/Library/Fonts/Supplemental/Arial.ttf",
    "C:/Windows/Fonts/arial.ttf",
    # script fallbacks: CJK, Arabic, Hebrew, Devanagari...
    "/usr/share/fonts/truetype/droid/DroidSansFallbackFull.ttf",
    "/usr/share/fonts/truetype/arphic/uming.ttc",
    "/usr/share/fonts/truetype/noto/NotoSansArabic-Regular.ttf",
    "/usr/share/fonts/truetype/noto/NotoSansHebrew-Regular.ttf",
    "/usr/share/fonts/truetype/noto/NotoSansDevanagari-Regular.ttf",
    "C:/Windows/Fonts/msyh.ttc",
)


def find_fonts(
    configured: Sequence[Path] = (), *, system: Iterable[str] = SYSTEM_FONTS
) -> list[Path]:
    """The font files to embed, configured ones first, each once; missing files skipped."""
    found: list[Path] = []
    for candidate in [*configured, *(Path(p) for p in system)]:
        path = Path(candidate).expanduser()
        if path.suffix.lower() in (".ttf", ".otf", ".ttc") and path.is_file() and path not in found:
            found.append(path)
    return found


def bold_face(regular: Path) -> Path | None:
    """The bold face that sits beside ``regular`` (DejaVuSans-Bold.ttf beside
    DejaVuSans.ttf, NotoSans-Bold.ttf beside NotoSans-Regular.ttf, arialbd.ttf beside
    arial.ttf), if there is one."""
    stem = regular.stem
    names = [stem.removesuffix("-Regular") + "-Bold"] if stem.endswith("-Regular") else []
    names += [stem + "-Bold", stem + "bd"]
    for name in names:
        candidate = regular.with_name(name + regular.suffix)
        if candidate.is_file():
            return candidate
    return None
