"""The council and the no-search answer from the command line, against an OpenAI-compatible
server on loopback: ``--council-models`` members are real provider models (each asked by
name), the run's usage counts their calls, ``--eval`` evaluates the report, and ``--search
none`` with a model writes an answer labelled as not researched."""

from __future__ import annotations

import json
from pathlib import Path

from deepresearch.recipes.research.stages import council, council_review, plan

from .chat_server import SECRET, ChatServer
from .conftest import cli, offline_args


def test_council_models_plan_the_run_and_eval_scores_it(
    web_process: str, chat_server: ChatServer, tmp_path: Path
) -> None:
    base_url = f"http://127.0.0.1:{chat_server.server_address[1]}/v1"
    out = tmp_path / "r.json"
    done = cli(
        "run",
        "If Gallu is a demon Lilu is what?",
        *("--model", "openai:local-model", "--model-base-url", base_url),
        *("--council-models", "openai:member-a,openai:member-b", "--eval"),
        *offline_args(web_process, "--depth", "quick", "--min-domains", "1", "--json-events"),
        *("--format", "json", "--out", str(out)),
        env={"DEEPRESEARCH_MODEL_API_KEY": SECRET, "DEEPRESEARCH_DATA_DIR": str(tmp_path / "d")},
    )
    assert done.returncode == 0, done.stderr
    events = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    (decided,) = [e for e in events if e["type"] == "council_decided"]
    members = [p["member"] for p in decided["data"]["proposals"]]
    assert members == ["openai:member-a", "openai:member-b"]
    assert decided["data"]["decision"] in ("best", "merged")
    planned = [m for line, m in chat_server.model_names if line == plan.SYSTEM.splitlines()[0]]
    assert sorted(planned) == ["member-a", "member-b"]  # the planner itself did not plan
    judged = [
        m for line, m in chat_server.model_names if line.startswith(council.JUDGE_SYSTEM[:30])
    ]
    assert judged and set(judged) == {"local-model"}
    # then each member votes on the plan (the scripted members approve: no revision)
    voted = [
        m for line, m in chat_server.model_names if line.startswith(council_review.VOTE_SYSTEM[:30])
    ]
    assert sorted(voted) == ["member-a", "member-b"]
    (reviewed,) = [e for e in events if e["type"] == "council_reviewed"]
    assert reviewed["data"]["outcome"] == "approved"

    report = json.loads(out.read_text())
    council_calls = len(planned) + len(judged) + len(voted)
    assert report["usage"]["by_stage"]["council"]["calls"] == council_calls
    assert report["evaluation"]["citation_precision"] is not None
    assert len(report["evaluation"]["scores"]) == 4
    assert SECRET not in done.stdout + done.stderr + out.read_text()


def test_a_council_of_one_holds_no_vote_and_says_so(
    web_process: str, chat_server: ChatServer, tmp_path: Path
) -> None:
    base_url = f"http://127.0.0.1:{chat_server.server_address[1]}/v1"
    done = cli(
        "run",
        "If Gallu is a demon Lilu is what?",
        *("--model", "openai:local-model", "--model-base-url", base_url),
        *("--council-models", "openai:member-a"),
        *offline_args(web_process, "--depth", "quick", "--min-domains", "1", "--json-events"),
        env={"DEEPRESEARCH_MODEL_API_KEY": SECRET, "DEEPRESEARCH_DATA_DIR": str(tmp_path / "d")},
    )
    assert done.returncode == 0, done.stderr
    events = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    # one member: the plan stands as the council decided it, no vote is asked for
    (reviewed,) = [e for e in events if e["type"] == "council_reviewed"]
    assert reviewed["data"]["outcome"] == "no_vote" and reviewed["data"]["consensus"] is None
    assert reviewed["data"]["note"] == "1 member(s): a vote needs 2; the plan stands"
    assert "no vote" in reviewed["message"]
    assert not [e for e in events if e["type"] in ("council_voted", "council_revised")]
    assert not [
        line
        for line, _ in chat_server.model_names
        if line.startswith(council_review.VOTE_SYSTEM[:30])
    ]


def test_no_search_answer_is_labelled(chat_server: ChatServer, tmp_path: Path) -> None:
    base_url = f"http://127.0.0.1:{chat_server.server_address[1]}/v1"
    out = tmp_path / "r.html"
    done = cli(
        "run",
        "Why did the Western Roman Empire fall?",
        *("--model", "openai:local-model", "--model-base-url", base_url, "--search", "none"),
        *("--format", "html", "--out", str(out)),
        env={"DEEPRESEARCH_MODEL_API_KEY": SECRET, "DEEPRESEARCH_DATA_DIR": str(tmp_path / "d")},
    )
    assert done.returncode == 0, done.stderr
    assert "not researched: no sources were searched" in out.read_text()
    assert "unresearched report written" in done.stderr
