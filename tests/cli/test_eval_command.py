"""``deepresearch eval RUN_ID`` on a stored run whose report was checked by hand
(``tests/core/hand_checked.py``): the figures are the hand-counted ones, the judge's RACE
scores come from an OpenAI-compatible server on loopback, and the evaluation is stored with
the run, so ``deepresearch report`` shows it."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from deepresearch.checkpoints import open_checkpointer
from deepresearch.recipes.registry import checkpoint_types
from deepresearch.recipes.research.graph import build_graph
from deepresearch.settings import load_settings
from tests.core.hand_checked import COVERAGE, PRECISION, RECALL, hand_checked_state

from .chat_server import SECRET, ChatServer
from .conftest import cli

RUN = "run-hand-checked"


def _store(data_dir: Path, values: dict[str, object], run_id: str = RUN) -> None:
    """A finished research run in the checkpoint store, as the runner leaves one."""

    async def store() -> None:
        settings = load_settings(data_dir=data_dir)
        async with open_checkpointer(settings, checkpoint_types()) as saver:
            config = {"configurable": {"thread_id": run_id}}
            graph = build_graph(saver)
            await graph.aupdate_state(config, values, as_node="evaluate")  # type: ignore[arg-type]
            assert not (await graph.aget_state(config)).next  # finished

    asyncio.run(store())


def test_eval_figures_on_a_hand_checked_report(tmp_path: Path) -> None:
    env = {"DEEPRESEARCH_DATA_DIR": str(tmp_path / "data")}
    _store(tmp_path / "data", hand_checked_state(RUN))
    done = cli("eval", RUN, "--judge-model", "none", "--format", "json", env=env)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["citation_precision"] == PRECISION
    assert result["citation_recall"] == RECALL
    assert result["coverage"] == COVERAGE
    assert (result["cited_sentences"], result["supported_cited"]) == (5, 4)
    assert (result["factual_sentences"], result["factual_supported"]) == (6, 4)
    assert result["uncovered"] == ["q3"]
    assert result["scores"] == [] and "no judge model" in result["judge_note"]

    text = cli("eval", RUN, "--judge-model", "none", env=env)
    assert text.returncode == 0, text.stderr
    assert "Citation precision 80%: 4 of 5 cited sentences" in text.stdout
    assert "Citation recall 67%: 4 of 6 factual sentences" in text.stdout
    assert "Sub-question coverage 67%: 2 of 3 planned sub-questions" in text.stdout
    assert "Judge scores skipped: no judge model" in text.stdout


def test_eval_with_a_judge_is_stored_with_the_run(tmp_path: Path, chat_server: ChatServer) -> None:
    env = {"DEEPRESEARCH_DATA_DIR": str(tmp_path / "data"), "DEEPRESEARCH_MODEL_API_KEY": SECRET}
    _store(tmp_path / "data", hand_checked_state(RUN))
    base_url = f"http://127.0.0.1:{chat_server.server_address[1]}/v1"
    done = cli(
        "eval", RUN, "--judge-model", "openai:judge-model", "--model-base-url", base_url, env=env
    )
    assert done.returncode == 0, done.stderr
    assert "Citation precision 80%" in done.stdout
    for name in ("Comprehensiveness", "Insight", "Instruction following", "Readability"):
        assert f"    {name}: " in done.stdout
    assert "Judge (openai:judge-model), DeepResearch Bench's RACE dimensions" in done.stdout
    (asked,) = chat_server.prompts  # one call: the judge's
    assert asked.startswith("You evaluate a research report")
    assert SECRET not in done.stdout + done.stderr

    shown = cli("report", RUN, env=env)
    assert shown.returncode == 0, shown.stderr
    assert "## Evaluation" in shown.stdout and "Citation precision 80%" in shown.stdout
    assert "| Readability |" in shown.stdout
    as_json = json.loads(cli("report", RUN, "--format", "json", env=env).stdout)
    assert as_json["evaluation"]["citation_precision"] == PRECISION
    assert len(as_json["evaluation"]["scores"]) == 4


def test_eval_refuses_what_it_cannot_evaluate(tmp_path: Path) -> None:
    env = {"DEEPRESEARCH_DATA_DIR": str(tmp_path / "data")}
    _store(tmp_path / "data", hand_checked_state(RUN))
    unknown = cli("eval", "run-nope", "--judge-model", "none", env=env)
    assert unknown.returncode == 2 and "no run 'run-nope'" in unknown.stderr
    bad = cli("eval", "../etc", env=env)
    assert bad.returncode == 2 and "Traceback" not in bad.stderr

    state = hand_checked_state("run-hello")
    report = state["report"].model_copy(update={"kind": "chitchat"})  # type: ignore[attr-defined]
    _store(tmp_path / "data", {**state, "report": report}, "run-hello")
    chat = cli("eval", "run-hello", "--judge-model", "none", env=env)
    assert chat.returncode == 2 and "nothing to evaluate" in chat.stderr


def test_eval_of_no_such_run_says_so_before_asking_for_a_key() -> None:
    """No key for the default judge, and a run id that names nothing: the answer is that
    there is no such run (it said the judge's model needs an API key)."""
    done = cli("eval", "nosuch")
    assert done.returncode == 2
    assert "no run 'nosuch'" in done.stderr and "API key" not in done.stderr
