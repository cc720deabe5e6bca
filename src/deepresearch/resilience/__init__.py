"""What every caller of a remote service shares: when to retry and when to stop asking.

- ``breaker``  ``CircuitBreaker`` (closed → open → half-open, thread-safe, injectable
  clock) and ``BreakerRegistry`` (breakers by key, created on first use).
- ``retry``    ``backoff_delay`` (exponential, capped, equal jitter), ``parse_retry_after``
  (delta-seconds or an HTTP date, clamped; anything else is None) and ``retry_delay``
  (the server's wait when it named one, else the backoff).

Used by the search adapters (``search.http``), the fetcher (``fetch.http_fetcher``) and the
model gateway (``llm``). Pure standard library: nothing here may import another
deepresearch package, so every layer can use it.
"""

from deepresearch.resilience.breaker import BreakerRegistry, BreakerState, CircuitBreaker
from deepresearch.resilience.retry import backoff_delay, parse_retry_after, retry_delay

__all__ = [
    "BreakerRegistry",
    "BreakerState",
    "CircuitBreaker",
    "backoff_delay",
    "parse_retry_after",
    "retry_delay",
]
