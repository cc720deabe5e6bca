"""Replaying runs that needed more than their ports (issue 19): a run that paused for a
person is resumed at each pause with the answer its recording holds, and a follow-up reads
the run it follows from its own recording, so both replay byte for byte from a copied
folder in a new data folder, with every network socket refused, no person and no parent.
A recording made before recordings held these is still refused with the clear message."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
import pytest_socket
from langchain_core.messages import BaseMessage

from deepresearch.compose.replay import export_recording, replay_run
from deepresearch.errors import RunError
from deepresearch.export.report_render import to_json, to_markdown
from deepresearch.models import Report, RunEvent
from deepresearch.models.pause import InputRequest
from deepresearch.recipes.registry import get_recipe
from deepresearch.runner import run_recipe, run_research
from deepresearch.settings import Settings
from deepresearch.settings_values import ROLES
from deepresearch.testing.research_script import research_script
from deepresearch.testing.scripted import ScriptedChatModel, scripted_models
from deepresearch.testing.web import OfflineWeb

from .helpers import offline_settings
from .test_pauses import ANSWER, ASKED, clarifying_model

EDIT = {  # for the HotpotQA question the fixtures ask (If Gallu is a demon Lilu is what?)
    "action": "edit",
    "brief": "Gallu and Lilu in Mesopotamian myth.",
    "sub_questions": ["What is a gallu demon?", "What kind of being is a lilu?"],
}


@contextmanager
def no_network() -> Iterator[None]:
    """Every socket refused but the event loop's own (unix) ones."""
    pytest_socket.disable_socket(allow_unix_socket=True)
    try:
        yield
    finally:  # back to the suite's rule: loopback only
        pytest_socket.enable_socket()
        pytest_socket.socket_allow_hosts(["127.0.0.1", "::1", "localhost"], allow_unix_socket=True)


async def _replay_elsewhere(
    settings: Settings, run_id: str, web: OfflineWeb, tmp_path: Path
) -> tuple[Report, Path]:
    """Run ``run_id``'s recording, exported as ``deepresearch record`` does, replayed in a
    new data folder with no network; nothing asked of the offline web meanwhile."""
    folder = export_recording(settings, run_id, tmp_path / f"export-{run_id}")
    asked = len(web.requests)
    with no_network():
        _, replayed = await replay_run(
            offline_settings(web, tmp_path / f"elsewhere-{run_id}"), folder=folder
        )
    assert len(web.requests) == asked
    assert isinstance(replayed, Report)
    return replayed, folder


def _same(replayed: Report, report: Report) -> None:
    assert to_markdown(replayed) == to_markdown(report)
    assert to_json(replayed) == to_json(report)


async def test_a_clarified_and_edited_run_replays_with_both_answers_and_no_person(
    offline_web: OfflineWeb, hotpot_question: str, tmp_path: Path
) -> None:
    """Two pauses in one run (a clarifying question, then the plan to review, edited):
    the replay resumes at each with the recorded answer, in order."""
    model = clarifying_model()
    settings = offline_settings(offline_web, tmp_path, review_plan=True)
    run: dict[str, Any] = {"run_id": "clarified", "models": dict.fromkeys(ROLES, model)}
    asked = await run_research(hotpot_question, settings, **run)
    assert isinstance(asked, InputRequest) and asked.question == ASKED
    review = await run_research(None, settings, resume=True, reply=ANSWER, **run)
    assert isinstance(review, InputRequest) and review.kind == "plan"
    report = await run_research(None, settings, resume=True, reply=EDIT, **run)
    assert isinstance(report, Report) and report.kind == "synthesized"
    calls = len(model.calls)

    replayed, folder = await _replay_elsewhere(settings, "clarified", offline_web, tmp_path)
    _same(replayed, report)
    assert len(model.calls) == calls  # no model call either
    answers = [json.loads(line) for line in (folder / "answers.jsonl").read_text().splitlines()]
    assert [a["kind"] for a in answers] == ["clarification", "plan"]
    assert answers[0]["answer"] == ANSWER and answers[1]["answer"]["action"] == "edit"

    # answers in the other order: the replay stops at the first pause, saying what it lacks
    (folder / "answers.jsonl").write_text(
        "\n".join(json.dumps(a) for a in reversed(answers)) + "\n", encoding="utf-8"
    )
    with no_network(), pytest.raises(RunError, match="no answer to the clarifying question"):
        await replay_run(offline_settings(offline_web, tmp_path / "again"), folder=folder)


