"""The employer recipe as a service job (``recipe: "employer"``): over real pages about
Google from ../shared/data, with the employer's scripted model."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from deepresearch.testing.employer import company_documents, employer_script
from deepresearch.testing.scripted import ScriptedChatModel
from deepresearch.testing.web import OfflineWeb

from .conftest import SHARED_DATA
from .helpers import read_sse, running_service, service_settings

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
