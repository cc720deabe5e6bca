"""deepresearch's error tree. Adapters raise these ``from`` the original exception;
nothing downstream inspects error strings.

    DeepResearchError
    ├── ConfigError                 the user must act: bad flag, missing key, unknown provider
    │   ├── MissingKeyError
    │   ├── SuspiciousInput         the question holds a template placeholder or active markup
    │   ├── InvalidInput            a question, run id or output path that cannot be used
    │   │   │                       (also a ValueError, so pydantic validators may raise it)
    │   │   └── InvalidReply        a reply that is not the kind the paused run asked for
    │   └── RunNotFound             --resume or report named a run that has no checkpoint
    ├── InputRequired               not a failure: the run waits for a person's answer
    └── RunError                    something failed while running
        ├── ProviderError           a search provider or model service failed
        │   ├── ProviderUnavailable     unreachable, timed out, 5xx after retries
        │   ├── RateLimited             429 after retries
        │   └── ProviderAuthError       401/403: the key was refused
        ├── FetchError              a page could not be fetched
        │   └── FetchBlocked            refused by policy (scheme, address, size)
        └── ModelOutputError        a model's reply could not be used after repair and retry

Every message is safe to show a user: no stack traces, API keys or raw provider bodies.
"""

from __future__ import annotations


class DeepResearchError(Exception):
    """Base of every error deepresearch raises on purpose."""

    hint: str = ""

    def __init__(self, message: str, *, hint: str = "") -> None:
        super().__init__(message)
        self.message = message
        if hint:
            self.hint = hint

    def __str__(self) -> str:
        return f"{self.message} ({self.hint})" if self.hint else self.message


class ConfigError(DeepResearchError):
    """The configuration cannot work; the user has to change something."""


class MissingKeyError(ConfigError):
    """A provider needs an API key that is not configured."""


class SuspiciousInput(ConfigError):
    """The question looks like an unfilled template or carries markup (seed 000's
    suspicious-input screen); nothing was researched."""


class InvalidInput(ConfigError, ValueError):
    """A value given to us cannot be used as it is: an empty or too long question, a run
    id that is not one, an output path that cannot be written. Nothing was started."""


class InvalidReply(InvalidInput):
    """A reply that is not the kind of answer the paused run asked for (text to a plan
    review, an edit that changes nothing): ``asked`` names the pause kind
    (``models.pause.InputKind``), so each front end says in its own words how to answer
    (the CLI its flags, MCP its tool's arguments); ``hint`` is the library's and the
    API's, in the reply's JSON."""

    def __init__(self, message: str, *, asked: str, hint: str = "") -> None:
        super().__init__(message, hint=hint)
        self.asked = asked


class InputRequired(DeepResearchError):
    """Not a failure: the run is checkpointed and waits for a person's answer (a
    clarifying question, a plan to review). ``request`` says what it asks; a reply
    continues it (``deepresearch.reply``, ``deepresearch reply``)."""

    def __init__(self, request: object, *, message: str, hint: str = "") -> None:
        super().__init__(message, hint=hint)
        self.request = request


class RunError(DeepResearchError):
    """Something failed while a run was in progress."""


class ProviderError(RunError):
    """A search provider or model service failed."""

    def __init__(self, message: str, *, provider: str, hint: str = "") -> None:
        super().__init__(message, hint=hint)
        self.provider = provider


class ProviderUnavailable(ProviderError):
    """The service could not be reached, timed out, or kept answering 5xx."""


class RateLimited(ProviderError):
    """The service kept answering 429."""


class ProviderAuthError(ProviderError):
    """The service refused the credentials."""


class FetchError(RunError):
    """A page could not be fetched."""


class FetchBlocked(FetchError):
    """The fetcher refused a URL by policy (scheme, address, size, content type)."""


class ModelOutputError(RunError):
    """A model's reply could not be turned into the expected shape."""


class RunNotFound(ConfigError):
    """No checkpoint exists for the requested run id (the user named the wrong run, or
    the wrong data folder)."""
