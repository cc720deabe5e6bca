"""Recipes: structured research flows built on the engine's ports (search providers, the
fetcher and extractor, the model gateway, quote verification, the event bus).

- ``employer``: seed 000's employer intelligence: a traced employer profile behind a
  data-quality firewall (``deepresearch employer``, ``research_employer()``).
"""
