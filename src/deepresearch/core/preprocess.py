"""Search result preprocessing: normalize -> deduplicate -> sort -> truncate (seed 004).

Pure, deterministic and model-free: the same hits, in any order, give the same result.

- **normalize**: strip and collapse whitespace in titles and snippets; normalize URLs with
  ``normalize_url`` (lowercase scheme and host, no fragment, no default port, no
  tracking parameters, ``/`` for an empty http(s) path; everything else kept as sent).
- **invalid**: a hit with neither a URL nor any text (snippet or content) is dropped.
- **deduplicate**: by normalized URL, or, for a hit without a URL, by a fingerprint of its
  text (sha1 of the whitespace-collapsed, case-folded snippet, else content). The
  best-ranked duplicate is kept: lowest rank, then highest score, then provider, query,
  title and snippet, so the choice never depends on input order. When the kept hit lacks
  ``content`` or ``published``, it takes them from a dropped duplicate (the first one that
  has them in the same order), so full text a provider already sent is not fetched again;
  its ``providers`` become every provider that returned the page.
- **sort**: by rank, then URL, then title. Sorting by rank first interleaves queries and
  providers (every list's first hit, then every second hit...) instead of letting one
  list crowd out the others; URL and title (then provider, query and text) break ties.
- **truncate** to ``limit``.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from urllib.parse import unquote_plus, urlsplit, urlunsplit

from pydantic import BaseModel, ConfigDict

from deepresearch.models import SearchHit

_DEFAULT_PORTS = {"http": 80, "https": 443, "ws": 80, "wss": 443, "ftp": 21}
#: parameters that only say how a visitor arrived, never which page they asked for
_TRACKING = frozenset(
    {
        "fbclid",
        "gclid",
        "dclid",
        "gbraid",
        "wbraid",
        "msclkid",
        "yclid",
        "igshid",
        "mc_cid",
        "mc_eid",
        "_hsenc",
        "_hsmi",
    }
)


class PreprocessResult(BaseModel):
    """The hits to rank, and how many were dropped at each step.

    ``received == invalid + duplicates + truncated + kept`` always holds.
    """

    model_config = ConfigDict(frozen=True)

    hits: list[SearchHit]
    received: int
    invalid: int
    duplicates: int
    truncated: int
    kept: int


def preprocess(hits: Sequence[SearchHit], *, limit: int) -> PreprocessResult:
    """Normalize, deduplicate, sort and truncate ``hits`` to at most ``limit``."""
    if limit < 0:
        raise ValueError("limit must be >= 0")
    groups: dict[str, list[SearchHit]] = {}
    invalid = 0
    for hit in hits:
        clean = _normalize(hit)
        key = _dedupe_key(clean)
        if key is None:
            invalid += 1
            continue
        groups.setdefault(key, []).append(clean)
    unique = [_merge(group) for group in groups.values()]
    unique.sort(key=_order)
    kept = unique[:limit]
    valid = len(hits) - invalid
    return PreprocessResult(
        hits=kept,
        received=len(hits),
        invalid=invalid,
        duplicates=valid - len(unique),
        truncated=len(unique) - len(kept),
        kept=len(kept),
    )


def normalize_url(url: str) -> str:
    """A canonical spelling of ``url`` for comparison and display.

    Lowercases scheme and host, drops the fragment, the scheme's default port and tracking
    parameters (``utm_*``, ``fbclid``, ``gclid`` and similar click ids), and turns an empty
    http(s) path into ``/``. Path, other parameters, their order and their encoding are
    kept. Text that does not parse as a URL comes back stripped and otherwise unchanged.
    """
    text = url.strip()
    if not text:
        return ""
    try:
        parts = urlsplit(text)
        port = parts.port
    except ValueError:
        return text
    scheme = parts.scheme.lower()
    netloc = parts.netloc
    if parts.hostname is not None:
        host = parts.hostname.lower()
        if ":" in host:
            host = f"[{host}]"
        userinfo = netloc.rpartition("@")[0]
        netloc = (f"{userinfo}@" if userinfo else "") + host
        if port is not None and _DEFAULT_PORTS.get(scheme) != port:
            netloc += f":{port}"
    path = parts.path
    if not path and netloc and scheme in ("http", "https"):
        path = "/"
    return urlunsplit((scheme, netloc, path, _strip_tracking(parts.query), ""))


def _strip_tracking(query: str) -> str:
    kept = []
    for pair in query.split("&"):
        if not pair:
            continue
        name = unquote_plus(pair.partition("=")[0]).strip().lower()
        if name.startswith("utm_") or name in _TRACKING:
            continue
        kept.append(pair)
    return "&".join(kept)


def _collapse(text: str) -> str:
    return " ".join(text.split())


def _normalize(hit: SearchHit) -> SearchHit:
    return hit.model_copy(
        update={
            "url": normalize_url(hit.url),
            "title": _collapse(hit.title),
            "snippet": _collapse(hit.snippet),
        }
    )


def _dedupe_key(hit: SearchHit) -> str | None:
    if hit.url:
        return "url:" + hit.url
    text = hit.snippet or _collapse(hit.content or "")
    if not text:
        return None
    return "text:" + hashlib.sha1(text.casefold().encode("utf-8")).hexdigest()  # noqa: S324


def _order(hit: SearchHit) -> tuple[int, str, str, str, str, str, str]:
    return (hit.rank, hit.url, hit.title, hit.provider, hit.query, hit.snippet, hit.content or "")


def _preference(hit: SearchHit) -> tuple[int, float, str, str, str, str]:
    score = -hit.score if hit.score is not None else float("inf")
    return (hit.rank, score, hit.provider, hit.query, hit.title, hit.snippet)


def _merge(group: list[SearchHit]) -> SearchHit:
    ordered = sorted(group, key=_preference)
    best = ordered[0]
    update: dict[str, object] = {}
    if best.content is None:
        update["content"] = next((h.content for h in ordered if h.content is not None), None)
    if best.published is None:
        update["published"] = next((h.published for h in ordered if h.published), None)
    # the same page from two providers (in two queries' lists) was found by both
    providers = sorted({name for hit in group for name in (hit.providers or (hit.provider,))})
    if len(providers) > 1:
        update["providers"] = tuple(providers)
    return best.model_copy(update=update) if update else best
