"""The writer chooses among a section's candidate figures (issue 26): with a model, a
section with more than one candidate is offered them (caption, alt text, page) in one
call and the figure the writer picks is placed; a pick that is not an offered candidate
leaves the best match, as without a model."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path

from langchain_core.messages import BaseMessage

from deepresearch.models import Report, SearchHit
from deepresearch.recipes.research.stages import figures
from deepresearch.runner import run_research
from deepresearch.settings import load_settings
from deepresearch.settings_values import ROLES
from deepresearch.testing.research_script import research_script
from deepresearch.testing.scripted import ScriptedChatModel
from deepresearch.testing.static_search import StaticSearch

from .test_figures import Site, _png

QUESTION = "How much revenue did Acme Robotics make each year?"
CAPTIONS = {
    "/img/year.png": "Acme Robotics revenue by year, in billions of dollars",
    "/img/region.png": "Acme Robotics revenue by region",
}
PAGE = (
    '<!doctype html><html lang="en"><head><meta charset="utf-8">'
    "<title>Acme Robotics annual revenue</title></head><body><article>"
    "<h1>Acme Robotics annual revenue</h1>"
    "<p>Acme Robotics revenue was $1.2 billion in 2019 and rose to $1.5 billion in 2020, "
    "then reached $2.1 billion in 2021 as warehouses bought more of its robot arms.</p>"
    "{figures}</article></body></html>"
)
_SECTION = re.compile(r'<section-[^ >]+ [^>]*label="(S\d+)"')
_FIGURE = re.compile(r'<figure-[^ >]+ label="(F\d+)">')

Picker = Callable[[str], dict[str, object]]


def _last_offered(user: str) -> dict[str, object]:
    """Each section's last candidate (never the best match, which comes first)."""
    picks = []
    for part in user.split("\n\n"):
        section, labels = _SECTION.search(part), _FIGURE.findall(part)
        if section and labels:
            picks.append({"section": section[1], "figure": labels[-1]})
    return {"picks": picks}


def _not_offered(user: str) -> dict[str, object]:
    return {"picks": [{"section": "S1", "figure": "F9"}, {"section": "S99", "figure": "F1"}]}


def _script(picker: Picker | None, asked: list[str]) -> Callable[[list[BaseMessage]], str]:
    base = research_script()

    def reply(messages: list[BaseMessage]) -> str:
        system = str(messages[0].content)
        if system.startswith(figures.SYSTEM.split("\n", 1)[0]):
            user = str(messages[-1].content)
            asked.append(user)
            return json.dumps(picker(user) if picker else {})
        return base(messages)

    return reply


async def _placed(tmp_path: Path, picker: Picker | None) -> tuple[list[str], list[str]]:
    tags = "".join(
        f'<figure><img src="{src}" alt="Chart"><figcaption>{caption}</figcaption></figure>'
        for src, caption in CAPTIONS.items()
    )
    files = {
        "/page/acme": ("text/html", PAGE.format(figures=tags).encode()),
        **{src: ("image/png", _png()) for src in CAPTIONS},
    }
    asked: list[str] = []
    with Site(files) as site:
        hit = SearchHit(
            url=site.url("/page/acme"),
            title="Acme Robotics annual revenue",
            snippet="Acme Robotics revenue",
            provider="static",
            rank=0,
        )
        settings = load_settings(
            allow_hosts=[site.host],
            data_dir=tmp_path / "data",
            depth="standard",
            min_domains=1,
            min_evidence=1,
            min_cited_evidence=1,
        )
        model = ScriptedChatModel(_script(picker, asked))
        report = await run_research(
            QUESTION, settings, search=StaticSearch([hit]), models=dict.fromkeys(ROLES, model)
        )
    assert isinstance(report, Report)
    return [figure.image_url.split("/", 3)[-1] for figure in report.figures], asked


async def test_the_writer_picks_among_a_sections_candidates(tmp_path: Path) -> None:
    best, asked = await _placed(tmp_path / "best", None)
    assert len(asked) == 1  # one call offers every section's candidates
    assert all(caption in asked[0] for caption in CAPTIONS.values())
    picked, _ = await _placed(tmp_path / "picked", _last_offered)
    assert best and picked and picked[0] != best[0]  # the first section got its pick


async def test_a_pick_that_was_not_offered_leaves_the_best_match(tmp_path: Path) -> None:
    best, _ = await _placed(tmp_path / "best", None)
    kept, asked = await _placed(tmp_path / "bad", _not_offered)
    assert asked and kept == best
