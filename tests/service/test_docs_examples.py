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
from .helpers import running_service, service_settings

DOC = Path(__file__).resolve().parents[2] / "docs" / "service.md"
EXAMPLE_ID = "run-8c2e41f0a7d3"


def curl_commands() -> list[str]:
    blocks = re.findall(r"```bash\n(.*?)```", DOC.read_text(), re.S)
    text = "\n".join(block for block in blocks if "curl" in block)
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
