"""replay: a recorded run reproduced from its recording (issue 19), against the run itself.

For each HotpotQA question (``--questions``), a quick research run over the offline web with
the scripted model (delayed by ``--latency-s`` and ``--per-token-s`` per call, as in
end_to_end) is recorded, then replayed from a copy of its recording in a new data folder
(``deepresearch.compose.replay.replay_run``, what ``deepresearch replay --from DIR`` does).
Figures: the run's and the replay's wall time, their ratio, how many replays rendered the
same markdown and JSON byte for byte, and the model calls, searches and fetches the replays
made (counted on the scripted model and the offline web: all must be 0), the recording's
size on disk. The first question is also run under a token budget of half what its run
used, which refuses calls (the writer's among them): that run is replayed too, following
its recorded budget decisions."""

from __future__ import annotations

import asyncio
import json
import shutil
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench.common import BenchResult, Options, mean
from bench.end_to_end import corpus, settings_for
from deepresearch.compose.replay import replay_run
from deepresearch.export.report_render import to_json, to_markdown
from deepresearch.models import Report
from deepresearch.replay.tape import recording_folder
from deepresearch.runner import run_research
from deepresearch.settings import Settings
from deepresearch.settings_values import ROLES
from deepresearch.testing.corpora import hotpotqa_questions
from deepresearch.testing.research_script import research_script
from deepresearch.testing.scripted import ScriptedChatModel
from deepresearch.testing.web import OfflineWeb

NOTES = (
    "Means per question. run_wall_s: a quick research run over the loopback offline web "
    "with the scripted model delayed by latency_s + per_token_s * output tokens per call "
    "(the same model as end_to_end), recorded as every run is (record_runs); replay_wall_s: "
    "replay_run from a copy of that recording in a new data folder, no model, search or "
    "fetch (the graph, extraction from the recorded bytes, passages, verification and "
    "checkpoints run again for real). identical: replays whose markdown and JSON equal the "
    "run's byte for byte, of all replays. replay_model_calls / replay_requests: calls the "
    "scripted model and HTTP requests the offline web got during replays (all must be 0). "
    "recording_kb: the recording folder's size. budgeted_*: the first question run again "
    "under max_tokens = half the tokens its run used, recorded and replayed the same way: "
    "budgeted_refusals are the budget decisions on its recording that refused a call or "
    "new work, budgeted_identical whether its replay was byte for byte the run's report "
    "(its model calls and requests are counted in replay_model_calls / replay_requests)."
)


@dataclass
class Replayed:
    """One run recorded, then replayed from a copy of its recording."""

    report: Report
    run_s: float
    replay_s: float
    identical: bool
    calls: int  # model calls during the replay
    requests: int  # HTTP requests during the replay
    recording_kb: float
    refusals: int  # budget decisions that refused a call or new work


def _record_and_replay(
    web: OfflineWeb, question: str, folder: Path, options: Options, **budget: Any
) -> Replayed:
    settings: Settings = settings_for(web, folder / "data", "quick", "scripted", **budget)
    model = ScriptedChatModel(
        research_script(), latency_s=options.latency_s, per_token_s=options.per_token_s
    )
    started = time.perf_counter()
    report = asyncio.run(run_research(question, settings, models=dict.fromkeys(ROLES, model)))
    run_s = time.perf_counter() - started
    assert isinstance(report, Report)
    copy = shutil.copytree(recording_folder(settings, report.run_id), folder / "copy")
    size = sum(p.stat().st_size for p in copy.iterdir()) / 1024
    decisions = copy / "budget.jsonl"
    lines = decisions.read_text(encoding="utf-8").splitlines() if decisions.is_file() else []
    asked, called = len(web.requests), len(model.calls)
    elsewhere = settings_for(web, folder / "elsewhere", "quick", "scripted")
    started = time.perf_counter()
    _, replayed = asyncio.run(replay_run(elsewhere, folder=copy))
    replay_s = time.perf_counter() - started
    same = to_markdown(replayed) == to_markdown(report) and to_json(replayed) == to_json(report)
    return Replayed(
        report=report,
        run_s=run_s,
        replay_s=replay_s,
        identical=same,
        calls=len(model.calls) - called,
        requests=len(web.requests) - asked,
        recording_kb=size,
        refusals=sum(json.loads(line)["over"] is not None for line in lines),
    )


def run(options: Options) -> BenchResult:
    documents = corpus(options.data_dir)
    questions = hotpotqa_questions(options.data_dir)[: options.questions]
    result = BenchResult(notes=NOTES)
    result.params = {
        "questions": len(questions),
        "latency_s": options.latency_s,
        "per_token_s": options.per_token_s,
        "depth": "quick",
    }
    runs: list[float] = []
    replays: list[float] = []
    sizes: list[float] = []
    identical = calls = requests = 0
    budgeted: Replayed | None = None
    with OfflineWeb(documents) as web, tempfile.TemporaryDirectory() as scratch:
        for number, question in enumerate(questions):
            done = _record_and_replay(web, question.question, Path(scratch) / str(number), options)
            runs.append(done.run_s)
            replays.append(done.replay_s)
            sizes.append(done.recording_kb)
            identical += done.identical
            calls += done.calls
            requests += done.requests
            if number == 0:  # the same question under a budget that cuts it
                half = max(done.report.usage.total_tokens // 2, 1)
                budgeted = _record_and_replay(
                    web, question.question, Path(scratch) / "budgeted", options, max_tokens=half
                )
                calls += budgeted.calls
                requests += budgeted.requests
    result.add("run_wall_s", mean(runs), "s")
    result.add("replay_wall_s", mean(replays), "s")
    result.add("replay_vs_run", mean(replays) / mean(runs) if runs else 0.0, "ratio")
    result.add("identical", identical / len(questions) if questions else 0.0, "fraction")
    result.add("replay_model_calls", calls, "calls")
    result.add("replay_requests", requests, "requests")
    result.add("recording_kb", mean(sizes), "KiB", digits=1)
    if budgeted is not None:
        result.add("budgeted_run_wall_s", budgeted.run_s, "s")
        result.add("budgeted_replay_wall_s", budgeted.replay_s, "s")
        result.add("budgeted_refusals", budgeted.refusals, "decisions")
        result.add("budgeted_identical", float(budgeted.identical), "fraction")
    return result
