"""Budgets through the HTTP API (issue 19): the options are checked (a clear 422 for a
negative number, zero, a string, a boolean, infinity), and a budgeted job stops at its
budget, saying so in its events and report."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from deepresearch.testing.web import OfflineWeb

from .helpers import Service, read_sse, running_service, service_settings


@pytest.fixture(scope="module")
def service(service_web: OfflineWeb, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Service]:
    tmp_path = tmp_path_factory.mktemp("budget")
    settings = service_settings(
        service_web,
        tmp_path,
        f"sqlite:///{tmp_path / 'service.sqlite3'}",
        active_runs_per_key=50,
        submissions_per_window=100,
    )
    with running_service(settings) as running:
        yield running


BAD: list[tuple[str, Any, str]] = [
    ("max_tokens", -5, "greater than or equal to 1"),
    ("max_tokens", 0, "greater than or equal to 1"),
    ("max_tokens", "1000", "valid integer"),
    ("max_tokens", 1.5, "valid integer"),
    ("max_tokens", True, "valid integer"),
    ("max_cost", -0.5, "greater than 0"),
    ("max_cost", 0, "greater than 0"),
    ("max_cost", "0.5", "valid number"),
    ("max_cost", False, "valid number"),
    ("max_cost", 10**9, "less than or equal to 100000"),
    ("max_time", -1, "greater than 0"),
    ("max_time", "60s", "valid number"),
    ("max_time", [60], "valid number"),
]


@pytest.mark.parametrize(("name", "value", "why"), BAD)
def test_bad_budgets_get_a_clear_422(service: Service, name: str, value: Any, why: str) -> None:
    response = service.submit("What is X?", options={name: value})
    assert response.status_code == 422, response.text
    detail = response.json()["detail"]
    assert name in detail and why in detail, detail


def test_infinity_is_not_a_budget(service: Service) -> None:
    # JSON has no Infinity; Python's encoder writes it anyway, and the API refuses it
    response = service.client.post(
        "/v1/research",
        content='{"question": "What is X?", "options": {"max_time": Infinity}}',
        headers={"Content-Type": "application/json"},
    )
    assert response.status_code == 422, response.text


def test_a_budgeted_job_stops_at_its_budget_and_says_so(service: Service) -> None:
    created = service.submit(
        "If Gallu is a demon Lilu is what?", options={"max_tokens": 4_000, "max_time": 600}
    )
    assert created.status_code == 201, created.text
    job_id = created.json()["id"]
    messages = read_sse(service.client, f"/v1/research/{job_id}/events")
    types = [m.event for m in messages if m.id is not None]
    assert "budget_exhausted" in types and types[-1] == "run_completed"
    done = service.job(job_id)
    assert done["status"] == "COMPLETED"
    assert done["usage"]["input_tokens"] + done["usage"]["output_tokens"] <= 4_000
    report = service.client.get(f"/v1/research/{job_id}/report").json()
    assert report["limitations"][0].startswith("Budget reached: the token budget (4,000 tokens")
    markdown = service.client.get(f"/v1/research/{job_id}/report?format=md").text
    assert "Budget reached" in markdown and "cost unknown" in markdown  # unpriced model
