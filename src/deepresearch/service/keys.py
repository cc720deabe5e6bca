"""API keys: random tokens shown once, stored only as SHA-256 hashes."""

from __future__ import annotations

import secrets

from deepresearch.service.store import ApiKey, JobStore

TOKEN_PREFIX = "dr_"  # noqa: S105 (a label, not a secret)


def create_key(store: JobStore, name: str, *, max_active_runs: int = 1) -> tuple[ApiKey, str]:
    """Make a key; returns its record and the token, which is never stored or shown again."""
    token = TOKEN_PREFIX + secrets.token_urlsafe(32)
    key_id = "key_" + secrets.token_hex(6)
    return store.add_key(key_id, name, token, max_active_runs), token
