"""Jobs that wait for a person (issue 15), through the HTTP API on SQLite and PostgreSQL:
a clarifying question answered with ``POST /v1/research/{id}/input`` continues the same
run to its report; a plan edited in review is what is searched; a waiting job holds no
worker slot and no lease, can be cancelled, and expires. Answers obey the submissions'
keys, ownership and validation; the same answer twice is harmless, another one a 409."""

from __future__ import annotations

import json
from pathlib import Path

from langchain_core.messages import BaseMessage
from sqlalchemy import select

from deepresearch.core.planning import fallback_queries
from deepresearch.recipes.research.stages import intake, plan
from deepresearch.service.db import make_engine
from deepresearch.service.keys import create_key
from deepresearch.service.store import JobStore
from deepresearch.service.tables import research_jobs
from deepresearch.settings_groups import RunLimits
from deepresearch.testing.research_script import research_script
from deepresearch.testing.scripted import ScriptedChatModel
from deepresearch.testing.web import OfflineWeb

from .helpers import read_sse, running_service, service_settings

ASKED = "Do you mean the people or the places?"
ANSWER = "The people involved"
INTAKE = intake.SYSTEM.splitlines()[0]


def clarifying_model() -> ScriptedChatModel:
    research = research_script()

    def reply(messages: list[BaseMessage]) -> str:
        if str(messages[0].content).startswith(INTAKE):
            return json.dumps({"intent": "clarify", "reply": ASKED})
        return research(messages)

    return ScriptedChatModel(reply)


def _calls(model: ScriptedChatModel, system_start: str) -> list[str]:
    return [
        str(call[-1].content)
        for call in model.calls
        if str(call[0].content).startswith(system_start)
    ]


def _lease(database_url: str, job_id: str) -> tuple[str, str | None]:
    engine = make_engine(database_url)
    with engine.connect() as conn:
        row = conn.execute(
            select(research_jobs.c.status, research_jobs.c.lease_owner).where(
                research_jobs.c.id == job_id
            )
        ).one()
    engine.dispose()
    return row.status, row.lease_owner


def test_clarify_reply_report(
    service_web: OfflineWeb, questions: list[str], database_url: str, tmp_path: Path
) -> None:
    settings = service_settings(service_web, tmp_path, database_url)
    model = clarifying_model()
    with running_service(settings, model=model) as service:
        job_id = service.submit(questions[0]).json()["id"]
        waiting = service.wait_for(job_id, "AWAITING_INPUT", "FAILED", "COMPLETED")
        assert waiting["status"] == "AWAITING_INPUT", waiting
        asked = waiting["input_request"]
        assert asked["kind"] == "clarification" and asked["question"] == ASKED
        assert waiting["links"]["input"] == f"/v1/research/{job_id}/input"
        # no worker slot, no lease
        assert _lease(database_url, job_id) == ("AWAITING_INPUT", None)
        assert service.client.get("/v1/queue").json()["running_here"] == 0
        # a waiting job is not active: the owner may submit another question meanwhile
        other = service.submit(questions[1])
        assert other.status_code == 201 and other.json()["attached"] is False
        service.wait_for(other.json()["id"], "COMPLETED", "FAILED", "AWAITING_INPUT")

        path = f"/v1/research/{job_id}/input"
        for bad, detail in (
            ({"answer": "  \x07 "}, "the answer is empty"),
            ({"action": "approve"}, "answer it with text"),
            ({"answer": "x", "action": "approve"}, "not both"),
            ({}, "not both"),
            ({"answer": "x", "extra": 1}, "extra"),
        ):
            refused = service.client.post(path, json=bad)
            assert refused.status_code == 422, (bad, refused.text)
            assert detail in refused.text, refused.text
        assert service.job(job_id)["status"] == "AWAITING_INPUT"

        accepted = service.client.post(path, json={"answer": f"  {ANSWER}\n"})
        assert accepted.status_code == 202, accepted.text
        again = service.client.post(path, json={"answer": ANSWER})  # the same, normalised
        assert again.status_code == 200, again.text
        other_answer = service.client.post(path, json={"answer": "the places"})
        assert other_answer.status_code == 409
        assert "already answered" in other_answer.json()["detail"]

        done = service.wait_for(job_id, "COMPLETED", "FAILED")
        assert done["status"] == "COMPLETED", done
        assert done["attempts"] == 2
        report = service.client.get(f"/v1/research/{job_id}/report").json()
        assert report["kind"] == "synthesized" and report["evidence"]
        events = [
            m.json() for m in read_sse(service.client, f"/v1/research/{job_id}/events") if m.id
        ]
        types = [e["type"] for e in events]
        assert types.count("input_requested") == 1 and types.count("input_received") == 1
        assert types.count("run_started") == 1 and types[-1] == "run_completed"
        requested = events[types.index("input_requested")]
        assert requested["data"]["question"] == ASKED
        received = events[types.index("input_received")]
        assert received["data"]["answer"] == ANSWER
        # the same run: intake asked once for this job; planning saw the answer
        planned = [p for p in _calls(model, plan.SYSTEM.splitlines()[0]) if ANSWER in p]
        assert len(planned) == 1 and f"Clarifying question: {ASKED}" in planned[0]
        assert service.client.post(path, json={"answer": ANSWER}).status_code == 200


