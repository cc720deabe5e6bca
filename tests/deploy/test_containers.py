"""The Dockerfile and compose.yaml (issue 18, part 7). No image can be built or pulled
here, so what can be checked is checked: every ``deepresearch`` command line they run is
parsed by the real CLI, every ``DEEPRESEARCH_*`` variable they set is a setting the code
reads and its value passes Settings' validation, the image runs as a user of its own and
keeps no build tools, the health checks work against a real ``deepresearch serve`` and a
real ``deepresearch worker``, and ``docker compose config`` accepts the file when a
compose client is installed."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from typer.main import get_command

from deepresearch.cli.app import app
from deepresearch.settings import Settings
from deepresearch.settings_values import env_names

ROOT = Path(__file__).resolve().parents[2]
DOCKERFILE = ROOT / "Dockerfile"
COMPOSE = ROOT / "compose.yaml"
#: what compose needs set in .env (compose.yaml refuses to start without them)
REQUIRED_ENV = {"POSTGRES_PASSWORD": "pw", "SEARXNG_SECRET": "secret"}


# --- reading the files ------------------------------------------------------------------


def dockerfile_instructions() -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) of the final stage, continuation lines joined."""
    logical: list[str] = []
    current = ""
    for raw in DOCKERFILE.read_text(encoding="utf-8").splitlines():
        line = raw.strip()
        if not current and (not line or line.startswith("#")):
            continue
        if line.endswith("\\"):
            current += line[:-1] + " "
            continue
        logical.append(current + line)
        current = ""
    instructions = [(line.split(None, 1)[0].upper(), line.split(None, 1)[1]) for line in logical]
    last_from = max(i for i, (name, _) in enumerate(instructions) if name == "FROM")
    return instructions[last_from:]


def exec_form(arguments: str) -> list[str]:
    value = json.loads(arguments)
    assert isinstance(value, list) and all(isinstance(v, str) for v in value), arguments
    return value


def compose() -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load(COMPOSE.read_text(encoding="utf-8"))
    return data


def interpolate(value: str) -> str:
    """Compose's ``${NAME:-default}`` (the default), ``${NAME:?error}`` (a placeholder, as
    the operator must set it) and ``${NAME}`` (empty)."""

    def one(match: re.Match[str]) -> str:
        name, op, rest = match.group(1), match.group(2) or "", match.group(3) or ""
        if op in (":-", "-"):
            return rest
        if op in (":?", "?"):
            return REQUIRED_ENV.get(name, "set")
        return ""

    return re.sub(r"\$\{([A-Z0-9_]+)(?:(:?[-?])([^}]*))?\}", one, value)


# --- what the code knows ----------------------------------------------------------------


def known_variables() -> set[str]:
    """Every DEEPRESEARCH_* name the code reads: each setting's, each CLI option's, and
    the few read directly (``DEEPRESEARCH_CONFIG``...)."""
    names = {name for field in Settings.model_fields for name in env_names(field)}
    for command in _walk(get_command(app)):
        names |= {
            name
            for param in command.params
            for name in ([param.envvar] if isinstance(param.envvar, str) else param.envvar or [])
        }
    for path in (ROOT / "src" / "deepresearch").rglob("*.py"):
        names |= set(re.findall(r"\"(DEEPRESEARCH_[A-Z_]+)\"", path.read_text(encoding="utf-8")))
    return names


def _walk(command: Any) -> Iterator[Any]:
    """The command and its subcommands (Typer's click: groups have ``commands``)."""
    yield command
    for sub in getattr(command, "commands", {}).values():
        yield from _walk(sub)


def parse_cli(args: list[str]) -> Any:
    """Parse ``deepresearch ARGS`` with the real CLI (without running it) into its click
    context: an unknown command or option, or a bad value, raises a usage error."""
    command = get_command(app)
    rest = list(args)
    while hasattr(command, "commands"):
        assert rest, f"deepresearch {' '.join(args)}: no command"
        name = rest.pop(0)
        assert name in command.commands, f"deepresearch has no command {name!r}"
        command = command.commands[name]
    return command.make_context(command.name or "", rest)


def check_variables(environment: dict[str, str], where: str) -> None:
    known = known_variables()
    settings_by_env = {name: field for field in Settings.model_fields for name in env_names(field)}
    values = {}
    for name, value in environment.items():
        if not name.startswith("DEEPRESEARCH_"):
            continue
        assert name in known, f"{where}: {name} is not a variable deepresearch reads"
        if name in settings_by_env:
            values[settings_by_env[name]] = interpolate(str(value))
    Settings(**values)  # each value passes the setting's own validation


# --- the Dockerfile ---------------------------------------------------------------------


