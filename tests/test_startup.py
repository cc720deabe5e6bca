"""Starting is cheap (issue 19): ``import deepresearch``, ``deepresearch --help`` (of every
command) and ``--version`` load none of the heavy libraries, and a run's first event is
out before LangGraph and LangChain load. Each case runs in a fresh interpreter and the
whole module set is checked, so a new import anywhere on these paths is caught. Timings
are measured by ``bench/startup.py``, never asserted here."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import typer

from deepresearch.cli.app import app

#: what a start must not load: each is a noticeable part of a second (LangChain and
#: LangGraph pull in langsmith, about one second alone), or the service or a run's
#: reading stack. pydantic stays out too: --help fits in 0.3 s without it.
HEAVY = (
    "langchain",
    "langchain_core",
    "langgraph",
    "langsmith",
    "openai",
    "anthropic",
    "fastapi",
    "starlette",
    "uvicorn",
    "sqlalchemy",
    "alembic",
    "trafilatura",
    "lxml",
    "pypdf",
    "httpx",
    "aiosqlite",
    "pydantic",
    "pydantic_settings",
    # the recipes themselves; their registry (names only, for the CLI's help) is light
    "deepresearch.recipes.base",
    "deepresearch.recipes.research.recipe",
    "deepresearch.recipes.employer",
    "deepresearch.recipes.research.graph",
    "deepresearch.recipes.research.stages",
    "deepresearch.service.app",
    "deepresearch.llm.gateway",
)
#: a subcommand's --help: Typer itself loads pydantic to read the parent command's flags
HEAVY_FOR_SUBCOMMANDS = tuple(name for name in HEAVY if name != "pydantic")
#: what a run may have loaded by its first event: settings, events, the CLI and the
#: recipe's light part (which words the event), not the graph and the model stack
HEAVY_BEFORE_FIRST_EVENT = tuple(
    name
    for name in HEAVY
    if not name.startswith(("pydantic", "httpx", "deepresearch.recipes.base"))
    and name != "deepresearch.recipes.research.recipe"
)


def _loaded(code: str, *args: str, cwd: Path | None = None) -> tuple[set[str], str]:
    """The modules loaded after running ``code`` in a new interpreter (written by the
    code to the file named by its first argument), and what it printed."""
    out = Path(cwd or ".") / "modules.json"
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code), str(out), *args],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        cwd=cwd,
    )
    assert out.is_file(), done.stderr
    return set(json.loads(out.read_text())), done.stdout + done.stderr


def _heavy(modules: set[str], heavy: tuple[str, ...] = HEAVY) -> list[str]:
    return sorted(m for m in modules if any(m == h or m.startswith(h + ".") for h in heavy))


CLI = """
import json, sys
out, args = sys.argv[1], sys.argv[2:]
sys.argv = ["deepresearch", *args]
from deepresearch.cli.app import main
try:
    main()
except SystemExit:
    pass
open(out, "w").write(json.dumps(sorted(sys.modules)))
"""


def _commands() -> list[list[str]]:
    """Every command and subcommand of the CLI, as the words that name it."""
    group = typer.main.get_command(app)
    found: list[list[str]] = [[]]

    def walk(command: object, path: list[str]) -> None:
        for name, sub in getattr(command, "commands", {}).items():
            found.append([*path, name])
            walk(sub, [*path, name])

    walk(group, [])
    return found


def test_import_loads_nothing_heavy(tmp_path: Path) -> None:
    modules, _ = _loaded(
        """
        import json, sys
        import deepresearch
        open(sys.argv[1], "w").write(json.dumps(sorted(sys.modules)))
        """,
        cwd=tmp_path,
    )
    assert "deepresearch" in modules
    assert not _heavy(modules), _heavy(modules)
    assert not any(m.startswith("deepresearch.") for m in modules), "the package is lazy"


def test_the_entry_points_still_load_on_first_use(tmp_path: Path) -> None:
    modules, printed = _loaded(
        """
        import json, sys
        import deepresearch
        print(deepresearch.research.__module__, deepresearch.research_events.__name__)
        open(sys.argv[1], "w").write(json.dumps(sorted(sys.modules)))
        """,
        cwd=tmp_path,
    )
    assert "deepresearch.api research_events" in printed
    assert _heavy(modules)  # loaded when used: the guard above is not vacuous


def test_every_commands_help_loads_nothing_heavy(tmp_path: Path) -> None:
    commands = _commands()
    names = {" ".join(words) for words in commands}
    assert {"run", "doctor", "init", "runs list", "serve", "employer", "jobs submit"} <= names
    for words in commands:
        modules, printed = _loaded(CLI, *words, "--help", cwd=tmp_path)
        assert "Usage" in printed, (words, printed)
        heavy = _heavy(modules, HEAVY if not words else HEAVY_FOR_SUBCOMMANDS)
        assert not heavy, (words, heavy)


def test_version_loads_nothing_heavy(tmp_path: Path) -> None:
    modules, printed = _loaded(CLI, "--version", cwd=tmp_path)
    assert printed.startswith("deepresearch ")
    assert not _heavy(modules), _heavy(modules)


@pytest.mark.slow
def test_a_runs_first_event_comes_before_the_graph_loads(tmp_path: Path) -> None:
    """The first event of an offline run is written while LangGraph and LangChain are
    not loaded yet: the run announces itself, then loads them (bench/startup.py times it)."""
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "gen.md").write_text(
        "# Generators\n\nA generator function uses the yield statement to produce values "
        "one at a time, pausing between them.\n",
        encoding="utf-8",
    )
    code = """
        import json, sys
        out, args = sys.argv[1], sys.argv[2:]
        from deepresearch.cli import live
        seen = []
        original = live.Renderer.__call__
        def record(self, event):
            if not seen:
                seen.append(sorted(sys.modules))
            original(self, event)
        live.Renderer.__call__ = record
        sys.argv = ["deepresearch", *args]
        from deepresearch.cli.app import main
        try:
            main()
        except SystemExit:
            pass
        open(out, "w").write(json.dumps(seen[0] if seen else []))
        """
    modules, printed = _loaded(
        code,
        "run",
        "What are generators?",
        "--model",
        "none",
        "--search",
        "local",
        "--corpus",
        str(corpus),
        "--json-events",
        "--out",
        str(tmp_path / "report.md"),
        cwd=tmp_path,
    )
    first = json.loads(printed.splitlines()[0])
    assert first["type"] == "run_started", printed
    assert (tmp_path / "report.md").is_file(), printed  # the run went on to the end
    assert modules and not _heavy(modules, HEAVY_BEFORE_FIRST_EVENT), _heavy(
        modules, HEAVY_BEFORE_FIRST_EVENT
    )
