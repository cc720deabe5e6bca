"""Credibility tier, domain authority and source type of a URL, from documented data rules.

The rules ship as ``deepresearch/data/domains.toml`` (read the comments there for the
layout); a user file with the same layout is merged on top, so users can add their own
trusted and blocked domains or change any tier, authority or source type. Merging and
lookups are pure; ``deepresearch.domain_rules`` reads the files.

Seed 003, stage 3, credibility tiers: "PRIMARY_SOURCE: .gov, .edu, peer-reviewed journals;
AUTHORITATIVE: major news outlets, established publishers; SECONDARY: Wikipedia,
encyclopedias, aggregators; UNVERIFIED: blogs, forums, unknown sites; FLAGGED: known
disinformation, blacklisted domains."

Matching: an entry matches the host and all its subdomains (``bbc.co.uk`` matches
``news.bbc.co.uk``); the longest matching entry wins. ``file://`` URLs are the local corpus
and get the ``[local_corpus]`` rule (SECONDARY by default: chosen by the user, not vouched
for by anyone else).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar, get_args

from pydantic import BaseModel, ConfigDict, Field

from deepresearch.core.gate import domain_of
from deepresearch.models.scores import SourceType, Tier

V = TypeVar("V")

LOCAL_CORPUS = "local corpus"
"""What ``domain_of`` returns for ``file://`` URLs."""

_TOP_LEVEL = frozenset(
    {
        "default_tier",
        "local_corpus",
        "suffixes",
        "domains",
        "authority",
        "source_types",
        "trusted",
        "blocked",
    }
)


class DomainRules(BaseModel):
    """The merged rules. Keys of the tables are normalized domain entries."""

    model_config = ConfigDict(frozen=True)

    tiers: dict[str, Tier] = Field(default_factory=dict)
    authority: dict[str, int] = Field(default_factory=dict)
    authority_defaults: dict[Tier, int]
    source_types: dict[str, SourceType] = Field(default_factory=dict)
    default_tier: Tier = "UNVERIFIED"
    local_tier: Tier = "SECONDARY"
    local_authority: int = Field(default=65, ge=0, le=100)
    local_source_type: SourceType = "other"
    local_hosts: frozenset[str] = Field(
        default=frozenset(),
        description="hosts the user allowed explicitly (--allow-host): ranked like the local corpus",
    )


@dataclass
class _Layer:
    """One file's rules, flattened, before merging."""

    tiers: dict[str, str] = field(default_factory=dict)
    authority: dict[str, int] = field(default_factory=dict)
    authority_defaults: dict[str, int] = field(default_factory=dict)
    source_types: dict[str, str] = field(default_factory=dict)
    scalars: dict[str, Any] = field(default_factory=dict)


def normalize_entry(entry: str) -> str:
    """``" .WWW.Example.COM "`` -> ``"example.com"``."""
    return entry.strip().lower().lstrip(".").removeprefix("www.")


def _grouped(table: Mapping[str, Any], what: str, source: str) -> dict[str, str]:
    """``{GROUP: [entries]}`` -> ``{entry: GROUP}``; an entry in two groups is an error."""
    flat: dict[str, str] = {}
    for group, entries in table.items():
        if not isinstance(entries, list):
            raise ValueError(f"{source}: [{what}].{group} must be a list of domains")
        for raw in entries:
            entry = normalize_entry(str(raw))
            if entry in flat and flat[entry] != group:
                raise ValueError(f"{source}: {entry!r} is in both {flat[entry]} and {group}")
            flat[entry] = group
    return flat


