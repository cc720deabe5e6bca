"""The employer recipe as a service job (``recipe: "employer"``): over real pages about
Google from ../shared/data, with the employer's scripted model."""

from __future__ import annotations

import json
import os
import signal
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from deepresearch.recipes.employer import classify, judge, synthesize
from deepresearch.testing.employer import company_documents, employer_script
from deepresearch.testing.scripted import ScriptedChatModel
from deepresearch.testing.web import OfflineWeb

from ..cli.chat_server import ChatServer
from ..recipes.chat import employer_chat_server  # noqa: F401 (fixture)
from ..recipes.conftest import google_documents, google_web_process  # noqa: F401 (fixtures)
from .conftest import SHARED_DATA
from .helpers import read_sse, running_service, service_settings
from .test_crash import check_stored_once, serve, wait_for_status, wait_until

POSTING = Path(__file__).resolve().parents[2] / "docs" / "examples" / "google-stadia-engineer.txt"


@pytest.fixture(scope="module")
def google_web() -> Iterator[OfflineWeb]:
    if not SHARED_DATA.is_dir():
        pytest.skip(f"shared data folder not found at {SHARED_DATA}")
    with OfflineWeb(company_documents(SHARED_DATA, "Google")) as web:
        yield web


def test_an_employer_job_builds_a_verified_profile(
    google_web: OfflineWeb, database_url: str, tmp_path: Path
) -> None:
    settings = service_settings(google_web, tmp_path, database_url, page_cache_ttl_s=0)
    model = ScriptedChatModel(employer_script())
    with running_service(settings, model=model) as service:
        created = service.submit(
            "Google",
            recipe="employer",
            options={"job_description": POSTING.read_text(), "role": "Software Engineer"},
        )
        assert created.status_code == 201, created.text
        job_id = created.json()["id"]
        events = read_sse(service.client, f"/v1/research/{job_id}/events")
        types = [m.event for m in events if m.id]
        assert types[-1] == "run_completed"
        assert {"phase", "route_decided"} <= set(types)
        job = service.job(job_id)
        assert job["status"] == "COMPLETED" and job["recipe"] == "employer"

        result = service.client.get(f"/v1/research/{job_id}/report").json()
        assert result["recipe"] == "employer" and result["outcome"] == "profile"
        # an employer profile is not a research report: there is nothing to evaluate
        refused = service.client.post(f"/v1/research/{job_id}/eval")
        assert refused.status_code == 422 and "only research reports" in refused.json()["detail"]
        evidence = {item["id"] for item in result["evidence"]}
        assert result["profile"]["tech_stack"]
        for item in result["profile"]["tech_stack"]:
            assert item["inferred"] or set(item["evidence"]) <= evidence
        assert job["counts"]["evidence"] == len(result["evidence"])
        markdown = service.client.get(f"/v1/research/{job_id}/report?format=md").text
        assert "Google" in markdown
        html = service.client.get(f"/v1/research/{job_id}/report?format=html").text
        assert "<html" in html


def test_employer_options_belong_to_the_employer_recipe(
    google_web: OfflineWeb, tmp_path: Path
) -> None:
    settings = service_settings(google_web, tmp_path, f"sqlite:///{tmp_path / 's.db'}")
    with running_service(settings) as service:
        refused = service.submit("How do generators work?", options={"role": "Engineer"})
        assert refused.status_code == 422
        assert "only for recipe 'employer'" in refused.json()["detail"]
        unknown = service.submit("Google", recipe="cooking")
        assert unknown.status_code == 422
        bad = service.submit("Google", recipe="employer", options={"max_queries": 9})
        assert bad.status_code == 422 and "max_queries" in bad.json()["detail"]
        listed = service.client.get("/v1/recipes").json()["recipes"]
        assert [(r["name"], r["default"]) for r in listed] == [
            ("research", True),
            ("employer", False),
        ]
        assert set(listed[1]["options"]["properties"]) == {
            "role", "job_description", "max_queries", "max_result_chars", "sources_per_query",
        }  # fmt: skip


JUDGE = judge.SYSTEM.splitlines()[0]


@pytest.mark.slow
def test_an_employer_job_killed_mid_run_resumes_from_its_checkpoint(
    google_web_process: str,  # noqa: F811
    employer_chat_server: ChatServer,  # noqa: F811
    database_url: str,
    tmp_path: Path,
) -> None:
    employer_chat_server.hold = {JUDGE: 60}  # the judge's reply never comes before the kill
    data_dir = tmp_path / "data"
    body = {
        "question": "Google",
        "recipe": "employer",
        "options": {"job_description": POSTING.read_text()},
    }
    # a lease long enough that a loaded machine does not hand the job over a second time
    serving = {"lease_s": 6}
    with serve(google_web_process, employer_chat_server, database_url, data_dir, **serving) as (
        proc,
        url,
    ):
        job_id = httpx.post(f"{url}/v1/research", json=body).json()["id"]
        wait_until(lambda: JUDGE in employer_chat_server.prompts)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)

    employer_chat_server.hold = {}
    with serve(google_web_process, employer_chat_server, database_url, data_dir, **serving) as (
        _,
        url,
    ):
        job = wait_for_status(url, job_id, "COMPLETED", "FAILED")
        assert job["status"] == "COMPLETED", job
        assert job["attempts"] == 2 and job["recipe"] == "employer"
        result = httpx.get(f"{url}/v1/research/{job_id}/report").json()
        client = httpx.Client(base_url=url, timeout=30)
        events = read_sse(client, f"/v1/research/{job_id}/events")
        client.close()
    # Phase 1 and 2's calls were in the checkpoint; only the judge's unfinished call again
    assert employer_chat_server.prompts == [
        classify.SYSTEM.splitlines()[0],
        synthesize.SYSTEM.splitlines()[0],
        JUDGE,
        JUDGE,
    ]
    stored = [json.loads(m.data) for m in events if m.id]
    types = [event["type"] for event in stored]
    assert types.count("run_started") == 1 and types.count("run_resumed") == 1
    assert types[-1] == "run_completed"
    after = stored[types.index("run_resumed") :]
    assert after[0]["data"]["next"] == ["research_reranker"]
    # nothing before the checkpoint ran again: no search, no fetch, no Phase 1 or 2 event
    assert not [e for e in after if e["stage"] in ("connecting", "deep_research")]
    assert not [e for e in after if e["type"] in ("source_fetched", "search_completed")]
    assert result["outcome"] == "profile" and result["reranker"]["evaluated_by"] == "judge"
    assert result["usage"]["calls"] == 3
    check_stored_once(database_url, job_id, result)