def test_answers_obey_keys_and_ownership(
    service_web: OfflineWeb, questions: list[str], tmp_path: Path
) -> None:
    settings = service_settings(service_web, tmp_path, f"sqlite:///{tmp_path / 's.db'}")
    with running_service(settings, model=clarifying_model()) as service:
        store = JobStore(make_engine(settings.database_url or ""))
        _, alice = create_key(store, "alice")
        _, bob = create_key(store, "bob")
        store.engine.dispose()
        as_alice = {"Authorization": f"Bearer {alice}"}
        as_bob = {"Authorization": f"Bearer {bob}"}
        job_id = service.submit(questions[0], headers=as_alice).json()["id"]
        service.wait_for(job_id, "AWAITING_INPUT", headers=as_alice)
        path = f"/v1/research/{job_id}/input"
        assert service.client.post(path, json={"answer": ANSWER}).status_code == 401
        stolen = service.client.post(path, json={"answer": ANSWER}, headers=as_bob)
        assert stolen.status_code == 404 and alice not in stolen.text
        bad_id = service.client.post(
            "/v1/research/..%2Fx/input", json={"answer": "a"}, headers=as_alice
        )
        assert bad_id.status_code in (404, 422)
        assert service.job(job_id, headers=as_alice)["status"] == "AWAITING_INPUT"
        # cancelled while it waits: at once, no worker involved
        cancelled = service.client.post(f"/v1/research/{job_id}/cancel", headers=as_alice)
        assert cancelled.status_code == 202 and cancelled.json()["status"] == "CANCELLED"
        late = service.client.post(path, json={"answer": ANSWER}, headers=as_alice)
        assert late.status_code == 409 and "CANCELLED" in late.json()["detail"]
        events = read_sse(service.client, f"/v1/research/{job_id}/events", headers=as_alice)
        assert [m.event for m in events if m.id][-1] == "run_cancelled"


def test_a_waiting_job_expires_with_a_clear_status(
    service_web: OfflineWeb, questions: list[str], tmp_path: Path
) -> None:
    settings = service_settings(
        service_web, tmp_path, f"sqlite:///{tmp_path / 's.db'}", input_timeout_s=1.0
    )
    with running_service(settings, model=clarifying_model()) as service:
        job_id = service.submit(questions[0]).json()["id"]
        service.wait_for(job_id, "AWAITING_INPUT", "EXPIRED")
        expired = service.wait_for(job_id, "EXPIRED", timeout=60)
        assert "no answer came" in expired["error"] and expired["input_request"] is None
        events = read_sse(service.client, f"/v1/research/{job_id}/events")
        assert [m.event for m in events if m.id][-1] == "run_expired"
        late = service.client.post(f"/v1/research/{job_id}/input", json={"answer": ANSWER})
        assert late.status_code == 409


