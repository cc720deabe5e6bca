"""arXiv adapter against a loopback server speaking the arXiv query API (Atom): the query
it builds, the feed it reads, the error entries and broken bodies, and its pacing."""

from __future__ import annotations

import asyncio
import itertools
from datetime import UTC, datetime

import pytest

from deepresearch.errors import ProviderError
from deepresearch.search.arxiv import ArxivSearch, abs_url, arxiv_query

FEED = b"""<?xml version="1.0" encoding="UTF-8"?>
<feed xmlns="http://www.w3.org/2005/Atom" xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/"
      xmlns:arxiv="http://arxiv.org/schemas/atom">
  <link href="http://arxiv.org/api/query?search_query%3Dall%3Aelectron" rel="self"/>
  <title type="html">ArXiv Query: search_query=all:electron&amp;id_list=&amp;start=0</title>
  <id>http://arxiv.org/api/cHxbiOdZaP56ODnBPIenZhzg5f8</id>
  <updated>2024-05-02T00:00:00-04:00</updated>
  <opensearch:totalResults>1000</opensearch:totalResults>
  <opensearch:startIndex>0</opensearch:startIndex>
  <opensearch:itemsPerPage>2</opensearch:itemsPerPage>
  <entry>
    <id>http://arxiv.org/abs/hep-ex/0307015v1</id>
    <published>2003-07-07T13:46:39-04:00</published>
    <updated>2003-07-07T13:46:39-04:00</updated>
    <title>Multi-Electron Production at High Transverse Momenta in ep Collisions at
  HERA</title>
    <summary>  Multi-electron production is studied at high electron transverse momentum
  in positron- and electron-proton collisions using the H1 detector at HERA, with
  x &lt; 0.1 and Q^2 &gt; 4.
    </summary>
    <author><name>H1 Collaboration</name></author>
    <arxiv:comment>23 pages, 8 figures and 4 tables</arxiv:comment>
    <link href="http://arxiv.org/abs/hep-ex/0307015v1" rel="alternate" type="text/html"/>
    <link title="pdf" href="http://arxiv.org/pdf/hep-ex/0307015v1" rel="related"
          type="application/pdf"/>
    <arxiv:primary_category term="hep-ex" scheme="http://arxiv.org/schemas/atom"/>
  </entry>
  <entry>
    <id>http://arxiv.org/abs/2101.00001v3</id>
    <published>2021-01-04T18:59:59Z</published>
    <updated>2021-06-01T10:00:00Z</updated>
    <title>Electrons in solids</title>
    <summary>Band structure.</summary>
    <author><name>A. Author</name></author>
  </entry>
</feed>
"""

ERROR_FEED = b"""<?xml version="1.0" encoding="utf-8"?>
<feed xmlns="http://www.w3.org/2005/Atom" xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/">
  <title xmlns="http://www.w3.org/2005/Atom">ArXiv Query: search_query=&amp;id_list=1234.12345</title>
  <id xmlns="http://www.w3.org/2005/Atom">http://arxiv.org/api/kvuntZ8c9a4Eq5CF7KY03nMug+Q</id>
  <opensearch:totalResults>1</opensearch:totalResults>
  <entry xmlns="http://www.w3.org/2005/Atom">
    <id xmlns="http://www.w3.org/2005/Atom">http://arxiv.org/api/errors#incorrect_id_format_for_1234.12345</id>
    <title xmlns="http://www.w3.org/2005/Atom">Error</title>
    <summary xmlns="http://www.w3.org/2005/Atom">incorrect id format for 1234.12345</summary>
    <updated xmlns="http://www.w3.org/2005/Atom">2007-10-12T00:00:00-04:00</updated>
    <author xmlns="http://www.w3.org/2005/Atom"><name>arXiv api core</name></author>
  </entry>
</feed>
"""


