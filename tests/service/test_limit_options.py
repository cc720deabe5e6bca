"""Seed 004's limits as job options (issue 28): the API takes each with the bounds the
setting has (``settings_values.LIMIT_BOUNDS`` owns them), refuses a value past them, and a
job's value reaches the run's resolved limits over the depth preset."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from deepresearch.service.schemas import RunOptions
from deepresearch.settings import Settings, load_settings
from deepresearch.settings_groups import RunLimits
from deepresearch.settings_values import DEPTHS, LIMIT_BOUNDS


def _bounds(field: Any) -> tuple[int | None, int | None]:
    low = next((m.ge for m in field.metadata if getattr(m, "ge", None) is not None), None)
    high = next((m.le for m in field.metadata if getattr(m, "le", None) is not None), None)
    return low, high


@pytest.mark.parametrize("name", sorted(LIMIT_BOUNDS))
def test_the_api_and_the_setting_share_one_set_of_bounds(name: str) -> None:
    bounds = LIMIT_BOUNDS[name]
    assert _bounds(RunOptions.model_fields[name]) == (bounds.low, bounds.high)
    assert _bounds(Settings.model_fields[name]) == (bounds.low, bounds.high)
    for wrong in (bounds.low - 1, bounds.high + 1):
        with pytest.raises(ValidationError):
            RunOptions(**{name: wrong})
    update = RunOptions(depth="deep", **{name: bounds.low}).settings_update()
    assert update == {"depth": "deep", name: bounds.low}
    limits = RunLimits.of(load_settings(**update))
    assert getattr(limits, name) == bounds.low != getattr(DEPTHS["deep"], name)
