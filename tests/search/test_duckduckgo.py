"""DuckDuckGo adapter against a loopback server serving DuckDuckGo's HTML results page."""

from __future__ import annotations

import pytest

from deepresearch.errors import RateLimited
from deepresearch.search.duckduckgo import decode_href, parse_results

PAGE = """<!DOCTYPE html>
<html><head><title>battery storage at DuckDuckGo</title></head><body>
<div id="links" class="results">
  <div class="result results_links results_links_deep result--ad">
    <div class="links_main links_deep result__body">
      <h2 class="result__title"><a rel="nofollow" class="result__a"
        href="https://duckduckgo.com/y.js?ad_domain=shop.example&amp;u3=x">Buy batteries</a></h2>
      <a class="result__snippet" href="https://duckduckgo.com/y.js?u3=x">Sponsored</a>
    </div>
  </div>
  <div class="result results_links results_links_deep web-result ">
    <div class="links_main links_deep result__body">
      <h2 class="result__title">
        <a rel="nofollow" class="result__a"
          href="//duckduckgo.com/l/?uddg=https%3A%2F%2Fgrid.example%2Fstorage%3Fa%3D1%26b%3D2&amp;rut=abc">
          Grid <b>battery</b> storage</a>
      </h2>
      <div class="result__extras"><a class="result__url" href="#">grid.example/storage</a></div>
      <a class="result__snippet" href="#">Batteries smooth   <b>peaks</b> &amp; troughs.</a>
      <div class="clear"></div>
    </div>
  </div>
  <div class="result results_links results_links_deep web-result ">
    <div class="links_main links_deep result__body">
      <h2 class="result__title"><a class="result__a" href="https://wiki.example/Battery">Battery</a></h2>
    </div>
  </div>
  <div class="result results_links web-result">
    <h2 class="result__title"><a class="result__a" href="javascript:alert(1)">Bad link</a></h2>
  </div>
  <div class="result results_links web-result">
    <h2 class="result__title"><a class="result__a" href="https://third.example/">Third</a></h2>
    <div class="result__snippet">Third snippet</div>
  </div>
  <div class="nav-link"><form action="/html/" method="post"><input type="submit" value="Next"></form></div>
</div></body></html>
"""

NO_RESULTS = '<html><body><div class="no-results">No results.</div></body></html>'
CHALLENGE = (
    '<html><body><div class="anomaly-modal__title">Unfortunately, bots...</div></body></html>'
)


async def test_posts_the_form_and_parses_results(search_once) -> None:
    hits, request = await search_once(
        "duckduckgo", PAGE, '"battery storage" site:grid.example', limit=10
    )
    assert (request.method, request.path) == ("POST", "/html/")
    assert request.headers["content-type"] == "application/x-www-form-urlencoded"
    assert request.form() == {"q": ['"battery storage" site:grid.example']}
    assert [hit.url for hit in hits] == [
        "https://grid.example/storage?a=1&b=2",
        "https://wiki.example/Battery",
        "https://third.example/",
    ]
    first = hits[0]
    assert first.title == "Grid battery storage"
    assert first.snippet == "Batteries smooth peaks & troughs."
    assert (first.provider, first.rank, first.score, first.published) == (
        "duckduckgo",
        0,
        None,
        None,
    )
    assert hits[1].snippet == "" and hits[2].snippet == "Third snippet"
    assert [hit.rank for hit in hits] == [0, 1, 2]


async def test_no_results_page(provider_server, connect) -> None:
    provider_server.respond(200, NO_RESULTS)
    assert await connect("duckduckgo").search("q", limit=5) == []


async def test_bot_challenge_is_rate_limited(provider_server, connect) -> None:
    provider_server.respond(202, CHALLENGE)
    with pytest.raises(RateLimited) as caught:
        await connect("duckduckgo").search("q", limit=5)
    assert "--search" in caught.value.hint
    assert len(provider_server.requests) == 1


def test_parse_empty_page() -> None:
    assert parse_results("  ", query="q", limit=5) == []


@pytest.mark.parametrize(
    ("href", "expected"),
    [
        (
            "//duckduckgo.com/l/?uddg=https%3A%2F%2Fa.example%2Fx%3Fy%3D1&rut=z",
            "https://a.example/x?y=1",
        ),
        ("/l/?uddg=http%3A%2F%2Fb.example%2F", "http://b.example/"),
        ("https://c.example/page", "https://c.example/page"),
        ("https://duckduckgo.com/y.js?ad_domain=x", ""),
        ("//duckduckgo.com/l/?rut=only", ""),
        ("javascript:alert(1)", ""),
        ("", ""),
    ],
)
def test_decode_href(href: str, expected: str) -> None:
    assert decode_href(href) == expected
