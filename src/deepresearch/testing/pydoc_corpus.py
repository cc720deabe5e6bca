"""The ``make demo`` corpus: Python documentation that ships with the interpreter.

Writes Markdown files into a folder (then served with ``deepresearch.testing.web``):

- ``topics/<topic>.md``: every entry of ``pydoc_data.topics.topics`` (the language
  reference topics behind ``help("assert")``), reST underlines turned into ``#`` headings;
- ``modules/<module>.md``: a standard-library module's docstring, its public functions
  with signatures and docstrings, and a list of its classes;
- ``modules/<module>/<Class>.md``: one public class with its methods.

Docstrings are trimmed; memory addresses are removed so the output is deterministic for a
given Python version. ``python -m deepresearch.testing.pydoc_corpus --out DIR``.
"""

from __future__ import annotations

import argparse
import importlib
import inspect
import re
import sys
import warnings
from collections.abc import Callable, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

_MODULE_NAMES = """abc argparse asyncio bisect collections concurrent.futures contextlib copy csv
dataclasses datetime decimal enum fractions functools gc hashlib heapq io itertools json logging
multiprocessing os pathlib pickle random re shutil sqlite3 statistics subprocess sys tempfile
threading time typing unittest weakref zipfile"""

#: The standard-library modules documented in the demo corpus.
MODULES: tuple[str, ...] = tuple(_MODULE_NAMES.split())

MODULE_DOC_CHARS = 4000
MEMBER_DOC_CHARS = 1500
METHOD_DOC_CHARS = 500
MAX_FILE_CHARS = 60_000

_UNDERLINE = re.compile(r"^([*=\-~^\"'`#+])\1{2,}\s*$")
_HEADING_LEVEL = {"*": "#", "=": "##", "-": "###"}
_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")


def topic_markdown(text: str, fallback_title: str) -> str:
    """A pydoc topic as Markdown: underlined lines become headings, one ``#`` title."""
    lines = text.replace("\r\n", "\n").split("\n")
    out: list[str] = []
    has_title = False
    index = 0
    while index < len(lines):
        line = lines[index]
        following = lines[index + 1] if index + 1 < len(lines) else ""
        underline = _UNDERLINE.match(following)
        if line.strip() and not line[:1].isspace() and underline:
            marker = "#" if not has_title else _HEADING_LEVEL.get(underline.group(1), "###")
            if marker == "#":
                has_title = True
            out += ["", f"{marker} {line.strip()}", ""]
            index += 2
            continue
        out.append(line.rstrip())
        index += 1
    body = "\n".join(out).strip()
    body = re.sub(r"\n{3,}", "\n\n", body)
    if not has_title:
        body = f"# {fallback_title}\n\n{body}"
    return body + "\n"


def _trim(doc: str, limit: int) -> str:
    doc = _ADDRESS.sub("", doc.strip())
    if len(doc) <= limit:
        return doc
    cut = doc.rfind("\n\n", 0, limit)
    if cut < limit // 3:
        cut = doc.rfind(" ", 0, limit)
    return doc[: max(cut, 1)].rstrip() + " [...]"


def _signature(obj: Callable[..., Any]) -> str:
    try:
        text = str(inspect.signature(obj))
    except (TypeError, ValueError):
        return "(...)"
    return _ADDRESS.sub("", text)


def _doc(obj: object) -> str:
    try:
        return inspect.getdoc(obj) or ""
    except Exception:
        return ""


def _public_names(module: ModuleType) -> list[str]:
    """``__all__`` plus every public name defined in the module or its submodules."""
    names = {str(name) for name in getattr(module, "__all__", ())}
    for name in dir(module):
        owner = getattr(getattr(module, name, None), "__module__", None)
        if isinstance(owner, str) and (
            owner == module.__name__ or owner.startswith(module.__name__ + ".")
        ):
            names.add(name)
    return sorted(name for name in names if not name.startswith("_"))


