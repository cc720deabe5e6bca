"""Finding and loading the ``.env`` file (seed 004's environment bootstrap).

Which file: ``DEEPRESEARCH_ENV_FILE`` when set (a path; empty or ``none`` means no file),
else the nearest ``.env`` from the working folder upward. The walk stops at the top of
the project, a folder holding ``.git`` or ``.hg``, or at your home folder, whichever it
meets first (that folder's own ``.env`` still counts), and at the filesystem root: a
``.env`` above your project or your home is never read by accident.

Loading puts the file's variables into the process environment, never replacing one that
is already set, so the model SDKs (``OPENAI_API_KEY``, ``OPENAI_BASE_URL``,
``OLLAMA_HOST``...) and every ``DEEPRESEARCH_*`` name see them. The names loaded are
remembered, so Settings can rank the real environment above the file whatever the name
(``settings.py``), and ``deepresearch doctor`` can say where a key came from.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from deepresearch.errors import ConfigError

ENV_FILE_VAR = "DEEPRESEARCH_ENV_FILE"
#: folders that mark the top of a project: the walk upward stops there
PROJECT_MARKERS = (".git", ".hg")

#: every variable this process took from a .env file, with the value it set
_loaded: dict[str, str] = {}


@dataclass(frozen=True)
class EnvFile:
    path: Path
    #: every name the file sets, and the names this load put into the environment
    names: tuple[str, ...]
    loaded: tuple[str, ...]


def find_env_file(start: Path | None = None) -> Path | None:
    """The ``.env`` file to use, or None. Raises ConfigError when ``DEEPRESEARCH_ENV_FILE``
    names a file that does not exist."""
    explicit = os.environ.get(ENV_FILE_VAR)
    if explicit is not None:
        if explicit.strip().lower() in ("", "none"):
            return None
        path = Path(explicit).expanduser()
        if not path.is_file():
            raise ConfigError(
                f"the .env file {path} does not exist (from {ENV_FILE_VAR})",
                hint=f"point {ENV_FILE_VAR} at a file, or set it to 'none' for no .env file",
            )
        return path
    try:
        folder = (start or Path.cwd()).resolve()
    except OSError:  # the working folder was removed
        return None
    home = _home()
    for candidate in (folder, *folder.parents):
        path = candidate / ".env"
        if path.is_file():
            return path
        if candidate == home or any((candidate / m).exists() for m in PROJECT_MARKERS):
            return None
    return None


def load_env_file(start: Path | None = None) -> EnvFile | None:
    """Load the ``.env`` file found by :func:`find_env_file` into ``os.environ`` without
    replacing what is set. Safe to call again: nothing already set changes."""
    path = find_env_file(start)
    if path is None:
        return None
    from dotenv import dotenv_values  # only when there is a file to read

    try:
        values = dotenv_values(path, encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(
            f"cannot read the .env file {path}: {exc}",
            hint=f"fix or remove it, or set {ENV_FILE_VAR}=none to skip it",
        ) from None
    loaded = []
    for name, value in values.items():
        if value is None or name in os.environ:
            continue
        os.environ[name] = value
        _loaded[name] = value
        loaded.append(name)
    return EnvFile(path, tuple(values), tuple(loaded))


def loaded_from_file(name: str) -> bool:
    """True when ``name``'s value in the environment is one a .env file put there."""
    value = os.environ.get(name)
    return value is not None and _loaded.get(name) == value


def real_environment_names() -> set[str]:
    """The names set in the environment that did not come from a .env file."""
    return {name for name in os.environ if not loaded_from_file(name)}


def _home() -> Path | None:
    try:
        return Path.home().resolve()
    except (OSError, RuntimeError):  # no home folder (some service accounts)
        return None
