"""URL provenance: a run fetches only URLs that came from a search result, the local
corpus, or the user (the question and the run's options), never a URL that appeared in a
page's text. A page that says "visit http://evil/?data=..." therefore cannot make the run
send anything anywhere. Pure bookkeeping; the one place that fetches
(``stages/reading.py``) asks ``Provenance.allows`` first and refuses, with an event,
whatever it does not know.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Literal
from urllib.parse import urlsplit, urlunsplit

from deepresearch.models import SearchHit

#: ``library``: a page of the owner's library, read again because it is older than the
#: freshness window (``stages/library.py``)
Origin = Literal["search", "corpus", "question", "options", "library"]

_URL = re.compile(r"https?://[^\s<>\"'`]+", re.I)
_TRAILING = ".,;:!?)]}'\""


def urls_in(text: str) -> list[str]:
    """The http(s) URLs written in ``text``, without trailing punctuation, in order."""
    return [match.group(0).rstrip(_TRAILING) for match in _URL.finditer(text)]


def url_key(url: str) -> str:
    """The form URLs are compared in: scheme and host lower-cased, the fragment dropped."""
    try:
        parts = urlsplit(url.strip())
    except ValueError:
        return url.strip()
    return urlunsplit((parts.scheme.lower(), parts.netloc.lower(), parts.path, parts.query, ""))


class Provenance:
    """Where each URL the run may fetch came from."""

    def __init__(self) -> None:
        self._origins: dict[str, Origin] = {}

    @classmethod
    def for_run(cls, question: str, option_urls: Iterable[str] = ()) -> Provenance:
        """A ledger that allows the URLs the user wrote in the question or passed as options."""
        ledger = cls()
        for url in urls_in(question):
            ledger.add(url, "question")
        for url in option_urls:
            ledger.add(url, "options")
        return ledger

    def add(self, url: str, origin: Origin) -> None:
        self._origins.setdefault(url_key(url), origin)

    def add_hits(self, hits: Iterable[SearchHit]) -> None:
        """Record the URLs a search provider returned (the local corpus as ``corpus``)."""
        for hit in hits:
            self.add(hit.url, "corpus" if hit.provider == "local" else "search")

    def origin(self, url: str) -> Origin | None:
        return self._origins.get(url_key(url))

    def allows(self, url: str) -> bool:
        return self.origin(url) is not None

    def __len__(self) -> int:
        return len(self._origins)


REFUSED = "refused: the URL came from no search result, corpus or user request"
