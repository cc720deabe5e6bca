"""A full CLI run against an OpenAI-compatible server on loopback (the wire format vLLM,
llama.cpp and LM Studio speak), whose replies come from the research script. The key sent
to the server never shows up in events, logs or the report."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from .chat_server import SECRET, ChatServer
from .conftest import cli, offline_args


def _run(web: str, server: ChatServer, out: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    base_url = f"http://127.0.0.1:{server.server_address[1]}/v1"
    return cli(
        "run",
        "If Gallu is a demon Lilu is what?",
        *("--model", "openai:local-model", "--model-base-url", base_url),
        *offline_args(web, "--depth", "quick", "--min-domains", "1", "--json-events"),
        *extra,
        *("--out", str(out)),
        env={"DEEPRESEARCH_MODEL_API_KEY": SECRET},
    )


def test_run_with_an_openai_compatible_server(
    web_process: str, chat_server: ChatServer, tmp_path: Path
) -> None:
    out = tmp_path / "r.json"
    done = _run(web_process, chat_server, out, "--format", "json")
    assert done.returncode == 0, done.stderr
    report = json.loads(out.read_text())
    assert report["kind"] == "synthesized"
    assert report["usage"]["calls"] >= 4
    assert (
        report["usage"]["input_tokens"] == 100 * report["usage"]["calls"]
    )  # reported, not estimated
    assert chat_server.authorizations and all(
        a == f"Bearer {SECRET}" for a in chat_server.authorizations
    )
    for text in (done.stdout, done.stderr, out.read_text()):
        assert SECRET not in text


def test_refused_key_falls_back_and_never_leaks(
    web_process: str, chat_server: ChatServer, tmp_path: Path
) -> None:
    chat_server.refuse = True
    out = tmp_path / "r.md"
    done = _run(web_process, chat_server, out)
    assert done.returncode == 0, done.stderr
    text = out.read_text()
    assert "Extractive report" in text  # every step fell back
    assert "refused the API key" in text  # and the report says why
    assert len(chat_server.authorizations) == 1  # a refused key is not tried again
    for output in (done.stdout, done.stderr, text):
        assert SECRET not in output
