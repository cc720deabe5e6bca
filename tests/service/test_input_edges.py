"""The API and the ``jobs`` commands apply the same input rules as ``deepresearch run``:
questions normalised with one length limit, job ids checked before anything is looked up
(422 / exit 2), and what the service stored printed with control characters escaped."""

from __future__ import annotations

from collections.abc import Iterator
from urllib.parse import quote

import pytest
from typer.testing import CliRunner

from deepresearch.cli.app import app
from deepresearch.service.auth import LOCAL_OWNER
from deepresearch.service.db import make_engine
from deepresearch.service.store import JobStore, Limits
from deepresearch.testing.web import OfflineWeb

from .helpers import Service, running_service, service_settings

runner = CliRunner()
RAW = "What \x1b]0;PWNED\x07is \x1b[2J\x07X\x00?\u202e"
BAD_IDS = ["%2E%2E", ".hidden", "CON", "x" * 65, "a b", "run\x1b[2J", "über", "-x"]


@pytest.fixture(scope="module")
def service(service_web: OfflineWeb, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Service]:
    tmp_path = tmp_path_factory.mktemp("edges")
    settings = service_settings(
        service_web,
        tmp_path,
        f"sqlite:///{tmp_path / 'service.sqlite3'}",
        active_runs_per_key=50,
        submissions_per_window=100,
    )
    with running_service(settings) as running:
        yield running


def test_questions_are_normalised_on_the_way_in(service: Service) -> None:
    created = service.submit(RAW + "\n\n  in Python")
    assert created.status_code in (200, 201), created.text
    assert created.json()["question"] == "What is X? in Python"
    posting = service.submit("Acme Corp\r\nCompany: Acme\x07\n", recipe="employer")
    assert posting.status_code in (200, 201), posting.text
    assert posting.json()["question"] == "Acme Corp\nCompany: Acme"  # a posting keeps lines


def test_one_question_limit_after_normalisation(service: Service) -> None:
    too_long = service.submit("x" * 4001)
    assert too_long.status_code == 422
    assert "4,001 characters long; the limit is 4,000" in too_long.json()["detail"]
    fits = service.submit("x" * 3998 + "     \n\n\t y")  # 4,008 raw, 4,000 normalised
    assert fits.status_code in (200, 201), fits.text
    blank = service.submit("\x07 \x1b[0m \t")
    assert blank.status_code == 422 and "the question is empty" in blank.json()["detail"]


@pytest.mark.parametrize("bad", BAD_IDS)
def test_job_ids_that_are_not_run_ids_get_422(service: Service, bad: str) -> None:
    path = f"/v1/research/{quote(bad, safe='%')}"  # '%2E%2E': a literal '..' is resolved
    for response in (
        service.client.get(path),
        service.client.post(f"{path}/cancel"),
        service.client.get(f"{path}/report"),
        service.client.get(f"{path}/sources"),
        service.client.get(f"{path}/events"),
    ):
        assert response.status_code == 422, (bad, response.text)
        problem = response.json()
        assert problem["type"] == "/problems/invalid-job-id" and "run id" in problem["detail"]


def test_jobs_commands_check_ids_and_questions_before_any_request(service: Service) -> None:
    nothing_there = "http://127.0.0.1:9"  # a request would fail with "no service"
    for command in ("status", "watch", "cancel", "sources", "report"):
        done = runner.invoke(app, ["jobs", command, "../queue", "--server", nothing_there])
        assert done.exit_code == 2, done.output
        assert "job id: '../queue' is not a run id" in done.stderr
    submitted = runner.invoke(app, ["jobs", "submit", "x" * 100_000, "--server", nothing_there])
    assert submitted.exit_code == 2
    assert "the limit is 4,000" in submitted.stderr and "no service" not in submitted.stderr
    for key in ("é", "a\nb", "k" * 201):  # an HTTP header cannot carry these
        keyed = runner.invoke(
            app, ["jobs", "submit", "Q?", "--idempotency-key", key, "--server", nothing_there]
        )
        assert keyed.exit_code == 2 and "--idempotency-key must be" in keyed.stderr


