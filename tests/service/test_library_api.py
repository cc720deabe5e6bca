"""The library over HTTP (issue 25), on SQLite and PostgreSQL: each finished job is in
its key's library; search, show, tag and remove; one key never sees another's library
(results, counts, tags, errors); bad input is a 4xx problem and changes nothing."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import httpx

from deepresearch.embeddings import wordllama_available
from deepresearch.service.db import make_engine
from deepresearch.service.keys import create_key
from deepresearch.service.store import JobStore
from deepresearch.testing.web import OfflineWeb

from .helpers import Service, running_service, service_settings


def _words(quote: str) -> str:
    """Two long words of ``quote``: a query that finds it."""
    words = [w for w in re.findall(r"[A-Za-z]{6,}", quote)]
    return " ".join(words[:2])


def _finished(service: Service, question: str, headers: dict[str, str]) -> dict[str, Any]:
    job_id = service.submit(question, headers=headers).json()["id"]
    service.wait_for(job_id, "COMPLETED", headers=headers)
    report: dict[str, Any] = service.client.get(
        f"/v1/research/{job_id}/report", headers=headers
    ).json()
    return report


def _problem(response: httpx.Response, status: int, *needles: str) -> None:
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith("application/problem+json")
    for needle in needles:
        assert needle in response.json()["detail"], response.json()


def test_each_key_has_its_own_library(
    service_web: OfflineWeb, questions: list[str], database_url: str, tmp_path: Path
) -> None:
    settings = service_settings(service_web, tmp_path, database_url)
    with running_service(settings) as service:
        store = JobStore(make_engine(settings.database_url or ""))
        _, alice = create_key(store, "alice")
        _, bob = create_key(store, "bob")
        store.engine.dispose()
        as_alice, as_bob = {"Authorization": f"Bearer {alice}"}, {"X-API-Key": bob}
        report = _finished(service, questions[0], as_alice)
        run_id = report["run_id"]
        verified = [e for e in report["evidence"] if e["verification"]["status"] == "PASS"]
        query = _words(verified[0]["quote"])
        client = service.client

        found = client.get("/v1/library/search", params={"q": query}, headers=as_alice).json()
        hits = found["results"]
        assert hits and all(hit["run"]["run_id"] == run_id for hit in hits)
        assert found["mode"] == ("hybrid" if wordllama_available() else "text")
        quote = next(hit for hit in hits if hit["kind"] == "quote")
        assert quote["source"]["url"].startswith("http") and quote["source"]["fetched_at"]
        counts = client.get("/v1/library", headers=as_alice).json()
        assert counts["runs"] == 1 and counts["quotes"] == len(verified)

        # bob: nothing of alice's, in results, counts, tags or errors
        assert (
            client.get("/v1/library/search", params={"q": query}, headers=as_bob).json()["results"]
            == []
        )
        assert client.get("/v1/library", headers=as_bob).json() == {
            "runs": 0,
            "sources": 0,
            "quotes": 0,
            "claims": 0,
        }
        client.post(f"/v1/library/runs/{run_id}/tags", json={"tags": ["Mine"]}, headers=as_alice)
        assert client.get("/v1/library/tags", headers=as_bob).json() == {"tags": []}
        theirs = client.get(f"/v1/library/runs/{run_id}", headers=as_bob)
        nobodys = client.get("/v1/library/runs/run-000000000000", headers=as_bob)
        _problem(theirs, 404, "not in your library")
        assert theirs.json()["detail"].replace(run_id, "X") == nobodys.json()["detail"].replace(
            "run-000000000000", "X"
        )
        for response in (
            client.delete(f"/v1/library/runs/{run_id}", headers=as_bob),
            client.post(f"/v1/library/runs/{run_id}/tags", json={"tags": ["x"]}, headers=as_bob),
            client.delete(f"/v1/library/runs/{run_id}/tags/mine", headers=as_bob),
            client.post("/v1/library/tags/mine/rename", json={"to": "x"}, headers=as_bob),
        ):
            _problem(response, 404)
            assert alice not in response.text
        shown = client.get(f"/v1/library/runs/{run_id}", headers=as_alice).json()
        assert shown["tags"] == ["mine"] and shown["sources"] and shown["report"].startswith("# ")


def test_tags_search_filters_and_removal(
    service_web: OfflineWeb, questions: list[str], database_url: str, tmp_path: Path
) -> None:
    settings = service_settings(service_web, tmp_path, database_url)
    with running_service(settings) as service:
        client = service.client
        report = _finished(service, questions[0], {})
        run_id = report["run_id"]
        verified = [e for e in report["evidence"] if e["verification"]["status"] == "PASS"]
        query = _words(verified[0]["quote"])
        domain = re.sub(r"^https?://([^/:]+).*", r"\1", verified[0]["source_url"])

        tagged = client.post(f"/v1/library/runs/{run_id}/tags", json={"tags": ["a", "B"]})
        assert tagged.json() == {"run_id": run_id, "tags": ["a", "b"]}

        def search(**params: Any) -> list[dict[str, Any]]:
            response = client.get("/v1/library/search", params={"q": query, **params})
            assert response.status_code == 200, response.text
            results: list[dict[str, Any]] = response.json()["results"]
            return results

        assert search(tag="a") and search(kind="quote") and search(run=run_id)
        assert search(recipe="research") and search(domain=domain, kind="quote")
        assert search(since="2000-01-01") and not search(until="2000-01-01")
        assert not search(tag="nope") and not search(recipe="employer")
        assert not search(domain="example.invalid")
        assert all(hit["kind"] == "claim" for hit in search(kind="claim"))

        renamed = client.post("/v1/library/tags/a/rename", json={"to": "alpha"})
        assert renamed.json() == {"runs": 1} and search(tag="alpha") and not search(tag="a")
        assert client.delete("/v1/library/tags/b").json() == {"runs": 1}
        assert client.get("/v1/library/tags").json()["tags"] == [{"tag": "alpha", "runs": 1}]
        untagged = client.delete(f"/v1/library/runs/{run_id}/tags/alpha")
        assert untagged.json()["tags"] == []

        assert client.delete(f"/v1/library/runs/{run_id}").status_code == 204
        assert search() == []  # at once
        assert client.get("/v1/library").json()["runs"] == 0
        _problem(client.delete(f"/v1/library/runs/{run_id}"), 404)
        # the job and its report stay
        assert client.get(f"/v1/research/{run_id}/report").status_code == 200


def test_bad_library_requests_are_problems_that_change_nothing(
    service_web: OfflineWeb, tmp_path: Path
) -> None:
    settings = service_settings(service_web, tmp_path, f"sqlite:///{tmp_path / 's.sqlite3'}")
    with running_service(settings) as service:
        client = service.client
        search = "/v1/library/search"
        _problem(client.get(search), 400, "empty")
        _problem(client.get(search, params={"q": "  "}), 400, "empty")
        _problem(client.get(search, params={"q": "x" * 10_000}), 400, "longer than")
        _problem(client.get(search, params={"q": "a", "colour": "red"}), 400, "'colour'")
        _problem(client.get(search, params={"q": "a", "kind": "page"}), 400, "kind")
        _problem(client.get(search, params={"q": "a", "since": "yesterday"}), 400, "not a date")
        _problem(client.get(search, params={"q": "a", "limit": "0"}), 400, "limit")
        _problem(client.get(search, params={"q": "a", "run": "../x"}), 400, "run id")
        _problem(client.get(search, params={"q": "!!!"}), 400, "no words")
        _problem(client.get(search, params=[("q", "a"), ("tag", "x"), ("tag", "y")]), 400, "twice")
        _problem(client.post("/v1/library/runs/r1/tags", json={"tags": []}), 422)
        _problem(client.post("/v1/library/runs/r1/tags", json={"tags": ["a"], "x": 1}), 422)
        _problem(client.post("/v1/library/runs/r1/tags", json={"tags": ["a"]}), 404)
        _problem(client.post("/v1/library/tags/a/rename", json={"to": "b"}), 404, "no run")
        assert client.get("/v1/library").json()["runs"] == 0
        assert client.get("/v1/library/tags").json() == {"tags": []}
