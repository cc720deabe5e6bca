"""A whole run over the offline web with a judge model that gives no usable scores reads
exactly the pages a run without any model reads (issue 13: with a 135M judge, the neutral
0.5 for every candidate let the threshold cut the pages read from 5 to 2 of 10)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import BaseMessage

from deepresearch.models import RunEvent
from deepresearch.models.event_payloads import JudgeUnusableWarning, SourcesRanked
from deepresearch.runner import run_research
from deepresearch.settings_values import Role
from deepresearch.testing.scripted import ScriptedChatModel
from deepresearch.testing.web import OfflineWeb

from ..e2e.conftest import hotpot_question, offline_web, web_documents  # noqa: F401 (fixtures)
from ..e2e.helpers import offline_settings


def _all_neutral(messages: list[BaseMessage]) -> str:
    ids = re.findall(r'<source(?:-[^\s>]+)? id="(\d+)">', str(messages[-1].content))
    neutral = {"relevance": 0.5, "quality": 0.5, "usefulness": 0.5}
    return json.dumps({"ratings": [{"id": int(n), **neutral} for n in ids]})


JUDGES = {
    "garbage": lambda: ScriptedChatModel(lambda _: "Result 1 is great. Result 2: 9/10!"),
    "all neutral": lambda: ScriptedChatModel(_all_neutral),
    "timing out": lambda: ScriptedChatModel(_all_neutral, latency_s=3.0),
}


async def _reads(
    web: OfflineWeb, question: str, tmp_path: Path, judge: ScriptedChatModel | None
) -> tuple[dict[str, list[str]], list[RunEvent]]:
    events: list[RunEvent] = []
    settings = offline_settings(
        web, tmp_path, model="none", model_timeout_s=0.5, model_max_retries=0
    )
    models: dict[Role, BaseChatModel | None] | None = None if judge is None else {"judge": judge}
    report = await run_research(question, settings, models=models, sinks=[events.append])
    assert report is not None
    reads: dict[str, list[str]] = {}
    for event in events:
        if isinstance(event.data, SourcesRanked):
            reads[event.data.sub_question] = [item.url for item in event.data.chosen]
    return reads, events


@pytest.mark.parametrize("kind", list(JUDGES))
async def test_a_judge_without_usable_scores_reads_what_no_model_reads(
    kind: str,
    offline_web: OfflineWeb,  # noqa: F811
    hotpot_question: str,  # noqa: F811
    tmp_path: Path,
) -> None:
    plain, _ = await _reads(offline_web, hotpot_question, tmp_path / "none", None)
    judge = JUDGES[kind]()
    judged, events = await _reads(offline_web, hotpot_question, tmp_path / "judge", judge)
    assert judge.calls, "the judge was never asked"
    assert judged == plain
    assert sum(len(urls) for urls in plain.values()) > 2 * len(plain)  # more than the minimum
    unusable = [e.data for e in events if isinstance(e.data, JudgeUnusableWarning)]
    assert {data.sub_question for data in unusable} == set(plain)
