"""budget: a budgeted run's spend against its budget (issue 19).

Whole research runs over the offline web (HotpotQA paragraphs as HTML pages, SearXNG on
loopback; the real search adapter, fetcher, extractor, verification, gate and graph), the
model's words scripted (``research_script()``) and priced at gpt-4.1-mini's list price
($0.40 in, $1.60 out per million tokens) through the ``prices`` setting. Each question
runs once without a budget (its tokens T, cost C, wall time W), then with a token budget
of 25, 50 and 75 % of T, a cost budget of 25, 50 and 75 % of C, and a time budget of 25
and 50 % of W (model calls delayed by ``latency_s`` so time passes). Every run gets a fresh
data folder, so the response cache never answers a call.

Figures per budget: spend / budget (mean and max over the questions; never above 1 for
tokens and cost), the runs over budget (target 0), model calls made as a share of the
unbudgeted run's, and the reports' kinds. For time, the wall time of the whole run over
the budget: work under way when it runs out (a fetch, the extractive report, the
audit) finishes after it, and model calls are cut at it.
"""

from __future__ import annotations

import asyncio
import tempfile
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench.common import BenchResult, Options, finished, mean, require
from deepresearch.models import RunEvent
from deepresearch.models.event_payloads import RunCompleted
from deepresearch.runner import run_research
from deepresearch.settings import load_settings
from deepresearch.settings_values import ROLES
from deepresearch.testing.corpora import HotpotQuestion, hotpotqa_documents, hotpotqa_questions
from deepresearch.testing.research_script import research_script
from deepresearch.testing.scripted import ScriptedChatModel
from deepresearch.testing.web import OfflineWeb

PRICES = {"scripted": {"input": 0.40, "output": 1.60}}
TOKEN_SHARES = (0.25, 0.5, 0.75)
COST_SHARES = (0.25, 0.5, 0.75)
TIME_SHARES = (0.25, 0.5)
TIME_LATENCY_S = 0.2  # per model call in the time runs (at least), so a run takes seconds

NOTES = (
    "Per question: one run without a budget (tokens T, cost C at $0.40/$1.60 per million "
    "tokens, wall time W with model calls delayed by latency_s), then budgets as a share of "
    "those. tokens_X.spend_ratio: the run's tokens / its --max-tokens (mean, max over the "
    "questions); cost_X: dollars / --max-cost; time_X.wall_ratio: the run's wall time / "
    "--max-time, the wall time measured around run_research (setup before the budget's clock "
    "starts included); time_X.overrun_s: the budget's own clock when the run ended "
    "(run_completed's spend.elapsed_s) minus --max-time: what finishing after the deadline "
    "took (the remaining stages without a model, checkpoints, the report). "
    "over_budget: runs whose tokens or cost passed the budget (target 0). calls_ratio: "
    "model calls made / the unbudgeted run's. extractive/abort: reports that were "
    "extractive (the writer refused) or the honest abort. Tokens are the scripted model's "
    "estimates, ceil(chars/4); the reserve for a call's output is budget_output_reserve "
    "(1000 tokens), the scripted replies are shorter."
)


@dataclass
class Outcome:
    tokens: int
    cost: float
    wall_s: float
    calls: int
    kind: str
    ended_by: str | None
    run_s: float  # the budget's clock at the end: from the run's ports being ready


