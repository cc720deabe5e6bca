"""Refusing at submission a job the server could not run: its model or search provider
has no key, or is not configured here. The checks are the CLI's own (building the role
models and the search provider from the job's settings, as ``deepresearch run`` does at
start), so the message is the CLI's; the hint says what an API caller can do about it.

A job may only change ``model`` and ``search``, so the verdict for each pair is kept
(the server's configuration does not change while it runs). The checks themselves are
handed in by the composition root (``service.app.jobs``), which holds the Settings."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Generic, Literal, Protocol, TypeVar

from deepresearch.errors import ConfigError, MissingKeyError
from deepresearch.llm.redact import redact
from deepresearch.service.problems import ApiProblem

REMEMBERED = 128
Option = Literal["model", "search"]
_WHAT = {"model": "model", "search": "search provider"}
_ELSE = {
    "model": "'none' writes an extractive report without a model",
    "search": "duckduckgo needs no key",
}


class JobChoice(Protocol):
    """What the verdict depends on: a job's settings (the server's, with its options)."""

    @property
    def model(self) -> str: ...

    @property
    def search(self) -> str: ...

    def secrets(self) -> list[str]: ...


C = TypeVar("C", bound=JobChoice)
#: a check: builds what the job would build from its settings, raising ConfigError
Check = Callable[[C], object]


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


class Preflight(Generic[C]):
    """The verdicts of ``models`` (building the role models) and ``search`` (building the
    search provider); either is None when the server was handed its own."""

    def __init__(self, models: Check[C] | None, search: Check[C] | None) -> None:
        self._models = models
        self._search = search
        self._verdicts: OrderedDict[tuple[str, str], Refusal | None] = OrderedDict()
        self._lock = threading.Lock()

    def check(self, settings: C) -> None:
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

    def _verdict(self, settings: C) -> Refusal | None:
        try:
            if self._models is not None:
                self._models(settings)
        except ConfigError as exc:
            return _refusal(exc, "model", settings)
        try:
            if self._search is not None:
                self._search(settings)
        except ConfigError as exc:
            return _refusal(exc, "search", settings)
        return None


def _refusal(exc: ConfigError, option: Option, settings: JobChoice) -> Refusal:
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
