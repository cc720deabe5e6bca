"""Identifiers: stable ones derived from content (so resumed runs name things the same
way), new run ids, and the one rule every run id given to us must follow.

A run id names a checkpoint thread, a file (``data_dir/runs/<id>.json``) and a URL path
segment (``/v1/research/<id>``), so it is checked at every edge (CLI, library, API)
before any work: letters, digits, ``.``, ``_`` and ``-``, at most
:data:`MAX_RUN_ID_CHARS`, starting with a letter or digit and not ending with a dot, and
not a name Windows reserves for a device. That leaves no path separator, no ``..``
component, no control character and nothing a shell or a URL would read differently.
"""

from __future__ import annotations

import hashlib
import re
import secrets

from deepresearch.errors import InvalidInput

MAX_RUN_ID_CHARS = 64
_RUN_ID = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9_-])?")
_RESERVED = re.compile(r"(?:con|prn|aux|nul|com[0-9¹²³]|lpt[0-9¹²³])(?:\..*)?", re.I)


def source_id(url: str) -> str:
    return "s" + hashlib.sha1(url.encode("utf-8"), usedforsecurity=False).hexdigest()[:10]


def new_run_id() -> str:
    return "run-" + secrets.token_hex(6)


def run_id_problem(value: str) -> str | None:
    """Why ``value`` cannot be a run id, or None when it can."""
    if not value:
        return "the run id is empty"
    if len(value) > MAX_RUN_ID_CHARS:
        return f"the run id is longer than {MAX_RUN_ID_CHARS} characters"
    if not value.isascii() or not _RUN_ID.fullmatch(value):
        return (
            f"{_shown(value)} is not a run id: use letters, digits, '.', '_' and '-', "
            "starting with a letter or digit (no '/', '..' or spaces)"
        )
    if _RESERVED.fullmatch(value):
        return f"{_shown(value)} is a reserved device name, not a run id"
    return None


def check_run_id(value: str) -> str:
    """``value`` if it is a valid run id, else :class:`InvalidInput` saying why."""
    problem = run_id_problem(value)
    if problem is not None:
        raise InvalidInput(problem, hint="run ids look like run-3f9a1c2b7d4e")
    return value


def _shown(value: str) -> str:
    # repr escapes control characters; the cut keeps a pasted document out of the message
    return repr(value if len(value) <= 40 else value[:40] + "…")
