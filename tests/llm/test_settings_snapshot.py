"""What a recording keeps of the run's settings: no key, and no credentials inside a URL
(a recording is made to be shared)."""

from __future__ import annotations

from pathlib import Path

from deepresearch.llm.redact import REDACTED
from deepresearch.replay.tape import settings_snapshot
from deepresearch.settings import load_settings


def test_urls_keep_their_host_and_lose_their_credentials(tmp_path: Path) -> None:
    settings = load_settings(
        model="openai:local-model",
        model_base_url="http://alice:s3cretpass@127.0.0.1:8080/v1",
        searxng_url="http://127.0.0.1:8888",
        model_api_key="sk-test-0123456789abcdef",
        data_dir=tmp_path,
    )
    snapshot = settings_snapshot(settings)
    assert snapshot["model_base_url"] == f"http://{REDACTED}@127.0.0.1:8080/v1"
    assert snapshot["searxng_url"] == "http://127.0.0.1:8888"
    text = repr(snapshot)
    assert "s3cretpass" not in text and "alice" not in text
    assert "sk-test-0123456789abcdef" not in text
    assert "data_dir" not in snapshot  # where this machine keeps things is not recorded
