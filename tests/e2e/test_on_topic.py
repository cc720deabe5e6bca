"""Without a model, the report's Verified Findings are about the question (issue 26).

A real-data corpus (../shared/data's Vital Article summaries): the two pages on the
question's subject and forty pages that only share its common words ("form", "nature",
"relate"). Before, passages such as "Acupuncture is a form of alternative medicine" and
"Recent work in aerodynamics has focused on issues related to ..." were among the
findings: they matched one common word of a question that names no thing."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

import deepresearch

from .conftest import SHARED_DATA

QUESTION = "How do glaciers and icebergs form in nature, and how do they relate to sea level?"
ON_TOPIC = ("Glacier", "Iceberg")
COMMON = re.compile(r"\bnature|\bform|\brelat", re.IGNORECASE)


def _corpus(folder: Path) -> Path:
    path = SHARED_DATA / "wiki" / "vital-articles-summaries-en.json"
    if not path.is_file():
        pytest.skip(f"shared data not found at {path}")
    articles = json.loads(path.read_text(encoding="utf-8"))
    sharing = sorted(name for name, a in articles.items() if COMMON.search(a.get("extract", "")))
    folder.mkdir()
    for name in [*sharing[:40], *ON_TOPIC]:
        slug = re.sub(r"\W+", "_", name)
        (folder / f"{slug}.md").write_text(f"# {name}\n\n{articles[name]['extract']}\n")
    return folder


async def test_findings_without_a_model_are_about_the_question(tmp_path: Path) -> None:
    report = await deepresearch.research_async(
        QUESTION,
        model="none",
        search="local",
        corpus_dir=_corpus(tmp_path / "corpus"),
        data_dir=tmp_path / "data",
        min_domains=1,
    )
    findings = report.sections[0]
    assert findings.heading == "Verified Findings"
    titles = {source.id: source.title for source in report.sources}
    evidence = {item.id: item for item in report.evidence}
    cited = [
        titles[evidence[cid].source_id]
        for paragraph in findings.paragraphs
        for sentence in paragraph.sentences
        for cid in sentence.citations
    ]
    assert cited
    assert set(cited) <= set(ON_TOPIC), cited
