"""Stable identifiers derived from content, so resumed runs name things the same way."""

from __future__ import annotations

import hashlib
import secrets


def source_id(url: str) -> str:
    return "s" + hashlib.sha1(url.encode("utf-8"), usedforsecurity=False).hexdigest()[:10]


def new_run_id() -> str:
    return "run-" + secrets.token_hex(6)
