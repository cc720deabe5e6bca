"""Refusing at submission a job the server could not run: its model or search provider
has no key, or is not configured here. The checks are the CLI's own (building the role
models and the search provider from the job's settings, as ``deepresearch run`` does at
start), so the message is the CLI's; the hint says what an API caller can do about it.

A job may only change ``model`` and ``search``, so the verdict for each pair is kept
(the server's configuration does not change while it runs)."""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import httpx

from deepresearch.errors import ConfigError, MissingKeyError
from deepresearch.llm.providers import build_role_models
from deepresearch.llm.redact import redact
from deepresearch.search.base import SearchProvider
from deepresearch.search.none import NoSearch
from deepresearch.search.registry import build_search_provider
from deepresearch.service.problems import ApiProblem
from deepresearch.service.worker import Runtime
from deepresearch.settings import Settings
from deepresearch.settings_groups import ModelSettings

REMEMBERED = 128
Option = Literal["model", "search"]
_WHAT = {"model": "model", "search": "search provider"}
_ELSE = {
    "model": "'none' writes an extractive report without a model",
    "search": "duckduckgo needs no key",
}


@dataclass(frozen=True)
class Refusal:
    option: Option
    message: str
    kind: str
    hint: str

    def problem(self) -> ApiProblem:
        return ApiProblem(
            422,
            self.message,
            kind=self.kind,
            hint=self.hint,
            errors=[{"where": f"body.options.{self.option}", "problem": self.message}],
        )


class Preflight:
    def __init__(self, runtime: Runtime) -> None:
        self.runtime = runtime
        self._verdicts: OrderedDict[tuple[str, str], Refusal | None] = OrderedDict()
        self._lock = threading.Lock()
        # only handed to the providers' constructors, which keep it; never used to send
        self._client = httpx.AsyncClient()

    def check(self, settings: Settings) -> None:
        """Raise the 422 problem for a job the server cannot run (call it off the loop)."""
        key = (settings.model, settings.search)
        with self._lock:
            if key in self._verdicts:
                self._verdicts.move_to_end(key)
                verdict = self._verdicts[key]
            else:
                verdict = self._verdict(settings)
                self._verdicts[key] = verdict
                while len(self._verdicts) > REMEMBERED:
                    self._verdicts.popitem(last=False)
        if verdict is not None:
            raise verdict.problem()

    def _verdict(self, settings: Settings) -> Refusal | None:
        try:
            if self.runtime.models is None:
                build_role_models(ModelSettings.of(settings))
        except ConfigError as exc:
            return _refusal(exc, "model", settings)
        try:
            if self.runtime.search is None:
                build_search_provider(
                    settings, self._client, data_dir=settings.data_dir, local_factory=_no_index
                )
        except ConfigError as exc:
            return _refusal(exc, "search", settings)
        return None


def _no_index(corpus: Path) -> SearchProvider:
    """The local provider's folder is checked; its index is built by the job, not here."""
    return NoSearch()


def _refusal(exc: ConfigError, option: Option, settings: Settings) -> Refusal:
    what = _WHAT[option]
    if isinstance(exc, MissingKeyError):
        why, kind = f"this server has no API key for that {what}", "missing-key"
    else:
        why, kind = f"this server cannot use that {what} as it is configured", "not-configured"
    hint = (
        f"{why}: ask its operator to set it up, or choose another {what} in "
        f"options.{option} ({_ELSE[option]})"
    )
    return Refusal(option, redact(exc.message, settings.secrets()), kind, hint)
