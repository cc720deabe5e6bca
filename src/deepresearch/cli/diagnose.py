"""What ``deepresearch doctor`` checks, for real: one tiny call to each configured model
(through the gateway, with a time limit, its tokens counted), one query to each search
provider, the database (SQLite files readable and writable, PostgreSQL connected), the
data folder, the corpus index, and where the configuration and every key came from.

A check never shows a secret: a key is named by the variable it came from
(``TAVILY_API_KEY (.env)``), and every message is redacted with the configured secrets.
"""

from __future__ import annotations

import asyncio
import os
import sqlite3
import tempfile
import time
from collections.abc import Sequence
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from deepresearch.envfile import find_env_file, loaded_from_file
from deepresearch.errors import DeepResearchError
from deepresearch.llm.redact import redact
from deepresearch.search.registry import PROVIDERS, index_path, parse_search
from deepresearch.settings import Settings
from deepresearch.settings_groups import ModelSettings
from deepresearch.settings_values import ROLES, env_names

if TYPE_CHECKING:
    import httpx

    from deepresearch.models import ModelCall

#: what the model is asked: the smallest prompt that needs an answer
PROBE_SYSTEM = "You are a health check. Answer with one word."
PROBE_USER = "Reply with the word OK."


@dataclass(frozen=True)
class Check:
    """One line of the doctor's table. ``ok`` is None for what is only reported."""

    area: str
    name: str
    ok: bool | None
    detail: str
    fix: str = ""

    def as_json(self) -> dict[str, object]:
        return {
            "area": self.area,
            "name": self.name,
            "ok": self.ok,
            "detail": self.detail,
            "fix": self.fix,
        }


def key_origin(names: Sequence[str]) -> str | None:
    """Which variable supplies a value, the way Settings ranks them: the real environment
    before the .env file, and in each the names in order. None: no variable holds it."""
    for name in names:
        if os.environ.get(name) and not loaded_from_file(name):
            return f"{name} (environment)"
    for name in names:
        if os.environ.get(name) and loaded_from_file(name):
            return f"{name} (.env)"
    return None


async def run_checks(settings: Settings, *, timeout_s: float) -> list[Check]:
    """Every check, the slow ones (models, search) at the same time."""
    checks = [*environment_checks(), data_folder_check(settings)]
    checks += await asyncio.to_thread(database_checks, settings, timeout_s)
    groups = await asyncio.gather(
        model_checks(settings, timeout_s=timeout_s),
        search_checks(settings, timeout_s=timeout_s),
        tracing_checks(timeout_s=timeout_s),
    )
    for group in groups:
        checks += group
    return checks


async def tracing_checks(*, timeout_s: float) -> list[Check]:
    """LangSmith, when the environment turns tracing on (``cli.tracing``): its key there
    (named by its variable, never shown) and accepted by the endpoint. Off: no row."""
    from deepresearch.cli.tracing import KEY_NAMES, probe_tracing, tracing_config

    tracing = tracing_config()
    if tracing is None:
        return []
    probe = await probe_tracing(tracing, timeout_s=timeout_s)
    origin = key_origin(KEY_NAMES)
    detail = probe.detail + (f" (key from {origin})" if origin and tracing.key else "")
    secrets = [tracing.key] if tracing.key else []
    return [Check("tracing", "langsmith", probe.ok, redact(detail, secrets), probe.fix)]


# the configuration ---------------------------------------------------------------------
def environment_checks() -> list[Check]:
    explicit = os.environ.get("DEEPRESEARCH_CONFIG")
    if explicit:
        config = f"{explicit} (DEEPRESEARCH_CONFIG or --config)"
    elif Path("deepresearch.toml").is_file():
        config = f"{Path('deepresearch.toml').resolve()} (the working folder's)"
    else:
        config = "none: defaults, the environment and .env"
    try:
        env_file = find_env_file()
    except DeepResearchError as exc:
        return [
            Check("config", "settings file", None, config),
            Check("config", ".env file", False, exc.message, exc.hint),
        ]
    found = (
        str(env_file)
        if env_file is not None
        else f"none found from {Path.cwd()} up to the project's top or your home folder"
    )
    return [
        Check("config", "settings file", None, config),
        Check("config", ".env file", None, found),
    ]


