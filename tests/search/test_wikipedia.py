"""Wikipedia adapter against a loopback server speaking the MediaWiki Action API: the
search request, the page addresses it builds, and the errors MediaWiki sends with HTTP 200."""

from __future__ import annotations

import pytest

from deepresearch.errors import ProviderAuthError, ProviderError, ProviderUnavailable, RateLimited
from deepresearch.search.wikipedia import WikipediaSearch

RESULTS = {
    "batchcomplete": True,
    "continue": {"sroffset": 2, "continue": "-||"},
    "query": {
        "searchinfo": {"totalhits": 4153},
        "search": [
            {
                "ns": 0,
                "title": "Solid-state battery",
                "pageid": 5398346,
                "snippet": 'A <span class="searchmatch">solid</span>-state battery uses a '
                "solid electrolyte &amp; electrodes",
            },
            {
                "ns": 0,
                "title": "Lithium–air battery",
                "pageid": 1234,
                "snippet": "Cathode &quot;air&quot; reactions",
            },
        ],
    },
}


async def test_request_shape_and_mapping(search_once, provider_server) -> None:
    hits, request = await search_once("wikipedia", RESULTS, '"solid state" battery', limit=7)
    assert (request.method, request.path) == ("GET", "/w/api.php")
    assert request.query == {
        "action": ["query"],
        "list": ["search"],
        "srsearch": ['"solid state" battery'],
        "srlimit": ["7"],
        "srprop": ["snippet"],
        "format": ["json"],
        "formatversion": ["2"],
    }
    base = provider_server.base_url
    assert [hit.url for hit in hits] == [
        f"{base}/wiki/Solid-state_battery",
        f"{base}/wiki/Lithium%E2%80%93air_battery",
    ]
    first = hits[0]
    assert first.title == "Solid-state battery"
    assert first.snippet == "A solid-state battery uses a solid electrolyte & electrodes"
    assert hits[1].snippet == 'Cathode "air" reactions'
    assert (first.provider, first.rank, first.published, first.content) == (
        "wikipedia",
        0,
        None,
        None,
    )


async def test_the_default_site_is_english_wikipedia(client) -> None:
    adapter = WikipediaSearch(client)
    assert adapter.page_url("Ada Lovelace") == "https://en.wikipedia.org/wiki/Ada_Lovelace"
    assert adapter.page_url("AC/DC") == "https://en.wikipedia.org/wiki/AC/DC"
    assert adapter.page_url("Café?") == "https://en.wikipedia.org/wiki/Caf%C3%A9%3F"


async def test_no_matches(search_once) -> None:
    body = {"batchcomplete": True, "query": {"searchinfo": {"totalhits": 0}, "search": []}}
    hits, _ = await search_once("wikipedia", body, "zzzxq", limit=5)
    assert hits == []


def api_error(code: str, info: str) -> dict[str, object]:
    return {
        "error": {"code": code, "info": info, "docref": "See https://en.wikipedia.org/w/api.php"},
        "servedby": "mw-api-ext.eqiad.main-1",
    }


@pytest.mark.parametrize(
    ("code", "kind"),
    [
        ("ratelimited", RateLimited),
        ("maxlag", ProviderUnavailable),
        ("readonly", ProviderUnavailable),
        ("internal_api_error_DBQueryError", ProviderUnavailable),
        ("readapidenied", ProviderAuthError),
        ("srsearch-text-disabled", ProviderError),
    ],
)
async def test_errors_sent_with_http_200(code, kind, provider_server, connect) -> None:
    secret_info = "You need read permission; internal host db1234"
    provider_server.respond(200, api_error(code, secret_info), mediawiki_api_error=code)
    with pytest.raises(ProviderError) as caught:
        await connect("wikipedia").search("q", limit=3)
    assert type(caught.value) is kind
    assert code in caught.value.message, "the API's error code tells the user what happened"
    assert secret_info not in str(caught.value) and "db1234" not in str(caught.value)
    assert caught.value.hint and caught.value.provider == "wikipedia"
    assert len(provider_server.requests) == 1


async def test_an_error_code_that_is_not_a_code_is_not_echoed(provider_server, connect) -> None:
    provider_server.respond(200, {"error": {"code": "<script>alert(1)</script>", "info": "x"}})
    with pytest.raises(ProviderError) as caught:
        await connect("wikipedia").search("q", limit=3)
    assert "script" not in str(caught.value)
    assert "API error unknown" in caught.value.message
