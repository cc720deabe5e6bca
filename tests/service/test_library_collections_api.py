"""Collections over HTTP (issue 25), on SQLite and PostgreSQL: a multipart upload becomes
the caller's collection, searchable at once with ``collection=``; rename and remove act at
once; another key sees none of it (results, lists, errors); a bad upload is a 4xx
problem and stores nothing."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx

from deepresearch.service.db import make_engine
from deepresearch.service.keys import create_key
from deepresearch.service.store import JobStore
from deepresearch.testing.web import OfflineWeb

from .helpers import read_sse, running_service, service_settings

MD = b"# Tides\n\nTidal lagoons hold the sea behind a wall; their turbines turn twice a day.\n"
HTML = (
    b"<html><head><title>Waves</title></head><body><p>Wave farms float offshore.</p></body></html>"
)


def _problem(response: httpx.Response, status: int, needle: str = "") -> None:
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith("application/problem+json")
    assert needle in response.json()["detail"], response.json()


def _upload(name: str, *files: tuple[str, bytes]) -> dict[str, Any]:
    return {"data": {"name": name}, "files": [("files", (n, b, "text/plain")) for n, b in files]}


def test_collections_are_each_keys_own(
    service_web: OfflineWeb, database_url: str, tmp_path: Path
) -> None:
    settings = service_settings(service_web, tmp_path, database_url)
    with running_service(settings) as service:
        store = JobStore(make_engine(settings.database_url or ""))
        _, alice = create_key(store, "alice")
        _, bob = create_key(store, "bob")
        store.engine.dispose()
        as_alice, as_bob = {"X-API-Key": alice}, {"X-API-Key": bob}
        client = service.client
        base = "/v1/library/collections"

        made = client.post(
            base,
            headers=as_alice,
            **_upload("Energy", ("tides.md", MD), ("waves.html", HTML), ("bad.pdf", b"no")),
        )
        assert made.status_code == 201, made.text
        body = made.json()
        assert (body["name"], body["documents"], body["skipped"]) == ("energy", 2, ["bad.pdf"])

        def search(headers: dict[str, str], **params: Any) -> list[dict[str, Any]]:
            found = client.get("/v1/library/search", params=params, headers=headers)
            assert found.status_code == 200, found.text
            results: list[dict[str, Any]] = found.json()["results"]
            return results

        hits = search(as_alice, q="turbines", collection="energy")
        assert [(h["kind"], h["source"]["url"]) for h in hits] == [("document", "file:///tides.md")]
        assert search(as_bob, q="turbines") == []
        assert client.get(base, headers=as_bob).json() == {"collections": []}
        for response in (
            client.post(f"{base}/energy/rename", json={"to": "x"}, headers=as_bob),
            client.delete(f"{base}/energy", headers=as_bob),
            client.get("/v1/library/runs/energy", headers=as_bob),
        ):
            _problem(response, 404)
            assert alice not in response.text

        assert (
            client.post(f"{base}/energy/rename", json={"to": "power"}, headers=as_alice).status_code
            == 204
        )
        assert search(as_alice, q="wave", collection="power")
        removed = client.delete(f"{base}/power", headers=as_alice)
        assert removed.json() == {"documents": 2}
        assert search(as_alice, q="turbines") == []  # at once


def test_bad_uploads_store_nothing(
    service_web: OfflineWeb, database_url: str, tmp_path: Path
) -> None:
    settings = service_settings(service_web, tmp_path, database_url)
    with running_service(settings) as service:
        client = service.client
        base = "/v1/library/collections"
        _problem(client.post(base, **_upload("x", ("run.exe", b"MZ"))), 400, "not a document")
        _problem(client.post(base, **_upload("x", ("a.md", b"   "))), 400, "no readable document")
        _problem(client.post(base, **_upload("<x>", ("a.md", MD))), 400, "not a collection name")
        _problem(client.post(base, **_upload("x", ("a.md", MD), ("a.md", MD))), 400, "twice")
        assert client.post(base, **_upload("x", ("a.md", MD))).status_code == 201
        _problem(client.post(base, **_upload("X", ("b.md", MD))), 400, "already have")
        assert client.post(base, data={"name": "y"}).status_code == 422  # no files
        listed = client.get(base).json()["collections"]
        assert [(c["name"], c["documents"]) for c in listed] == [("x", 1)]
        _problem(client.get("/v1/library/search", params={"q": "a", "collection": "a;b"}), 400)
        _problem(client.get("/v1/library/search", params={"q": "x" * 10_000}), 400)
        _problem(client.get("/v1/library/search", params={"q": ""}), 400)
        _problem(client.get("/v1/library/search", params={"q": "a", "colour": "red"}), 400)


GENERATORS = (
    b"# Generators\n\nA generator function uses the yield statement to produce a sequence "
    b"of values lazily, one value at a time, pausing between them.\n"
)


def test_a_job_searching_the_library_reads_its_own_keys_only(
    service_web: OfflineWeb, database_url: str, tmp_path: Path
) -> None:
    settings = service_settings(service_web, tmp_path, database_url)
    with running_service(settings) as service:
        store = JobStore(make_engine(settings.database_url or ""))
        _, alice = create_key(store, "alice")
        _, bob = create_key(store, "bob")
        store.engine.dispose()
        as_alice, as_bob = {"X-API-Key": alice}, {"X-API-Key": bob}
        made = service.client.post(
            "/v1/library/collections", headers=as_alice, **_upload("py", ("gen.md", GENERATORS))
        )
        assert made.status_code == 201, made.text
        options = {"search": "library", "depth": "quick"}

        def found(headers: dict[str, str]) -> int:
            """How many results the job's searches kept from the library (the test's
            scripted model writes its own script's findings, so the search is what
            shows whose library a job read)."""
            job = service.submit("What are generators?", options=options, headers=headers)
            assert job.status_code in (200, 201, 202), job.text
            job_id = job.json()["id"]
            service.wait_for(job_id, "COMPLETED", "FAILED", headers=headers)
            events = read_sse(service.client, f"/v1/research/{job_id}/events", headers=headers)
            searched = [m.json()["data"] for m in events if m.event == "search_completed"]
            assert searched and all(d["providers"].keys() <= {"library"} for d in searched)
            return sum(int(d["kept"]) for d in searched)

        assert found(as_alice) >= 1
        assert found(as_bob) == 0