def data_folder_check(settings: Settings) -> Check:
    folder = settings.data_dir.expanduser()
    fix = "set DEEPRESEARCH_DATA_DIR (or data_dir) to a folder you can write"
    if folder.exists() and not folder.is_dir():
        return Check("storage", "data folder", False, f"{folder} is a file, not a folder", fix)
    if not folder.exists():
        parent = next(p for p in folder.parents if p.exists())
        if os.access(parent, os.W_OK | os.X_OK):
            return Check("storage", "data folder", True, f"{folder} (created on first use)")
        return Check("storage", "data folder", False, f"{folder} cannot be created", fix)
    try:
        handle, probe = tempfile.mkstemp(dir=folder, prefix=".doctor-")
    except OSError as exc:
        return Check("storage", "data folder", False, f"{folder}: {exc.strerror or exc}", fix)
    os.close(handle)
    os.unlink(probe)
    return Check("storage", "data folder", True, f"{folder} (writable)")


def database_checks(settings: Settings, timeout_s: float) -> list[Check]:
    """The checkpoints and the service's jobs: one PostgreSQL database when
    ``database_url`` names one, else a SQLite file each in the data folder."""
    url = settings.database_url
    if url and not url.startswith("sqlite"):
        return [_server_database(url, timeout_s, settings)]
    folder = settings.data_dir.expanduser()
    checks = [_sqlite_file("checkpoints", folder / "checkpoints.sqlite3", "on the first run")]
    service = Path(url.removeprefix("sqlite:///")) if url else folder / "service.sqlite3"
    checks.append(_sqlite_file("service jobs", service, "by deepresearch serve"))
    return checks


def _sqlite_file(name: str, path: Path, created: str) -> Check:
    if not path.exists():
        return Check("storage", name, True, f"{path} (created {created})")
    try:
        with closing(sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)) as db:
            tables = db.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]
    except sqlite3.Error as exc:
        return Check(
            "storage",
            name,
            False,
            f"{path} is not a readable SQLite database ({exc})",
            "move it aside; deepresearch creates a new one",
        )
    if not os.access(path, os.W_OK):
        return Check("storage", name, False, f"{path} is read-only", "make it writable")
    return Check("storage", name, True, f"{path} (SQLite, {tables} tables)")


def _server_database(url: str, timeout_s: float, settings: Settings) -> Check:
    from sqlalchemy import create_engine
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import ArgumentError, SQLAlchemyError

    from deepresearch.service.db import database_url

    name = "database (jobs and checkpoints)"
    fix = "check database_url: host, port, user, password and database name"
    try:
        parsed = make_url(database_url(settings))
    except ArgumentError:
        return Check("storage", name, False, "database_url is not a database URL", fix)
    secrets = [*settings.secrets(), *([parsed.password] if parsed.password else [])]
    shown = parsed.render_as_string(hide_password=True)
    if not parsed.drivername.startswith("postgresql"):
        return Check("storage", name, False, f"{shown}: not sqlite:/// or postgresql://", fix)
    try:
        engine = create_engine(parsed, connect_args={"connect_timeout": max(1, int(timeout_s))})
    except ImportError:
        return Check(
            "storage",
            name,
            False,
            "PostgreSQL needs the postgres extra",
            "pip install 'deepresearch[postgres]'",
        )
    try:
        with engine.connect() as connection:
            version = connection.exec_driver_sql("SHOW server_version").scalar()
    except SQLAlchemyError as exc:
        cause = getattr(exc, "orig", None) or exc  # the driver's own message
        first = (str(cause).strip().splitlines() or ["failed"])[0]
        return Check("storage", name, False, f"{shown}: {redact(first, secrets)}", fix)
    finally:
        engine.dispose()
    return Check("storage", name, True, f"{shown} (PostgreSQL {version}, connected)")


# models ------------------------------------------------------------------------------
async def model_checks(settings: Settings, *, timeout_s: float) -> list[Check]:
    """One call to each distinct model the roles use (roles sharing one are one row)."""
    by_spec: dict[str, list[str]] = {}
    for role in ROLES:
        by_spec.setdefault(ModelSettings.of(settings).model_for(role), []).append(role)
    return list(
        await asyncio.gather(
            *(
                _probe_model(spec, roles, settings, timeout_s=timeout_s)
                for spec, roles in by_spec.items()
            )
        )
    )