async def test_an_edited_plan_without_a_model_replays_byte_for_byte(
    offline_web: OfflineWeb, hotpot_question: str, tmp_path: Path
) -> None:
    settings = offline_settings(offline_web, tmp_path, model="none", review_plan=True)
    request = await run_research(hotpot_question, settings, run_id="reviewed")
    assert isinstance(request, InputRequest) and request.kind == "plan"
    report = await run_research(None, settings, run_id="reviewed", resume=True, reply=EDIT)
    assert isinstance(report, Report)

    replayed, folder = await _replay_elsewhere(settings, "reviewed", offline_web, tmp_path)
    _same(replayed, report)
    # what the replay researched is the edited plan, as the person's edit said
    events: list[RunEvent] = []
    with no_network():
        await replay_run(
            offline_settings(offline_web, tmp_path / "watched"),
            folder=folder,
            sinks=[events.append],
        )
    wave_one = next(e for e in events if e.type == "wave_started")
    assert [u.text for u in wave_one.data.units] == EDIT["sub_questions"]  # type: ignore[union-attr]

    # the recording lost its answer: a clear error naming it, never a guess or a wait
    (folder / "answers.jsonl").unlink()
    with no_network(), pytest.raises(RunError, match="no answer to the plan to review"):
        await replay_run(offline_settings(offline_web, tmp_path / "lost"), folder=folder)


def _topic_model() -> dict[str, Any]:
    """The research script, and the model's verdict that each follow-up continues."""
    base = research_script()

    def reply(messages: list[BaseMessage]) -> str:
        if messages[0].text.startswith("You decide whether a follow-up"):
            return json.dumps({"same_topic": True, "reason": "scripted verdict"})
        return base(messages)

    return scripted_models(reply)


async def test_a_followup_of_a_followup_replays_without_the_runs_it_follows(
    offline_web: OfflineWeb, tmp_path: Path
) -> None:
    """The third turn of a thread, exported alone and replayed where neither earlier turn
    exists: what it reused of its parent (pages, verified evidence, the thread) comes
    from its own recording."""
    settings = offline_settings(offline_web, tmp_path, page_cache_ttl_s=0)
    models = _topic_model()
    recipe = get_recipe("research")
    questions = (
        "How does acid rain form?",
        "Which air pollution causes acid rain?",
        "What does acid rain do to lakes?",
    )
    follows: str | None = None
    for number, question in enumerate(questions, 1):
        options = {"followup_of": follows} if follows else {}
        report = await run_recipe(
            recipe,
            recipe.request(question, options),
            settings,
            run_id=f"turn-{number}",
            models=models,
        )
        follows = f"turn-{number}"
    assert isinstance(report, Report) and report.followup is not None
    assert report.followup.turn == 3 and report.followup.root == "turn-1"
    assert report.followup.reused_evidence > 0
    calls = sum(len(m.calls) for m in models.values() if isinstance(m, ScriptedChatModel))

    replayed, folder = await _replay_elsewhere(settings, "turn-3", offline_web, tmp_path)
    _same(replayed, report)
    assert calls == sum(len(m.calls) for m in models.values() if isinstance(m, ScriptedChatModel))
    assert not (folder.parent / "turn-2").exists()  # the export is the follow-up's alone

    # without what it read of its parent, the replay says so instead of reading a store
    (folder / "parents.jsonl").unlink()
    with no_network(), pytest.raises(RunError, match="no state of run 'turn-2'"):
        await replay_run(offline_settings(offline_web, tmp_path / "lost"), folder=folder)


async def test_recordings_from_before_answers_and_parents_are_refused_clearly(
    offline_web: OfflineWeb, hotpot_question: str, tmp_path: Path
) -> None:
    """A recording made by the version that kept neither (no ``holds`` in its manifest,
    no answers, no parent) gets the message it always got, before any work."""
    settings = offline_settings(offline_web, tmp_path, model="none", review_plan=True)
    await run_research(hotpot_question, settings, run_id="old-paused")
    await run_research(None, settings, run_id="old-paused", resume=True, reply=EDIT)
    plain = settings.model_copy(update={"review_plan": False})
    await run_recipe(
        get_recipe("research"),
        get_recipe("research").request("Where was Ed Wood born?", {"followup_of": "old-paused"}),
        plain,
        run_id="old-followup",
    )
    for run_id, kind, message in (
        ("old-paused", "answers", "waited for a person's answer"),
        ("old-followup", "parents", "follows up run 'old-paused'"),
    ):
        folder = export_recording(settings, run_id, tmp_path / f"old-{run_id}")
        manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
        del manifest["holds"]
        (folder / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
        (folder / f"{kind}.jsonl").unlink()
        asked = len(offline_web.requests)
        with pytest.raises(RunError, match=message) as refused:
            await replay_run(offline_settings(offline_web, tmp_path / "x"), folder=folder)
        assert "cannot be exact" in str(refused.value)
        assert f"deepresearch report {run_id}" in str(refused.value.hint)
        assert len(offline_web.requests) == asked
