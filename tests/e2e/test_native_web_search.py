"""A research run whose search is a provider-native web search (``anthropic_web``, seed
002): a loopback server speaking Anthropic's Messages API lists real pages of the offline
web, and the run fetches, reads and verifies them like any other provider's results. The
model's own words in the reply (its text, its ``cited_text``) never become a source's text
or a quote."""

from __future__ import annotations

from pathlib import Path

import httpx

from deepresearch.models import Report
from deepresearch.runner import run_research
from deepresearch.testing.web import OfflineWeb
from tests.search.conftest import anthropic_body, serving

from .helpers import assert_citations_hold, offline_settings

CLAIMED = "Claude says this page proves everything"


async def test_a_run_reads_and_verifies_what_the_native_search_found(
    offline_web: OfflineWeb, hotpot_question: str, tmp_path: Path
) -> None:
    async with httpx.AsyncClient() as client:
        params = {"q": hotpot_question, "format": "json"}
        found = await client.get(offline_web.search_url, params=params)
    pages = [(hit["url"], hit["title"], CLAIMED) for hit in found.json()["results"][:5]]
    with serving() as anthropic:
        anthropic.always(200, anthropic_body(pages))
        settings = offline_settings(
            offline_web,
            tmp_path,
            model="none",
            search="anthropic_web",
            anthropic_api_key="sk-ant-e2e",
            search_urls={"anthropic_web": anthropic.base_url},
        )
        report = await run_research(hotpot_question, settings)
    assert isinstance(report, Report) and report.sources
    assert anthropic.requests and all(
        r.path == "/v1/messages" and r.headers["x-api-key"] == "sk-ant-e2e"
        for r in anthropic.requests
    )
    listed = {url for url, _, _ in pages}
    assert {ref.url for ref in report.sources} <= listed
    assert_citations_hold(report, offline_web)  # fetched from the web, quotes in the pages
    assert all(CLAIMED not in item.quote for item in report.evidence)
