"""Where a front end that is handed no Settings keeps things (the Python library's
``deepresearch.library``): the data folder and database the CLI would use, from the
config file, the environment and ``.env``, read here, in the composition root."""

from __future__ import annotations

from pathlib import Path

from deepresearch.settings import Settings, load_settings
from deepresearch.settings_groups import StorageSettings


def default_storage(data_dir: Path | str | None = None) -> StorageSettings:
    """The storage settings the CLI would load, with ``data_dir`` when given."""
    settings = load_settings(data_dir=data_dir) if data_dir is not None else load_settings()
    return StorageSettings.of(settings)


def default_settings(data_dir: Path | str | None = None) -> Settings:
    """The settings the CLI would load, with ``data_dir`` when given: where
    ``deepresearch.watches`` finds the service database and the watch limits."""
    return load_settings(data_dir=data_dir) if data_dir is not None else load_settings()
