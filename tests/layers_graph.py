"""The import graph of a source folder, read from the AST (nothing is imported): which
module imports which, its loops and its longest import chain. ``tests/test_layers.py``
checks the rules with it; run it as a script to print the figures::

    python tests/layers_graph.py [SRC_DIR]

Every import counts: module level, inside a function (a lazy import still ties the two
modules together) and under ``if TYPE_CHECKING:`` (the type checker follows it). A relative
import is resolved against the importing module's package; ``from pkg import name`` counts
as importing ``pkg.name`` when that is a module, else ``pkg``. Importing ``a.b.c`` counts
as importing ``a.b.c`` only, not its parent packages (Python runs those too, but every
module would then import the package root).
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterable, Iterator, Mapping, Set
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path


@dataclass(frozen=True)
class Import:
    """One import statement's reach: ``importer`` names ``target`` on line ``line``;
    ``eager`` when it runs as the importer loads (not in a function, nor for the type
    checker only)."""

    importer: str
    target: str
    line: int
    eager: bool = True


def module_files(src: Path) -> dict[str, Path]:
    """Every module of every package in ``src``, by dotted name (a package by its own
    name: ``pkg/__init__.py`` is ``pkg``)."""
    found: dict[str, Path] = {}
    for init in sorted(src.glob("*/__init__.py")):
        for path in sorted(init.parent.rglob("*.py")):
            parts = path.relative_to(src).with_suffix("").parts
            found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def _named(node: ast.Import | ast.ImportFrom, package: str) -> Iterator[str]:
    """The dotted names an import statement may load, most specific last."""
    if isinstance(node, ast.Import):
        yield from (alias.name for alias in node.names)
        return
    if node.level:  # relative: up ``level - 1`` packages from the importer's own
        parts = package.split(".")
        base = ".".join(parts[: len(parts) - node.level + 1])
        module = f"{base}.{node.module}" if node.module else base
    else:
        module = node.module or ""
    yield module
    yield from (f"{module}.{alias.name}" for alias in node.names)


def _resolve(name: str, modules: Set[str]) -> str | None:
    """The module of ours that importing ``name`` loads: itself, or the nearest enclosing
    module (``pkg.Thing`` is an attribute of ``pkg``); None for a third-party name."""
    while name:
        if name in modules:
            return name
        name = name.rpartition(".")[0]
    return None


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _import_statements(
    nodes: Iterable[ast.AST], eager: bool = True
) -> Iterator[tuple[ast.Import | ast.ImportFrom, bool]]:
    """Every import statement in ``nodes`` and under them, with whether it runs as the
    module loads (not inside a function, not under ``if TYPE_CHECKING:``)."""
    for node in nodes:
        if isinstance(node, ast.Import | ast.ImportFrom):
            yield node, eager
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            yield from _import_statements(ast.iter_child_nodes(node), False)
        elif isinstance(node, ast.If) and _is_type_checking(node.test):
            yield from _import_statements([node.test], eager)
            yield from _import_statements(node.body, False)
            yield from _import_statements(node.orelse, eager)
        else:
            yield from _import_statements(ast.iter_child_nodes(node), eager)


def imports_of(src: Path) -> list[Import]:
    """Every import between the modules of ``src``, in file order (no self-imports)."""
    files = module_files(src)
    names = set(files)
    found: list[Import] = []
    for module, path in files.items():
        package = module if path.name == "__init__.py" else module.rpartition(".")[0]
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node, eager in _import_statements([tree]):
            targets = {_resolve(name, names) for name in _named(node, package)}
            found += [
                Import(module, target, node.lineno, eager)
                for target in sorted(t for t in targets if t is not None and t != module)
            ]
    return sorted(found, key=lambda i: (i.importer, i.line, i.target))


def _is_root(module: str) -> bool:
    return "." not in module


@dataclass(frozen=True)
class ImportGraph:
    """The modules of a source folder and who imports whom."""

    imports: tuple[Import, ...]
    modules: frozenset[str]

    @classmethod
    def of(cls, src: Path) -> ImportGraph:
        return cls(tuple(imports_of(src)), frozenset(module_files(src)))

    def eager(self) -> ImportGraph:
        """Only the imports that run as a module loads: the chain ``import`` walks."""
        return ImportGraph(tuple(i for i in self.imports if i.eager), self.modules)

    @cached_property
    def edges(self) -> Mapping[str, frozenset[str]]:
        """Who imports whom. An import of a package root is left out: it is a fault of its
        own (``root_imports``), and the root, the face of every module, would otherwise
        close a loop through any module it re-exports."""
        found: dict[str, set[str]] = {m: set() for m in self.modules}
        for i in self.imports:
            if not _is_root(i.target):
                found[i.importer].add(i.target)
        return {m: frozenset(targets) for m, targets in found.items()}

    def root_imports(self) -> list[Import]:
        """Imports of a package root by a module other than the root itself."""
        return [i for i in self.imports if _is_root(i.target) and not _is_root(i.importer)]

    def components(self) -> list[frozenset[str]]:
        """The strongly connected components, each module in exactly one."""
        return strongly_connected(self.modules, self.edges)

    def cycles(self) -> list[list[str]]:
        """The import loops, each as its sorted modules. A loop made only of a package
        and its own modules (``__init__`` re-exporting them, a module importing its
        package's face) is not one: looked at without the edges between the package and
        its modules, what still loops inside it is."""
        loops: list[list[str]] = []
        for component in self.components():
            if len(component) < 2:
                continue
            package = min(component, key=len)
            if not all(m == package or m.startswith(f"{package}.") for m in component):
                loops.append(sorted(component))
                continue
            inner = {
                m: frozenset(t for t in self.edges[m] if t in component and package not in (m, t))
                for m in component
            }
            loops += [sorted(c) for c in strongly_connected(component, inner) if len(c) > 1]
        return sorted(loops)

    def longest_chain(self) -> list[str]:
        """The longest import chain: the longest path between the graph's components (a
        loop counts as one step, named by its modules joined with ``|``). Its length is
        how many modules the first one loads, one after the other."""
        components = self.components()
        owner = {m: i for i, c in enumerate(components) for m in c}
        after: dict[int, set[int]] = {i: set() for i in range(len(components))}
        for m, targets in self.edges.items():
            after[owner[m]].update(owner[t] for t in targets if owner[t] != owner[m])
        # Tarjan's algorithm lists a component after every component it reaches
        best: dict[int, list[int]] = {}
        for i in range(len(components)):
            tails = [best[j] for j in after[i]]
            best[i] = [i, *max(tails, key=lambda t: (len(t), t), default=[])]
        path = max(best.values(), key=lambda p: (len(p), [min(components[i]) for i in p]))
        return ["|".join(sorted(components[i])) for i in path]


def strongly_connected(nodes: Set[str], edges: Mapping[str, Set[str]]) -> list[frozenset[str]]:
    """Tarjan's strongly connected components of ``nodes`` (edges outside them ignored),
    each listed after every component it reaches. Iterative: no recursion limit."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[frozenset[str]] = []
    for start in sorted(nodes):
        if start in index:
            continue
        work = [(start, iter(sorted(t for t in edges.get(start, ()) if t in nodes)))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, targets = work[-1]
            target = next(targets, None)
            if target is not None:
                if target not in index:
                    index[target] = low[target] = len(index)
                    stack.append(target)
                    on_stack.add(target)
                    work.append(
                        (target, iter(sorted(t for t in edges.get(target, ()) if t in nodes)))
                    )
                elif target in on_stack:
                    low[node] = min(low[node], index[target])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component: set[str] = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.add(member)
                    if member == node:
                        break
                found.append(frozenset(component))
    return found


def main(argv: list[str]) -> None:
    src = Path(argv[1]) if len(argv) > 1 else Path(__file__).resolve().parents[1] / "src"
    graph = ImportGraph.of(src)
    loops = graph.cycles()
    chain = graph.longest_chain()
    print(f"modules {len(graph.modules)}, imports {sum(map(len, graph.edges.values()))}")
    print(f"import loops {len(loops)}: " + "; ".join(" ".join(loop) for loop in loops))
    print(f"package root imported by: {sorted({i.importer for i in graph.root_imports()})}")
    print(f"longest import chain {len(chain)}: " + " -> ".join(chain))
    loading = graph.eager().longest_chain()
    print(f"longest chain of module-level imports {len(loading)}: " + " -> ".join(loading))


if __name__ == "__main__":
    main(sys.argv)
