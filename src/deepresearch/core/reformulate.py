"""Query reformulation for weak sub-questions (seed 001): first broaden, then narrow, then
synonyms; the synonyms round also asks for alternative kinds of sources (seed 000's
enhancement queries). Deterministic: used when no model proposes better queries."""

from __future__ import annotations

from typing import Literal

from deepresearch.core.planning import dedupe_queries, strip_operators
from deepresearch.core.text import keywords

Strategy = Literal["broaden", "narrow", "synonyms"]


def strategy_for(attempt: int) -> Strategy:
    """Attempt 1 broadens, attempt 2 narrows, attempts 3+ rephrase."""
    if attempt <= 1:
        return "broaden"
    if attempt == 2:
        return "narrow"
    return "synonyms"


def reformulate(text: str, *, attempt: int, operators: bool, count: int = 3) -> list[str]:
    """New queries for a sub-question that found too little."""
    plain = strip_operators(text)
    terms = keywords(plain)
    if not terms:
        return [plain] if plain else []
    strategy = strategy_for(attempt)
    if strategy == "broaden":
        # fewer, more general terms
        queries = [" ".join(terms[:3]), " ".join(terms[:2]), " ".join(terms[1:4])]
    elif strategy == "narrow":
        phrase = " ".join(terms[:2])
        queries = [f'"{phrase}" ' + " ".join(terms[2:6]) if operators else " ".join(terms[:6])]
        queries = [query.strip() for query in queries]
        if operators and terms:
            queries.append(f"intitle:{terms[0]} " + " ".join(terms[1:5]))
        queries.append(" ".join(terms))
    else:
        head = " ".join(terms[:4])
        queries = [
            f"{head} overview",
            f"what is {head}",
            *alternative_sources(head, operators=operators),
        ]
    return [query for query in dedupe_queries(queries) if query.strip()][:count]


def alternative_sources(head: str, *, operators: bool) -> list[str]:
    """Seed 000's enhancement queries, made general: the same subject from other kinds of
    sources (reference works, papers, news, official pages)."""
    paper = f"{head} research paper" + (" filetype:pdf" if operators else "")
    return [f"{head} encyclopedia", paper, f"{head} news report", f"{head} official site"]


def stop_early(*, attempts: int, evidence: int, passing: int) -> bool:
    """Seed 001: a sub-question whose second search iteration still found nothing (no
    source passed the threshold and nothing was verified) is not retried again."""
    return attempts >= 2 and evidence == 0 and passing == 0
