"""Data files shipped inside the package (read with ``importlib.resources``).

- ``domains.toml``: credibility tiers, domain authority and source types per domain,
  loaded by ``deepresearch.core.tiers.load_domain_rules``.
"""
