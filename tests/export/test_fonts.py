"""Which fonts a PDF embeds: the configured ones first, then system fonts; files that do
not exist or are not fonts are skipped."""

from __future__ import annotations

from pathlib import Path

from deepresearch.export.fonts import bold_face, find_fonts


def test_configured_fonts_come_first_and_missing_ones_are_skipped(tmp_path: Path) -> None:
    mine = tmp_path / "Mine-Regular.ttf"
    mine.write_bytes(b"font")
    (tmp_path / "Mine-Bold.ttf").write_bytes(b"font")
    system = tmp_path / "System.ttf"
    system.write_bytes(b"font")
    found = find_fonts(
        [tmp_path / "absent.ttf", mine, tmp_path / "notes.txt", mine],
        system=[str(system), str(tmp_path / "gone.ttf")],
    )
    assert found == [mine, system]
    assert bold_face(mine) == tmp_path / "Mine-Bold.ttf" and bold_face(system) is None
