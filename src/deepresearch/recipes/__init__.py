"""Recipes: research flows that are peers on one runner, behind one protocol
(``base.Recipe``) and one registry (``registry.get_recipe(name)``). Nothing outside the
registry imports a recipe.

- ``research``: a cited report on a question (the research graph, ``deepresearch run``).
- ``employer``: seed 000's employer intelligence: a traced employer profile behind a
  data-quality firewall (``deepresearch employer``, ``research_employer()``).
"""
