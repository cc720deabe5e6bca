"""The ``deepresearch run`` command as a user runs it: real processes, real HTTP on
loopback, ``--model none``."""

from __future__ import annotations

import json
from pathlib import Path

import httpx

from deepresearch.core.verify import verify_quote
from deepresearch.fetch.base import FetchedPage
from deepresearch.fetch.extract import extract

from .conftest import cli, offline_args

QUESTION = "If Gallu is a demon Lilu is what?"


def _page_text(url: str) -> str:
    response = httpx.get(url)
    page = FetchedPage(
        url=url,
        final_url=url,
        status=response.status_code,
        content_type=response.headers.get("content-type", ""),
        content=response.content,
    )
    return extract(page, max_chars=100_000).text


def test_run_against_offline_web_writes_a_verified_json_report(
    web_process: str, tmp_path: Path
) -> None:
    out = tmp_path / "r.json"
    done = cli(
        "run",
        QUESTION,
        *offline_args(web_process),
        "--model",
        "none",
        "--format",
        "json",
        "--out",
        str(out),
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(out.read_text())
    assert report["kind"] == "extractive"
    sentences = report["summary"] + [
        s for sec in report["sections"] for p in sec["paragraphs"] for s in p["sentences"]
    ]
    assert sentences and all(s["citations"] for s in sentences)
    assert report["markdown"].startswith(f"# {QUESTION}")
    assert report["sources"] and all(s["url"] and s["title"] for s in report["sources"])
    assert report["evidence"]
    for item in report["evidence"]:
        assert item["source_url"].startswith(web_process)
        page = _page_text(item["source_url"])
        check = verify_quote(item["quote"], page)
        assert check.status == "PASS", item["quote"]


def test_fetcher_refuses_loopback_without_allow_host(web_process: str, tmp_path: Path) -> None:
    done = cli(
        "run",
        QUESTION,
        "--search",
        "searxng",
        "--searxng-url",
        web_process,
        "--model",
        "none",
        "--out",
        str(tmp_path / "r.md"),
    )
    # search works (the adapter is configured explicitly), but no page may be fetched,
    # so nothing can be verified: an honest abort, exit code 3
    assert done.returncode == 3, done.stderr
    assert "Unable to research" in (tmp_path / "r.md").read_text()


def test_json_events_are_ndjson_on_stdout(web_process: str, tmp_path: Path) -> None:
    done = cli(
        "run",
        QUESTION,
        *offline_args(web_process),
        "--model",
        "none",
        "--json-events",
        "--out",
        str(tmp_path / "r.md"),
    )
    assert done.returncode == 0, done.stderr
    events = [json.loads(line) for line in done.stdout.splitlines()]
    types = [event["type"] for event in events]
    assert types[0] == "run_started" and types[-1] == "run_completed"
    assert {
        "plan_ready",
        "search_completed",
        "source_fetched",
        "gate_evaluated",
        "report_ready",
    } <= set(types)


def test_stop_and_resume_from_the_command_line(web_process: str, tmp_path: Path) -> None:
    env = {"DEEPRESEARCH_DATA_DIR": str(tmp_path / "data")}
    first = cli(
        "run",
        QUESTION,
        *offline_args(web_process),
        "--model",
        "none",
        "--run-id",
        "run-cli",
        "--stop-after",
        "research",
        "--json-events",
        env=env,
    )
    assert first.returncode == 0, first.stderr
    assert "resume with: deepresearch run --resume run-cli" in first.stderr
    fetched_first = [json.loads(x) for x in first.stdout.splitlines() if '"source_fetched"' in x]
    assert fetched_first
    # resuming needs no flags: the run remembers its options
    second = cli(
        "run", "--resume", "run-cli", "--json-events", "--out", str(tmp_path / "r.md"), env=env
    )
    assert second.returncode == 0, second.stderr
    events = [json.loads(line) for line in second.stdout.splitlines()]
    assert events[0]["type"] == "run_resumed"
    refetched = {e["data"]["url"] for e in events if e["type"] == "source_fetched"}
    assert refetched.isdisjoint({e["data"]["url"] for e in fetched_first})
    shown = cli("report", "run-cli", "--format", "md", env=env)
    assert shown.returncode == 0 and shown.stdout.startswith("# ")
