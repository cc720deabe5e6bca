"""What the detector reports: a finding's kind, the words that gave it away (with any
address in them reduced to its host, so an exfiltration URL never travels further), and
how the words were hidden."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

FindingKind = Literal[
    "addressed",
    "delimiter",
    "fetch",
    "dictation",
    "concealment",
    "override",
    "role",
    "exfiltration",
    "steering",
]
#: every kind, in the order reports list them
KINDS: tuple[FindingKind, ...] = (
    "addressed",
    "delimiter",
    "fetch",
    "dictation",
    "concealment",
    "override",
    "role",
    "exfiltration",
    "steering",
)
Via = Literal["text", "normalized", "unicode-tags", "base64", "entities", "url-encoded", "reversed"]

EXCERPT_CHARS = 120
_INVISIBLE = re.compile(
    "[\u00ad\u034f\u061c\u115f\u1160\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064"
    "\u2066-\u2069\ufeff\U000e0000-\U000e007f]"
)
_URL = re.compile(r"(?:(?:https?|ftp)://|www\.)([^\s/?#<>\"'`)\]]+)[^\s<>\"'`)]*", re.I)


@dataclass(frozen=True)
class Finding:
    """One attempt to instruct a model: its kind, the words, how it was hidden."""

    kind: FindingKind
    excerpt: str
    via: Via = "text"
    hidden: bool = False  # found in text a browser does not show (CSS, comments, alt text)

    @property
    def label(self) -> str:
        """The kind and how it hid: ``override (base64, hidden text)``."""
        where: list[str] = [] if self.via == "text" else [self.via]
        where += ["hidden text"] if self.hidden else []
        return f"{self.kind} ({', '.join(where)})" if where else self.kind

    def describe(self) -> str:
        return f"{self.label}: “{self.excerpt}”"


def excerpt(text: str) -> str:
    """``text`` on one line, invisible characters dropped, addresses reduced to their host
    (``[link: evil.example]``), at most ``EXCERPT_CHARS`` characters."""
    flat = " ".join(_INVISIBLE.sub("", text).split())
    flat = _URL.sub(lambda m: f"[link: {m.group(1).lower()}]", flat)
    if len(flat) <= EXCERPT_CHARS:
        return flat
    return flat[: EXCERPT_CHARS - 1].rstrip() + "…"


def dedupe(findings: list[Finding]) -> list[Finding]:
    """The first finding of each (kind, words) pair, in order."""
    seen: set[tuple[str, str]] = set()
    out = []
    for finding in findings:
        key = (finding.kind, finding.excerpt.lower())
        if key not in seen:
            seen.add(key)
            out.append(finding)
    return out


def flag_reason(findings: list[Finding]) -> str:
    """The decision text for a dropped source, as "Sources considered" shows it. It names
    the kinds of attempt and where they hid, never the attacker's words:
    ``dropped: tries to instruct the model (override (hidden text); fetch)``."""
    labels = list(dict.fromkeys(finding.label for finding in findings))
    return f"dropped: tries to instruct the model ({'; '.join(labels[:4])})"
