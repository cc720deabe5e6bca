"""The offline web over real HTTP (loopback only)."""

from __future__ import annotations

import io
import socket
from collections.abc import Iterator
from datetime import date
from pathlib import Path

import httpx
import pytest
from pypdf import PdfReader

from deepresearch.testing.corpus import CorpusDocument, load_corpus
from deepresearch.testing.pdf import make_pdf
from deepresearch.testing.web import OfflineWeb

DOCS = [
    CorpusDocument(
        id="escape",
        title="Tags & <b>things</b>",
        text='Intro with <script>alert("x")</script> & friends.\n\n## Second part\n\nMore text.',
        url="https://en.wikipedia.org/wiki/Tags",
    ),
    CorpusDocument(
        id="dated",
        title="Zebra migration",
        text="Zebras migrate across the Serengeti every year. " * 3,
        published=date(2021, 7, 4),
        url="https://news.example.com/zebra",
    ),
    CorpusDocument(
        id="okapi",
        title="Okapi",
        text="The okapi is related to the giraffe. It is not a zebra, despite its stripes.",
    ),
    CorpusDocument(
        id="paper",
        title="A paper (draft)",
        text="Portable document text with (parentheses) and a back\\slash.\n\nSecond paragraph.",
        format="pdf",
    ),
    CorpusDocument(id="odd id/é", title="Odd", text="Strange identifiers work too."),
    *[
        CorpusDocument(id=f"filler-{i}", title=f"Filler {i}", text=f"Zebra crossing number {i}.")
        for i in range(15)
    ],
]

RESULT_KEYS = {
    "url",
    "title",
    "content",
    "engine",
    "engines",
    "parsed_url",
    "template",
    "score",
    "category",
    "publishedDate",
    "positions",
    "priority",
}


@pytest.fixture(scope="module")
def web() -> Iterator[OfflineWeb]:
    with OfflineWeb(DOCS) as server:
        yield server


@pytest.fixture
def client(web: OfflineWeb) -> Iterator[httpx.Client]:
    web.reset_log()
    with httpx.Client(base_url=web.base_url, timeout=10) as http:
        yield http


def test_base_url_and_health(web: OfflineWeb, client: httpx.Client) -> None:
    assert web.base_url == f"http://127.0.0.1:{web.port}" and web.port > 0
    response = client.get("/healthz")
    assert response.status_code == 200 and response.text == "ok"
    assert client.get("/robots.txt").status_code == 200
    assert "20 documents" in client.get("/").text


def test_page_is_escaped_html(client: httpx.Client, web: OfflineWeb) -> None:
    response = client.get("/page/escape")
    assert response.status_code == 200
    assert response.headers["content-type"] == "text/html; charset=utf-8"
    html = response.text
    assert html.startswith("<!doctype html>")
    assert "<title>Tags &amp; &lt;b&gt;things&lt;/b&gt;</title>" in html
    assert (
        "<p>Intro with &lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; friends.</p>" in html
    )
    assert "<h2>Second part</h2>" in html
    assert "<script>" not in html
    assert "<article>" in html and "<nav" in html and "<footer" in html
    assert 'name="date"' not in html


def test_dated_page_has_date_metadata(client: httpx.Client) -> None:
    response = client.get("/page/dated")
    assert '<meta name="date" content="2021-07-04">' in response.text
    assert '<meta property="article:published_time" content="2021-07-04T00:00:00+00:00">' in (
        response.text
    )
    assert response.headers["last-modified"] == "Sun, 04 Jul 2021 00:00:00 GMT"


def test_pdf_page_is_a_real_pdf(client: httpx.Client) -> None:
    response = client.get("/page/paper")
    assert response.status_code == 200
    assert response.headers["content-type"] == "application/pdf"
    assert response.content.startswith(b"%PDF-1.4")
    reader = PdfReader(io.BytesIO(response.content))
    text = " ".join(" ".join(page.extract_text() for page in reader.pages).split())
    assert "Portable document text with (parentheses) and a back\\slash." in text
    assert "Second paragraph." in text


