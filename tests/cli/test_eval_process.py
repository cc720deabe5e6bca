"""``deepresearch eval`` scores the research process too (seed 004): without a model the
figures (source diversity, queries per sub-question, retry share), with a judge (scripted
replies over a loopback OpenAI-compatible server) its search strategy and source diversity
scores and the seed's 60/40 composite of report and process quality."""

from __future__ import annotations

import json
from pathlib import Path

from deepresearch.models import Source
from tests.core.hand_checked import SUB_QUESTIONS, hand_checked_state

from .chat_server import SECRET, ChatServer
from .conftest import cli
from .test_eval_command import _store

RUN = "run-process"
PAGES = [
    ("https://www.toureiffel.paris/en/monument", "toureiffel.paris"),
    ("https://www.toureiffel.paris/en/history", "toureiffel.paris"),
    ("https://en.wikipedia.org/wiki/Eiffel_Tower", "en.wikipedia.org"),
    ("https://www.britannica.com/topic/Eiffel-Tower", "britannica.com"),
]


def _process_state() -> dict[str, object]:
    """The hand-checked run, researched: three sub-questions, the third searched again,
    and four pages from three sites read."""
    asked = [
        sq.model_copy(update={"attempts": n, "queries": [f"{sq.text} {i}" for i in range(2)]})
        for sq, n in zip(SUB_QUESTIONS, (1, 1, 2), strict=True)
    ]
    sources = {
        f"s{i}": Source(id=f"s{i}", url=url, domain=domain, text="Text.")
        for i, (url, domain) in enumerate(PAGES)
    }
    return {**hand_checked_state(RUN), "sub_questions": asked, "sources": sources}


def test_model_free_process_figures(tmp_path: Path) -> None:
    env = {"DEEPRESEARCH_DATA_DIR": str(tmp_path / "data")}
    _store(tmp_path / "data", _process_state(), RUN)
    done = cli("eval", RUN, "--judge-model", "none", "--format", "json", env=env)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert (result["sources_read"], result["distinct_domains"]) == (4, 3)
    assert result["source_diversity"] == 0.75
    assert (result["researched"], result["retried"], result["retry_share"]) == (3, 1, 0.3333)
    assert result["queries_per_sub_question"] == 2.0
    assert result["process_scores"] == [] and result["composite"] is None

    text = cli("eval", RUN, "--judge-model", "none", env=env).stdout
    assert "Source diversity 75%: 3 distinct domains among 4 sources read." in text
    assert "Search: 2 queries per sub-question; 1 of 3 sub-questions searched again" in text


def test_the_judge_scores_the_process_and_the_composite_is_60_40(
    tmp_path: Path, chat_server: ChatServer
) -> None:
    env = {"DEEPRESEARCH_DATA_DIR": str(tmp_path / "data"), "DEEPRESEARCH_MODEL_API_KEY": SECRET}
    _store(tmp_path / "data", _process_state(), RUN)
    base_url = f"http://127.0.0.1:{chat_server.server_address[1]}/v1"
    judge = ("--judge-model", "openai:judge-model", "--model-base-url", base_url)
    done = cli("eval", RUN, *judge, "--format", "json", env=env)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    (asked,) = chat_server.prompts  # one call: the report and the process judged together
    assert asked.startswith("You evaluate a research report")
    process = {s["dimension"]: s["score"] for s in result["process_scores"]}
    assert set(process) == {"search_strategy", "source_diversity"}
    # the scripted judge read the process block: 2 + queries per sub-question, 2 + sites
    assert process == {"search_strategy": 4.0, "source_diversity": 5.0}
    assert result["process_overall"] == 4.5
    expected = round(0.6 * result["overall"] + 0.4 * result["process_overall"], 2)
    assert result["composite"] == expected

    shown = cli("report", RUN, env=env).stdout
    assert "composite" in shown and "(60% report, 40% process)" in shown
    assert "| Search strategy (process) |" in shown
