"""Data files shipped inside the package (read with ``importlib.resources``).

- ``domains.toml``: credibility tiers, domain authority and source types per domain,
  loaded by ``deepresearch.domain_rules.load_domain_rules``.
- ``employer.toml``: the employer recipe's lists (seed 000's generic tech terms, generic
  requirement patterns, platitudes and industries, and the extraction vocabulary), loaded
  by ``deepresearch.recipes.employer.lists.load_employer_lists``.
"""
