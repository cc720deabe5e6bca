"""Peak resident memory of this process over a stretch of a benchmark (Linux).

``PeakRss`` resets the kernel's high-water mark (``VmHWM``) on entry by writing ``5`` to
``/proc/self/clear_refs`` and reads it on exit, so each measured stretch gets its own peak
even though earlier, larger stretches ran in the same process. Where the reset is refused
(not Linux, a locked-down container) ``peak_mb`` is the process's lifetime peak and
``reset`` is False, which the benchmarks record in their params.
"""

from __future__ import annotations

import re
import resource
import sys
from pathlib import Path
from types import TracebackType

_STATUS = Path("/proc/self/status")
_CLEAR_REFS = Path("/proc/self/clear_refs")


def _status_kib(key: str) -> int | None:
    try:
        text = _STATUS.read_text(encoding="ascii")
    except OSError:
        return None
    match = re.search(rf"^{key}:\s+(\d+) kB", text, re.M)
    return int(match.group(1)) if match else None


def rss_mb() -> float:
    """The current resident set size in MiB (0.0 where /proc is missing)."""
    kib = _status_kib("VmRSS")
    return kib / 1024 if kib is not None else 0.0


def lifetime_peak_mb() -> float:
    """The process's peak resident set size since it started, in MiB."""
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / 1024 / 1024 if sys.platform == "darwin" else peak / 1024


class PeakRss:
    """``with PeakRss() as peak: ...`` then ``peak.peak_mb``, ``peak.start_mb``, ``peak.reset``."""

    def __init__(self) -> None:
        self.reset = False
        self.start_mb = 0.0
        self.peak_mb = 0.0

    def __enter__(self) -> PeakRss:
        try:
            _CLEAR_REFS.write_text("5", encoding="ascii")
            self.reset = True
        except OSError:
            self.reset = False
        self.start_mb = rss_mb()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        hwm = _status_kib("VmHWM") if self.reset else None
        self.peak_mb = hwm / 1024 if hwm is not None else lifetime_peak_mb()

    @property
    def growth_mb(self) -> float:
        """How far the peak rose above the resident size at entry."""
        return max(0.0, self.peak_mb - self.start_mb)
