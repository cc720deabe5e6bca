"""replay: a recorded run reproduced from its recording (issue 19), against the run itself.

For each HotpotQA question (``--questions``), a quick research run over the offline web with
the scripted model (delayed by ``--latency-s`` and ``--per-token-s`` per call, as in
end_to_end) is recorded, then replayed from a copy of its recording in a new data folder
(``deepresearch.replay.play.replay_run``, what ``deepresearch replay --from DIR`` does).
Figures: the run's and the replay's wall time, their ratio, how many replays rendered the
same markdown and JSON byte for byte, and the model calls, searches and fetches the replays
made (counted on the scripted model and the offline web: all must be 0), the recording's
size on disk."""

from __future__ import annotations

import asyncio
import shutil
import tempfile
import time
from pathlib import Path

from bench.common import BenchResult, Options, mean
from bench.end_to_end import corpus, settings_for
from deepresearch.core.render import to_json, to_markdown
from deepresearch.models import Report
from deepresearch.replay.play import replay_run
from deepresearch.replay.tape import recording_folder
from deepresearch.runner import run_research
from deepresearch.settings import ROLES
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
    "recording_kb: the recording folder's size."
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
    with OfflineWeb(documents) as web, tempfile.TemporaryDirectory() as scratch:
        for number, question in enumerate(questions):
            folder = Path(scratch) / str(number)
            settings = settings_for(web, folder / "data", "quick", "scripted")
            model = ScriptedChatModel(
                research_script(), latency_s=options.latency_s, per_token_s=options.per_token_s
            )
            started = time.perf_counter()
            report = asyncio.run(
                run_research(question.question, settings, models=dict.fromkeys(ROLES, model))
            )
            runs.append(time.perf_counter() - started)
            assert isinstance(report, Report)
            recording = recording_folder(settings, report.run_id)
            copy = shutil.copytree(recording, folder / "copy")
            sizes.append(sum(p.stat().st_size for p in copy.iterdir()) / 1024)
            asked, called = len(web.requests), len(model.calls)
            elsewhere = settings_for(web, folder / "elsewhere", "quick", "scripted")
            started = time.perf_counter()
            _, replayed = asyncio.run(replay_run(elsewhere, folder=copy))
            replays.append(time.perf_counter() - started)
            requests += len(web.requests) - asked
            calls += len(model.calls) - called
            same = to_markdown(replayed) == to_markdown(report)
            identical += same and to_json(replayed) == to_json(report)
    result.add("run_wall_s", mean(runs), "s")
    result.add("replay_wall_s", mean(replays), "s")
    result.add("replay_vs_run", mean(replays) / mean(runs) if runs else 0.0, "ratio")
    result.add("identical", identical / len(questions) if questions else 0.0, "fraction")
    result.add("replay_model_calls", calls, "calls")
    result.add("replay_requests", requests, "requests")
    result.add("recording_kb", mean(sizes), "KiB", digits=1)
    return result
