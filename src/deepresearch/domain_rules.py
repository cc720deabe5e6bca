"""Reading the domain rules: the package's ``data/domains.toml`` and a user's file with the
same layout, parsed and handed to the pure merge (``core.tiers.merge_domain_rules``)."""

from __future__ import annotations

import tomllib
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from deepresearch.core.tiers import DomainRules, merge_domain_rules


@cache
def _package_data() -> dict[str, Any]:
    text = resources.files("deepresearch.data").joinpath("domains.toml").read_text("utf-8")
    return tomllib.loads(text)


def load_domain_rules(extra: Path | None = None) -> DomainRules:
    """The package's ``domains.toml``, with the user file ``extra`` merged on top.

    Entries of ``extra`` override the package's (a domain the package rates AUTHORITATIVE
    can be blocked) and extend them (new trusted domains). Raises ``ValueError`` on an
    unknown key, a domain in two groups of one file, or an unknown tier or source type.
    """
    tables: list[tuple[dict[str, Any], str]] = [(_package_data(), "domains.toml")]
    if extra is not None:
        with extra.open("rb") as handle:
            tables.append((tomllib.load(handle), str(extra)))
    return merge_domain_rules(tables)
