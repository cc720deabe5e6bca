"""Where and when figures were measured: the machine, the date, the git revision."""

from __future__ import annotations

import os
import platform
import shutil
import subprocess
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def describe() -> dict[str, str | int | float | None]:
    """CPU count and model, memory, Python and platform of this machine."""
    return {
        "cpu_count": os.cpu_count(),
        "cpu_model": _cpuinfo("model name"),
        "memory_gb": _memory_gb(),
        "python": platform.python_version(),
        "platform": platform.platform(),
    }


def now() -> str:
    """The current time, ISO 8601 in UTC."""
    return datetime.now(UTC).isoformat(timespec="seconds")


def git_revision(root: Path = ROOT) -> str:
    """``git rev-parse HEAD`` of the checkout, or "unknown" (no git, not a checkout)."""
    git = shutil.which("git")
    if git is None:
        return "unknown"
    try:
        done = subprocess.run(  # noqa: S603 (fixed arguments, no shell)
            [git, "rev-parse", "HEAD"],
            cwd=root,
            capture_output=True,
            text=True,
            timeout=10,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    revision = done.stdout.strip()
    return revision if done.returncode == 0 and revision else "unknown"


def _cpuinfo(key: str) -> str | None:
    try:
        lines = Path("/proc/cpuinfo").read_text(encoding="utf-8").splitlines()
    except OSError:
        return platform.processor() or None
    for line in lines:
        name, _, value = line.partition(":")
        if name.strip() == key:
            return value.strip()
    return platform.processor() or None


def _memory_gb() -> float | None:
    try:
        lines = Path("/proc/meminfo").read_text(encoding="utf-8").splitlines()
    except OSError:
        return None
    for line in lines:
        if line.startswith("MemTotal:"):
            kib = int(line.split()[1])
            return round(kib / 1024 / 1024, 1)
    return None
