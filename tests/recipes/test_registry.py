"""Recipes are peers behind one registry: lookups, the checkpoint allow-list, the per-role
temperatures a recipe asks for, and the rules that keep it so: no module outside the
registry imports a recipe, and no code compares recipe names."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from deepresearch.errors import ConfigError
from deepresearch.llm.providers import build_role_models
from deepresearch.recipes.registry import (
    DEFAULT_RECIPE,
    all_recipes,
    checkpoint_types,
    get_recipe,
    recipe_names,
)
from deepresearch.settings import load_settings
from deepresearch.settings_groups import ModelSettings
from deepresearch.settings_values import ROLES

PACKAGE = Path(__file__).resolve().parents[2] / "src" / "deepresearch"
RECIPES = PACKAGE / "recipes"


def test_recipes_are_looked_up_by_name() -> None:
    assert recipe_names() == ["research", "employer"]
    assert DEFAULT_RECIPE == "research" and get_recipe() is get_recipe("research")
    assert [recipe.name for recipe in all_recipes()] == recipe_names()
    assert get_recipe("employer") is get_recipe("employer")
    with pytest.raises(ConfigError) as caught:
        get_recipe("Employer")
    assert caught.value.message == "unknown recipe 'Employer'"
    assert caught.value.hint == "choose one of: research, employer"


def test_every_recipe_checkpoints_through_one_allow_list() -> None:
    allowed = set(checkpoint_types())
    for recipe in all_recipes():
        assert set(recipe.checkpoint_types) <= allowed
    assert ("deepresearch.models.report", "Report") in allowed
    assert ("deepresearch.recipes.employer.models", "EmployerResult") in allowed


def test_a_recipe_rejects_what_is_not_its_own() -> None:
    research = get_recipe("research")
    with pytest.raises(ConfigError, match="role: not an option of recipe 'research'"):
        research.request("What is X?", {"role": "SRE"})
    with pytest.raises(ConfigError, match="lists: not a file recipe 'research' reads"):
        research.resources({"lists": Path("x.toml")})
    employer = get_recipe("employer")
    with pytest.raises(ConfigError, match="cannot read the employer lists file"):
        employer.resources({"lists": Path("/nonexistent/lists.toml")})
    with pytest.raises(ConfigError, match="must be an EmployerLists"):
        employer.context(None, {"lists": ["not", "lists"]})  # type: ignore[arg-type]


# per-role temperatures ---------------------------------------------------------------------
def _temperatures(**overrides: object) -> dict[str, float]:
    settings = load_settings(model="none", **overrides)
    chosen = settings.with_role_temperatures(get_recipe("employer").role_temperatures)
    return {role: ModelSettings.of(chosen).temperature_for(role) for role in ROLES}


def test_the_employer_recipe_asks_for_seed_000s_temperatures(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("DEEPRESEARCH_MODEL_TEMPERATURE", raising=False)
    assert _temperatures() == {
        "planner": 0.0,
        "researcher": 0.3,  # synthesis
        "summarizer": 0.0,
        "writer": 0.0,
        "judge": 0.1,  # judging
    }
    research = load_settings(model="none").with_role_temperatures(
        get_recipe("research").role_temperatures
    )
    assert {ModelSettings.of(research).temperature_for(role) for role in ROLES} == {0.0}
    # what the user sets wins: one role's own temperature, or one for every role
    assert _temperatures(judge_temperature=0.5)["judge"] == 0.5
    assert _temperatures(judge_temperature=0.5)["researcher"] == 0.3
    assert set(_temperatures(model_temperature=0.7).values()) == {0.7}
    monkeypatch.setenv("DEEPRESEARCH_RESEARCHER_TEMPERATURE", "0.9")
    assert _temperatures()["researcher"] == 0.9


def test_each_role_gets_a_model_with_its_temperature() -> None:
    settings = load_settings(
        model="openai:gpt-4.1-mini", model_api_key="sk-test-unused"
    ).with_role_temperatures(get_recipe("employer").role_temperatures)
    models = build_role_models(ModelSettings.of(settings))
    assert {role: getattr(models[role], "temperature", None) for role in ROLES} == {
        "planner": 0.0,
        "researcher": 0.3,
        "summarizer": 0.0,
        "writer": 0.0,
        "judge": 0.1,
    }
    assert models["planner"] is models["writer"]  # same spec and temperature: one client


# the rules ---------------------------------------------------------------------------------
def _modules() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def _imported(tree: ast.AST) -> list[str]:
    names: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            names += [node.module, *(f"{node.module}.{alias.name}" for alias in node.names)]
        elif isinstance(node, ast.Call) and getattr(node.func, "attr", None) == "import_module":
            names += [arg.value for arg in node.args if isinstance(arg, ast.Constant)]
    return names


def _recipe_package(path: Path) -> str | None:
    """The recipe a module belongs to (``recipes/employer/x.py`` -> employer)."""
    if RECIPES not in path.parents:
        return None
    return path.relative_to(RECIPES).parts[0].removesuffix(".py")


def test_no_module_outside_the_registry_imports_a_recipe() -> None:
    shared = {"deepresearch.recipes", "deepresearch.recipes.base", "deepresearch.recipes.registry"}
    offenders = []
    for path in _modules():
        own = _recipe_package(path)
        for name in _imported(ast.parse(path.read_text())):
            if not name.startswith("deepresearch.recipes.") or name in shared:
                continue
            target = name.split(".")[2]
            if target in ("base", "registry") or target == own:
                continue
            # the offline test kit scripts the recipe's model replies from its prompts; the
            # engine never imports deepresearch.testing
            if path.relative_to(PACKAGE).parts[0] == "testing":
                continue
            offenders.append(f"{path.relative_to(PACKAGE)} imports {name}")
    assert not offenders


def _names_a_recipe(node: ast.expr) -> bool:
    text = ast.unparse(node).lower()
    return "recipe" in text or "kind" in text


def test_no_code_compares_recipe_names() -> None:
    names = set(recipe_names())
    offenders = []
    for path in _modules():
        if path == RECIPES / "registry.py":
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Compare):
                sides = [node.left, *node.comparators]
                constants = {
                    item.value
                    for side in sides
                    for item in ast.walk(side)
                    if isinstance(item, ast.Constant) and isinstance(item.value, str)
                }
                if constants & names and any(_names_a_recipe(side) for side in sides):
                    offenders.append(f"{path.relative_to(PACKAGE)}:{node.lineno}")
            elif isinstance(node, ast.Match) and _names_a_recipe(node.subject):
                offenders.append(f"{path.relative_to(PACKAGE)}:{node.lineno}")
    for path in sorted((PACKAGE / "service" / "web").glob("*.js")):
        for number, line in enumerate(path.read_text().splitlines(), start=1):
            compared = re.search(r"""recipe\b.*[=!]==?\s*["']""", line)
            named = re.search(r"""["'](research|employer)["']""", line) and "recipe" in line
            if compared or named:
                offenders.append(f"{path.relative_to(PACKAGE)}:{number}")
    assert not offenders


def test_the_rules_catch_what_they_are_for() -> None:
    """The checks above would see the comparisons and imports issue 14 removed."""
    old = ast.parse('if job.recipe == "employer":\n    pass\nif kind == "employer":\n    pass')
    compares = [n for n in ast.walk(old) if isinstance(n, ast.Compare)]
    assert len(compares) == 2 and all(_names_a_recipe(c.left) for c in compares)
    imported = _imported(ast.parse("from deepresearch.recipes.employer import run_employer"))
    assert "deepresearch.recipes.employer" in imported


def test_follow_ups_and_evaluation_are_reached_through_the_recipe() -> None:
    """Front ends import no recipe: the default recipe offers follow-ups and evaluation
    through the registry, a recipe without them says so in one line."""
    from deepresearch.recipes.registry import evaluator, followups

    assert callable(evaluator()) and callable(followups().check_parent)
    with pytest.raises(ConfigError, match="cannot be followed up"):
        followups("employer")
    with pytest.raises(ConfigError, match="not evaluated"):
        evaluator("employer")
