"""Evaluations through the HTTP API, on SQLite and PostgreSQL: ``evaluate`` and ``council``
as job options, ``POST /v1/research/{id}/eval`` on a finished job, and the evaluation in the
job's view and in its report (JSON, markdown, HTML). Only the model's words are scripted."""

from __future__ import annotations

from pathlib import Path

from deepresearch.testing.web import OfflineWeb

from ..export.reading import docx_tables, docx_text
from .helpers import running_service, service_settings

DIMENSIONS = ["comprehensiveness", "insight", "instruction_following", "readability"]


def test_evaluate_a_finished_job_and_read_it_back(
    service_web: OfflineWeb, questions: list[str], database_url: str, tmp_path: Path
) -> None:
    settings = service_settings(service_web, tmp_path, database_url)
    with running_service(settings) as service:
        job = service.submit(questions[0]).json()
        early = service.client.post(f"/v1/research/{job['id']}/eval")
        assert early.status_code in (409, 200)  # 409 unless it already finished
        done = service.wait_for(job["id"], "COMPLETED")
        assert done["evaluation"] is None and done["links"]["eval"].endswith("/eval")
        assert service.client.get(done["links"]["report"]).json()["evaluation"] is None

        response = service.client.post(done["links"]["eval"])
        assert response.status_code == 200, response.text
        result = response.json()
        assert result["run_id"] == job["id"]
        assert 0 <= result["citation_precision"] <= 1 and result["cited_sentences"] > 0
        assert result["citation_recall"] is not None and result["coverage"] is not None
        assert [s["dimension"] for s in result["scores"]] == DIMENSIONS
        assert all(s["reason"] for s in result["scores"])

        view = service.job(job["id"])
        assert view["evaluation"]["citation_precision"] == result["citation_precision"]
        report = service.client.get(f"/v1/research/{job['id']}/report").json()
        assert report["evaluation"]["overall"] == result["overall"]
        markdown = service.client.get(f"/v1/research/{job['id']}/report?format=md").text
        assert "## Evaluation" in markdown and "| Readability |" in markdown
        page = service.client.get(f"/v1/research/{job['id']}/report?format=html").text
        assert '<section class="evaluation">' in page
        word = service.client.get(f"/v1/research/{job['id']}/report?format=docx").content
        assert "Evaluation" in docx_text(word)
        assert docx_tables(word)[-1][0] == ["dimension", "score", "reason"]

        assert service.client.post("/v1/research/run-nope/eval").status_code == 404


def test_council_and_evaluate_are_job_options(
    service_web: OfflineWeb, questions: list[str], database_url: str, tmp_path: Path
) -> None:
    settings = service_settings(service_web, tmp_path, database_url)
    with running_service(settings) as service:
        bad = service.submit(questions[0], options={"evaluate": "sometimes"})
        assert bad.status_code == 422
        job = service.submit(questions[0], options={"council": True, "evaluate": True}).json()
        done = service.wait_for(job["id"], "COMPLETED")
        assert done["options"] == {"council": True, "evaluate": True}
        assert done["evaluation"] is not None  # made by the run itself
        assert [s["dimension"] for s in done["evaluation"]["scores"]] == DIMENSIONS
        events = service.client.get(f"/v1/research/{job['id']}/events").text
        assert "event: council_decided" in events and "event: eval_completed" in events
        usage = service.client.get(f"/v1/research/{job['id']}/report").json()["usage"]
        # three proposals (the scores of identical plans may come from the reply cache)
        assert usage["by_stage"]["council"]["calls"] >= 3
        assert usage["by_stage"]["evaluate"]["calls"] == 1