def test_the_image_is_slim_runs_as_its_own_user_and_keeps_no_build_tools() -> None:
    stage = dockerfile_instructions()
    name, base = stage[0]
    # slim, and pinned to a patch release (3.11-slim moves under a rebuild)
    assert name == "FROM" and re.fullmatch(r"python:3\.11\.\d+-slim-\w+", base), base
    builder = DOCKERFILE.read_text(encoding="utf-8").split("\n# --- runtime")[0]
    assert f"FROM {base} AS build" in builder  # both stages on the same base
    users = [(i, args) for i, (name, args) in enumerate(stage) if name == "USER"]
    assert users, "the image runs as root"
    position, user = users[-1]
    assert user.split(":")[0] not in ("root", "0")
    runs = " ".join(args for name, args in stage if name == "RUN")
    for tool in ("apt-get install", "gcc", "build-essential", "g++", "make "):
        assert tool not in runs, f"{tool!r} in the runtime stage"
    assert "--no-cache-dir" in runs and "rm -rf /wheels" in runs
    starts = [i for i, (name, _) in enumerate(stage) if name in ("ENTRYPOINT", "CMD")]
    assert starts and min(starts) > position  # the process starts as that user


def test_the_images_command_and_settings_are_real() -> None:
    stage = dict(dockerfile_instructions())
    assert exec_form(stage["ENTRYPOINT"]) == ["deepresearch"]
    parse_cli(exec_form(stage["CMD"]))
    environment = dict(re.findall(r"(\w+)=(\S+)", stage["ENV"]))
    check_variables(environment, "Dockerfile")
    extras = re.search(r"ARG EXTRAS=(\S+)", DOCKERFILE.read_text(encoding="utf-8"))
    assert extras is not None
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert set(extras.group(1).split(",")) <= set(project["optional-dependencies"])
    assert "postgres" in extras.group(1).split(",")


def test_the_build_context_holds_what_the_dockerfile_copies() -> None:
    text = DOCKERFILE.read_text(encoding="utf-8")
    copied = [
        part
        for line in text.splitlines()
        if line.startswith("COPY") and "--from" not in line
        for part in line.split()[1:-1]
    ]
    assert copied, "nothing copied"
    allowed = [
        line[1:].rstrip("/")
        for line in (ROOT / ".dockerignore").read_text(encoding="utf-8").splitlines()
        if line.startswith("!")
    ]
    for part in copied:
        assert (ROOT / part).exists(), part
        assert part.rstrip("/") in allowed, f"{part} is excluded by .dockerignore"
    # the wheel's readme is part of the build
    readme = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert readme["readme"] in copied


@pytest.fixture
def service_port(tmp_path: Path) -> Iterator[int]:
    from deepresearch.service.app import create_app
    from deepresearch.service.server import BackgroundServer
    from deepresearch.settings import load_settings

    settings = load_settings(data_dir=tmp_path / "data", model="none", search="none")
    with BackgroundServer(create_app(settings)) as server:
        yield int(server.url.rsplit(":", 1)[1])


def test_the_images_health_check_asks_a_real_service(service_port: int) -> None:
    check = dict(dockerfile_instructions())["HEALTHCHECK"]
    command = exec_form(check[check.index("CMD") + 3 :].strip())
    assert command[0] == "python"
    command[0] = sys.executable
    env = {**os.environ, "DEEPRESEARCH_SERVE_PORT": str(service_port)}
    assert subprocess.run(command, env=env, capture_output=True, timeout=30).returncode == 0
    env["DEEPRESEARCH_SERVE_PORT"] = str(_free_port())  # nothing listens: unhealthy
    assert subprocess.run(command, env=env, capture_output=True, timeout=30).returncode != 0


def _free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


# --- compose.yaml -----------------------------------------------------------------------


def test_compose_runs_the_api_workers_postgres_searxng_and_optional_ollama() -> None:
    services = compose()["services"]
    assert set(services) == {"api", "worker", "postgres", "searxng", "ollama"}
    for name, service in services.items():
        assert service.get("healthcheck", {}).get("test"), f"{name} has no health check"
    assert services["ollama"]["profiles"] == ["ollama"]
    assert all("profiles" not in services[name] for name in ("api", "worker", "postgres"))
    for name in ("api", "worker"):
        assert services[name]["build"] == "."
        needs = services[name]["depends_on"]
        assert needs["postgres"]["condition"] == "service_healthy"
    assert "pg_isready" in " ".join(services["postgres"]["healthcheck"]["test"])
    assert services["worker"]["deploy"]["replicas"] >= 2
    searxng = yaml.safe_load((ROOT / "deploy" / "searxng" / "settings.yml").read_text())
    assert "json" in searxng["search"]["formats"]  # the searxng provider reads JSON
    mounted = services["searxng"]["volumes"][0].split(":")[0]
    assert (ROOT / mounted).resolve() == (ROOT / "deploy" / "searxng" / "settings.yml")


