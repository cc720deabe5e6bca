"""'Sources considered' says which search provider found each candidate, and how many each
found, when a run searched several; a one-provider report stays as it was."""

from __future__ import annotations

import json
from datetime import UTC, datetime

from deepresearch.core.scoring import score_hit
from deepresearch.domain_rules import load_domain_rules
from deepresearch.export.report_render import to_html, to_json, to_markdown
from deepresearch.export.report_text import considered_by_provider
from deepresearch.models import Report, SearchHit
from deepresearch.models.scores import SourceScores

NOW = datetime(2025, 1, 2, tzinfo=UTC)


def considered(*hits: SearchHit) -> list[SourceScores]:
    rules = load_domain_rules()
    return [
        score_hit(hit, "battery storage", rules, now=NOW).model_copy(
            update={"decision": "read", "reason": "above the threshold"}
        )
        for hit in hits
    ]


def report(scores: list[SourceScores]) -> Report:
    return Report.model_validate(
        {
            "run_id": "run-1",
            "question": "How is grid energy stored?",
            "title": "Grid storage",
            "kind": "extractive",
            "considered": scores,
            "created_at": NOW,
        }
    )


MIXED = considered(
    SearchHit(url="file:///corpus/notes.md", provider="local", providers=("local",)),
    SearchHit(url="https://grid.example/a", provider="searxng", providers=("searxng",)),
    SearchHit(url="https://both.example/b", provider="searxng", providers=("local", "searxng")),
)


def test_scores_carry_the_providers_of_their_hit() -> None:
    assert [s.providers for s in MIXED] == [("local",), ("searxng",), ("local", "searxng")]
    (plain,) = considered(SearchHit(url="https://a.example/", provider="brave"))
    assert plain.providers == ("brave",)


def test_counts_per_provider() -> None:
    assert considered_by_provider(report(MIXED)) == {"local": 2, "searxng": 2}


def test_markdown_names_the_providers() -> None:
    md = to_markdown(report(MIXED))
    section = md.split("## Sources considered", 1)[1]
    assert "Found by: local 2, searxng 2" in section
    assert "| source | found by | tier |" in section
    rows = [line for line in section.splitlines() if line.startswith("| ") and "`" in line]
    assert [row.split(" | ")[1] for row in rows] == ["local", "searxng", "local, searxng"]


def test_html_names_the_providers() -> None:
    page = to_html(report(MIXED))
    assert '<p class="found-by">Found by: local 2, searxng 2</p>' in page
    assert "<th>found by</th>" in page
    assert '<td class="providers">local, searxng</td>' in page


def test_json_keeps_each_candidates_providers() -> None:
    data = json.loads(to_json(report(MIXED)))
    assert [c["providers"] for c in data["considered"]] == [
        ["local"],
        ["searxng"],
        ["local", "searxng"],
    ]
    assert "Found by: local 2, searxng 2" in data["markdown"]


def test_one_provider_adds_no_column() -> None:
    single = report(considered(SearchHit(url="https://a.example/", provider="searxng")))
    md, page = to_markdown(single), to_html(single)
    assert "Found by" not in md and "found by" not in md
    assert "| source | tier | signal | model | final | decision |" in md
    assert "found-by" not in page and "<th>found by</th>" not in page
