"""Follow-ups through the HTTP API, on SQLite and PostgreSQL: ``POST
/v1/research/{id}/followups`` queues the next turn of a finished job's thread as a job of
its own, which reuses the thread's pages (none fetched twice); the job's view lists the
thread's turns; another key's job is a 404 and an unfinished one a 409, whichever route
names it. Only the model's words are scripted."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from deepresearch.service.db import make_engine
from deepresearch.service.keys import create_key
from deepresearch.service.store import JobStore
from deepresearch.testing.web import OfflineWeb

from .helpers import running_service, service_settings

FIRST = "Are Christopher Nolan and Sathish Kalathil both film directors?"
FOLLOW = "Which films has Christopher Nolan directed?"
SHIFT = "Are Watertown International Airport and Alexandria International Airport in one state?"


def _pages(web: OfflineWeb) -> list[str]:
    return [r.path for r in web.requests if r.path.startswith("/page/")]


def test_a_followup_job_reuses_its_thread_and_the_view_lists_the_turns(
    service_web: OfflineWeb, database_url: str, tmp_path: Path
) -> None:
    settings = service_settings(service_web, tmp_path, database_url, page_cache_ttl_s=0)
    with running_service(settings) as service:
        service_web.reset_log()
        first = service.submit(FIRST, options={"depth": "quick"}).json()
        early = service.client.post(
            f"/v1/research/{first['id']}/followups", json={"question": FOLLOW}
        )
        assert early.status_code in (409, 201)  # 409 unless it already finished
        service.wait_for(first["id"], "COMPLETED")
        turn1 = len(_pages(service_web))

        response = service.client.post(
            f"/v1/research/{first['id']}/followups", json={"question": FOLLOW}
        )
        assert response.status_code == 201, response.text
        second = response.json()
        assert second["id"] != first["id"] and second["created"] is True
        assert second["options"] == {"depth": "quick", "followup_of": first["id"]}
        done = service.wait_for(second["id"], "COMPLETED")
        pages = _pages(service_web)
        assert turn1 and max(Counter(pages).values()) == 1, "a page was fetched twice"

        events = service.client.get(f"/v1/research/{second['id']}/events").text
        assert "event: followup_started" in events
        report = service.client.get(f"/v1/research/{second['id']}/report").json()
        assert report["followup"]["root"] == first["id"]
        assert report["followup"]["topic_shift"] is False
        assert report["followup"]["reused_evidence"] > 0

        shifted = service.client.post(
            f"/v1/research/{second['id']}/followups", json={"question": SHIFT}
        ).json()
        service.wait_for(shifted["id"], "COMPLETED")
        again = service.client.get(f"/v1/research/{shifted['id']}/report").json()
        assert again["followup"]["topic_shift"] is True and again["followup"]["turn"] == 3

        for job_id in (first["id"], second["id"], shifted["id"]):
            thread = service.job(job_id)["thread"]
            assert [(t["id"], t["turn"], t["topic_shift"]) for t in thread] == [
                (first["id"], 1, False),
                (second["id"], 2, False),
                (shifted["id"], 3, True),
            ]
        assert done["thread"][1]["follows"] == first["id"]


def test_followups_obey_ownership_validation_and_the_job_s_state(
    service_web: OfflineWeb, database_url: str, tmp_path: Path
) -> None:
    settings = service_settings(service_web, tmp_path, database_url)
    with running_service(settings) as service:
        store = JobStore(make_engine(settings.database_url or ""))
        _, alice = create_key(store, "alice")
        _, bob = create_key(store, "bob")
        as_alice = {"Authorization": f"Bearer {alice}"}
        as_bob = {"X-API-Key": bob}
        job_id = service.submit(FIRST, headers=as_alice).json()["id"]
        service.wait_for(job_id, "COMPLETED", headers=as_alice)
        path = f"/v1/research/{job_id}/followups"

        anonymous = service.client.post(path, json={"question": FOLLOW})
        assert anonymous.status_code == 401
        theirs = service.client.post(path, json={"question": FOLLOW}, headers=as_bob)
        assert theirs.status_code == 404 and alice not in theirs.text
        # the same through the submission route, naming the job as an option
        sneaky = service.submit(FOLLOW, options={"followup_of": job_id}, headers=as_bob)
        assert sneaky.status_code == 404
        missing = service.client.post(
            "/v1/research/run-nope/followups", json={"question": FOLLOW}, headers=as_alice
        )
        assert missing.status_code == 404
        for bad in ({"question": ""}, {"question": "x" * 5000}, {"question": FOLLOW, "x": 1}):
            assert service.client.post(path, json=bad, headers=as_alice).status_code == 422
        bad_id = service.client.post(
            "/v1/research/..%2Fetc/followups", json={"question": FOLLOW}, headers=as_alice
        )
        assert bad_id.status_code in (404, 422)
        assert (
            service.submit(FOLLOW, options={"followup_of": "../x"}, headers=as_alice).status_code
            == 422
        )

        running = service.submit(SHIFT, headers=as_bob).json()["id"]
        unfinished = service.client.post(
            f"/v1/research/{running}/followups", json={"question": FOLLOW}, headers=as_bob
        )
        assert unfinished.status_code in (409, 201)  # 409 while it runs
        service.wait_for(running, "COMPLETED", headers=as_bob)

        mine = service.client.post(path, json={"question": FOLLOW}, headers=as_alice)
        assert mine.status_code == 201, mine.text
        service.wait_for(mine.json()["id"], "COMPLETED", headers=as_alice)
        # bob sees none of alice's thread, alice all of it
        assert (
            service.client.get(f"/v1/research/{mine.json()['id']}", headers=as_bob).status_code
            == 404
        )
        thread = service.job(job_id, headers=as_alice)["thread"]
        assert [t["id"] for t in thread] == [job_id, mine.json()["id"]]


def test_followups_count_against_the_rate_limit_and_honour_idempotency(
    service_web: OfflineWeb, database_url: str, tmp_path: Path
) -> None:
    settings = service_settings(
        service_web, tmp_path, database_url, submissions_per_window=2, active_runs_per_key=5
    )
    with running_service(settings) as service:
        job_id = service.submit(FIRST).json()["id"]
        service.wait_for(job_id, "COMPLETED")
        path = f"/v1/research/{job_id}/followups"
        key = {"Idempotency-Key": "follow-1"}
        made = service.client.post(path, json={"question": FOLLOW}, headers=key)
        assert made.status_code == 201
        replayed = service.client.post(path, json={"question": FOLLOW}, headers=key)
        assert replayed.status_code == 200 and replayed.json()["replayed"] is True
        assert replayed.json()["id"] == made.json()["id"]
        different = service.client.post(path, json={"question": SHIFT}, headers=key)
        assert different.status_code == 422
        limited = service.client.post(path, json={"question": SHIFT})
        assert limited.status_code == 429 and int(limited.headers["retry-after"]) > 0