def test_an_edited_plan_is_what_the_job_searches(
    service_web: OfflineWeb, questions: list[str], database_url: str, tmp_path: Path
) -> None:
    settings = service_settings(service_web, tmp_path, database_url)
    with running_service(settings) as service:
        job_id = service.submit(questions[0], options={"review_plan": True}).json()["id"]
        waiting = service.wait_for(job_id, "AWAITING_INPUT", "COMPLETED", "FAILED")
        asked = waiting["input_request"]
        assert asked["kind"] == "plan" and asked["brief"] and asked["sub_questions"]
        path = f"/v1/research/{job_id}/input"
        for bad, detail in (
            ({"action": "edit", "sub_questions": []}, "1 to 8 sub-questions"),
            ({"action": "edit", "sub_questions": [f"Question {i}?" for i in range(9)]}, "1 to 8"),
            ({"action": "edit", "sub_questions": ["What?", "y" * 400]}, "sub-question 2"),
            ({"action": "edit"}, "named neither"),
            ({"answer": "yes"}, "plan reply"),
            ({"action": "maybe"}, "action"),
        ):
            refused = service.client.post(path, json=bad)
            assert refused.status_code == 422, (bad, refused.text)
            assert detail in refused.text, refused.text
        edited = ["Where was Christopher Nolan born?", "Which films did Sathish Kalathil direct?"]
        accepted = service.client.post(
            path, json={"action": "edit", "brief": "Two directors.", "sub_questions": edited}
        )
        assert accepted.status_code == 202, accepted.text
        done = service.wait_for(job_id, "COMPLETED", "FAILED")
        assert done["status"] == "COMPLETED", done
        events = [
            m.json() for m in read_sse(service.client, f"/v1/research/{job_id}/events") if m.id
        ]
        wave = next(e for e in events if e["type"] == "wave_started")
        assert [u["text"] for u in wave["data"]["units"]] == edited
        searched = {
            q
            for e in events
            if e["type"] == "search_completed" and e["data"]["wave"] == 1
            for q in e["data"]["queries"]
        }
        per_question = RunLimits.of(settings).queries_per_question
        assert searched == {
            q for text in edited for q in fallback_queries(text, count=per_question, operators=True)
        }
        report = service.client.get(f"/v1/research/{job_id}/report").json()
        assert report["run_id"] == job_id and report["kind"] == "synthesized"


def test_plan_review_cancel_action_cancels_the_job(
    service_web: OfflineWeb, questions: list[str], tmp_path: Path
) -> None:
    settings = service_settings(service_web, tmp_path, f"sqlite:///{tmp_path / 's.db'}")
    with running_service(settings) as service:
        job_id = service.submit(questions[0], options={"review_plan": True}).json()["id"]
        service.wait_for(job_id, "AWAITING_INPUT")
        cancelled = service.client.post(f"/v1/research/{job_id}/input", json={"action": "cancel"})
        assert cancelled.status_code == 200 and cancelled.json()["status"] == "CANCELLED"


def test_jobs_watch_stops_at_the_question_with_exit_code_4(
    service_web: OfflineWeb, questions: list[str], tmp_path: Path
) -> None:
    from typer.testing import CliRunner

    from deepresearch.cli.app import app

    settings = service_settings(service_web, tmp_path, f"sqlite:///{tmp_path / 's.db'}")
    with running_service(settings, model=clarifying_model()) as service:
        job_id = service.submit(questions[0]).json()["id"]
        watched = CliRunner().invoke(
            app,
            ["jobs", "watch", job_id, "--server", service.url, "--json-events"],
            env={"DEEPRESEARCH_SERVER": None, "DEEPRESEARCH_API_KEY": None},
        )
        assert watched.exit_code == 4, watched.output
        assert f"POST /v1/research/{job_id}/input" in watched.output
        assert f'deepresearch jobs reply {job_id} "YOUR ANSWER"' in watched.output
        assert '"type":"input_requested"' in watched.output.replace(" ", "")


def test_jobs_submit_no_clarify_runs_without_asking(
    service_web: OfflineWeb, questions: list[str], tmp_path: Path
) -> None:
    """The model would ask back; ``jobs submit --no-clarify`` (the API's ``no_clarify``)
    researches the question as it is, without asking."""
    from typer.testing import CliRunner

    from deepresearch.cli.app import app

    settings = service_settings(service_web, tmp_path, f"sqlite:///{tmp_path / 's.db'}")
    model = clarifying_model()
    with running_service(settings, model=model) as service:
        submitted = CliRunner().invoke(
            app,
            ["jobs", "submit", questions[0], "--server", service.url, "--no-clarify", "--watch"],
            env={"DEEPRESEARCH_SERVER": None, "DEEPRESEARCH_API_KEY": None},
        )
        assert submitted.exit_code == 0, submitted.output
        assert _calls(model, INTAKE)  # the model was asked, and would have asked back
        (job,) = service.client.get("/v1/research").json()["jobs"]
        assert job["status"] == "COMPLETED"
        events = read_sse(service.client, f"/v1/research/{job['id']}/events")
        assert "input_requested" not in {message.event for message in events}
