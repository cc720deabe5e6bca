"""Web adapters for services that ask callers to pace themselves.

arXiv asks for one request at a time and three seconds between them, NCBI for at most three
requests a second without a key, Semantic Scholar for one a second with a key. A
``PacedAdapter`` sends every request of one adapter instance (so of one run) through a
``HostGate`` (``fetch.politeness``): at most ``max_concurrent`` in flight and request starts
at least ``min_interval_s`` apart. Retries inside ``http.send`` wait their own backoff.
``_request_at`` reaches a second endpoint of the same service (PubMed's esummary).
"""

from __future__ import annotations

import asyncio
from typing import Any, Unpack

import httpx

from deepresearch.fetch.politeness import HostGate
from deepresearch.resilience import CircuitBreaker
from deepresearch.search.adapter import HttpSearchAdapter
from deepresearch.search.http import (
    RequestParts,
    RetryPolicy,
    Target,
    json_object,
    send,
)


class PacedAdapter(HttpSearchAdapter):
    """An ``HttpSearchAdapter`` whose requests start at least ``min_interval_s`` apart."""

    def __init__(
        self,
        client: httpx.AsyncClient,
        base_url: str,
        target: Target,
        *,
        min_interval_s: float,
        max_concurrent: int = 1,
        timeout_s: float = 8.0,
        retry: RetryPolicy | None = None,
        breaker: CircuitBreaker | None = None,
    ) -> None:
        super().__init__(
            client, base_url, target, timeout_s=timeout_s, retry=retry, breaker=breaker
        )
        self._base_url = base_url.rstrip("/")
        #: the least time between two request starts, in seconds
        self.min_interval_s = min_interval_s
        self._gate = HostGate(max_concurrent=max_concurrent, min_interval_s=min_interval_s)

    async def _request(self, method: str, **parts: Unpack[RequestParts]) -> httpx.Response:
        return await self._request_at(self._endpoint, method, **parts)

    async def _request_at(
        self, endpoint: str, method: str, **parts: Unpack[RequestParts]
    ) -> httpx.Response:
        """One paced request to ``endpoint`` with the adapter's retry, breaker and target."""
        loop = asyncio.get_running_loop()
        async with self._gate.slot(loop.time, asyncio.sleep):
            return await send(
                self._client,
                method,
                endpoint,
                target=self._target,
                timeout_s=self._timeout_s,
                retry=self._retry,
                breaker=self._breaker,
                **parts,
            )

    async def _json_at(
        self, endpoint: str, method: str, *, hint: str = "", **parts: Unpack[RequestParts]
    ) -> dict[str, Any]:
        response = await self._request_at(endpoint, method, **parts)
        return json_object(response, self._target, hint=hint)