def _members(module: ModuleType) -> tuple[list[tuple[str, Any]], list[tuple[str, type]]]:
    functions: list[tuple[str, Any]] = []
    classes: list[tuple[str, type]] = []
    for name in _public_names(module):
        obj = getattr(module, name, None)
        if inspect.isclass(obj):
            classes.append((name, obj))
        elif inspect.isroutine(obj):
            functions.append((name, obj))
    return functions, classes


def module_markdown(
    module: ModuleType,
    functions: Sequence[tuple[str, Any]],
    classes: Sequence[tuple[str, type]],
) -> str:
    """The Markdown page of a module: docstring, functions, class list."""
    name = module.__name__
    parts = [f"# The {name} module", _trim(_doc(module), MODULE_DOC_CHARS)]
    if functions:
        parts.append("## Functions")
    for function_name, function in functions:
        parts.append(f"### {name}.{function_name}")
        parts.append(f"    {function_name}{_signature(function)}")
        doc = _trim(_doc(function), MEMBER_DOC_CHARS)
        if doc:
            parts.append(doc)
    if classes:
        parts.append("## Classes")
        for class_name, cls in classes:
            summary = _doc(cls).split("\n\n", 1)[0]
            parts.append(f"{name}.{class_name}: {' '.join(summary.split())[:300]}".strip())
    return _cap("\n\n".join(part for part in parts if part))


def class_markdown(module_name: str, class_name: str, cls: type) -> str:
    """The Markdown page of one class: signature, docstring, public methods."""
    qualified = f"{module_name}.{class_name}"
    parts = [f"# {qualified}", f"    class {class_name}{_signature(cls)}"]
    parts.append(_trim(_doc(cls), MEMBER_DOC_CHARS))
    methods = [
        (name, member)
        for name, member in sorted(vars(cls).items())
        if not name.startswith("_") and (inspect.isroutine(member) or isinstance(member, property))
    ]
    if methods:
        parts.append("## Methods and properties")
    for name, member in methods:
        target: Any = getattr(cls, name, member)
        signature = "" if isinstance(member, property) else _signature(target)
        parts.append(f"### {qualified}.{name}")
        parts.append(f"    {name}{signature}" if signature else "    (property)")
        doc = _trim(_doc(member).split("\n\n", 1)[0], METHOD_DOC_CHARS)
        if doc:
            parts.append(doc)
    return _cap("\n\n".join(part for part in parts if part))


def _cap(text: str) -> str:
    if len(text) > MAX_FILE_CHARS:
        text = text[: text.rfind("\n\n", 0, MAX_FILE_CHARS)] + "\n\n[...]"
    return text.rstrip() + "\n"


def _file_name(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", name).strip("-") or "untitled"


def build_pages() -> dict[str, str]:
    """Every page of the demo corpus: relative path -> Markdown, sorted by path."""
    from pydoc_data.topics import topics

    pages: dict[str, str] = {}
    for key in sorted(topics):
        pages[f"topics/{_file_name(key)}.md"] = topic_markdown(topics[key], key)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for module_name in MODULES:
            module = importlib.import_module(module_name)
            functions, classes = _members(module)
            pages[f"modules/{module_name}.md"] = module_markdown(module, functions, classes)
            for class_name, cls in classes:
                path = f"modules/{module_name}/{_file_name(class_name)}.md"
                pages[path] = class_markdown(module_name, class_name, cls)
    return dict(sorted(pages.items()))


def write_corpus(out: str | Path) -> tuple[int, int]:
    """Write the demo corpus into ``out``; returns (files, bytes) written."""
    root = Path(out)
    files = size = 0
    for relative, text in build_pages().items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        data = text.encode("utf-8")
        path.write_bytes(data)
        files += 1
        size += len(data)
    return files, size


def main(argv: Sequence[str] | None = None) -> int:
    """Write the demo corpus and report its size."""
    parser = argparse.ArgumentParser(
        prog="python -m deepresearch.testing.pydoc_corpus",
        description="Write the Python documentation demo corpus as Markdown files.",
    )
    parser.add_argument("--out", type=Path, required=True, help="the folder to write into")
    args = parser.parse_args(argv)
    try:
        files, size = write_corpus(args.out)
    except OSError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    print(f"wrote {files} files, {size} bytes, to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
