"""``deepresearch eval RUN_ID``: evaluate a finished research run (citation precision and
recall, sub-question coverage, and a judge's scores on DeepResearch Bench's RACE
dimensions) and store the evaluation with the run, so ``deepresearch report`` shows it."""

from __future__ import annotations

from enum import StrEnum
from typing import TYPE_CHECKING, Annotated, Any

import typer

from deepresearch.cli import options
from deepresearch.cli.common import fail, run_id_or_exit, settings_from, use_config_file
from deepresearch.core.sanitize import for_terminal
from deepresearch.errors import DeepResearchError

if TYPE_CHECKING:  # the models, the runner and the judge load when the command runs
    from deepresearch.models import EvalResult


class EvalFormat(StrEnum):
    text = "text"
    json = "json"


def evaluate(
    run_id: Annotated[str, typer.Argument(help="The id of a finished research run.")],
    judge_model: Annotated[
        str | None,
        typer.Option(
            help="provider:model of the judge, or 'none' for the figures only "
            "(default: the judge model the run was configured with)."
        ),
    ] = None,
    model_base_url: options.ModelBaseUrl = None,
    fmt: Annotated[EvalFormat, typer.Option("--format", help="text or json.")] = EvalFormat.text,
    config: options.Config = None,
) -> None:
    """Evaluate the report of finished run RUN_ID and store the evaluation with it."""
    import asyncio

    from deepresearch.recipes.registry import evaluator
    from deepresearch.runner import load_run_record
    from deepresearch.settings_groups import ModelSettings

    use_config_file(config)
    run_id = run_id_or_exit(run_id)
    given: dict[str, Any] = {}
    record = load_run_record(settings_from({}), run_id)
    remembered = record.get("options") if record is not None else None
    if isinstance(remembered, dict):  # the models the run was started with
        given.update(remembered)
    if model_base_url is not None:
        given["model_base_url"] = model_base_url
    settings = settings_from(given)
    try:
        result = asyncio.run(
            evaluator()(
                settings,
                ModelSettings.of(settings),
                run_id,
                secrets=settings.secrets(),
                judge_model=judge_model,
            )
        )
    except DeepResearchError as exc:
        fail(exc)
    if fmt is EvalFormat.json:
        typer.echo(result.model_dump_json(indent=2))
    else:
        typer.echo(for_terminal(text_summary(result), multiline=True))


def text_summary(result: EvalResult) -> str:
    from deepresearch.export.report_evaluation import DIMENSION_NAMES, figures, judge_line

    lines = [f"Evaluation of run {result.run_id}"]
    lines += [f"  {line}" for line in figures(result)]
    judged = judge_line(result)
    if judged:
        lines.append(f"  {judged}")
    for score in (*result.scores, *result.process_scores):
        name = DIMENSION_NAMES[score.dimension]
        lines.append(f"    {name}: {score.score:.1f}/10. {score.reason}")
    if result.usage.calls:
        lines.append(
            f"  The judge: {result.usage.calls} call(s), {result.usage.input_tokens} input and "
            f"{result.usage.output_tokens} output tokens."
        )
    return "\n".join(lines)