async def test_request_shape_and_mapping(search_once) -> None:
    hits, request = await search_once(
        "arxiv", FEED, "How are electrons produced in ep collisions at HERA?", limit=4
    )
    assert (request.method, request.path) == ("GET", "/api/query")
    assert request.query == {
        "search_query": [
            "all:electrons AND all:produced AND all:ep AND all:collisions AND all:hera"
        ],
        "start": ["0"],
        "max_results": ["4"],
        "sortBy": ["relevance"],
    }
    assert [hit.url for hit in hits] == [
        "https://arxiv.org/abs/hep-ex/0307015",
        "https://arxiv.org/abs/2101.00001",
    ]
    first = hits[0]
    assert first.title == (
        "Multi-Electron Production at High Transverse Momenta in ep Collisions at HERA"
    )
    assert first.snippet.startswith("Multi-electron production is studied at high electron")
    assert "x < 0.1 and Q^2 > 4." in first.snippet, "math in an abstract is not mistaken for tags"
    assert first.published == datetime(2003, 7, 7, 17, 46, 39, tzinfo=UTC)
    assert (first.provider, first.rank) == ("arxiv", 0)
    # the abstract is the hit's text: arxiv.org asks robots to wait 15 s between pages
    assert first.content == f"{first.title}\n\n{first.snippet}"
    assert hits[1].content == "Electrons in solids\n\nBand structure."
    assert hits[1].published == datetime(2021, 1, 4, 18, 59, 59, tzinfo=UTC)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("solid state batteries", "all:solid AND all:state AND all:batteries"),
        # upper-case operators and arXiv field syntax from the user stay plain words
        ("ti:quantum AND au:smith ANDNOT (cat:cs.LG)", "all:ti AND all:quantum AND all:au"),
        ('"graph neural networks" OR transformers', "all:graph AND all:neural"),
        ("what is it", "all:what AND all:is AND all:it"),
        ("?!", ""),
    ],
)
def test_the_query_is_words_only(text, expected) -> None:
    assert arxiv_query(text).startswith(expected)
    for term in arxiv_query(text).split(" AND "):
        assert term == "" or (term.startswith("all:") and term[4:].isalnum()), term


def test_a_query_has_at_most_eight_terms() -> None:
    long = " ".join(f"topic{i}" for i in range(20))
    assert arxiv_query(long).count("all:") == 8


async def test_a_query_without_words_sends_nothing(provider_server, connect) -> None:
    assert await connect("arxiv").search("?! …", limit=3) == []
    assert provider_server.requests == []


@pytest.mark.parametrize(
    ("entry_id", "url"),
    [
        ("http://arxiv.org/abs/2101.00001v12", "https://arxiv.org/abs/2101.00001"),
        ("http://arxiv.org/abs/math/0211159v1", "https://arxiv.org/abs/math/0211159"),
        ("https://arxiv.org/abs/2101.00001", "https://arxiv.org/abs/2101.00001"),
        ("http://elsewhere.example/abs/1", ""),
        ("", ""),
    ],
)
def test_abs_url(entry_id, url) -> None:
    assert abs_url(entry_id) == url


@pytest.mark.parametrize("status", [200, 400])
async def test_an_error_entry_is_an_error(status, provider_server, connect) -> None:
    provider_server.respond(status, ERROR_FEED, content_type="application/atom+xml")
    with pytest.raises(ProviderError) as caught:
        await connect("arxiv").search("electron", limit=3)
    assert type(caught.value) is ProviderError
    assert "1234.12345" not in str(caught.value), "the provider's text is not echoed"
    assert caught.value.hint and caught.value.provider == "arxiv"


@pytest.mark.parametrize(
    "body",
    [
        b"<html><body>Service unavailable</body></html>",
        b"<feed xmlns='http://www.w3.org/2005/Atom'><entry>",
        b'{"results": []}',
        b"",
        b"<rss><channel/></rss>",
    ],
)
async def test_a_body_that_is_not_an_atom_feed(body, provider_server, connect) -> None:
    provider_server.respond(200, body)
    with pytest.raises(ProviderError) as caught:
        await connect("arxiv").search("electron", limit=3)
    assert type(caught.value) is ProviderError
    assert "is not an Atom feed" in caught.value.message
    assert "Service unavailable" not in str(caught.value)


async def test_entities_are_not_expanded(provider_server, connect, tmp_path) -> None:
    """A hostile feed cannot read local files or blow up memory through entities."""
    secret = tmp_path / "secret.txt"
    secret.write_text("TOP-SECRET")
    body = (
        '<?xml version="1.0"?><!DOCTYPE feed [<!ENTITY leak SYSTEM "file://'
        + str(secret)
        + '"><!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]>'
        '<feed xmlns="http://www.w3.org/2005/Atom"><entry>'
        "<id>http://arxiv.org/abs/2101.00001v1</id><title>&leak;&b;</title>"
        "<summary>s</summary></entry></feed>"
    ).encode()
    provider_server.respond(200, body)
    hits = await connect("arxiv").search("electron", limit=3)
    assert all("TOP-SECRET" not in hit.title and "aaaa" not in hit.title for hit in hits)


async def test_requests_are_paced(provider_server, client) -> None:
    provider_server.always(200, FEED)
    adapter = ArxivSearch(client, base_url=provider_server.base_url, min_interval_s=0.3)
    await asyncio.gather(*(adapter.search(f"electron {i}", limit=2) for i in range(3)))
    starts = [request.received for request in provider_server.requests]
    assert len(starts) == 3
    gaps = [later - earlier for earlier, later in itertools.pairwise(starts)]
    assert all(gap >= 0.25 for gap in gaps), gaps  # arXiv asks for one request every 3 s
