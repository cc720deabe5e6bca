"""The library entry points (``deepresearch.research*``, ``run_research``,
``run_recipe``) apply the CLI's and the API's input rules before any work: a bad run id
or question raises ``InvalidInput`` and nothing is created or written."""

from __future__ import annotations

from pathlib import Path

import pytest

import deepresearch
from deepresearch.errors import ConfigError, InvalidInput
from deepresearch.recipes.employer import EmployerRequest
from deepresearch.recipes.registry import get_recipe
from deepresearch.runner import load_report, run_recipe, run_research, save_run_record
from deepresearch.settings import load_settings

BAD_IDS = ["../../escaped", "/tmp/evil", "..", "a b", "CON", "run\x1b]0;x\x07", "x" * 65]


def _options(tmp_path: Path) -> dict[str, object]:
    corpus = tmp_path / "corpus"
    corpus.mkdir(exist_ok=True)
    (corpus / "g.md").write_text("Python generators yield values one at a time.\n")
    return {"model": "none", "search": "local", "corpus_dir": corpus, "data_dir": tmp_path / "d"}


@pytest.mark.parametrize("bad", BAD_IDS)
async def test_bad_run_ids_are_refused_before_any_work(tmp_path: Path, bad: str) -> None:
    options = _options(tmp_path)
    settings = load_settings(**options)
    with pytest.raises(InvalidInput, match="run id"):
        await deepresearch.research_async("What are generators?", run_id=bad, **options)
    with pytest.raises(InvalidInput):
        deepresearch.research_events("What are generators?", run_id=bad, **options)
    with pytest.raises(InvalidInput):
        await run_research("What are generators?", settings, run_id=bad)
    with pytest.raises(InvalidInput):
        await run_research(None, settings, run_id=bad, resume=True)
    with pytest.raises(InvalidInput):
        await load_report(settings, bad)
    with pytest.raises(InvalidInput):
        await deepresearch.research_employer_async("Acme", run_id=bad, **options)
    with pytest.raises(InvalidInput):
        await run_recipe(
            get_recipe("employer"), EmployerRequest(company="Acme"), settings, run_id=bad
        )
    with pytest.raises(InvalidInput):
        await deepresearch.run_recipe_async("employer", "Acme", run_id=bad, **options)
    with pytest.raises(InvalidInput):
        save_run_record(settings, bad, "q", {})
    _nothing_written(tmp_path)


def _nothing_written(tmp_path: Path) -> None:
    assert not (tmp_path / "d").exists()  # no data folder, checkpoint or record
    assert not list(tmp_path.rglob("*.json"))


async def test_questions_follow_one_rule(tmp_path: Path) -> None:
    options = _options(tmp_path)
    with pytest.raises(InvalidInput, match="the limit is 4,000"):
        await deepresearch.research_async("x" * 100_000, **options)
    with pytest.raises(InvalidInput, match="the question is empty"):
        deepresearch.research_events("\x00\x07 \x1b[0m", **options)
    assert not (tmp_path / "d").exists()
    report = await deepresearch.research_async(
        "What are \x1b]0;PWNED\x07generators\x00?", run_id="lib-1", **options
    )
    assert report.question == "What are generators?" and report.run_id == "lib-1"
    # an InvalidInput is a ConfigError (the user must act) and a ValueError (for pydantic)
    assert issubclass(InvalidInput, ConfigError) and issubclass(InvalidInput, ValueError)


def test_employer_requests_are_normalised_with_the_same_limit() -> None:
    request = EmployerRequest(
        company="Acme\x1b]0;x\x07 Corp\r\nCompany: Acme", role="Staff\n\x07Engineer"
    )
    assert request.company == "Acme Corp\nCompany: Acme"
    assert request.role == "Staff Engineer"
    with pytest.raises(ValueError, match="at most 4000 characters"):
        EmployerRequest(company="x" * 4001)
