"""Who may import whom in ``src/deepresearch`` (docs/architecture.md, "Import rules").

Read from the AST (``tests/layers_graph.py``), counting every import: module level, inside
a function and under ``if TYPE_CHECKING:``. Three rules:

- no import loops (a package's ``__init__`` re-exporting its own modules is not one);
- nothing imports the package root (``from deepresearch import errors`` loads the whole
  package face: write ``from deepresearch.errors import ...``);
- each module imports only its own layer and the layers ``LAYERS`` lets it import.

``LAYERS`` is the one declaration of the layers; moving a module to another layer (the
research recipe into ``recipes/research/``, injection out of ``core``) is an edit of its
prefixes. ``KNOWN_EXCEPTIONS`` lists today's imports against the rules, each a debt.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.layers_graph import Import, ImportGraph

SRC = Path(__file__).resolve().parents[1] / "src"


@dataclass(frozen=True)
class Layer:
    """Modules named by ``prefixes`` (a prefix names a module and everything under it;
    the longest matching prefix decides), and the layers they may import besides their
    own."""

    name: str
    prefixes: tuple[str, ...]
    may_import: tuple[str, ...]


_BASE = ("models", "core", "settings", "adapters", "runs", "export")

#: lowest first; each may import its own layer and those it names
LAYERS: tuple[Layer, ...] = (
    # plain data, value sets and the error tree: no I/O, no logic beyond validation
    Layer(
        "models",
        (
            "deepresearch.models",
            "deepresearch.errors",
            "deepresearch.settings_values",
            "deepresearch.version",
            "deepresearch.data",
        ),
        (),
    ),
    # pure research logic, and the injection detector beside it (patterns as data)
    Layer("core", ("deepresearch.core", "deepresearch.injection"), ("models",)),
    # typed settings, read from the environment, .env and deepresearch.toml
    Layer(
        "settings",
        ("deepresearch.settings", "deepresearch.settings_groups", "deepresearch.envfile"),
        ("models", "core"),
    ),
    # ports and adapters: models, search, fetch, storage, the event bus
    Layer(
        "adapters",
        (
            "deepresearch.llm",
            "deepresearch.search",
            "deepresearch.fetch",
            "deepresearch.resilience",
            "deepresearch.cachedb",
            "deepresearch.checkpoints",
            "deepresearch.events",
            "deepresearch.embeddings",
            "deepresearch.domain_rules",
            "deepresearch.sqldb",
            "deepresearch.librarydb",
        ),
        ("models", "core", "settings"),
    ),
    # what every recipe runs on, naming none: the run context, the ledger, the recipe
    # protocol and registry (which loads a recipe by its module's name, not by import)
    Layer(
        "runs",
        (
            "deepresearch.context",
            "deepresearch.ledger",
            "deepresearch.reading",
            "deepresearch.recipes.base",
            "deepresearch.recipes.registry",
        ),
        ("models", "core", "settings", "adapters"),
    ),
    # a finished result as a file (pdf, docx) in any recipe's formats
    Layer("export", ("deepresearch.export",), ("models", "core", "settings", "adapters", "runs")),
    # the recipes, peers that do not import each other
    Layer(
        "research",
        (
            "deepresearch.recipes",
            "deepresearch.recipes.research",
        ),
        _BASE,
    ),
    Layer("employer", ("deepresearch.recipes.employer",), _BASE),
    # the composition root: builds a run's ports and runs any recipe, naming none;
    # recording and replay wrap its ports
    Layer(
        "runner",
        (
            "deepresearch.runner",
            "deepresearch.compose",
            "deepresearch.ports",
            "deepresearch.replay",
            "deepresearch.records",
            "deepresearch.runstatus",
        ),
        _BASE,
    ),
    # the offline world shipped for tests and benchmarks: fakes of the ports, scripts
    # of each recipe's model calls
    Layer("testing", ("deepresearch.testing",), (*_BASE, "research", "employer")),
    # front ends start runs and render them: the CLI, the HTTP service, the MCP server,
    # the library API, LangGraph Studio's entry, the doctor's checks
    Layer(
        "front ends",
        (
            "deepresearch.cli",
            "deepresearch.service",
            "deepresearch.mcp",
            "deepresearch.api",
            "deepresearch.library",
            "deepresearch.watches",
            "deepresearch.compose.studio",
        ),
        (*_BASE, "runner"),
    ),
)

#: today's imports against the layers, (importer, imported) -> why; each is a debt to
#: remove, and one no longer needed fails ``test_known_exceptions_are_still_needed``
KNOWN_EXCEPTIONS: Mapping[tuple[str, str], str] = {
    ("deepresearch.settings", "deepresearch.search.registry"): (
        "the search provider names and their parsing live in the adapter's registry"
    ),
    ("deepresearch.settings_groups", "deepresearch.search.registry"): (
        "the search provider names and their parsing live in the adapter's registry"
    ),
}


def layer_of(module: str, layers: Sequence[Layer] = LAYERS) -> Layer | None:
    """The layer with the longest prefix naming ``module``, None when none does."""
    matches = [
        (len(prefix), layer)
        for layer in layers
        for prefix in layer.prefixes
        if module == prefix or module.startswith(f"{prefix}.")
    ]
    return max(matches, key=lambda match: match[0], default=(0, None))[1]


@dataclass(frozen=True)
class Findings:
    """What a source folder breaks of the import rules."""

    cycles: list[list[str]]
    root_imports: list[Import]
    forbidden: list[Import]
    unassigned: list[str]
    unused_exceptions: list[tuple[str, str]]


def check(
    src: Path,
    layers: Sequence[Layer] = LAYERS,
    exceptions: Mapping[tuple[str, str], str] = KNOWN_EXCEPTIONS,
) -> Findings:
    """The import rules ``src``'s packages break. A package root (the package's face)
    may import anything, and is in no layer."""
    names = {layer.name for layer in layers}
    unknown = {n for layer in layers for n in layer.may_import} - names
    assert not unknown, f"layers named but not declared: {sorted(unknown)}"
    graph = ImportGraph.of(src)
    forbidden: list[Import] = []
    excused: set[tuple[str, str]] = set()
    for found in graph.imports:
        if "." not in found.importer or "." not in found.target:
            continue  # the root's own re-exports; imports of the root are a rule apart
        importer, imported = layer_of(found.importer, layers), layer_of(found.target, layers)
        if importer is None or imported is None or imported.name == importer.name:
            continue
        if imported.name in importer.may_import:
            continue
        if (found.importer, found.target) in exceptions:
            excused.add((found.importer, found.target))
        else:
            forbidden.append(found)
    return Findings(
        cycles=graph.cycles(),
        root_imports=graph.root_imports(),
        forbidden=forbidden,
        unassigned=sorted(m for m in graph.modules if "." in m and layer_of(m, layers) is None),
        unused_exceptions=sorted(set(exceptions) - excused),
    )


def _described(imports: Sequence[Import], layers: Sequence[Layer] = LAYERS) -> str:
    def layer(module: str) -> str:
        found = layer_of(module, layers)
        return found.name if found else "package root" if "." not in module else "no layer"

    return "\n".join(
        f"{i.importer} ({layer(i.importer)}) line {i.line} imports {i.target} ({layer(i.target)})"
        for i in imports
    )


@pytest.fixture(scope="module")
def findings() -> Findings:
    return check(SRC)


def _fail_with(problems: Sequence[object], title: str, lines: str) -> None:
    if problems:  # the list, not pytest's repr of every finding
        pytest.fail(f"{title}:\n{lines}", pytrace=False)


def test_no_import_cycles(findings: Findings) -> None:
    loops = "\n".join(" <-> ".join(cycle) for cycle in findings.cycles)
    _fail_with(findings.cycles, "import loops", loops)


def test_nothing_imports_the_package_root(findings: Findings) -> None:
    found = findings.root_imports
    _fail_with(found, "imports of the package root", _described(found))


def test_imports_follow_the_layers(findings: Findings) -> None:
    found = findings.forbidden
    title = "imports against LAYERS (docs/architecture.md, 'Import rules')"
    _fail_with(found, title, _described(found))


def test_every_module_has_a_layer(findings: Findings) -> None:
    _fail_with(findings.unassigned, "modules in no layer of LAYERS", "\n".join(findings.unassigned))


def test_known_exceptions_are_still_needed(findings: Findings) -> None:
    paid = "\n".join(f"{a} -> {b}" for a, b in findings.unused_exceptions)
    _fail_with(findings.unused_exceptions, "debts paid: remove them from KNOWN_EXCEPTIONS", paid)


def test_layers_are_declared_once() -> None:
    prefixes = [prefix for layer in LAYERS for prefix in layer.prefixes]
    assert len(prefixes) == len(set(prefixes)), "a prefix in two layers"
    assert len({layer.name for layer in LAYERS}) == len(LAYERS), "a layer declared twice"
    order = {layer.name: i for i, layer in enumerate(LAYERS)}
    for layer in LAYERS:  # lowest first: a layer imports only those declared before it
        assert all(order[name] < order[layer.name] for name in layer.may_import), layer.name


# the checker, tried on a small package made for it (named as ours, so LAYERS applies)


def _package(root: Path, files: Mapping[str, str]) -> Path:
    """A source folder holding ``files`` (path under ``deepresearch/`` -> text), every
    folder a package."""
    src = root / "src"
    for name, text in {"__init__.py": "", **files}.items():
        path = src / "deepresearch" / name
        for folder in [path.parent, *path.parent.parents]:
            if folder == src:
                break
            folder.mkdir(parents=True, exist_ok=True)
            (folder / "__init__.py").touch()
        path.write_text(text, encoding="utf-8")
    return src


_FLAWED = {
    # the root re-exporting its entry points is its job, not a root import
    "__init__.py": "def __getattr__(name):\n    from deepresearch import api\n",
    "api.py": "import deepresearch.runner\n",
    "runner.py": "from deepresearch.models import Plan\n",
    # a package face and its module import each other: not a loop
    "models/__init__.py": "from .plan import Plan\n",
    "models/plan.py": "from deepresearch.models import ids\n\nclass Plan: ...\n",
    "models/ids.py": "",
    "errors.py": "",
    # a loop through a lazy import one way and a TYPE_CHECKING import back
    "core/gate.py": "def decide():\n    from deepresearch.core import waves\n",
    "core/waves.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
    "    from .gate import decide\n",
    # a loop among a package's modules, through the package's face too
    "cli/__init__.py": "from deepresearch.cli.run import run\n",
    "cli/run.py": "from deepresearch.cli import replay\n\ndef run(): ...\n",
    "cli/replay.py": "from . import run\nfrom deepresearch import cli\n",
    # a pure core reaching up to a front end
    "core/render.py": "from ..models.plan import Plan\nfrom deepresearch.service.app import app\n",
    "service/app.py": "app = None\n",
    # the package root imported
    "replay/ports.py": "from deepresearch import errors\n",
    # a module no layer names
    "stray.py": "",
}


@pytest.fixture
def flawed(tmp_path: Path) -> Path:
    return _package(tmp_path, _FLAWED)


def test_the_checker_finds_each_loop_and_only_loops(flawed: Path) -> None:
    assert check(flawed, exceptions={}).cycles == [
        ["deepresearch.cli.replay", "deepresearch.cli.run"],
        ["deepresearch.core.gate", "deepresearch.core.waves"],
    ]


def test_the_checker_finds_imports_of_the_root(flawed: Path) -> None:
    found = check(flawed, exceptions={}).root_imports
    assert [(i.importer, i.line) for i in found] == [
        ("deepresearch.cli.replay", 2),
        ("deepresearch.replay.ports", 1),
    ]


def test_the_checker_finds_an_import_against_the_layers(flawed: Path) -> None:
    found = check(flawed, exceptions={}).forbidden
    assert [(i.importer, i.target, i.line) for i in found] == [
        ("deepresearch.core.render", "deepresearch.service.app", 2)
    ]
    assert "(core) line 2 imports deepresearch.service.app (front ends)" in _described(found)


def test_the_checker_finds_a_module_in_no_layer(flawed: Path) -> None:
    assert check(flawed, exceptions={}).unassigned == ["deepresearch.stray"]


def test_a_known_exception_is_excused_and_a_paid_one_reported(flawed: Path) -> None:
    exceptions = {
        ("deepresearch.core.render", "deepresearch.service.app"): "a debt",
        ("deepresearch.core.gate", "deepresearch.cli.run"): "paid already",
    }
    findings = check(flawed, exceptions=exceptions)
    assert findings.forbidden == []
    assert findings.unused_exceptions == [("deepresearch.core.gate", "deepresearch.cli.run")]


def test_a_clean_package_passes(tmp_path: Path) -> None:
    src = _package(
        tmp_path,
        {
            "models/__init__.py": "from .plan import Plan\n",
            "models/plan.py": "class Plan: ...\n",
            "core/gate.py": "from deepresearch.models.plan import Plan\n",
            "cli/app.py": "def main():\n    from deepresearch.core import gate\n",
        },
    )
    assert check(src, exceptions={}) == Findings([], [], [], [], [])


def test_the_longest_chain_counts_a_loop_as_one_step(tmp_path: Path) -> None:
    src = _package(
        tmp_path,
        {
            "cli.py": "import deepresearch.runner\n",
            "runner.py": "def run():\n    from deepresearch import graph\n",
            "graph.py": "import deepresearch.stages.plan\n",
            "stages/plan.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
            "    import deepresearch.graph\nimport deepresearch.models\n",
            "models.py": "",
            "api.py": "import deepresearch.models\n",
        },
    )
    graph = ImportGraph.of(src)
    assert graph.longest_chain() == [
        "deepresearch.cli",
        "deepresearch.runner",
        "deepresearch.graph|deepresearch.stages.plan",
        "deepresearch.models",
    ]
    # module-level imports only: the runner loads the graph when it runs, not on import
    assert graph.eager().longest_chain() == [
        "deepresearch.graph",
        "deepresearch.stages.plan",
        "deepresearch.models",
    ]
