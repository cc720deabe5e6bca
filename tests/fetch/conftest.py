from __future__ import annotations

from collections.abc import Iterator

import pytest

from deepresearch.fetch.http_fetcher import reset_shared_breakers


@pytest.fixture(autouse=True)
def _fresh_breakers() -> Iterator[None]:
    """Loopback test servers share 127.0.0.1: start every test with closed breakers."""
    reset_shared_breakers()
    yield
    reset_shared_breakers()
