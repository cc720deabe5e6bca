"""The offline web's search engine: BM25 over the corpus, filters, phrase boost, paging.

Titles count twice. A document containing every quoted phrase of the query is lifted above
every document that does not. ``site:`` and ``-site:`` filter on the host of the document's
original URL; ``filetype:pdf``/``filetype:html`` on its format.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from urllib.parse import urlsplit

from deepresearch.core.bm25 import BM25Okapi
from deepresearch.testing.corpus import CorpusDocument
from deepresearch.testing.searchquery import (
    ParsedQuery,
    make_snippet,
    parse_query,
    phrase_pattern,
)
from deepresearch.testing.tokens import tokenize

TITLE_WEIGHT = 2


@dataclass(frozen=True)
class RankedDocument:
    """One search result."""

    document: CorpusDocument
    score: float
    #: 1-based position in the whole ranking
    position: int
    snippet: str


@dataclass(frozen=True)
class SearchPage:
    """One page of results for one query."""

    query: str
    parsed: ParsedQuery
    page: int
    total: int
    results: list[RankedDocument]


def _host(url: str | None) -> str:
    if not url:
        return ""
    try:
        host = urlsplit(url).hostname or ""
    except ValueError:
        return ""
    return host.lower().removeprefix("www.")


def _site_match(host: str, domain: str) -> bool:
    return bool(host) and (host == domain or host.endswith("." + domain))


class OfflineIndex:
    """A BM25 index over a fixed list of documents."""

    def __init__(self, documents: Sequence[CorpusDocument]) -> None:
        self.documents = list(documents)
        self._hosts = [_host(document.url) for document in self.documents]
        self._titles = [frozenset(tokenize(document.title)) for document in self.documents]
        frequencies: list[Counter[str]] = []
        for document in self.documents:
            counts = Counter(tokenize(document.text))
            for term in tokenize(document.title):
                counts[term] += TITLE_WEIGHT
            frequencies.append(counts)
        self.bm25 = BM25Okapi(frequencies)

    def _allowed(self, index: int, parsed: ParsedQuery) -> bool:
        host = self._hosts[index]
        if parsed.sites and not any(_site_match(host, site) for site in parsed.sites):
            return False
        if any(_site_match(host, site) for site in parsed.excluded_sites):
            return False
        return not parsed.filetypes or self.documents[index].format in parsed.filetypes

    def _contains_phrases(self, index: int, parsed: ParsedQuery) -> bool:
        document = self.documents[index]
        return all(
            pattern.search(document.title) or pattern.search(document.text)
            for pattern in (phrase_pattern(phrase) for phrase in parsed.phrases)
        )

    def rank(self, parsed: ParsedQuery) -> list[tuple[int, float]]:
        """Every matching ``(doc_index, score)``, best first."""
        if parsed.terms:
            scores = self.bm25.scores(parsed.terms)
        elif parsed.phrases:
            # a phrase of stopwords only ("to be or not to be"): scan for it
            scores = {index: 1.0 for index in range(len(self.documents))}
        else:
            return []
        scores = {index: s for index, s in scores.items() if self._allowed(index, parsed)}
        if parsed.intitle:
            wanted = set(parsed.intitle)
            for index in scores:
                if wanted <= self._titles[index]:
                    scores[index] *= 1.5
        if parsed.phrases:
            lift = max(scores.values(), default=0.0)
            with_phrase = {index for index in scores if self._contains_phrases(index, parsed)}
            if not parsed.terms:
                scores = {index: scores[index] for index in with_phrase}
            else:
                for index in with_phrase:
                    scores[index] += lift
        return sorted(scores.items(), key=lambda item: (-item[1], item[0]))

    def search(self, query: str, *, page: int = 1, per_page: int = 10) -> SearchPage:
        """Results ``(page - 1) * per_page`` to ``page * per_page`` for ``query``."""
        parsed = parse_query(query)
        ranking = self.rank(parsed)
        first = max(0, (page - 1) * per_page)
        results = [
            RankedDocument(
                document=self.documents[index],
                score=score,
                position=first + offset + 1,
                snippet=make_snippet(self.documents[index].text, parsed.terms, parsed.phrases),
            )
            for offset, (index, score) in enumerate(ranking[first : first + per_page])
        ]
        return SearchPage(
            query=query, parsed=parsed, page=page, total=len(ranking), results=results
        )
