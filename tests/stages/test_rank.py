"""A judge model cannot make ranking worse than no judge at all.

One call rates all of a sub-question's best candidates. When it fails, times out, answers
garbage, rates some candidates only, gives scores outside 0..1, the neutral 0.5 to every
candidate or the same score to every candidate, the sub-question is ranked exactly as
with ``--model none`` (same reads, same scores, no threshold cut), a warning says so,
and every candidate's reason names why. A judge that does tell candidates apart is used.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from datetime import UTC, datetime

import pytest
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import BaseMessage

from deepresearch.context import RunContext
from deepresearch.core.ranking import judge_problem, rank_and_select
from deepresearch.core.scoring import ModelDims
from deepresearch.domain_rules import load_domain_rules
from deepresearch.events import EventBus
from deepresearch.fetch.http_fetcher import HttpFetcher
from deepresearch.llm import Gateway
from deepresearch.models import RunEvent, SearchHit, SubQuestion
from deepresearch.models.event_payloads import JudgeUnusableWarning
from deepresearch.recipes.research.stages.rank import rank_candidates
from deepresearch.settings import load_settings
from deepresearch.settings_groups import SettingsGroups
from deepresearch.testing.scripted import ScriptedChatModel
from deepresearch.testing.static_search import StaticSearch

SUB_QUESTION = SubQuestion(id="q1", text="Which river flows through the city of Lyon?")
TOPICS = [
    ("Lyon", "Lyon is a city in France where the Rhône and the Saône rivers meet."),
    ("Rhône river", "The Rhône flows from Switzerland through Lyon to the Mediterranean."),
    ("Saône", "The Saône is a river of eastern France joining the Rhône at Lyon."),
    ("Rivers of France", "A list of the longest rivers that flow through French cities."),
    ("Lyon tourism", "Visit the old town of Lyon, its traditional restaurants and museums."),
    ("Confluence district", "The Confluence district lies where two rivers meet in the city."),
    ("Geneva", "Geneva sits on Lake Geneva, from which the Rhône river flows out."),
    ("Paris", "The Seine flows through Paris, the capital city of France."),
    ("Cooking", "A recipe for quenelles, a dish often served in the city of Lyon."),
    ("Football", "Olympique Lyonnais is the football club of the city."),
]
HITS = [
    SearchHit(
        url=f"https://site{i}.example/{title.replace(' ', '_')}",
        title=title,
        snippet=snippet,
        provider="searxng",
        rank=i,
    )
    for i, (title, snippet) in enumerate(TOPICS)
]
LIMIT = 5
_IDS = re.compile(r'<source(?:-[^\s>]+)? id="(\d+)">')


def _ratings(rate: Callable[[int], tuple[float, float, float]]) -> Callable[..., str]:
    """A judge that answers the batch prompt, rating result ``n`` with ``rate(n)``."""

    def reply(messages: list[BaseMessage]) -> str:
        prompt = "\n".join(str(message.content) for message in messages)
        ids = sorted({int(n) for n in _IDS.findall(prompt)})
        return json.dumps(
            {
                "ratings": [
                    dict(
                        zip(
                            ("id", "relevance", "quality", "usefulness"), (n, *rate(n)), strict=True
                        )
                    )
                    for n in ids
                ]
            }
        )

    return reply


def context(
    judge: BaseChatModel | None, *, timeout_s: float = 5.0
) -> tuple[RunContext, list[RunEvent]]:
    events: list[RunEvent] = []
    settings = load_settings(model="none", search="none", model_timeout_s=timeout_s)
    gateway = Gateway(
        {"judge": judge},
        model_names={"judge": "scripted:judge"},
        timeout_s=timeout_s,
        max_retries=0,
    )
    ctx = RunContext(
        groups=SettingsGroups.of(settings),
        gateway=gateway,
        search=StaticSearch(HITS),
        fetcher=HttpFetcher(),
        bus=EventBus("test", [events.append]),
    )
    return ctx, events


async def without_model() -> list[tuple[str, float, str | None]]:
    ctx, _ = context(None)
    selection = await rank_candidates(ctx, HITS, SUB_QUESTION, limit=LIMIT)
    return [(s.url, s.final, s.decision) for s in selection.decisions]


UNUSABLE: dict[str, tuple[ScriptedChatModel, str, int]] = {
    "garbage": (
        ScriptedChatModel(lambda _: "These all look like great results to me!"),
        "not a valid Ratings",  # asked twice: the reply, then the corrective retry
        2,
    ),
    "all neutral": (ScriptedChatModel(_ratings(lambda n: (0.5, 0.5, 0.5))), "neutral 0.5", 1),
    "all the same": (ScriptedChatModel(_ratings(lambda n: (0.9, 0.8, 0.9))), "same score", 1),
    "out of range": (
        ScriptedChatModel(_ratings(lambda n: (7.0, 8.0, float(n)))),  # a 0-10 scale
        "not a valid Ratings",
        2,
    ),
    "some rated": (
        ScriptedChatModel(
            lambda m: json.dumps(
                {"ratings": [{"id": 1, "relevance": 0.9, "quality": 0.9, "usefulness": 0.9}]}
            )
        ),
        "rated 1 of",
        1,
    ),
    "timing out": (
        ScriptedChatModel(_ratings(lambda n: (n / 10, 0.5, n / 10)), latency_s=2.0),
        "timed out",
        1,
    ),
}


@pytest.mark.parametrize("kind", list(UNUSABLE))
async def test_an_unusable_judge_ranks_exactly_as_no_model(kind: str) -> None:
    judge, why, calls = UNUSABLE[kind]
    ctx, events = context(judge, timeout_s=0.3)
    selection = await rank_candidates(ctx, HITS, SUB_QUESTION, limit=LIMIT)
    assert [(s.url, s.final, s.decision) for s in selection.decisions] == await without_model()
    assert len(selection.read) == LIMIT  # no threshold cut from scores nobody gave
    assert len(judge.calls) == calls  # one call rates every candidate
    assert all(s.model_status == "none" and s.model_score is None for s in selection.decisions)
    for scores in selection.decisions:  # "Sources considered" says why
        assert "(judge not used: " in scores.reason and why in scores.reason
    warnings = [e.data for e in events if isinstance(e.data, JudgeUnusableWarning)]
    assert len(warnings) == 1 and why in warnings[0].reason


async def test_one_call_rates_every_candidate_and_a_useful_judge_is_used() -> None:
    # the judge prefers the last candidates: what it says must move the ranking
    judge = ScriptedChatModel(_ratings(lambda n: (n / 10, 0.6, n / 10)))
    ctx, events = context(judge)
    selection = await rank_candidates(ctx, HITS, SUB_QUESTION, limit=LIMIT)
    assert len(judge.calls) == 1
    prompt = str(judge.calls[0][-1].content)
    assert len(_IDS.findall(prompt)) == 2 * LIMIT  # the best 10 candidates, numbered
    scored = [s for s in selection.decisions if s.model_status == "scored"]
    assert len(scored) == 2 * LIMIT
    assert not any(isinstance(e.data, JudgeUnusableWarning) for e in events)
    assert [s.url for s in selection.read] != [url for url, _, d in await without_model() if d]


def test_failed_ratings_never_trigger_the_threshold() -> None:
    """``rank_and_select`` with a failure (None) for every rated candidate: the neutral
    0.5 is no model score, so the threshold does not filter (it did: 5 reads became 2)."""
    now = datetime(2025, 1, 1, tzinfo=UTC)
    rules = load_domain_rules(None)
    plain = rank_and_select(HITS, SUB_QUESTION.text, rules, now=now, limit=LIMIT)
    failed = rank_and_select(
        HITS,
        SUB_QUESTION.text,
        rules,
        now=now,
        limit=LIMIT,
        ratings=dict.fromkeys((hit.url for hit in HITS[:8]), None),
    )
    assert len(plain.read) == len(failed.read) == LIMIT


ASKED = ["a", "b", "c"]


@pytest.mark.parametrize(
    ("ratings", "problem"),
    [
        ({}, "rated none"),
        ({"a": ModelDims(0.9, 0.9, 0.9), "b": ModelDims(0.1, 0.2, 0.3)}, "rated 2 of 3"),
        ({u: ModelDims(0.5, 0.5, 0.5) for u in ASKED}, "neutral 0.5"),
        ({u: ModelDims(0.7, 0.7, 0.7) for u in ASKED}, "same score (0.70)"),
        (
            {"a": ModelDims(0.2, 0.9, 0.9), "b": ModelDims(0.9, 0.2, 0.9), "c": ModelDims(1, 0, 1)},
            None,
        ),
        ({"a": ModelDims(1.5, 0.5, 0.5), **{u: ModelDims(0.1, 0.1, 0.1) for u in "bc"}}, "0..1"),
        ({"a": ModelDims(float("nan"), 0, 0), **{u: ModelDims(0, 0, 0) for u in "bc"}}, "0..1"),
    ],
)
def test_judge_problem(ratings: dict[str, ModelDims], problem: str | None) -> None:
    found = judge_problem(ratings, ASKED)
    assert (found is None) if problem is None else (found is not None and problem in found)


def test_one_rated_candidate_is_judged_on_its_own() -> None:
    assert judge_problem({"a": ModelDims(0.3, 0.6, 0.9)}, ["a"]) is None
    assert judge_problem({"a": ModelDims(0.5, 0.5, 0.5)}, ["a"]) is not None
