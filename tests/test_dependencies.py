"""Every third-party package the code imports is declared in pyproject.toml.

The rule (docs/development.md): an import anywhere in ``src/deepresearch`` (``testing/``
too: it ships in the wheel and the CLI and benchmarks use it) must name a distribution in
``[project].dependencies``, directly, not through another package's requirements. An
import the code guards (inside ``try: ... except ImportError``, including
``importlib.import_module("name")``) is optional: its distribution may be declared in an
extra instead. Imports under ``if TYPE_CHECKING:`` are for the type checker only. Tests and
benchmarks may use the dev group as well.

Modules are mapped to distributions with ``importlib.metadata``; a namespace package
shared by several distributions (``langgraph``) is resolved by the file the module comes
from.
"""

from __future__ import annotations

import ast
import importlib.util
import re
import sys
import tomllib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from functools import cache
from importlib.metadata import distribution, packages_distributions
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SOURCE = ROOT / "src" / "deepresearch"
FIRST_PARTY = frozenset({"deepresearch", "tests", "bench"})
_IMPORT_ERRORS = {"ImportError", "ModuleNotFoundError"}


@dataclass(frozen=True)
class Imported:
    module: str
    path: Path
    line: int
    #: inside ``try`` / ``except ImportError``: the code works without it
    optional: bool


def _normalize(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _requirement_name(requirement: str) -> str:
    match = re.match(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)", requirement)
    assert match, f"unreadable requirement {requirement!r}"
    return _normalize(match.group(1))


def declared(pyproject: Mapping[str, object]) -> tuple[set[str], set[str], set[str]]:
    """(the runtime dependencies, every extra's, the dev group's), names normalized."""
    project = pyproject["project"]
    groups = pyproject.get("dependency-groups", {})
    assert isinstance(project, dict) and isinstance(groups, dict)
    required = {_requirement_name(req) for req in project.get("dependencies", [])}
    extras = {
        _requirement_name(req)
        for group in project.get("optional-dependencies", {}).values()
        for req in group
        if _requirement_name(req) != _normalize(str(project["name"]))
    }
    dev = {_requirement_name(req) for req in groups.get("dev", []) if isinstance(req, str)}
    return required, extras, dev


def _catches_import_error(handler: ast.ExceptHandler) -> bool:
    if handler.type is None:
        return True
    types = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
    return any(isinstance(t, ast.Name) and t.id in _IMPORT_ERRORS for t in types)


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imports_in(tree: ast.AST, path: Path) -> Iterator[Imported]:
    def visit(node: ast.AST, optional: bool) -> Iterator[Imported]:
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield Imported(alias.name, path, node.lineno, optional)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            yield Imported(node.module, path, node.lineno, optional)
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "import_module"
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
        ):
            yield Imported(node.args[0].value, path, node.lineno, optional)
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            for child in node.orelse:
                yield from visit(child, optional)
            return
        if isinstance(node, ast.Try):
            guarded = optional or any(_catches_import_error(h) for h in node.handlers)
            for child in node.body:
                yield from visit(child, guarded)
            for child in [*node.handlers, *node.orelse, *node.finalbody]:
                yield from visit(child, optional)
            return
        for child in ast.iter_child_nodes(node):
            yield from visit(child, optional)

    yield from visit(tree, False)


def third_party_imports(source: Path) -> list[Imported]:
    """Every import of a module outside the standard library and ``deepresearch``."""
    found: list[Imported] = []
    for path in sorted(source.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for imported in _imports_in(tree, path.relative_to(source.parent)):
            top = imported.module.split(".")[0]
            if top not in sys.stdlib_module_names and top not in FIRST_PARTY:
                found.append(imported)
    return found


@cache
def _distributions_by_top_module() -> Mapping[str, list[str]]:
    return packages_distributions()


@cache
def _files_of(dist_name: str) -> frozenset[Path]:
    dist = distribution(dist_name)
    return frozenset(Path(str(dist.locate_file(f))).resolve() for f in dist.files or ())


def distribution_of(module: str) -> str | None:
    """The installed distribution that provides ``module`` (normalized), or None."""
    candidates = _distributions_by_top_module().get(module.split(".")[0], [])
    if len(set(map(_normalize, candidates))) <= 1:
        return _normalize(candidates[0]) if candidates else None
    spec = importlib.util.find_spec(module)  # a namespace shared by several distributions
    if spec is None:
        return None
    files = [Path(spec.origin)] if spec.origin else []
    files += [Path(d) / "__init__.py" for d in spec.submodule_search_locations or ()]
    for name in candidates:
        owned = _files_of(name)
        if any(file.resolve() in owned for file in files):
            return _normalize(name)
    return None


def undeclared(imports: list[Imported], required: set[str], extras: set[str]) -> list[str]:
    """One line per import whose distribution is not declared where it has to be."""
    problems = []
    for imported in imports:
        where = f"{imported.path}:{imported.line}"
        dist = distribution_of(imported.module)
        if dist is None:
            problems.append(f"{where}: {imported.module} is not installed by any distribution")
        elif dist in required or (imported.optional and dist in extras):
            continue
        elif dist in extras:
            problems.append(
                f"{where}: {imported.module} ({dist}) is only in an extra, but imported "
                "unguarded: declare it in [project].dependencies or guard the import"
            )
        else:
            problems.append(f"{where}: {imported.module} ({dist}) is not declared")
    return problems


def _declared() -> tuple[set[str], set[str], set[str]]:
    return declared(tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8")))


def test_every_direct_import_of_the_package_is_declared() -> None:
    required, extras, _ = _declared()
    imports = third_party_imports(SOURCE)
    assert len({i.module.split(".")[0] for i in imports}) >= 15  # the walk sees the code
    problems = undeclared(imports, required, extras)
    assert not problems, "\n".join(problems)


def test_tests_and_benchmarks_import_only_declared_packages() -> None:
    required, extras, dev = _declared()
    imports = third_party_imports(ROOT / "tests") + third_party_imports(ROOT / "bench")
    assert any(i.module == "pytest" for i in imports)
    problems = undeclared(imports, required | extras | dev, set())
    assert not problems, "\n".join(problems)


def test_the_check_catches_a_missing_and_a_merely_optional_declaration(tmp_path: Path) -> None:
    package = tmp_path / "src" / "demo"
    package.mkdir(parents=True)
    (package / "a.py").write_text(
        "import os\n"
        "import httpx\n"
        "from lxml import html\n"
        "from deepresearch.errors import FetchError\n"
        "try:\n"
        "    import yaml\n"
        "except ImportError:\n"
        "    yaml = None\n"
        "def f():\n"
        "    import importlib\n"
        "    return importlib.import_module('brotli')\n"
    )
    imports = third_party_imports(package)
    assert [(i.module, i.optional) for i in imports] == [
        ("httpx", False),
        ("lxml", False),
        ("yaml", True),
        ("brotli", False),
    ]
    problems = undeclared(imports, required={"httpx"}, extras={"pyyaml", "brotli"})
    assert len(problems) == 2
    assert "lxml (lxml) is not declared" in problems[0]
    assert "brotli (brotli) is only in an extra" in problems[1]
    assert undeclared(imports, required={"httpx", "lxml", "brotli"}, extras={"pyyaml"}) == []


def test_a_namespace_shared_by_several_distributions_is_resolved_by_file() -> None:
    assert distribution_of("langgraph.graph") == "langgraph"
    assert distribution_of("langgraph.checkpoint.sqlite.aio") == "langgraph-checkpoint-sqlite"
    assert distribution_of("langgraph.checkpoint.base") == "langgraph-checkpoint"
