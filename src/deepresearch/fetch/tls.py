"""The TLS context the run's HTTP clients share (the search providers' client and the
fetcher's pinned transport), made once per process.

Making one reads and parses the CA bundle (certifi's), about 25 ms of CPU. Made for each
run's two clients, that was some 50 ms at the start of every run on the event loop, which a
service running many jobs in one process felt as latency on every other request (issue 27,
docs/benchmarks.md ``busy_latency``). A context is safe to share between connections and
threads; every client here speaks HTTP/1.1 only, so the ALPN protocols httpcore sets on it
are the same for all."""

from __future__ import annotations

import functools
import ssl

import httpx


@functools.cache
def tls_context() -> ssl.SSLContext:
    """httpx's default verifying context (certifi's CAs, or ``SSL_CERT_FILE`` /
    ``SSL_CERT_DIR`` as set when it is first made)."""
    return httpx.create_ssl_context()