def run(options: Options) -> BenchResult:
    require(options.data_dir / "qa" / "hotpotqa")
    documents = hotpotqa_documents(options.data_dir)
    questions = hotpotqa_questions(options.data_dir)[: options.questions]
    latency = max(options.latency_s, TIME_LATENCY_S)
    result = BenchResult(notes=NOTES)
    result.params = {
        "questions": len(questions),
        "question_ids": [q.id for q in questions],
        "documents": len(documents),
        "latency_s_time_runs": latency,
        "token_shares": [str(s) for s in TOKEN_SHARES],
        "cost_shares": [str(s) for s in COST_SHARES],
        "time_shares": [str(s) for s in TIME_SHARES],
        "price_usd_per_million": "0.40 in, 1.60 out",
    }
    rows: dict[str, list[tuple[float, Outcome, Outcome]]] = {}
    with OfflineWeb(documents) as web:
        for question in questions:
            free = asyncio.run(_one(web, question, 0.0))
            slow = asyncio.run(_one(web, question, latency))
            for share in TOKEN_SHARES:
                limit = max(int(free.tokens * share), 1)
                got = asyncio.run(_one(web, question, 0.0, max_tokens=limit))
                rows.setdefault(f"tokens_{int(share * 100)}", []).append((limit, got, free))
            for share in COST_SHARES:
                cost_limit = free.cost * share
                got = asyncio.run(_one(web, question, 0.0, max_cost=cost_limit))
                rows.setdefault(f"cost_{int(share * 100)}", []).append((cost_limit, got, free))
            for share in TIME_SHARES:
                time_limit = round(slow.wall_s * share, 2)
                got = asyncio.run(_one(web, question, latency, max_time=time_limit))
                rows.setdefault(f"time_{int(share * 100)}", []).append((time_limit, got, slow))
        result.add(
            "unbudgeted.tokens_mean", mean([r[2].tokens for r in rows["tokens_25"]]), "tokens"
        )
        result.add(
            "unbudgeted.cost_mean", mean([r[2].cost for r in rows["cost_25"]]), "USD", digits=6
        )
        result.add(
            "unbudgeted.wall_s_mean", mean([r[2].wall_s for r in rows["time_25"]]), "s", digits=2
        )
    for name, runs in rows.items():
        _add(result, name, runs)
    return result


def _add(result: BenchResult, name: str, runs: list[tuple[float, Outcome, Outcome]]) -> None:
    kind = name.split("_")[0]
    if kind == "time":
        ratios = [got.wall_s / limit for limit, got, _ in runs]
        result.add(f"{name}.wall_ratio_mean", mean(ratios), "x budget", digits=3)
        result.add(f"{name}.wall_ratio_max", max(ratios), "x budget", digits=3)
        overrun = [got.run_s - limit for limit, got, _ in runs]
        result.add(f"{name}.overrun_s_mean", mean(overrun), "s", digits=3)
        result.add(f"{name}.overrun_s_max", max(overrun), "s", digits=3)
        result.add(f"{name}.limit_s_mean", mean([limit for limit, _, _ in runs]), "s", digits=2)
    else:
        spent = [got.tokens if kind == "tokens" else got.cost for _, got, _ in runs]
        ratios = [s / limit for s, (limit, _, _) in zip(spent, runs, strict=True)]
        result.add(f"{name}.spend_ratio_mean", mean(ratios), "x budget", digits=3)
        result.add(f"{name}.spend_ratio_max", max(ratios), "x budget", digits=3)
        result.add(f"{name}.over_budget", sum(r > 1 for r in ratios), "runs")
    result.add(
        f"{name}.calls_ratio",
        mean([got.calls / free.calls for _, got, free in runs]),
        "x unbudgeted",
        digits=3,
    )
    result.add(f"{name}.ended_by_budget", sum(got.ended_by == kind for _, got, _ in runs), "runs")
    kinds = Counter(got.kind for _, got, _ in runs)
    result.add(f"{name}.extractive", kinds["extractive"], "runs")
    result.add(f"{name}.abort", kinds["abort"], "runs")


async def _one(
    web: OfflineWeb, question: HotpotQuestion, latency_s: float, **budget: Any
) -> Outcome:
    events: list[RunEvent] = []
    with tempfile.TemporaryDirectory(prefix="bench-budget-") as folder:
        settings = load_settings(
            search="searxng",
            searxng_url=web.base_url,
            allow_hosts=[web.base_url.removeprefix("http://")],
            min_domains=1,
            data_dir=Path(folder),
            depth="quick",
            fetch_min_interval_s=0.0,
            prices=PRICES,
            **budget,
        )
        model = ScriptedChatModel(research_script(), latency_s=latency_s)
        started = time.perf_counter()
        report = await run_research(
            question.question, settings, models=dict.fromkeys(ROLES, model), sinks=[events.append]
        )
        wall = time.perf_counter() - started
    report = finished(report, question.id)
    done = next(e.data for e in events if isinstance(e.data, RunCompleted))
    ended = done.budget
    spend = done.spend
    elapsed = spend.get("elapsed_s") if spend is not None else None
    run_s = float(elapsed) if elapsed is not None else wall
    return Outcome(
        tokens=report.usage.total_tokens,
        cost=report.usage.cost_usd,
        wall_s=wall,
        calls=len(model.calls),
        kind=report.kind,
        ended_by=str(ended) if ended else None,
        run_s=run_s,
    )