def test_stored_text_is_printed_escaped(service: Service) -> None:
    # a job stored raw (as the service did before questions were normalised)
    store = JobStore(make_engine(service.settings.database_url or ""))
    job = store.submit(
        owner=LOCAL_OWNER,
        question=RAW,
        recipe="research",
        options={"role": "\x1b]0;x\x07"},
        request_hash="raw",
        idempotency_key=None,
        max_active_runs=50,
        limits=Limits(window_s=900, per_window=100, ttl_s=3600),
    ).job
    listed = runner.invoke(app, ["jobs", "list", "--server", service.url, "--limit", "100"])
    status = runner.invoke(app, ["jobs", "status", job.id, "--server", service.url])
    for done in (listed, status):
        assert done.exit_code == 0, done.output
        assert not [c for c in done.stdout if ord(c) < 32 and c not in "\n\t"], done.stdout
        assert "\x1b" not in done.stdout and "\u202e" not in done.stdout
        assert "What \\x1b]0;PWNED\\x07is" in done.stdout  # shown, not obeyed


def test_a_question_the_run_would_refuse_is_refused_at_submission(service: Service) -> None:
    """Issue 27: such a question got 201 and its job then failed; ``deepresearch run``
    refuses it before any work, and so does the API now, by the same check."""
    before = service.client.get("/v1/research", params={"limit": 100}).json()["jobs"]
    for question, why in (
        ("What does <script>alert(1)</script> do?", "it contains a <script> tag"),
        ("Tell me about {{company}} please", "it contains a template placeholder ({{ }})"),
    ):
        refused = service.submit(question)
        assert refused.status_code == 422, refused.text
        assert refused.headers["content-type"] == "application/problem+json"
        assert f"the question was not researched: {why}" in refused.json()["detail"]
        # a follow-up's question by the same rule, before the job it follows is looked up
        followup = service.client.post(
            "/v1/research/run-0123456789ab/followups", json={"question": question}
        )
        assert followup.status_code == 422 and why in followup.json()["detail"]
    after = service.client.get("/v1/research", params={"limit": 100}).json()["jobs"]
    assert len(after) == len(before)  # no job was made


@pytest.mark.parametrize(
    ("options", "where", "says"),
    [
        ({"review_plan": "yes"}, "options.review_plan", "valid boolean"),
        ({"council": 1}, "options.council", "valid boolean"),
        ({"max_waves": "3"}, "options.max_waves", "valid integer"),
        ({"max_waves": True}, "options.max_waves", "valid integer"),
        ({"max_waves": 1e308}, "options.max_waves", "a whole number from 1 to 10, not 1e+308"),
        ({"max_sub_questions": -1e30}, "options.max_sub_questions", "from 1 to 8"),
        ({"max_tokens": "100"}, "options.max_tokens", "valid integer"),
    ],
)
def test_options_are_strict_json_types_with_their_bounds(
    service: Service, options: dict[str, object], where: str, says: str
) -> None:
    refused = service.submit("What is a generator in Python?", options=options)
    assert refused.status_code == 422, refused.text
    problem = refused.json()
    assert problem["type"] == "/problems/invalid-request"
    assert [error["where"] for error in problem["errors"]] == [f"body.{where}"]
    assert says in problem["detail"]


def test_a_json_body_that_repeats_a_key_is_refused(service: Service) -> None:
    json_type = {"Content-Type": "application/json"}
    for body, key in (
        (
            '{"question": "What is X?", "question": "What is Y?"}',
            "question",
        ),
        ('{"question": "What is X?", "options": {"depth": "quick", "depth": "deep"}}', "depth"),
    ):
        refused = service.client.post("/v1/research", content=body, headers=json_type)
        assert refused.status_code == 400, refused.text
        problem = refused.json()
        assert problem["type"] == "/problems/duplicate-key"
        assert f"gives the key '{key}' more than once" in problem["detail"]
