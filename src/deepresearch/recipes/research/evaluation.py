"""Evaluating a stored research run (``deepresearch eval RUN_ID``, the library's
``evaluate``, the API's ``POST /v1/research/{id}/eval``): the run's report and plan are read
from its checkpoint, evaluated (``stages.evaluate.evaluate_report``) and the evaluation is
stored with the run, in its checkpoint, so the report renders with it from then on.

It reads no Settings: its callers (the CLI, the library, the service's composition root)
hand it where the run is stored and the models' settings group."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from langchain_core.language_models import BaseChatModel
from langchain_core.runnables import RunnableConfig
from langgraph.types import StateSnapshot

from deepresearch.checkpoints import describe, open_checkpointer
from deepresearch.core.ids import check_run_id
from deepresearch.errors import InvalidInput, MissingKeyError, RunError, RunNotFound
from deepresearch.llm.cache import ResponseCache
from deepresearch.llm.gateway import Gateway
from deepresearch.llm.providers import build_chat_model
from deepresearch.models import EvalResult, Report
from deepresearch.models.report import REPLY_KINDS
from deepresearch.recipes.registry import DEFAULT_RECIPE, checkpoint_types
from deepresearch.recipes.research.graph import build_graph
from deepresearch.recipes.research.stages.evaluate import evaluate_report
from deepresearch.settings_groups import ModelSettings, Storage
from deepresearch.settings_values import Role

NODE = "evaluate"


async def evaluate_run(
    storage: Storage,
    model_settings: ModelSettings,
    run_id: str,
    *,
    secrets: Sequence[str] = (),
    judge_model: str | None = None,
    models: Mapping[Role, BaseChatModel | None] | None = None,
) -> EvalResult:
    """Evaluate finished research run ``run_id`` and store the evaluation with it.

    The judge is ``models["judge"]`` when given (tests, the service's own components),
    else ``judge_model`` (a ``provider:model`` spec, ``none`` for no judge scores), else
    the settings' judge model."""
    check_run_id(run_id)
    storage.data_dir.mkdir(parents=True, exist_ok=True)
    async with open_checkpointer(storage, checkpoint_types()) as saver:
        graph = build_graph(saver)
        config: RunnableConfig = {"configurable": {"thread_id": run_id}}
        snapshot = await graph.aget_state(config)
        # the run first: "no such run" is said before what its judge would need (a key)
        report = _finished_report(snapshot, run_id, storage)
        model, name = _judge(model_settings, judge_model, models)
        cache = ResponseCache(storage.data_dir / "model-cache.sqlite3")
        try:
            gateway = Gateway(
                {"judge": model},
                model_names={"judge": name},
                timeout_s=model_settings.model_timeout_s,
                max_retries=model_settings.model_max_retries,
                secrets=list(secrets),
                cache=cache,  # an evaluation asked again is not paid twice
            )
            plan = snapshot.values.get("plan")
            result = await evaluate_report(
                report,
                plan.sub_questions if plan is not None else [],
                snapshot.values.get("sub_questions", []),
                gateway,
                sources=snapshot.values.get("sources", {}).values(),
            )
            await graph.aupdate_state(
                config, {"report": report.model_copy(update={"evaluation": result})}, as_node=NODE
            )
            return result
        finally:
            cache.close()


def _finished_report(snapshot: StateSnapshot, run_id: str, storage: Storage) -> Report:
    """The report of finished research run ``run_id``, or the error that says why there
    is none to evaluate (no such run, another recipe's, unfinished, a reply)."""
    values = snapshot.values
    if not values:
        raise RunNotFound(
            f"no run {run_id!r} in {describe(storage)}",
            hint="check the run id, and that DEEPRESEARCH_DATA_DIR is the one it used",
        )
    recipe = values.get("recipe") or DEFAULT_RECIPE
    if recipe != DEFAULT_RECIPE:
        raise InvalidInput(
            f"run {run_id!r} is a {recipe!r} run; only research reports are evaluated"
        )
    report = values.get("report")
    if snapshot.next or not isinstance(report, Report):
        raise RunError(
            f"run {run_id!r} has not finished",
            hint=f"resume it with: deepresearch run --resume {run_id}",
        )
    if report.kind in REPLY_KINDS:
        raise InvalidInput(
            f"run {run_id!r} ended with a {report.kind}, not a report: nothing to evaluate"
        )
    return report


def _judge(
    settings: ModelSettings,
    judge_model: str | None,
    models: Mapping[Role, BaseChatModel | None] | None,
) -> tuple[BaseChatModel | None, str]:
    """The judge's model and its name."""
    if models is not None and judge_model is None:
        model = models.get("judge")
        name = "none" if model is None else str(getattr(model, "model_name", "") or "judge")
        return model, name
    name = judge_model or settings.model_for("judge")
    try:
        model = build_chat_model(
            name,
            base_url=settings.model_base_url,
            api_key=settings.model_api_key,
            timeout_s=settings.model_timeout_s,
            temperature=settings.temperature_for("judge"),
        )
    except MissingKeyError as exc:
        raise MissingKeyError(
            exc.message, hint="set the key, or pass --judge-model none for the figures only"
        ) from None
    return model, name