async def _probe_model(
    spec: str, roles: list[str], settings: Settings, *, timeout_s: float
) -> Check:
    from deepresearch.llm.gateway import Gateway
    from deepresearch.llm.providers import build_chat_model, key_env_vars

    name = f"{'every role' if len(roles) == len(ROLES) else ', '.join(roles)}: {spec}"
    try:
        model = build_chat_model(
            spec,
            base_url=settings.model_base_url,
            api_key=settings.model_api_key,
            timeout_s=timeout_s,
            temperature=settings.model_temperature,
        )
    except DeepResearchError as exc:
        return Check("model", name, False, redact(exc.message, settings.secrets()), exc.hint)
    if model is None:
        return Check("model", name, None, "no model: deterministic fallbacks only")
    key_names = ["DEEPRESEARCH_MODEL_API_KEY", *key_env_vars(spec)]
    origin = key_origin(key_names)
    key = f"key from {origin}" if origin else "no key variable set"
    secrets = [*settings.secrets(), *(os.environ[n] for n in key_names if os.environ.get(n))]
    calls: list[ModelCall] = []
    gateway = Gateway(
        {"planner": model},
        model_names={"planner": spec},
        timeout_s=timeout_s,
        max_retries=0,
        secrets=secrets,
        on_call=calls.append,
    )
    try:
        await asyncio.wait_for(
            gateway.text("planner", system=PROBE_SYSTEM, user=PROBE_USER, stage="doctor"),
            timeout=timeout_s + 5,
        )
    except TimeoutError:
        return Check("model", name, False, f"no answer in {timeout_s:.0f} s ({key})", _fix(spec))
    call = calls[-1] if calls else None
    if call is None or not call.ok:
        why = gateway.errors[-1].split(";")[0] if gateway.errors else "the call failed"
        return Check("model", name, False, f"{why} ({key})", _fix(spec))
    return Check(
        "model",
        name,
        True,
        f"answered in {call.latency_s:.1f} s, {call.input_tokens}+{call.output_tokens} "
        f"tokens ({key})",
    )


def _fix(spec: str) -> str:
    return (
        "check the model name, its key and --model-base-url; --model none runs with "
        f"deterministic fallbacks (doctor --model {spec} --timeout 60 tries again)"
    )


# search ------------------------------------------------------------------------------
async def search_checks(settings: Settings, *, timeout_s: float) -> list[Check]:
    """One query to each provider ``search`` names; the local corpus is inspected, not
    indexed (that can take minutes: ``deepresearch index DIR``)."""
    import httpx

    try:
        names = parse_search(settings.search)
    except ValueError as exc:
        return [Check("search", settings.search, False, str(exc), "check --search")]
    checks: list[Check] = []
    async with httpx.AsyncClient(timeout=timeout_s) as client:
        for name in names:
            if name == "local":
                checks.append(_local_check(settings))
                continue
            checks.append(await _probe_search(name, settings, client, timeout_s))
    return checks


async def _probe_search(
    name: str,
    settings: Settings,
    client: httpx.AsyncClient,
    timeout_s: float,
) -> Check:
    from deepresearch.compose.ports import library_opener
    from deepresearch.search.registry import build_search_providers
    from deepresearch.settings_groups import SettingsGroups

    keys = [f for f in (*PROVIDERS[name].needs, *PROVIDERS[name].optional) if "key" in f]
    origins = [key_origin(env_names(field)) for field in keys]
    key = "; ".join(f"key from {o}" for o in origins if o)
    suffix = f" ({key})" if key else ""
    try:
        (provider,) = build_search_providers(
            settings.model_copy(update={"search": name}),
            client,
            data_dir=settings.data_dir,
            library_factory=library_opener(None, SettingsGroups.of(settings), None),
        )
    except DeepResearchError as exc:
        return Check("search", name, False, redact(exc.message, settings.secrets()), exc.hint)
    if name == "none":
        return Check("search", name, None, "no search: the run uses model knowledge only")
    started = time.monotonic()
    try:
        hits = await asyncio.wait_for(provider.search("test", limit=1), timeout=timeout_s + 5)
    except TimeoutError:
        return Check("search", name, False, f"no answer in {timeout_s:.0f} s{suffix}")
    except DeepResearchError as exc:
        detail = redact(exc.message, settings.secrets())
        return Check("search", name, False, detail + suffix, exc.hint)
    took = time.monotonic() - started
    return Check("search", name, True, f"reachable ({len(hits)} result in {took:.1f} s){suffix}")


def _local_check(settings: Settings) -> Check:
    from deepresearch.search.local import LocalSearch

    corpus = settings.corpus_dir
    fix = "pass --corpus DIR (or set corpus_dir) to a folder of md, txt, html and pdf files"
    if corpus is None:
        return Check("search", "local", False, "no corpus folder configured", fix)
    corpus = corpus.expanduser().resolve()
    if not corpus.is_dir():
        return Check("search", "local", False, f"the corpus folder {corpus} does not exist", fix)
    search = LocalSearch(corpus, index_path(settings.data_dir, corpus))
    try:
        documents = search.indexed_documents()
    except sqlite3.Error as exc:
        return Check(
            "search",
            "local",
            False,
            f"the index of {corpus} cannot be read ({exc})",
            f"rebuild it: deepresearch index {corpus}",
        )
    if documents is None:
        return Check(
            "search",
            "local",
            True,
            f"{corpus}: not indexed yet (the first run indexes it, or: deepresearch index DIR)",
        )
    return Check("search", "local", True, f"{corpus}: {documents} documents indexed")
