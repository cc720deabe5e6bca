"""The report as LaTeX: a self-contained ``.tex`` whose citations are ``\\cite`` of a
``thebibliography`` with BibTeX's keys, and whose page and model text cannot become a
command. Where a TeX distribution is installed it is compiled with pdflatex and the PDF
read back (the other tests need no TeX)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from deepresearch.export import export_report
from deepresearch.export.latex import escape
from deepresearch.models import Report

from ..core.test_render import make_report
from .reading import pdf_links, pdf_text

PDFLATEX = shutil.which("pdflatex")
# read before the autouse fixture clears DEEPRESEARCH_* variables for each test
REQUIRE_TEX = os.environ.get("DEEPRESEARCH_REQUIRE_TEX") == "1"
NO_TEX = (
    "no TeX distribution here (pdflatex not found); "
    "apt-get install texlive-latex-base texlive-latex-recommended to run it"
)


@pytest.fixture
def tex() -> None:
    if PDFLATEX is None:
        if REQUIRE_TEX:
            pytest.fail(f"pdflatex is required here (DEEPRESEARCH_REQUIRE_TEX=1): {NO_TEX}")
        pytest.skip(NO_TEX)


needs_tex = pytest.mark.usefixtures("tex")
HOSTILE = r"\input{/etc/passwd} \write18{touch pwned} $x$ 100% #1 & a_b ~ ^ [opt] -- } {"


def compile_tex(source: bytes, folder: Path) -> Path:
    """``source`` compiled twice (citations resolve on the second run), shell escape off."""
    (folder / "report.tex").write_bytes(source)
    for _ in range(2):
        done = subprocess.run(
            [
                str(PDFLATEX),
                "-no-shell-escape",
                "-interaction=nonstopmode",
                "-halt-on-error",
                "report.tex",
            ],
            cwd=folder,
            capture_output=True,
            timeout=180,
            check=False,
        )
        log = done.stdout.decode(errors="replace")
        assert done.returncode == 0, log[-3000:]
    return folder / "report.pdf"


def test_citations_cite_the_bibliography_by_the_bibtex_keys() -> None:
    tex = export_report(make_report(), "latex").decode()
    assert tex.startswith("\\documentclass")
    assert "Bees pollinate crops. \\cite{ref1} Ants farm. \\cite{ref2}" in tex
    assert "\\bibitem[1]{ref1} \\href{https://sb.example/}{Bee facts}" in tex
    assert "\\bibitem[2]{ref2}" in tex
    bib = export_report(make_report(), "bibtex").decode()
    assert set(re.findall(r"\\cite\{(ref\d+)\}", tex)) <= set(re.findall(r"@misc\{(ref\d+),", bib))
    assert tex.count("\\renewcommand{\\refname}{Sources}") == 1
    assert "\\section*{Sources}" not in tex  # the bibliography sets that heading


def test_page_and_model_text_cannot_become_a_command() -> None:
    escaped = escape(HOSTILE)
    assert "\\input{" not in escaped and "\\write18{" not in escaped
    # outside the commands the escapes are made of, no backslash, brace or special is bare
    bare = re.sub(r"\\(text\w+|ensuremath)\{\}|\\[{}%$#&_]|\{\[\}|\{\]\}|-\{\}", "", escaped)
    assert not set(bare) & set("\\{}$%#&_^~[]")


@needs_tex
def test_the_bee_report_compiles_and_keeps_its_quotes_and_links(
    bee_report: Report, tmp_path: Path
) -> None:
    pdf = compile_tex(export_report(bee_report, "latex"), tmp_path)
    text = pdf_text(pdf)
    assert "Honey bees communicate the direction of flowers with the waggle dance" in text
    assert "[?]" not in text  # every citation resolved to its bibliography entry
    cited = {ref.url for ref in bee_report.sources}
    assert cited and cited <= set(pdf_links(pdf))
    # Greek, Russian and Chinese have no pdfTeX glyphs: shown as "?", not a failed build
    assert "?" in text


@needs_tex
def test_a_hostile_title_compiles_as_text(tmp_path: Path) -> None:
    report = make_report(title=HOSTILE)
    report.sections[0].heading = HOSTILE
    pdf = compile_tex(export_report(report, "latex"), tmp_path)
    assert not (tmp_path / "pwned").exists()
    assert "\\write18" in pdf_text(pdf) and "/etc/passwd" in pdf_text(pdf)
