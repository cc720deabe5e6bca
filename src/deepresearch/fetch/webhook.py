"""Webhook deliveries (issue 25): a watch's change report POSTed to the URL its owner
gave, through the fetcher's own address policy and pinned transport (``guard.py``,
``transport.py``), so a webhook can reach no private address a page could not.

* The URL is ``https`` to a public address, or ``http``/``https`` to a loopback IP
  literal (a receiver on the same machine); anything else is refused when the watch is
  added (``vet_webhook``) and again, resolved afresh, at each delivery.
* The body is signed: ``X-Deepresearch-Signature: sha256=<hex>``, the HMAC-SHA256 of the
  exact bytes sent, keyed by the watch's secret (shown once, when the watch is added).
* ``attempt`` is one POST and what it came to: delivered, worth retrying (a network
  error, a 5xx, 408 or 429) or not (a refused URL, another 4xx). The service's outbox
  (``service/watch_delivery.py``) makes one attempt per claim and keeps the backoff in
  the database; ``deliver`` retries in place with the backoff of ``resilience/``."""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import ipaddress
import time
from collections.abc import Callable
from dataclasses import dataclass

import httpx

from deepresearch.errors import FetchBlocked, FetchError
from deepresearch.fetch.guard import AddressGuard, Resolver, Target
from deepresearch.fetch.transport import PIN_EXTENSION, Pin, PinnedTransport
from deepresearch.resilience.retry import backoff_delay

SIGNATURE_HEADER = "X-Deepresearch-Signature"
_RETRIED = frozenset({408, 429})


def sign(secret: str, body: bytes) -> str:
    """The signature header's value for ``body``."""
    return "sha256=" + hmac.new(secret.encode("utf-8"), body, hashlib.sha256).hexdigest()


def _loopback(host: str) -> bool:
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


async def vet_webhook(url: str, resolver: Resolver | None = None) -> Target:
    """The vetted target of a webhook URL; ``FetchBlocked`` when it may not be used."""
    try:
        parsed = httpx.URL(url)
    except (httpx.InvalidURL, ValueError, TypeError):
        raise FetchBlocked("the webhook is not a URL") from None
    host = parsed.host
    if parsed.scheme in ("http", "https") and _loopback(host):
        port = parsed.port or (443 if parsed.scheme == "https" else 80)
        shown = f"[{host}]" if ":" in host else host
        return await AddressGuard([f"{shown}:{port}"], resolver).vet(url)
    if parsed.scheme != "https":
        raise FetchBlocked("a webhook must be an https URL (or http to a loopback address)")
    try:
        return await AddressGuard((), resolver).vet(url)
    except FetchBlocked:
        raise FetchBlocked(
            "a webhook may not point to a private or local address",
            hint="give an https URL on the internet, or a loopback address",
        ) from None


async def post(
    url: str, body: bytes, secret: str, *, resolver: Resolver | None = None, timeout_s: float = 10
) -> int:
    """POST ``body`` (JSON) to the vetted ``url``, signed; the response's status."""
    target = await vet_webhook(url, resolver)
    request = httpx.Request(
        "POST",
        target.url,
        content=body,
        headers={
            "Content-Type": "application/json",
            "User-Agent": "deepresearch-watch",
            SIGNATURE_HEADER: sign(secret, body),
        },
        extensions={
            PIN_EXTENSION: Pin(target.host, target.addresses),
            "timeout": httpx.Timeout(timeout_s).as_dict(),
        },
    )
    async with PinnedTransport() as transport:
        response = await transport.handle_async_request(request)
        await response.aread()
        await response.aclose()
    return response.status_code


@dataclass(frozen=True)
class Attempt:
    """What one POST came to: taken, or not and whether trying again may help (a network
    error, a 5xx, 408, 429), with one line saying what happened."""

    delivered: bool
    retry: bool = False
    error: str | None = None


def outcome(status: int) -> Attempt:
    """The attempt a response's status makes (pure)."""
    if 200 <= status < 300:
        return Attempt(delivered=True)
    retry = not (400 <= status < 500) or status in _RETRIED
    return Attempt(delivered=False, retry=retry, error=f"the receiver answered {status}")


async def attempt(
    url: str, body: bytes, secret: str, *, resolver: Resolver | None = None, timeout_s: float = 10
) -> Attempt:
    """One signed POST of ``body`` to ``url`` (vetted afresh), never raising."""
    try:
        status = await post(url, body, secret, resolver=resolver, timeout_s=timeout_s)
    except FetchBlocked as exc:
        return Attempt(delivered=False, error=exc.message)
    except (FetchError, httpx.HTTPError, OSError) as exc:
        return Attempt(delivered=False, retry=True, error=f"{type(exc).__name__}: {exc}"[:300])
    return outcome(status)


def deliver(
    url: str,
    body: bytes,
    secret: str,
    *,
    attempts: int = 5,
    base_s: float = 1.0,
    cap_s: float = 60.0,
    resolver: Resolver | None = None,
    sleep: Callable[[float], None] = time.sleep,
) -> bool:
    """Deliver ``body`` with up to ``attempts`` tries, sleeping between them; whether the
    receiver took it. (The service sends through its outbox instead, one ``attempt`` a
    claim: ``service/watch_delivery.py``.)"""
    for tried in range(attempts):
        result = asyncio.run(attempt(url, body, secret, resolver=resolver))
        if result.delivered:
            return True
        if not result.retry:
            return False
        if tried + 1 < attempts:
            sleep(backoff_delay(tried, base_s=base_s, cap_s=cap_s, jitter=0.5))
    return False