def test_compose_commands_and_settings_are_real() -> None:
    services = compose()["services"]
    api = parse_cli(services["api"]["command"])
    assert api.command.name == "serve" and api.params["workers"] is False
    worker = parse_cli(services["worker"]["command"])
    assert worker.command.name == "worker" and worker.params["health_file"] is not None
    for name in ("api", "worker"):
        check_variables(services[name]["environment"], f"compose.yaml {name}")
    # the API and the workers share one database and the same model and search settings
    shared = ("DEEPRESEARCH_DATABASE_URL", "DEEPRESEARCH_MODEL", "DEEPRESEARCH_SEARCH")
    for key in shared:
        assert services["api"]["environment"][key] == services["worker"]["environment"][key]
    url = interpolate(services["api"]["environment"]["DEEPRESEARCH_DATABASE_URL"])
    assert url.startswith("postgresql+psycopg://") and "@postgres:5432/" in url
    assert services["api"]["environment"]["DEEPRESEARCH_SEARXNG_URL"] == "http://searxng:8080"


def test_compose_passes_every_providers_keys_into_the_containers() -> None:
    """Each search provider's settings (its keys, its CSE id, its contact e-mail) and the
    keys of each model provider the image installs reach the API and the workers under a
    name the code reads: compose passed four keys, and Exa's, Brave's, Serper's, Gemini's,
    Semantic Scholar's and NCBI's never arrived."""
    from deepresearch.llm.providers import key_env_vars, known_providers, provider_extra
    from deepresearch.search.registry import PROVIDERS
    from deepresearch.settings_values import ECOSYSTEM_ENV

    def account(field: str) -> bool:
        """A key or an account setting (a secret, or a setting other tools name too), not
        a path to mount such as the local corpus."""
        return field in ECOSYSTEM_ENV or "SecretStr" in str(Settings.model_fields[field].annotation)

    extras = re.search(r"ARG EXTRAS=(\S+)", DOCKERFILE.read_text(encoding="utf-8"))
    assert extras is not None
    installed = set(extras.group(1).split(","))
    for name in ("api", "worker"):
        passed = set(compose()["services"][name]["environment"])
        for search, provider in PROVIDERS.items():
            for field in filter(account, (*provider.needs, *provider.optional)):
                assert passed & set(env_names(field)), f"{name}: {search} never gets {field}"
        for model in known_providers():
            if provider_extra(model) in installed:
                wanted = set(key_env_vars(f"{model}:m"))
                assert wanted <= passed, f"{name}: {model} never gets {wanted - passed}"


def test_compose_pins_every_image() -> None:
    for name, service in compose()["services"].items():
        image = str(service["image"])
        tag = image.rsplit(":", 1)[-1] if ":" in image else ""
        if name in ("api", "worker"):
            continue  # built here from the pinned Dockerfile
        assert tag and tag != "latest" and any(c.isdigit() for c in tag), f"{name}: {image}"


def test_the_workers_health_check_follows_a_real_worker(tmp_path: Path) -> None:
    """``deepresearch worker --health-file`` as compose runs it: the file appears while it
    reaches the database, and compose's check passes on it; a stale file fails it."""
    service = compose()["services"]["worker"]
    args = service["command"]
    health = Path(args[args.index("--health-file") + 1])
    check = [
        sys.executable if part == "python" else part for part in service["healthcheck"]["test"][1:]
    ]
    here = tmp_path / "alive"
    check = [part.replace(str(health), str(here)) for part in check]
    env = {**os.environ, "DEEPRESEARCH_DATA_DIR": str(tmp_path / "data")}
    worker = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "deepresearch.cli.app",
            "worker",
            "--health-file",
            str(here),
            "--model",
            "none",
            "--search",
            "none",
        ],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 60
        while not here.exists():
            assert worker.poll() is None, worker.stderr.read() if worker.stderr else ""
            assert time.monotonic() < deadline, "no health file"
            time.sleep(0.1)
        assert subprocess.run(check, capture_output=True, timeout=30).returncode == 0
    finally:
        worker.terminate()
        assert worker.wait(timeout=30) == 0  # SIGTERM: a clean stop
    old = time.time() - 120
    os.utime(here, (old, old))
    assert subprocess.run(check, capture_output=True, timeout=30).returncode != 0


def test_docker_compose_accepts_the_file(tmp_path: Path) -> None:
    """``docker compose config`` (or the older ``docker-compose config``) when a compose
    client is installed; none is on a machine without Docker's compose plugin."""
    if (
        shutil.which("docker")
        and subprocess.run(
            ["docker", "compose", "version"], capture_output=True, check=False
        ).returncode
        == 0
    ):
        command = ["docker", "compose"]
    elif shutil.which("docker-compose"):
        command = ["docker-compose"]
    else:
        pytest.skip("no compose client here (docker compose / docker-compose)")
    env = {**os.environ, **REQUIRED_ENV}
    done = subprocess.run(
        [*command, "-f", str(COMPOSE), "config", "--quiet"],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    without = {k: v for k, v in env.items() if k not in REQUIRED_ENV}
    refused = subprocess.run(
        [*command, "-f", str(COMPOSE), "config", "--quiet"],
        capture_output=True,
        text=True,
        env=without,
        cwd=tmp_path,
        timeout=60,
        check=False,
    )
    assert refused.returncode != 0 and "POSTGRES_PASSWORD" in refused.stderr