def test_odd_ids_are_quoted_in_urls(web: OfflineWeb, client: httpx.Client) -> None:
    url = web.page_url("odd id/é")
    assert url.endswith("/page/odd%20id%2F%C3%A9")
    assert httpx.get(url).status_code == 200
    assert web.document_for_url(url) is not None
    assert web.page_hits("odd id/é") == 1


def test_search_answers_in_searxng_format(web: OfflineWeb, client: httpx.Client) -> None:
    response = client.get("/search", params={"q": "zebra migration", "format": "json"})
    assert response.status_code == 200
    assert response.headers["content-type"] == "application/json"
    payload = response.json()
    assert set(payload) >= {
        "query",
        "number_of_results",
        "results",
        "answers",
        "suggestions",
        "unresponsive_engines",
    }
    assert payload["query"] == "zebra migration"
    assert payload["number_of_results"] == 17
    results = payload["results"]
    assert len(results) == 10
    top = results[0]
    assert set(top) == RESULT_KEYS
    assert top["url"] == web.page_url("dated")
    assert top["title"] == "Zebra migration"
    assert top["engine"] == "offline" and top["engines"] == ["offline"]
    assert top["category"] == "general"
    assert top["publishedDate"] == "2021-07-04T00:00:00"
    assert top["positions"] == [1]
    assert "Zebras migrate" in top["content"] and len(top["content"]) <= 302
    scores = [result["score"] for result in results]
    assert scores == sorted(scores, reverse=True)
    assert all(result["publishedDate"] is None for result in results[1:])


def test_search_pages(client: httpx.Client) -> None:
    first = client.get("/search", params={"q": "zebra", "format": "json"}).json()
    second = client.get("/search", params={"q": "zebra", "format": "json", "pageno": 2}).json()
    assert len(first["results"]) == 10 and len(second["results"]) == 7
    assert second["results"][0]["positions"] == [11]
    urls = [result["url"] for result in first["results"] + second["results"]]
    assert len(set(urls)) == 17
    far = client.get("/search", params={"q": "zebra", "format": "json", "pageno": 9}).json()
    assert far["results"] == [] and far["number_of_results"] == 17


def test_phrase_boost_and_site_filters(web: OfflineWeb, client: httpx.Client) -> None:
    def urls(query: str) -> list[str]:
        params = {"q": query, "format": "json"}
        return [r["url"] for r in client.get("/search", params=params).json()["results"]]

    assert urls('"not a zebra"')[0] == web.page_url("okapi")
    assert urls("zebra site:example.com") == [web.page_url("dated")]
    assert web.page_url("dated") not in urls("zebra -site:news.example.com")
    assert urls("zebra filetype:pdf") == []
    # a phrase of stopwords only is looked for literally
    assert urls('"it is"') == [web.page_url("okapi")]
    assert urls('"to be or"') == []


def test_bad_search_requests_are_400(client: httpx.Client) -> None:
    for params in [
        {"q": "zebra"},
        {"q": "zebra", "format": "html"},
        {"q": "", "format": "json"},
        {"format": "json"},
        {"q": "zebra", "format": "json", "pageno": "0"},
        {"q": "zebra", "format": "json", "pageno": "abc"},
        {"q": "zebra", "format": "json", "pageno": "99999999999999999999"},
    ]:
        response = client.get("/search", params=params)
        assert response.status_code == 400, params
        assert response.json()["error"]


def test_unknown_paths_are_404(client: httpx.Client) -> None:
    assert client.get("/page/nope").status_code == 404
    assert client.get("/page/").status_code == 404
    assert client.get("/nothing/here").status_code == 404


def test_request_log_counts_hits(web: OfflineWeb, client: httpx.Client) -> None:
    client.get("/page/okapi")
    client.get("/page/okapi")
    client.head("/page/dated")
    client.get("/search", params={"q": "okapi", "format": "json"})
    assert web.page_hits("okapi") == 2
    assert web.page_hits("dated") == 0  # HEAD is logged but is not a fetch
    assert web.hits_for_path("/page/dated") == 1
    assert web.hits_for_path("/search") == 1
    assert web.search_queries() == ["okapi"]
    assert [(r.method, r.path, r.status) for r in web.requests] == [
        ("GET", "/page/okapi", 200),
        ("GET", "/page/okapi", 200),
        ("HEAD", "/page/dated", 200),
        ("GET", "/search", 200),
    ]
    assert web.requests[-1].params() == {"q": "okapi", "format": "json"}
    web.reset_log()
    assert web.page_hits("okapi") == 0 and web.requests == []


