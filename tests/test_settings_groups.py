"""The typed settings groups: every setting in exactly one, run limits resolved from the
depth once, frozen, stages reading only groups, one list of search providers."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from pydantic import ValidationError

from deepresearch.context import RunContext
from deepresearch.events import EventBus
from deepresearch.fetch.http_fetcher import HttpFetcher
from deepresearch.llm.gateway import Gateway
from deepresearch.search.registry import PROVIDER_NAMES
from deepresearch.settings import Settings, load_settings
from deepresearch.settings_groups import GROUPS, RunLimits, RunPolicy, SettingsGroups
from deepresearch.settings_values import DEPTHS
from deepresearch.testing.static_search import StaticSearch

SRC = Path(__file__).resolve().parents[1] / "src" / "deepresearch"
#: modules of graph nodes: each reads the typed groups of its context, never ``settings``
NODE_MODULES = [
    *sorted((SRC / "recipes/research/stages").glob("*.py")),
    SRC / "recipes/employer/nodes.py",
]


def test_every_setting_is_in_exactly_one_group_under_its_own_name() -> None:
    owners: dict[str, list[str]] = {}
    for group in GROUPS:
        for name in group.model_fields:
            if name in Settings.model_fields:  # copied, or resolved from it (derived)
                owners.setdefault(name, []).append(group.__name__)
            else:
                assert name in group.derived, f"{group.__name__}.{name} is no setting"
    missing = sorted(set(Settings.model_fields) - set(owners))
    assert not missing, f"give these settings a group in settings_groups.py: {missing}"
    twice = {name: where for name, where in owners.items() if len(where) > 1}
    assert not twice, f"settings in more than one group: {twice}"


def test_groups_carry_the_settings_values() -> None:
    settings = load_settings(
        model="none",
        search="local,searxng",
        allow_hosts="127.0.0.1:8899,localhost",
        fetch_per_host=3,
        data_dir=Path("/tmp/dr-groups"),
        serve_port=9001,
        max_cost=2.5,
        pdf_fonts=[Path("/fonts/a.ttf")],
    )
    groups = SettingsGroups.of(settings)
    for group in (getattr(groups, field) for field in groups.__dataclass_fields__):
        for name in type(group).model_fields:
            if name in type(group).derived:
                continue
            value, expected = getattr(group, name), getattr(settings, name)
            if isinstance(expected, list):
                expected = tuple(expected)
            assert value == expected, f"{type(group).__name__}.{name}"
    assert groups.search.providers == ("local", "searxng")
    assert groups.fetch.allow_hosts == ("127.0.0.1:8899", "localhost")
    assert groups.models.model_for("writer") == "none"


@pytest.mark.parametrize("depth", sorted(DEPTHS))
def test_run_limits_are_resolved_from_the_depth_once(depth: str) -> None:
    preset = DEPTHS[depth]
    limits = RunLimits.of(load_settings(depth=depth))
    assert limits.depth == depth
    for name in RunLimits.derived:
        assert getattr(limits, name) == getattr(preset, name), name
    # an explicit setting wins over the preset, 0 included (deep reads 20 sources unless told)
    chosen = RunLimits.of(load_settings(depth=depth, max_waves=7, min_sources_read=0))
    assert chosen.max_waves == 7 and chosen.min_sources_read == 0
    assert chosen.max_units_total == preset.max_units_total


def test_council_is_decided_once() -> None:
    assert RunPolicy.of(load_settings(depth="deep")).council is True
    assert RunPolicy.of(load_settings(depth="quick")).council is False
    assert RunPolicy.of(load_settings(council_models="openai:a,openai:b")).council is True
    assert RunPolicy.of(load_settings(depth="deep", council=False)).council is False


def test_groups_are_frozen() -> None:
    groups = SettingsGroups.of(load_settings(allow_hosts="localhost"))
    with pytest.raises(ValidationError, match="frozen"):
        groups.limits.max_waves = 99  # type: ignore[misc]
    with pytest.raises(ValidationError, match="frozen"):
        groups.policy.audit = "off"  # type: ignore[misc]
    with pytest.raises(AttributeError):
        groups.fetch.allow_hosts.append("evil.example")  # type: ignore[attr-defined]
    with pytest.raises(AttributeError):
        groups.limits = groups.limits  # type: ignore[misc]


def test_the_run_context_holds_the_groups_of_its_settings() -> None:
    settings = load_settings(model="none", search="none", depth="deep", max_waves=2)
    ctx = RunContext(
        groups=SettingsGroups.of(settings),
        gateway=Gateway.disabled(),
        search=StaticSearch([]),
        fetcher=HttpFetcher(),
        bus=EventBus("test", []),
    )
    assert ctx.limits == RunLimits.of(settings)
    assert ctx.limits.max_waves == 2 and ctx.limits.min_sources_read == 20
    assert ctx.policy.council is True
    assert ctx.storage.data_dir == settings.data_dir
    assert ctx.fetch_policy.max_text_chars == settings.max_text_chars


def _reads(path: Path, attr: str) -> list[int]:
    tree = ast.parse(path.read_text())
    return [
        node.lineno
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute) and node.attr == attr
    ]


def _calls(path: Path, attr: str) -> list[int]:
    tree = ast.parse(path.read_text())
    return [
        node.lineno
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == attr
    ]


def test_no_node_reads_the_flat_settings() -> None:
    """A stage takes the group it needs from its context (``ctx.limits.max_waves``), not
    the whole ``Settings`` nor a limit looked up by its name as a string."""
    readers = {
        str(path.relative_to(SRC)): lines
        for path in NODE_MODULES
        if (lines := _reads(path, "settings") + _calls(path, "limit"))
    }
    assert not readers, f"nodes reading ctx.settings or settings.limit(...): {readers}"


def test_one_list_of_search_providers() -> None:
    """Only ``search/registry.py`` spells the providers out; every other module (settings,
    CLI help, the API schema, the search factory) uses ``PROVIDER_NAMES`` or
    ``parse_search``. A literal tuple, list or set naming three providers elsewhere is a
    second list."""
    names = set(PROVIDER_NAMES)
    lists: list[str] = []
    for path in SRC.rglob("*.py"):
        if path == SRC / "search" / "registry.py":
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Tuple | ast.List | ast.Set | ast.Dict):
                items = node.keys if isinstance(node, ast.Dict) else node.elts
                spelled = {
                    item.value
                    for item in items
                    if isinstance(item, ast.Constant) and item.value in names
                }
                if len(spelled) >= 3:
                    lists.append(f"{path.relative_to(SRC)}:{node.lineno}")
    assert not lists, f"search providers listed outside search/registry.py: {lists}"


def test_the_depth_table_in_the_docs_is_the_presets() -> None:
    """docs/configuration.md's depth table says what ``RunLimits`` resolves to."""
    columns = (
        "max_sub_questions",
        "queries_per_question",
        "results_per_query",
        "sources_per_question",
        "max_waves",
        "max_units_total",
        "max_concurrent_units",
        "evidence_per_question",
        "min_sources_read",
        "writer_max_notes",
        "writer_word_budget",
        "sources_per_claim",
    )
    doc = (SRC.parents[1] / "docs" / "configuration.md").read_text()
    rows = {}
    for line in doc.splitlines():
        cells = [cell.strip() for cell in line.strip("|").split("|")]
        if cells[0] in DEPTHS and len(cells) == len(columns) + 1:
            rows[cells[0]] = [0 if c == "-" else int(c.split()[0]) for c in cells[1:]]
    assert set(rows) == set(DEPTHS)
    for depth, values in rows.items():
        limits = RunLimits.of(load_settings(depth=depth))
        assert values == [getattr(limits, name) for name in columns], depth
