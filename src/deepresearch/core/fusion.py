"""Reciprocal rank fusion (RRF): one ranked list from the ranked lists of several providers.

A result's fused score is the sum, over the lists that hold it, of ``1 / (k + rank)`` with
``rank`` 1-based (Cormack, Clarke and Büttcher, SIGIR 2009). Only ranks count, never the
providers' own scores, which do not compare (BM25 from the local corpus, 0-1 relevance from
a web API). ``k`` damps the head of each list: with the usual ``k = 60`` the first and the
tenth result of one list differ by 13 %, so a result that two providers return beats one
that a single provider puts first. Results are the same page when their normalized URLs
(``core.preprocess.normalize_url``) are equal; a result without a URL is dropped.

Pure and deterministic: ties are broken by the best rank, then the list's position (the
order the user named the providers in), then the URL.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from deepresearch.core.preprocess import normalize_url
from deepresearch.models import SearchHit

DEFAULT_K = 60


@dataclass
class _Entry:
    score: float = 0.0
    #: (rank in its list, list index, the hit) for every list that holds it
    sightings: list[tuple[int, int, SearchHit]] = field(default_factory=list)

    def best(self) -> tuple[int, int]:
        rank, index, _ = min(self.sightings, key=lambda s: (s[0], s[1]))
        return rank, index


def found_by(hit: SearchHit) -> tuple[str, ...]:
    """The providers that returned ``hit``: ``hit.providers``, else its one ``provider``."""
    return hit.providers or (hit.provider,)


def provider_counts(hits: Iterable[SearchHit]) -> dict[str, int]:
    """How many of ``hits`` each provider returned, by provider name (a hit that several
    providers returned counts for each of them)."""
    counts = Counter(name for hit in hits for name in found_by(hit))
    return dict(sorted(counts.items()))


def fuse(
    lists: Sequence[Sequence[SearchHit]], *, k: float = DEFAULT_K, limit: int | None = None
) -> list[SearchHit]:
    """The hits of ``lists`` (each best first) fused by RRF, best first, at most ``limit``.

    Each fused hit is the best-ranked sighting of its page with ``url`` normalized,
    ``providers`` naming every provider that returned it (sorted), ``rank`` its fused
    position and ``score`` its RRF score divided by the best one (so 1.0 at the top). A
    missing title, snippet, published date or full text is taken from another sighting.
    """
    if k <= 0:
        raise ValueError("k must be > 0")
    entries: dict[str, _Entry] = {}
    for index, hits in enumerate(lists):
        seen: set[str] = set()
        for position, hit in enumerate(hits):
            key = normalize_url(hit.url)
            if not key or key in seen:
                continue
            seen.add(key)
            entry = entries.setdefault(key, _Entry())
            entry.score += 1.0 / (k + position + 1)
            entry.sightings.append((position, index, hit))
    ordered = sorted(entries.items(), key=lambda item: (-item[1].score, *item[1].best(), item[0]))
    if limit is not None:
        ordered = ordered[: max(limit, 0)]
    if not ordered:
        return []
    top = ordered[0][1].score
    return [
        _merged(url, entry, rank=rank, score=round(entry.score / top, 6))
        for rank, (url, entry) in enumerate(ordered)
    ]


def _merged(url: str, entry: _Entry, *, rank: int, score: float) -> SearchHit:
    hits = [hit for _, _, hit in sorted(entry.sightings, key=lambda s: (s[0], s[1]))]
    best = hits[0]
    providers = sorted({name for hit in hits for name in found_by(hit)})
    return best.model_copy(
        update={
            "url": url,
            "title": best.title or next((h.title for h in hits if h.title), ""),
            "snippet": best.snippet or next((h.snippet for h in hits if h.snippet), ""),
            "published": best.published or next((h.published for h in hits if h.published), None),
            "content": best.content
            if best.content is not None
            else next((h.content for h in hits if h.content is not None), None),
            "providers": tuple(providers),
            "rank": rank,
            "score": score,
        }
    )
