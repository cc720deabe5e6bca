"""The one registry of recipes. Front ends look a recipe up here by name; nothing else
imports a recipe's package, and nothing compares recipe names. Recipes are imported on
first use, so ``import deepresearch`` does not load every flow."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from deepresearch.errors import ConfigError

if TYPE_CHECKING:  # the names are known without loading any recipe (the CLI's --help)
    from deepresearch.recipes.base import Evaluator, Followups, Recipe

#: name -> "module:attribute" of the recipe object; the first is the default
_RECIPES: dict[str, str] = {
    "research": "deepresearch.recipes.research.recipe:RECIPE",
    "employer": "deepresearch.recipes.employer.recipe:RECIPE",
}
_loaded: dict[str, Recipe[Any, Any]] = {}

#: the recipe a run has when none is named (and that checkpoints from before recipes had)
DEFAULT_RECIPE = next(iter(_RECIPES))


def recipe_names() -> list[str]:
    """Every recipe's name, the default first."""
    return list(_RECIPES)


def get_recipe(name: str | None = None) -> Recipe[Any, Any]:
    """The recipe called ``name`` (the default when None); ConfigError for an unknown one."""
    key = DEFAULT_RECIPE if name is None else name
    found = _loaded.get(key)
    if found is not None:
        return found
    where = _RECIPES.get(key)
    if where is None:
        raise ConfigError(
            f"unknown recipe {name!r}",
            hint=f"choose one of: {', '.join(_RECIPES)}",
        )
    module, attribute = where.split(":")
    recipe: Recipe[Any, Any] = getattr(importlib.import_module(module), attribute)
    _loaded[key] = recipe
    return recipe


def all_recipes() -> list[Recipe[Any, Any]]:
    """Every recipe, loaded. A recipe's own event types register themselves when its
    package loads: the event registry calls this (pyproject.toml's entry point
    ``deepresearch.event_payloads``) on the first look-up of a type the core does not know."""
    return [get_recipe(name) for name in _RECIPES]


def checkpoint_types() -> list[tuple[str, str]]:
    """What any recipe's checkpoint may contain: the serializer loads nothing else. One
    list for every recipe, so any run's checkpoint can be read to tell whose it is."""
    seen: dict[tuple[str, str], None] = {}
    for recipe in all_recipes():
        seen.update(dict.fromkeys(recipe.checkpoint_types))
    return list(seen)


def followups(name: str | None = None) -> Followups:
    """The follow-up turns of recipe ``name`` (the default when None); ConfigError when
    its runs cannot be followed up."""
    found = get_recipe(name).followups
    if found is None:
        raise ConfigError(
            f"runs of recipe {name!r} cannot be followed up",
            hint=f"follow up a {DEFAULT_RECIPE} run",
        )
    return found


def evaluator(name: str | None = None) -> Evaluator:
    """How recipe ``name`` (the default when None) evaluates a finished run; ConfigError
    when it does not."""
    found = get_recipe(name).evaluator
    if found is None:
        raise ConfigError(
            f"runs of recipe {name!r} are not evaluated",
            hint=f"evaluate a {DEFAULT_RECIPE} run",
        )
    return found
