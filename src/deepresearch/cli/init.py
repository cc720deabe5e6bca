"""``deepresearch init``: set a folder up for research (seed 004's setup wizard).

It takes the model provider and model, the search provider(s) and what each needs, and the
keys, from flags, asking on a terminal for what the flags leave out (``--yes`` asks
nothing). It writes ``deepresearch.toml`` (settings, never a secret) and ``.env`` (the
keys, under the names the ecosystem uses, mode 600). Every choice is checked against the
one list of search providers (``search.registry``) and the model providers the gateway
knows before anything is written; nothing is replaced without ``--force``.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated

import typer

from deepresearch.cli.common import EXIT_OK, error, say
from deepresearch.errors import ConfigError
from deepresearch.search.registry import PROVIDER_NAMES, PROVIDERS, is_http_url, parse_search

#: the model providers offered first, and the model each starts with
DEFAULT_MODELS = {
    "openai": "gpt-4.1-mini",
    "anthropic": "claude-sonnet-4-5",
    "google": "gemini-2.5-flash",
    "ollama": "llama3.2",
    "openai-compatible": "",
    "none": "",
}
#: the flag that gives each setting a search provider needs (the registry names them)
FIELD_FLAGS = {
    "searxng_url": "--searxng-url",
    "corpus_dir": "--corpus",
    "tavily_api_key": "--tavily-key",
    "exa_api_key": "--exa-key",
    "brave_api_key": "--brave-key",
    "google_api_key": "--google-key",
    "google_cse_id": "--google-cse-id",
    "serper_api_key": "--serper-key",
    "semantic_scholar_api_key": "--s2-key",
    "ncbi_api_key": "--ncbi-key",
    "ncbi_email": "--ncbi-email",
    "openai_api_key": "--openai-key",
    "anthropic_api_key": "--anthropic-key",
}
CONFIG_NAME = "deepresearch.toml"
ENV_NAME = ".env"


@dataclass
class Plan:
    """What ``init`` will write: settings for the TOML file, secrets for ``.env``."""

    settings: dict[str, str] = field(default_factory=dict)
    secrets: dict[str, str] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)


class Ask:
    """Where the answers come from: the flags, else a question on the terminal, else the
    default, else a usage error naming the flag."""

    def __init__(self, interactive: bool) -> None:
        self.interactive = interactive

    def __call__(
        self,
        given: str | None,
        question: str,
        *,
        flag: str,
        default: str = "",
        secret: bool = False,
        required: bool = True,
        check: Callable[[str], str] | None = None,
    ) -> str:
        if given is not None:
            problem = check(given) if check and given else ""
            if problem:
                error(f"{flag}: {problem}")
            return given
        if not self.interactive:
            if default or not required:
                return default
            error(f"{question.lower()} is needed", f"pass {flag}, or run init on a terminal")
        while True:
            answer: str = typer.prompt(
                question,
                default=default or ("" if not required else None),
                hide_input=secret,
                show_default=bool(default) and not secret,
                err=True,
            )
            answer = answer.strip()
            if not answer and required:
                typer.echo("  an answer is needed", err=True)
                continue
            problem = check(answer) if check and answer else ""
            if not problem:
                return answer
            typer.echo(f"  {problem}", err=True)


def init(
    provider: Annotated[
        str | None,
        typer.Option(
            help="Model provider: openai, anthropic, google, ollama, openai-compatible, "
            "another LangChain provider, or none."
        ),
    ] = None,
    model: Annotated[str | None, typer.Option(help="The model's name (e.g. gpt-4.1-mini).")] = None,
    model_base_url: Annotated[
        str | None, typer.Option(help="The model server's URL (openai-compatible, ollama).")
    ] = None,
    api_key: Annotated[
        str | None, typer.Option(help="The model provider's API key (written to .env).")
    ] = None,
    search: Annotated[
        str | None,
        typer.Option(help=f"Search provider(s), comma-separated: {', '.join(PROVIDER_NAMES)}."),
    ] = None,
    searxng_url: Annotated[str | None, typer.Option(help="SearXNG server URL.")] = None,
    corpus: Annotated[Path | None, typer.Option(help="Folder of documents (local).")] = None,
    tavily_key: Annotated[str | None, typer.Option(help="Tavily API key.")] = None,
    exa_key: Annotated[str | None, typer.Option(help="Exa API key.")] = None,
    brave_key: Annotated[str | None, typer.Option(help="Brave Search API key.")] = None,
    google_key: Annotated[str | None, typer.Option(help="Google API key.")] = None,
    google_cse_id: Annotated[str | None, typer.Option(help="Google search engine id.")] = None,
    serper_key: Annotated[str | None, typer.Option(help="serper.dev API key.")] = None,
    s2_key: Annotated[str | None, typer.Option(help="Semantic Scholar API key.")] = None,
    ncbi_key: Annotated[str | None, typer.Option(help="NCBI (PubMed) API key.")] = None,
    ncbi_email: Annotated[str | None, typer.Option(help="Contact address for NCBI.")] = None,
    openai_key: Annotated[str | None, typer.Option(help="OpenAI key (openai_web).")] = None,
    anthropic_key: Annotated[
        str | None, typer.Option(help="Anthropic key (anthropic_web).")
    ] = None,
    folder: Annotated[
        Path, typer.Option("--dir", help="Where to write deepresearch.toml and .env.")
    ] = Path("."),
    yes: Annotated[
        bool, typer.Option("--yes", "-y", help="Ask nothing: flags, else defaults.")
    ] = False,
    interactive: Annotated[
        bool | None,
        typer.Option(help="Ask for what the flags leave out (default: on a terminal)."),
    ] = None,
    force: Annotated[
        bool, typer.Option(help="Replace deepresearch.toml; add or replace the keys in .env.")
    ] = False,
) -> None:
    """Set up a folder: choose model and search, store the keys, write the config."""
    ask = Ask(not yes and (interactive if interactive is not None else sys.stdin.isatty()))
    flags = {
        "searxng_url": searxng_url,
        "corpus_dir": str(corpus) if corpus is not None else None,
        "tavily_api_key": tavily_key,
        "exa_api_key": exa_key,
        "brave_api_key": brave_key,
        "google_api_key": google_key,
        "google_cse_id": google_cse_id,
        "serper_api_key": serper_key,
        "semantic_scholar_api_key": s2_key,
        "ncbi_api_key": ncbi_key,
        "ncbi_email": ncbi_email,
        "openai_api_key": openai_key,
        "anthropic_api_key": anthropic_key,
    }
    if not folder.is_dir():
        error(f"--dir {folder} is not a folder")
    config_path, env_path = folder / CONFIG_NAME, folder / ENV_NAME
    if config_path.exists() and not force:
        error(f"{config_path} exists", "pass --force to replace it, or edit it")
    plan = Plan()
    _model_part(plan, ask, provider, model, model_base_url, api_key)
    _search_part(plan, ask, search, flags)
    _write(plan, config_path, env_path, force=force)
    raise typer.Exit(EXIT_OK)


def _write(plan: Plan, config_path: Path, env_path: Path, *, force: bool) -> None:
    """Write what ``init`` planned (the keys only where ``.env`` may be changed)."""
    if plan.secrets and env_path.exists() and not force:
        error(
            f"{env_path} exists",
            "pass --force to add or replace the keys in it (its other lines are kept)",
        )
    _write_config(config_path, plan.settings)
    if plan.secrets:
        _write_env(env_path, plan.secrets)
    say(f"wrote {config_path}" + (f" and {env_path} (keys, mode 600)" if plan.secrets else ""))
    for note in plan.notes:
        say(f"note: {note}")
    say("next: deepresearch doctor (checks every model and provider for real)")


def _model_part(
    plan: Plan,
    ask: Ask,
    provider: str | None,
    model: str | None,
    base_url: str | None,
    api_key: str | None,
) -> None:
    from deepresearch.llm.providers import (
        key_env_vars,
        known_providers,
        missing_package,
        parse_spec,
    )

    offered = list(DEFAULT_MODELS)
    others = [p for p in known_providers() if p not in ("openai", "anthropic", "google_genai")]
    choices = [*offered[:-1], *(p for p in others if p not in offered), "none"]

    def known(name: str) -> str:
        if name.lower() in choices or name.lower() in ("google_genai", "gemini"):
            return ""
        return f"unknown model provider {name!r}; choose from: {', '.join(choices)}"

    chosen = ask(
        provider, "Model provider", flag="--provider", default="openai", check=known
    ).lower()
    if chosen == "none":
        plan.settings["model"] = "none"
        return
    if model and model.lower().startswith(f"{chosen}:"):
        model = model[len(chosen) + 1 :]
    name = ask(model, "Model", flag="--model", default=DEFAULT_MODELS.get(chosen, ""))
    spec = f"{chosen}:{name}"
    try:
        parse_spec(spec)
    except ConfigError as exc:
        error(f"--model: {exc.message}", exc.hint)
    plan.settings["model"] = spec
    compatible = chosen == "openai-compatible"
    if compatible or chosen == "ollama" or base_url is not None:
        url = ask(
            base_url,
            "Model server URL" + ("" if compatible else " (empty: OLLAMA_HOST or the default)"),
            flag="--model-base-url",
            required=compatible,
            check=lambda value: "" if is_http_url(value) else "give an http(s) URL",
        )
        if url:
            plan.settings["model_base_url"] = url
    install = missing_package(spec)
    if install:
        plan.notes.append(f"{chosen} models need a package: {install}")
    # a compatible server's key is its own, not the OPENAI_API_KEY of openai.com
    names = ("DEEPRESEARCH_MODEL_API_KEY",) if compatible else key_env_vars(spec)
    if not names:
        return
    present = _already_set(names)
    if present and api_key is None:
        plan.notes.append(f"the model's key is already set ({present}); not written")
        return
    key = ask(
        api_key,
        f"{names[0]} (empty: set it later)",
        flag="--api-key",
        secret=True,
        required=False,
    )
    if key:
        plan.secrets[names[0]] = key
    elif not compatible:
        plan.notes.append(f"{names[0]} is not set: runs with {spec} need it")


def _search_part(plan: Plan, ask: Ask, search: str | None, flags: dict[str, str | None]) -> None:
    from deepresearch.settings import Settings
    from deepresearch.settings_values import ECOSYSTEM_ENV, env_names

    def valid(value: str) -> str:
        try:
            parse_search(value)
        except ValueError as exc:
            return str(exc)
        return ""

    chosen = ask(search, "Search provider(s)", flag="--search", default="duckduckgo", check=valid)
    names = parse_search(chosen)
    plan.settings["search"] = ",".join(names)
    checks: dict[str, Callable[[str], str]] = {
        "searxng_url": lambda v: "" if is_http_url(v) else "give an http(s) URL",
        "corpus_dir": lambda v: "" if Path(v).expanduser().is_dir() else f"{v} is not a folder",
        "ncbi_email": lambda v: "" if "@" in v else "give an email address",
    }
    for name in names:
        provider = PROVIDERS[name]
        for setting in (*provider.needs, *provider.optional):
            required = setting in provider.needs
            secret = "SecretStr" in str(Settings.model_fields[setting].annotation)
            env = env_names(setting)
            present = _already_set(env)
            if present and flags[setting] is None:
                plan.notes.append(f"{name}: {setting} is already set ({present}); not written")
                continue
            value = ask(
                flags[setting],
                f"{name}: {setting.replace('_', ' ')}" + ("" if required else " (optional)"),
                flag=FIELD_FLAGS[setting],
                secret=secret,
                required=required and not secret,
                check=checks.get(setting),
            )
            if not value:
                if required:
                    plan.notes.append(f"{name} needs {' or '.join(env)}: set it before a run")
                continue
            if secret:  # under the name the rest of the ecosystem uses
                plan.secrets[(*ECOSYSTEM_ENV.get(setting, ()), env[0])[0]] = value
            elif setting == "corpus_dir":  # found from any folder
                plan.settings[setting] = str(Path(value).expanduser().resolve())
            else:
                plan.settings[setting] = value


def _already_set(names: tuple[str, ...] | list[str]) -> str | None:
    from deepresearch.cli.diagnose import key_origin

    return key_origin(list(names))


def _write_config(path: Path, settings: dict[str, str]) -> None:
    lines = [
        "# deepresearch settings, written by 'deepresearch init' (docs/configuration.md).",
        "# No secrets here: the keys are in .env beside this file.",
    ]
    # a TOML basic string is a JSON string for everything json.dumps writes
    lines += [f"{key} = {json.dumps(value)}" for key, value in settings.items()]
    try:
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    except OSError as exc:
        error(f"could not write {path} ({exc.strerror or exc})")


def _write_env(path: Path, secrets: dict[str, str]) -> None:
    """Add or replace each key in ``path`` (its other lines are kept), readable by you
    alone. python-dotenv writes the quoting its reader (and Settings') undoes."""
    from dotenv import set_key

    try:
        if not path.exists():
            os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
        for name, value in secrets.items():
            set_key(path, name, value, quote_mode="always")
        path.chmod(0o600)
    except OSError as exc:
        error(f"could not write {path} ({exc.strerror or exc})")
