"""A run made through a provider's wire format (an OpenAI-compatible server on loopback, as
vLLM, llama.cpp and LM Studio serve) replays byte for byte: the replay sizes its work by the
recorded endpoints' limits (one call at a time for a user's own server), so the audit asks
the judge the recorded prompts, batched as they were."""

from __future__ import annotations

from pathlib import Path

import pytest

from deepresearch.cli.common import EXIT_ABORT, EXIT_OK

from .chat_server import SECRET, ChatServer
from .conftest import cli, offline_args

QUESTION = "If Gallu is a demon Lilu is what?"


@pytest.mark.parametrize(
    "extra",
    [(), ("--audit", "off"), ("--max-tokens", "1400")],
    ids=["plain", "no-audit", "token-budget"],
)
def test_a_run_through_an_openai_compatible_server_replays(
    web_process: str, chat_server: ChatServer, tmp_path: Path, extra: tuple[str, ...]
) -> None:
    base_url = f"http://127.0.0.1:{chat_server.server_address[1]}/v1"
    env = {"DEEPRESEARCH_DATA_DIR": str(tmp_path / "data"), "DEEPRESEARCH_MODEL_API_KEY": SECRET}
    out = tmp_path / "report.json"
    done = cli(
        "run",
        QUESTION,
        *offline_args(web_process),
        *("--model", "openai:local-model", "--model-base-url", base_url),
        *("--format", "json", "--out", str(out), "--run-id", "served", *extra),
        env=env,
    )
    # a budget this small ends the run at its planner call, before any page is read: an
    # honest abort (exit 3). It must end at a point of the run that happens in one order
    # (2,500 ended it at the sub-questions' ranking calls, running at once: one of them
    # could start its page reads before the other's refusal stopped the run)
    assert done.returncode == (EXIT_ABORT if "--max-tokens" in extra else EXIT_OK), done.stderr
    calls = chat_server.completed
    again = cli("replay", "served", "--format", "json", env=env)
    assert again.returncode == EXIT_OK, again.stderr
    assert again.stdout == out.read_text(encoding="utf-8")
    assert chat_server.completed == calls  # the replay asked the server nothing
    folder = tmp_path / "data" / "recordings" / "served"
    assert not any(SECRET in item.read_text() for item in folder.iterdir())
