"""employer_metrics (seed 000's success metrics): its rules on hand-made counts, and one
tiny run over the real shared data (one company and the real posting)."""

from __future__ import annotations

import pytest
from bench.common import DEFAULT_DATA_DIR, Options

from bench import employer_metrics


def test_the_seed_bar_and_the_improvement() -> None:
    assert employer_metrics.enough((2, 2)) and not employer_metrics.enough((5, 1))
    assert employer_metrics.improvement((1, 1), (2, 2)) == 1.0
    assert employer_metrics.improvement((0, 0), (2, 0)) == 2.0  # nothing before counts as 1
    assert employer_metrics.improvement((2, 2), (2, 2)) == 0.0


def test_a_tiny_run_measures_every_search_and_the_posting_passes() -> None:
    if not DEFAULT_DATA_DIR.is_dir():
        pytest.skip(f"shared data folder not found at {DEFAULT_DATA_DIR}")
    result = employer_metrics.run(Options(employer_companies=1))
    figures = {name: figure.value for name, figure in result.figures.items()}
    assert figures["none.runs"] == 2  # Alibaba Group, and Google with the real posting
    assert figures["none.searches"] >= 2
    # the posting names technologies and requirements: at least its run passes the bar
    assert figures["none.final_extraction_rate"] >= 0.5
    assert 0 <= figures["none.retries_over_50pct"] <= 1
    assert result.params["with_posting"] == ["Google"]
