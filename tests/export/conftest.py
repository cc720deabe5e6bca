"""A real research run over a small offline web whose pages mix scripts (English, Greek,
Russian, Chinese): its report is what the PDF and DOCX exports are tested on."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from deepresearch.api import research
from deepresearch.models import Report
from deepresearch.testing.corpus import CorpusDocument
from deepresearch.testing.web import OfflineWeb

QUESTION = "How do honey bees pollinate crops and communicate with the waggle dance?"
DOCUMENTS = [
    CorpusDocument(
        id="bees-en",
        title="Honey bee pollination",
        text=(
            "Honey bees pollinate many crops such as almonds and apples. A single honey bee "
            "colony can pollinate millions of flowers in one season. Honey bees communicate "
            "the direction of flowers with the waggle dance, a figure-eight movement inside "
            "the hive.\n\nBeekeepers move honey bee colonies to orchards so that the bees "
            "pollinate the crops during bloom."
        ),
    ),
    CorpusDocument(
        id="bees-el",
        title="Μέλισσες και επικονίαση",
        text=(
            "Οι μέλισσες επικονιάζουν πολλές καλλιέργειες. Honey bees pollinate crops and the "
            "waggle dance of honey bees communicates the direction and distance of flowers "
            "to the colony. 蜜蜂通过摇摆舞交流花的方向。"
        ),
    ),
    CorpusDocument(
        id="bees-ru",
        title="Медоносные пчёлы",
        text=(
            "Медоносные пчёлы опыляют многие культуры, например миндаль и яблони. Honey bees "
            "pollinate almond orchards in California every spring. Пчеловоды перевозят ульи в "
            "сады во время цветения."
        ),
    ),
    CorpusDocument(
        id="wasps",
        title="Wasps",
        text="Wasps hunt other insects and feed them to their larvae. Honey is rare in wasp nests.",
    ),
]


def run_options(web: OfflineWeb, data_dir: Path) -> dict[str, Any]:
    return {
        "model": "none",
        "search": "searxng",
        "searxng_url": web.base_url,
        "allow_hosts": [web.base_url.removeprefix("http://")],
        "data_dir": data_dir,
        "depth": "quick",
        "min_domains": 1,
        "min_evidence": 1,
        "fetch_min_interval_s": 0.0,
    }


@pytest.fixture(scope="session")
def bee_web() -> Iterator[OfflineWeb]:
    with OfflineWeb(DOCUMENTS) as web:
        yield web


@pytest.fixture(scope="session")
def bee_report(bee_web: OfflineWeb, tmp_path_factory: pytest.TempPathFactory) -> Report:
    report = research(QUESTION, **run_options(bee_web, tmp_path_factory.mktemp("bee-data")))
    # what the export tests rely on: cited quotes in two scripts, and a source considered
    # but not cited (its address must not become a link)
    assert report.sources and len(report.considered) > len(report.sources)
    return report
