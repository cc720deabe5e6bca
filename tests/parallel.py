"""How ``make test`` hands the suite to its pytest-xdist workers (``--dist loadscope``,
chosen in tests/conftest.py): one test at a time, so the slow ones (subprocesses,
crashes, browsers) spread over every worker instead of queueing behind each other in
one file; except a file that shares a module-scoped fixture (a browser, a service, a
run every test of the file reads), whose tests go to one worker together so that
fixture is built once, as in a serial run.

A file shares one when it, or a conftest.py in a folder above it, declares a
``scope="module"`` fixture: a plain reading of the source, made on the controller,
which only sees test ids."""

from __future__ import annotations

from functools import cache
from pathlib import Path

from xdist.scheduler import LoadScopeScheduling

MODULE_SCOPE = ('scope="module"', "scope='module'")


@cache
def _declares_module_fixture(path: Path) -> bool:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError:
        return False
    return any(marker in text for marker in MODULE_SCOPE)


@cache
def kept_together(root: Path, file: str) -> bool:
    """Whether the tests of ``file`` (relative to ``root``) share a module fixture."""
    path = root / file
    if _declares_module_fixture(path):
        return True
    folder = path.parent
    while folder == root or root in folder.parents:
        if _declares_module_fixture(folder / "conftest.py"):
            return True
        folder = folder.parent
    return False


class SpreadScheduling(LoadScopeScheduling):
    """xdist's scope scheduling with a scope of one test, or of one file for the files
    that share a module fixture. The bigger scopes are handed out first (xdist orders
    the work queue by size), the single tests after them in collection order."""

    def _split_scope(self, nodeid: str) -> str:
        file = nodeid.split("::", 1)[0]
        if kept_together(Path(self.config.rootpath), file):
            return file
        return nodeid
