"""``GET /v1/research/{id}/report?format=pdf|docx|odt|latex|bibtex|ris|csljson`` on the
real service: a download with the right media type and file name and the service's
security headers, that opens and carries the report's quotes or cited sources."""

from __future__ import annotations

import time
from pathlib import Path

import httpx
import rispy

from deepresearch.service.app import create_app
from deepresearch.service.problems import SECURITY_HEADERS
from deepresearch.service.server import BackgroundServer
from deepresearch.settings import load_settings
from deepresearch.testing.web import OfflineWeb

from .conftest import QUESTION, run_options
from .reading import cited_quotes, docx_links, docx_text, odt_text, pdf_links, pdf_text

DOCX = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"


def test_the_report_downloads_as_pdf_and_docx(bee_web: OfflineWeb, tmp_path: Path) -> None:
    settings = load_settings(
        **run_options(bee_web, tmp_path / "data"), database_url=f"sqlite:///{tmp_path / 's.db'}"
    )
    with (
        BackgroundServer(create_app(settings)) as server,
        httpx.Client(base_url=server.url, timeout=60) as client,
    ):
        job_id = client.post("/v1/research", json={"question": QUESTION}).json()["id"]
        deadline = time.monotonic() + 120
        while client.get(f"/v1/research/{job_id}").json()["status"] != "COMPLETED":
            assert time.monotonic() < deadline
            time.sleep(0.2)
        report = client.get(f"/v1/research/{job_id}/report?format=json").json()
        quotes = cited_quotes(report)
        cited = {source["url"] for source in report["sources"]}

        pdf = client.get(f"/v1/research/{job_id}/report?format=pdf")
        assert pdf.status_code == 200
        assert pdf.headers["content-type"] == "application/pdf"
        assert pdf.headers["content-disposition"] == f'attachment; filename="{job_id}.pdf"'
        # a download is never sniffed into something a browser runs, nor framed
        for name, value in SECURITY_HEADERS.items():
            assert pdf.headers[name] == value
        english = [quote for quote in quotes if quote.isascii()]
        assert english and all(quote in pdf_text(pdf.content) for quote in english)
        assert set(pdf_links(pdf.content)) == cited

        word = client.get(f"/v1/research/{job_id}/report", params={"format": "docx"})
        assert word.status_code == 200 and word.headers["content-type"] == DOCX
        assert word.headers["content-disposition"] == f'attachment; filename="{job_id}.docx"'
        assert word.headers["x-content-type-options"] == "nosniff"
        assert all(quote in docx_text(word.content) for quote in quotes)
        assert {url for _, url in docx_links(word.content)} == cited

        odt = client.get(f"/v1/research/{job_id}/report", params={"format": "odt"})
        assert odt.headers["content-type"] == "application/vnd.oasis.opendocument.text"
        assert odt.headers["content-disposition"] == f'attachment; filename="{job_id}.odt"'
        assert all(quote in odt_text(odt.content) for quote in quotes)

        # the text formats drawn from the document download under their own extensions
        for fmt, file_name, media in (
            ("latex", f"{job_id}.tex", "application/x-tex; charset=utf-8"),
            ("bibtex", f"{job_id}.bib", "application/x-bibtex; charset=utf-8"),
            ("ris", f"{job_id}.ris", "application/x-research-info-systems; charset=utf-8"),
            ("csljson", f"{job_id}.json", "application/vnd.citationstyles.csl+json; charset=utf-8"),
        ):
            got = client.get(f"/v1/research/{job_id}/report", params={"format": fmt})
            assert got.status_code == 200 and got.headers["content-type"] == media, fmt
            assert got.headers["content-disposition"] == f'attachment; filename="{file_name}"'
            assert all(url in got.text for url in cited), fmt
        assert len(rispy.loads(client.get(f"/v1/research/{job_id}/report?format=ris").text)) == len(
            cited
        )

        unknown = client.get(f"/v1/research/{job_id}/report?format=rtf")
        assert unknown.status_code == 422
        assert client.get("/v1/research/run-000000000000/report?format=pdf").status_code == 404
        # the id rule of every edge: a path id that is not a run id is a 422, not a lookup
        bad = client.get("/v1/research/run%20one/report?format=pdf")
        assert bad.status_code == 422 and bad.json()["type"] == "/problems/invalid-job-id"
