"""The curl examples in docs/service.md run as written against a real service (only the
address and the job id are substituted)."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from deepresearch.testing.web import OfflineWeb

from ..export.reading import pdf_text
from .helpers import read_sse, running_service, service_settings

DOC = Path(__file__).resolve().parents[2] / "docs" / "service.md"
EXAMPLE_ID = "run-8c2e41f0a7d3"


def curl_commands(*, steering: str | None = None) -> list[str]:
    """The curl commands of the first example, or of "Steering a job"'s example that
    submits with the option ``steering`` (``review_plan``, ``review_findings``)."""
    blocks = re.findall(r"```bash\n(.*?)```", DOC.read_text(), re.S)
    text = "\n".join(
        block
        for block in blocks
        if "curl" in block
        and ("/input" in block) == (steering is not None)
        and (steering is None or f'"{steering}"' in block)
    )
    return [
        " ".join(cmd.split())
        for cmd in re.split(r"\n(?=curl )", text.replace("\\\n", " "))
        if cmd.strip()
    ]


@pytest.mark.skipif(shutil.which("curl") is None, reason="curl is not installed")
def test_service_doc_curl_examples_run(service_web: OfflineWeb, tmp_path: Path) -> None:
    commands = curl_commands()
    assert len(commands) == 4
    settings = service_settings(service_web, tmp_path, f"sqlite:///{tmp_path / 's.db'}")
    with running_service(settings) as service:
        netloc = service.url.removeprefix("http://")
        outputs = []
        job_id = EXAMPLE_ID
        for command in commands:
            command = command.replace("localhost:8000", netloc).replace(EXAMPLE_ID, job_id)
            done = subprocess.run(
                command, shell=True, capture_output=True, text=True, timeout=120, check=True
            )
            outputs.append(done.stdout)
            if job_id == EXAMPLE_ID:
                job_id = json.loads(done.stdout)["id"]
        assert json.loads(outputs[0])["status"] == "QUEUED"
        assert "event: run_completed" in outputs[1]
        assert outputs[2].startswith("# ")
        # curl -OJ saved the PDF under the name the service gave it
        title = outputs[2].splitlines()[0].removeprefix("# ").replace("\\", "")
        assert title in pdf_text(tmp_path / f"{job_id}.pdf")


@pytest.mark.skipif(shutil.which("curl") is None, reason="curl is not installed")
def test_service_doc_steering_examples_run(service_web: OfflineWeb, tmp_path: Path) -> None:
    """Submit with review_plan, read the waiting job, answer with an edited plan: the job
    researches the edited sub-questions."""
    commands = curl_commands(steering="review_plan")
    assert len(commands) == 3
    settings = service_settings(service_web, tmp_path, f"sqlite:///{tmp_path / 's.db'}")
    with running_service(settings) as service:
        netloc = service.url.removeprefix("http://")
        outputs = []
        job_id = EXAMPLE_ID
        for command in commands:
            command = command.replace("localhost:8000", netloc).replace(EXAMPLE_ID, job_id)
            done = subprocess.run(
                command, shell=True, capture_output=True, text=True, timeout=120, check=True
            )
            outputs.append(done.stdout)
            if job_id == EXAMPLE_ID:
                job_id = json.loads(done.stdout)["id"]
                service.wait_for(job_id, "AWAITING_INPUT")
        assert json.loads(outputs[1])["input_request"]["kind"] == "plan"
        assert json.loads(outputs[2])["status"] == "QUEUED"
        service.wait_for(job_id, "COMPLETED")
        events = [m.json() for m in read_sse(service.client, f"/v1/research/{job_id}/events")]
        wave = next(e for e in events if e.get("type") == "wave_started")
        assert [unit["text"] for unit in wave["data"]["units"]] == [
            "What does yield do?",
            "When does a generator stop?",
        ]


@pytest.mark.skipif(shutil.which("curl") is None, reason="curl is not installed")
def test_service_doc_findings_review_example_runs(pydoc_web: OfflineWeb, tmp_path: Path) -> None:
    """Submit with review_findings, read the waiting job and its findings, answer with a
    gap: the job researches the gap in one more wave and completes (over the Python docs:
    the example asks about Python)."""
    commands = curl_commands(steering="review_findings")
    assert len(commands) == 3
    settings = service_settings(pydoc_web, tmp_path, f"sqlite:///{tmp_path / 's.db'}")
    with running_service(settings) as service:
        netloc = service.url.removeprefix("http://")
        outputs = []
        job_id = EXAMPLE_ID
        for command in commands:
            command = command.replace("localhost:8000", netloc).replace(EXAMPLE_ID, job_id)
            done = subprocess.run(
                command, shell=True, capture_output=True, text=True, timeout=120, check=True
            )
            outputs.append(done.stdout)
            if job_id == EXAMPLE_ID:
                job_id = json.loads(done.stdout)["id"]
                service.wait_for(job_id, "AWAITING_INPUT")
        asked = json.loads(outputs[1])["input_request"]
        assert asked["kind"] == "findings" and asked["findings"]
        assert json.loads(outputs[2])["status"] == "QUEUED"
        service.wait_for(job_id, "COMPLETED")
        events = [m.json() for m in read_sse(service.client, f"/v1/research/{job_id}/events")]
        types = [e.get("type") for e in events]
        after = events[types.index("input_received") :]
        waves = [e for e in after if e.get("type") == "wave_started"]
        assert [[u["text"] for u in e["data"]["units"]] for e in waves] == [
            ["When does a generator stop?"]
        ]
