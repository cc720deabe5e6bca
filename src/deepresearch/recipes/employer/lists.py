"""The recipe's lists as data: ``deepresearch/data/employer.toml`` (the seed's generic tech
terms, generic requirement patterns, platitudes and industries, plus deepresearch's
extraction vocabulary), extended by a user file with the same layout.

Every regular expression is compiled here, once, so a bad pattern in a user file is a
configuration error at start, never a crash halfway through a run.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from deepresearch.errors import ConfigError

_LIST_KEYS = (
    "generic_tech_terms",
    "generic_requirement_patterns",
    "platitude_culture_signals",
    "suspicious_name_patterns",
    "technologies",
    "case_sensitive_technologies",
    "requirement_cues",
    "culture_cues",
)
_KNOWN_KEYS = frozenset((*_LIST_KEYS, "industries"))


@dataclass(frozen=True)
class Industry:
    """Seed 000, 10.2: one industry's signal keywords and representative technologies."""

    name: str
    signals: tuple[str, ...]
    technologies: tuple[str, ...]


@dataclass(frozen=True)
class EmployerLists:
    """Every list the recipe's pure functions read. Build with :func:`load_employer_lists`."""

    generic_tech_terms: frozenset[str]
    generic_requirement_patterns: tuple[re.Pattern[str], ...]
    platitude_culture_signals: tuple[str, ...]
    suspicious_name_patterns: tuple[re.Pattern[str], ...]
    industries: tuple[Industry, ...]
    technologies: tuple[str, ...]
    case_sensitive_technologies: tuple[str, ...]
    requirement_cues: tuple[re.Pattern[str], ...]
    culture_cues: tuple[re.Pattern[str], ...]
    _tech_pattern: re.Pattern[str] | None = field(default=None, compare=False, repr=False)

    def tech_pattern(self) -> re.Pattern[str]:
        """One pattern matching every known technology as a whole word, longest first."""
        if self._tech_pattern is None:
            object.__setattr__(self, "_tech_pattern", _tech_regex(self))
        assert self._tech_pattern is not None
        return self._tech_pattern

    def canonical_tech(self, found: str) -> str:
        """The vocabulary's spelling of a matched technology."""
        lowered = found.lower()
        for name in self.case_sensitive_technologies:
            if name == found:
                return name
        for name in self.technologies:
            if name.lower() == lowered:
                return name
        return found


def _tech_regex(lists: EmployerLists) -> re.Pattern[str]:
    def bounded(name: str) -> str:
        # a technology name may hold "+", "#" or "."; a boundary is any character that
        # cannot continue a name
        return rf"(?<![\w+#]){re.escape(name)}(?![\w+#])"

    names = sorted(lists.technologies, key=len, reverse=True)
    exact = sorted(lists.case_sensitive_technologies, key=len, reverse=True)
    parts = [f"(?i:{bounded(name)})" for name in names] + [bounded(name) for name in exact]
    return re.compile("|".join(parts) if parts else r"(?!x)x")


def _package_data() -> dict[str, Any]:
    text = resources.files("deepresearch.data").joinpath("employer.toml").read_text("utf-8")
    return tomllib.loads(text)


def load_employer_lists(extra: Path | None = None) -> EmployerLists:
    """The package's lists, extended by the user file ``extra`` (lists are added to,
    an ``[industries.NAME]`` table replaces or adds that industry). Raises ConfigError
    for an unreadable file, an unknown key or a pattern that does not compile."""
    layers: list[tuple[str, Mapping[str, Any]]] = [("employer.toml", _package_data())]
    if extra is not None:
        try:
            with extra.open("rb") as handle:
                layers.append((str(extra), tomllib.load(handle)))
        except (OSError, tomllib.TOMLDecodeError) as exc:
            raise ConfigError(
                f"cannot read the employer lists file {extra}: {exc}",
                hint="check the path and its TOML syntax (see docs/employer.md)",
            ) from None
    lists: dict[str, list[str]] = {key: [] for key in _LIST_KEYS}
    industries: dict[str, Industry] = {}
    for where, data in layers:
        unknown = set(data) - _KNOWN_KEYS
        if unknown:
            raise ConfigError(
                f"unknown keys in {where}: {', '.join(sorted(unknown))}",
                hint=f"known keys: {', '.join(sorted(_KNOWN_KEYS))}",
            )
        for key in _LIST_KEYS:
            values = data.get(key, [])
            if not isinstance(values, list) or not all(isinstance(v, str) for v in values):
                raise ConfigError(f"{key} in {where} must be a list of strings")
            for value in values:
                if value not in lists[key]:
                    lists[key].append(value)
        for name, table in dict(data.get("industries", {})).items():
            industries[name] = _industry(name, table, where)
    return EmployerLists(
        generic_tech_terms=frozenset(normalize_item(term) for term in lists["generic_tech_terms"]),
        generic_requirement_patterns=_compile(lists["generic_requirement_patterns"], "requirement"),
        platitude_culture_signals=tuple(
            normalize_item(p) for p in lists["platitude_culture_signals"]
        ),
        suspicious_name_patterns=_compile(lists["suspicious_name_patterns"], "suspicious name"),
        industries=tuple(industries.values()),
        technologies=tuple(lists["technologies"]),
        case_sensitive_technologies=tuple(lists["case_sensitive_technologies"]),
        requirement_cues=_compile(lists["requirement_cues"], "requirement cue"),
        culture_cues=_compile(lists["culture_cues"], "culture cue"),
    )


def _industry(name: str, table: Any, where: str) -> Industry:
    if not isinstance(table, dict):
        raise ConfigError(f"[industries.{name}] in {where} must be a table")
    signals = table.get("signals", [])
    technologies = table.get("technologies", [])
    for key, value in (("signals", signals), ("technologies", technologies)):
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise ConfigError(f"[industries.{name}].{key} in {where} must be a list of strings")
    return Industry(
        name=name,
        signals=tuple(signal.lower().strip() for signal in signals if signal.strip()),
        technologies=tuple(technologies),
    )


def _compile(patterns: list[str], what: str) -> tuple[re.Pattern[str], ...]:
    compiled = []
    for pattern in patterns:
        try:
            compiled.append(re.compile(pattern, re.IGNORECASE))
        except re.error as exc:
            raise ConfigError(
                f"the {what} pattern {pattern!r} is not a valid regular expression: {exc}"
            ) from None
    return tuple(compiled)


_TRAILING = re.compile(r"[\s.,;:!]+$")


def normalize_item(text: str) -> str:
    """Lowercase, whitespace collapsed, trailing punctuation dropped: how list entries
    and profile items are compared."""
    return _TRAILING.sub("", " ".join(text.lower().split()))


_DEFAULT: EmployerLists | None = None


def default_lists() -> EmployerLists:
    """The package's lists alone, loaded once."""
    global _DEFAULT
    if _DEFAULT is None:
        _DEFAULT = load_employer_lists()
    return _DEFAULT