def _parse(data: Mapping[str, Any], source: str) -> _Layer:
    unknown = set(data) - _TOP_LEVEL
    if unknown:
        raise ValueError(f"{source}: unknown keys {sorted(unknown)}")
    layer = _Layer()
    layer.tiers.update(_grouped(data.get("suffixes", {}), "suffixes", source))
    shorthand = {
        "AUTHORITATIVE": data.get("trusted", []),
        "FLAGGED": data.get("blocked", []),
    }
    for entry, tier in _grouped(shorthand, "trusted/blocked", source).items():
        layer.tiers[entry] = tier
    for entry, tier in _grouped(data.get("domains", {}), "domains", source).items():
        layer.tiers[entry] = tier  # exact domains beat suffix rules and shorthands
    authority = data.get("authority", {})
    layer.authority_defaults.update(authority.get("default", {}))
    layer.authority.update(
        {normalize_entry(key): value for key, value in authority.get("domains", {}).items()}
    )
    layer.source_types.update(_grouped(data.get("source_types", {}), "source_types", source))
    if "default_tier" in data:
        layer.scalars["default_tier"] = data["default_tier"]
    local = data.get("local_corpus", {})
    for key in ("tier", "authority", "source_type"):
        if key in local:
            layer.scalars[f"local_{key}"] = local[key]
    return layer


def merge_domain_rules(tables: Sequence[tuple[Mapping[str, Any], str]]) -> DomainRules:
    """The rules of the parsed files ``tables`` (each with the name its errors show), each
    merged on top of those before it.

    Entries of a later file override an earlier one's (a domain the package rates
    AUTHORITATIVE can be blocked) and extend them (new trusted domains). Raises
    ``ValueError`` on an unknown key, a domain in two groups of one file, or an unknown
    tier or source type. Reading the files is ``deepresearch.domain_rules``'s.
    """
    layers = [_parse(data, source) for data, source in tables]
    merged = _Layer()
    for layer in layers:
        merged.tiers.update(layer.tiers)
        merged.authority.update(layer.authority)
        merged.authority_defaults.update(layer.authority_defaults)
        merged.source_types.update(layer.source_types)
        merged.scalars.update(layer.scalars)
    missing = set(get_args(Tier)) - set(merged.authority_defaults)
    if missing:
        raise ValueError(f"[authority.default] lacks {sorted(missing)}")
    return DomainRules.model_validate(
        {
            "tiers": merged.tiers,
            "authority": merged.authority,
            "authority_defaults": merged.authority_defaults,
            "source_types": merged.source_types,
            **merged.scalars,
        }
    )


def _lookup(host: str, table: Mapping[str, V]) -> V | None:
    """The value of the longest entry equal to ``host`` or a parent domain of it."""
    labels = host.split(".")
    for start in range(len(labels)):
        value = table.get(".".join(labels[start:]))
        if value is not None:
            return value
    return None


def with_local_hosts(rules: DomainRules, allow_hosts: Iterable[str]) -> DomainRules:
    """``rules`` with the hosts of ``--allow-host`` entries (``HOST``, ``HOST:PORT``,
    ``[v6]:PORT``) ranked like the local corpus: the user vouched for them by name, as for
    a folder of documents, and no public list knows them."""
    hosts = set(rules.local_hosts)
    for entry in allow_hosts:
        entry = entry.strip().lower()
        if entry.startswith("["):
            hosts.add(entry[1:].split("]", 1)[0])
        elif entry.count(":") == 1:
            hosts.add(entry.split(":", 1)[0])
        elif entry:
            hosts.add(entry)
    return rules.model_copy(update={"local_hosts": frozenset(hosts)})


def _is_local(host: str, rules: DomainRules) -> bool:
    return host == LOCAL_CORPUS or host in rules.local_hosts


def tier_for(url: str, rules: DomainRules) -> Tier:
    """The credibility tier of ``url``'s host (``default_tier`` when nothing matches)."""
    host = domain_of(url)
    if _is_local(host, rules):
        return rules.local_tier
    if not host:
        return rules.default_tier
    return _lookup(host, rules.tiers) or rules.default_tier


def authority_for(url: str, rules: DomainRules) -> int:
    """Domain authority 0-100: a per-domain override, else the default of the host's tier."""
    host = domain_of(url)
    if _is_local(host, rules):
        return rules.local_authority
    override = _lookup(host, rules.authority) if host else None
    if override is not None:
        return max(0, min(100, override))
    return rules.authority_defaults[tier_for(url, rules)]


def source_type_for(url: str, rules: DomainRules) -> SourceType:
    """Seed 001's source type (video, social, wiki, academic, news), ``other`` by default."""
    host = domain_of(url)
    if _is_local(host, rules):
        return rules.local_source_type
    if not host:
        return "other"
    return _lookup(host, rules.source_types) or "other"
