"""A run's recording on disk: one folder holding ``manifest.json`` (what was run: recipe,
request, settings without secrets, versions, the fence boundary) and one JSON-lines file per
kind of outside answer (``replies``, ``cache``, ``searches``, ``pages``, ``clock``; the
answers a person gave at the run's pauses, ``answers``; a follow-up's parent, ``parents``;
what the owner's library offered, ``library``;
the cache keys the run stored replies under, ``stored``, so that a resumed part of the
run does not take them for answers from outside; under a budget, each decision of its
budget guard, ``budget``; and the images of the report's figures, ``images``).
Lines
are appended while the run runs (a resumed run appends to the same folder), so a recording
is also what ``deepresearch record`` copies to another machine.

Every line written has the run's configured secrets replaced by ``llm.redact.REDACTED``, so
an API key a provider echoed back never lands in a recording. Only exact secrets: the
credential-shaped patterns of ``redact`` would also rewrite a page that merely shows an
example key, and the replay would differ (the manifest, which holds no page, gets the full
``redact`` when exported)."""

from __future__ import annotations

import hashlib
import json
import platform
import threading
from collections.abc import Iterator, Sequence
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from pydantic import BaseModel, SecretStr

from deepresearch.core.ids import check_run_id
from deepresearch.errors import InvalidInput
from deepresearch.llm.redact import MIN_SECRET_LENGTH, REDACTED
from deepresearch.settings_groups import Storage

#: the recording format; a replay refuses another
FORMAT = 1
MANIFEST = "manifest.json"
KINDS = (
    "replies",
    "cache",
    "searches",
    "pages",
    "clock",
    "answers",
    "parents",
    "stored",
    "budget",
    "library",
    "images",
)


class Tape:
    """One recording folder; ``append`` is safe from several threads."""

    def __init__(self, folder: Path, *, secrets: Sequence[str] = ()) -> None:
        self.folder = folder
        self._secrets = sorted(
            {s for s in secrets if len(s) >= MIN_SECRET_LENGTH}, key=len, reverse=True
        )
        self._lock = threading.Lock()

    @property
    def manifest_path(self) -> Path:
        return self.folder / MANIFEST

    def exists(self) -> bool:
        return self.manifest_path.is_file()

    def write_manifest(self, manifest: dict[str, Any]) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        text = json.dumps({"format": FORMAT, **manifest}, indent=2, ensure_ascii=False)
        self.manifest_path.write_text(self._scrub(text) + "\n", encoding="utf-8")

    def manifest(self) -> dict[str, Any]:
        try:
            data = json.loads(self.manifest_path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise InvalidInput(
                f"{self.folder} is not a run recording ({type(exc).__name__})",
                hint="pass a folder written by `deepresearch record`",
            ) from None
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise InvalidInput(
                f"{self.folder} holds a recording in a format this version cannot replay",
                hint=f"this version replays format {FORMAT}",
            )
        return data

    def append(self, kind: str, entry: dict[str, Any]) -> None:
        line = self._scrub(json.dumps(entry, ensure_ascii=False))
        with self._lock:
            self.folder.mkdir(parents=True, exist_ok=True)
            with (self.folder / f"{kind}.jsonl").open("a", encoding="utf-8") as out:
                out.write(line + "\n")

    def entries(self, kind: str) -> Iterator[dict[str, Any]]:
        path = self.folder / f"{kind}.jsonl"
        if not path.is_file():
            return
        with path.open(encoding="utf-8") as lines:
            for number, line in enumerate(lines, 1):
                if not line.strip():
                    continue
                try:
                    entry = json.loads(line)
                except ValueError:
                    raise InvalidInput(
                        f"{path.name} line {number} in {self.folder} is not valid JSON",
                        hint="the recording is damaged; record the run again",
                    ) from None
                yield entry

    def _scrub(self, text: str) -> str:
        for secret in self._secrets:
            text = text.replace(secret, REDACTED)
        return text


def recording_folder(settings: Storage, run_id: str) -> Path:
    """``data_dir/recordings/<run id>`` (a valid run id only)."""
    return settings.data_dir / "recordings" / check_run_id(run_id)


#: settings a replay sets for itself: where it stores, and what it must not do again
LOCAL_SETTINGS = ("data_dir", "database_url", "debug_log", "record_runs", "config_file")


def settings_snapshot(settings: BaseModel) -> dict[str, Any]:
    """The run's settings (``Settings``) as JSON, without any secret (a key field is left out, not
    masked) and without the ones that only say where this machine keeps things."""
    secret = {
        name
        for name, value in settings.__dict__.items()
        if isinstance(value, SecretStr) or name.endswith(("_key", "_token", "_password"))
    }
    dumped = settings.model_dump(mode="json", exclude=secret | set(LOCAL_SETTINGS))
    return {name: _without_credentials(value) for name, value in dumped.items()}


def _without_credentials(value: Any) -> Any:
    """A URL setting (``model_base_url``, ``searxng_url``...) without the user name and
    password it may carry: a recording is made to be shared."""
    if not (isinstance(value, str) and "://" in value and "@" in value):
        return value
    try:
        parts = urlsplit(value)
    except ValueError:
        return REDACTED
    if "@" not in parts.netloc:
        return value
    return urlunsplit(parts._replace(netloc=f"{REDACTED}@{parts.netloc.rsplit('@', 1)[1]}"))


def document_digest(document: BaseModel) -> str:
    """The sha256 of a run's document as JSON: equal digests, equal reports in every
    format (each is rendered from the document alone)."""
    return hashlib.sha256(document.model_dump_json().encode("utf-8")).hexdigest()


def versions() -> dict[str, str]:
    out = {"python": platform.python_version()}
    for package in ("deepresearch", "langchain-core", "langgraph", "trafilatura"):
        try:
            out[package] = version(package)
        except PackageNotFoundError:
            out[package] = "unknown"
    return out
