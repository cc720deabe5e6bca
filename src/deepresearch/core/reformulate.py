"""Query reformulation for weak sub-questions (seed 001): first broaden, then narrow, then
synonyms. Deterministic: used when no model proposes better queries."""

from __future__ import annotations

import re
from typing import Literal

from deepresearch.core.planning import dedupe_queries
from deepresearch.core.text import keywords

Strategy = Literal["broaden", "narrow", "synonyms"]
_OPERATOR = re.compile(r'(?:-?site:\S+|intitle:|inurl:|filetype:\S+|["()])', re.I)


def strategy_for(attempt: int) -> Strategy:
    """Attempt 1 broadens, attempt 2 narrows, attempts 3+ rephrase."""
    if attempt <= 1:
        return "broaden"
    if attempt == 2:
        return "narrow"
    return "synonyms"


def strip_operators(query: str) -> str:
    return " ".join(_OPERATOR.sub(" ", query).split())


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
        queries = [f"{head} overview", f"{head} explained", f"what is {head}", f"{head} facts"]
    return [query for query in dedupe_queries(queries) if query.strip()][:count]