def test_hostile_queries_are_answered_and_the_server_survives(
    web: OfflineWeb, client: httpx.Client
) -> None:
    hostile = [
        "%ZZ%00%FF",
        "q=%00&format=json",
        "q=" + "a%20" * 5000 + "&format=json",
        "q=%22%22%22&format=json",
        "q=site%3A&format=json",
        "q=-&format=json",
        "q=%F0%9F%98%80+%E4%B8%AD%E6%96%87&format=json",
        "q=(((((&format=json&format=xml",
        "q=a&format=json&" + "&".join(f"k{i}=v" for i in range(500)),
        "q=a&&&==&format=json",
    ]
    for query in hostile:
        response = client.get(f"/search?{query}")
        assert response.status_code in (200, 400), query
        response.json()
    for path in ["/page/%00", "/page/..%2F..%2Fetc%2Fpasswd", "/%", "//page//x"]:
        assert client.get(path).status_code == 404
    for raw in [
        b"GARBAGE\r\n\r\n",
        b"GET /" + b"a" * 70_000 + b" HTTP/1.1\r\n\r\n",
        b"\x00\xff\r\n\r\n",
    ]:
        with socket.create_connection(("127.0.0.1", web.port), timeout=5) as sock:
            sock.sendall(raw)
            assert sock.recv(64)  # an error answer (HTTP/0.9 style for one-word lines)
    assert client.get("/healthz").text == "ok"


def test_concurrent_requests(web: OfflineWeb) -> None:
    import concurrent.futures

    web.reset_log()
    with httpx.Client(timeout=10) as http, concurrent.futures.ThreadPoolExecutor(8) as pool:
        codes = list(pool.map(lambda _: http.get(web.page_url("okapi")).status_code, range(40)))
    assert codes == [200] * 40
    assert web.page_hits("okapi") == 40


def test_lifecycle() -> None:
    server = OfflineWeb(DOCS[:1])
    with pytest.raises(RuntimeError):
        _ = server.base_url
    server.start()
    try:
        with pytest.raises(RuntimeError):
            server.start()
        assert httpx.get(f"{server.base_url}/healthz").text == "ok"
    finally:
        server.stop()
    server.stop()
    assert not server.running
    with pytest.raises(ValueError):
        OfflineWeb([DOCS[0], DOCS[0]])


def test_folder_corpus_files_are_served_as_they_are(tmp_path: Path) -> None:
    root = tmp_path / "site"
    root.mkdir()
    reportlab_canvas = pytest.importorskip("reportlab.pdfgen.canvas")
    canvas = reportlab_canvas.Canvas(str(root / "report.pdf"))
    canvas.drawString(72, 720, "Quarterly numbers from reportlab")
    canvas.save()
    raw_html = "<!doctype html><title>Raw</title><p>Kept byte for byte</p>"
    (root / "raw.html").write_text(raw_html, encoding="utf-8")
    (root / "notes.md").write_text("# Notes\n\nSome *markdown* notes.", encoding="utf-8")
    with OfflineWeb(load_corpus(root)) as server, httpx.Client(base_url=server.base_url) as http:
        pdf = http.get("/page/report")
        assert pdf.headers["content-type"] == "application/pdf"
        assert pdf.content == (root / "report.pdf").read_bytes()
        assert http.get("/page/raw").text == raw_html
        notes = http.get("/page/notes").text
        assert "<h1>Notes</h1>" in notes and "<p>Some *markdown* notes.</p>" in notes
        hits = http.get("/search", params={"q": "quarterly", "format": "json"}).json()
        assert hits["results"][0]["url"] == server.page_url("report")


def test_generated_pdf_matches_the_generator(web: OfflineWeb) -> None:
    paper = web.document("paper")
    assert paper is not None
    assert httpx.get(web.page_url("paper")).content == make_pdf(paper.text, title=paper.title)
