"""The findings review through the HTTP API (issue 15), on SQLite and PostgreSQL: a job
submitted with ``review_findings`` waits with its verified findings; bad answers get a
422 that says what is wrong (the job keeps waiting); a drop and a gap answered with
``POST /v1/research/{id}/input`` continue the same run: the dropped finding is not in the
report, the gap is researched in one more wave from its own words and its evidence is
cited. The same answer twice is harmless, another one a 409; cancel ends the job."""

from __future__ import annotations

from pathlib import Path

from deepresearch.core.planning import fallback_queries
from deepresearch.settings_groups import RunLimits
from deepresearch.testing.web import OfflineWeb

from .helpers import read_sse, running_service, service_settings

GAP = "Where was Ed Wood born?"


def test_a_drop_and_a_gap_answered_over_the_api(
    service_web: OfflineWeb, questions: list[str], database_url: str, tmp_path: Path
) -> None:
    settings = service_settings(service_web, tmp_path, database_url)
    with running_service(settings) as service:
        job_id = service.submit(questions[0], options={"review_findings": True}).json()["id"]
        waiting = service.wait_for(job_id, "AWAITING_INPUT", "COMPLETED", "FAILED")
        assert waiting["status"] == "AWAITING_INPUT", waiting
        assert waiting["options"]["review_findings"] is True
        asked = waiting["input_request"]
        assert asked["kind"] == "findings" and asked["findings"]
        assert {"id", "claim", "quote", "source_url"} <= set(asked["findings"][0])
        ids = [item["id"] for item in asked["findings"]]
        path = f"/v1/research/{job_id}/input"
        for bad, detail in (
            ({"action": "drop", "drop": ["q9-unknown"]}, "no finding has the id"),
            ({"action": "drop"}, "named none"),
            ({"action": "gap", "gap": "no"}, "the gap is 2 characters"),
            ({"action": "edit", "sub_questions": ["What?"]}, "findings reply"),
            ({"answer": "yes"}, "findings reply"),
            ({"action": "maybe"}, "action"),
            ({"action": "drop", "drop": ids}, "dropping every finding"),
        ):
            refused = service.client.post(path, json=bad)
            assert refused.status_code == 422, (bad, refused.text)
            assert detail in refused.text, refused.text
        assert service.job(job_id)["status"] == "AWAITING_INPUT"

        answer = {"action": "gap", "gap": GAP, "drop": ids[:1]}
        accepted = service.client.post(path, json=answer)
        assert accepted.status_code == 202, accepted.text
        again = service.client.post(path, json=answer)
        assert again.status_code == 200, again.text  # the same answer: harmless
        other = service.client.post(path, json={"action": "approve"})
        assert other.status_code == 409, other.text
        done = service.wait_for(job_id, "COMPLETED", "FAILED")
        assert done["status"] == "COMPLETED", done

        events = [
            m.json() for m in read_sse(service.client, f"/v1/research/{job_id}/events") if m.id
        ]
        types = [e["type"] for e in events]
        assert types.count("input_requested") == 1  # not asked again after the gap
        after = events[types.index("input_received") :]
        received = after[0]["data"]
        assert received["dropped"] == ids[:1] and received["gap"] == GAP
        waves = [e for e in after if e["type"] == "wave_started"]
        assert len(waves) == 1 and [u["text"] for u in waves[0]["data"]["units"]] == [GAP]
        searched = {
            q for e in after if e["type"] == "search_completed" for q in e["data"]["queries"]
        }
        per_question = RunLimits.of(settings).queries_per_question
        assert searched == set(fallback_queries(GAP, count=per_question, operators=True))

        report = service.client.get(f"/v1/research/{job_id}/report").json()
        assert report["run_id"] == job_id and report["kind"] == "synthesized"
        kept = {item["id"] for item in report["evidence"]}
        # the dropped words go with every copy of them (another sub-question may quote them)
        words = {(f["source_url"], f["quote"]) for f in asked["findings"][:1]}
        copies = {f["id"] for f in asked["findings"] if (f["source_url"], f["quote"]) in words}
        assert not copies & kept and set(ids) - copies <= kept
        cited = {
            ref
            for section in report["sections"]
            for paragraph in section["paragraphs"]
            for sentence in paragraph["sentences"]
            for ref in sentence["citations"]
        } | {ref for sentence in report["summary"] for ref in sentence["citations"]}
        gap_id = received["sub_questions"][0]["id"]
        assert ids[0] not in cited
        assert any(ref.startswith(f"{gap_id}-") for ref in cited), cited
        markdown = service.client.get(
            f"/v1/research/{job_id}/report", headers={"Accept": "text/markdown"}
        ).text
        assert asked["findings"][0]["quote"] not in markdown


def test_findings_review_cancel_action_cancels_the_job(
    service_web: OfflineWeb, questions: list[str], tmp_path: Path
) -> None:
    settings = service_settings(service_web, tmp_path, f"sqlite:///{tmp_path / 's.db'}")
    with running_service(settings) as service:
        job_id = service.submit(questions[0], options={"review_findings": True}).json()["id"]
        service.wait_for(job_id, "AWAITING_INPUT")
        cancelled = service.client.post(f"/v1/research/{job_id}/input", json={"action": "cancel"})
        assert cancelled.status_code == 200 and cancelled.json()["status"] == "CANCELLED"
