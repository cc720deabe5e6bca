"""scaling: how wall time, tokens and memory grow with sub-questions and sources per run.

The ``end_to_end`` harness (offline web, real pipeline, scripted model with latency) at
the standard depth, with ``max_sub_questions`` × ``sources_per_question`` set per size
(``--scaling-sizes``, default 2x3, 4x5, 8x8). ``research_script()``'s planner writes at
most 2 sub-questions, so here the planner reply is widened to as many as the prompt allows
(focused sub-questions on the question's keywords, deterministic); every other reply is
``research_script()``'s. Sizes run smallest first, each on the first
``--scaling-questions`` HotpotQA questions, with an untimed warm-up run before them.
"""

from __future__ import annotations

import asyncio
import json
import re
import tracemalloc
from collections.abc import Callable

from langchain_core.messages import BaseMessage

from bench.common import BenchResult, Options, mean
from bench.end_to_end import RunStats, corpus, run_one
from bench.memory import PeakRss
from deepresearch.core.text import keywords
from deepresearch.recipes.research.stages import plan
from deepresearch.settings_values import DEPTHS
from deepresearch.testing.corpora import HotpotQuestion, hotpotqa_questions
from deepresearch.testing.research_script import research_script
from deepresearch.testing.web import OfflineWeb

DEPTH = "standard"
_PLAN_FIRST_LINE = plan.SYSTEM.strip().splitlines()[0]
_CAP = re.compile(r"at most (\d+) sub-questions")
_TEMPLATES = ("What is known about {}?", "What are the main facts about {}?", "Who or what is {}?")

NOTES = (
    "Means per question, per size NxM = max_sub_questions N, sources_per_question M, "
    "standard depth otherwise (max_concurrent_units 4, max_units_total 12, 3 queries of 8 "
    "results per sub-question). Model replies scripted and delayed by latency_s + "
    "per_token_s * output tokens, as in end_to_end; the planner reply is widened to N "
    "sub-questions (see the module docstring). Tokens: report.usage, the scripted model's "
    "estimates ceil(chars/4) (deepresearch.llm.tokens), as in end_to_end. peak_rss_mb: the "
    "process's resident-memory high-water mark during the run (VmHWM reset before each run; "
    "the process also holds the offline web, its index and its server threads), the "
    "largest over the questions; rss_growth_mb: that peak minus the resident size when the "
    "run started (small: Python reuses memory freed by earlier runs). traced_peak_mb: the "
    "peak of Python-allocated memory (tracemalloc; not C allocations such as lxml's trees) "
    "during one more run of the first question at that size, untimed and without latency; "
    "it counts everything allocated in the process meanwhile, the offline web's server "
    "threads included. *_vs_first: ratio to the first (smallest) size."
)


def wide_script(base: Callable[[list[BaseMessage]], str]) -> Callable[[list[BaseMessage]], str]:
    """``base``, except that plans get as many sub-questions as the prompt allows."""

    def reply(messages: list[BaseMessage]) -> str:
        text = base(messages)
        system = str(messages[0].content) if messages else ""
        if not system.startswith(_PLAN_FIRST_LINE):
            return text
        user = str(messages[-1].content)
        match = _CAP.search(user)
        cap = int(match.group(1)) if match else 2
        draft = json.loads(text)
        question = user.split("Question:\n", 1)[-1].split("\n\n", 1)[0].strip()
        subs = draft["sub_questions"]
        for extra in _extra_questions(question):
            if len(subs) >= cap:
                break
            if all(extra.lower() != sub["question"].lower() for sub in subs):
                subs.append({"question": extra, "queries": [extra.rstrip("?")]})
        draft["sub_questions"] = subs[:cap]
        return json.dumps(draft)

    return reply


def _extra_questions(question: str) -> list[str]:
    terms = keywords(question)
    phrases = [" ".join(terms[i : i + 2]) for i in range(max(len(terms) - 1, 0))]
    phrases += terms
    return [template.format(phrase) for template in _TEMPLATES for phrase in phrases]


def run(options: Options) -> BenchResult:
    """Every size on the same questions, smallest first."""
    documents = corpus(options.data_dir)
    questions = hotpotqa_questions(options.data_dir)[: options.scaling_questions]
    sizes = sorted(options.scaling_sizes)
    preset = DEPTHS[DEPTH]
    result = BenchResult(
        notes=NOTES,
        params={
            "questions": len(questions),
            "question_ids": [question.id for question in questions],
            "sizes": [f"{n}x{m}" for n, m in sizes],
            "depth": DEPTH,
            "max_concurrent_units": preset.max_concurrent_units,
            "max_units_total": preset.max_units_total,
            "latency_s": options.latency_s,
            "per_token_s": options.per_token_s,
            "documents": len(documents),
        },
    )
    first: dict[str, float] = {}
    with OfflineWeb(documents) as web:
        if options.warmup and questions and sizes:
            asyncio.run(_one(web, questions[0], sizes[0], options, latency=False))
        for size in sizes:
            runs = [asyncio.run(_one(web, question, size, options)) for question in questions]
            traced = _traced_peak_mb(web, questions[0], size, options) if questions else 0.0
            _add_size(result, size, runs, traced, first)
    return result


async def _one(
    web: OfflineWeb,
    question: HotpotQuestion,
    size: tuple[int, int],
    options: Options,
    *,
    latency: bool = True,
) -> tuple[RunStats, PeakRss]:
    n, m = size
    with PeakRss() as peak:
        stats = await run_one(
            web,
            question,
            DEPTH,
            options.latency_s if latency else 0.0,
            options.per_token_s if latency else 0.0,
            scripted=True,
            script=wide_script(research_script()),
            overrides={"max_sub_questions": n, "sources_per_question": m},
        )
    return stats, peak


def _traced_peak_mb(
    web: OfflineWeb, question: HotpotQuestion, size: tuple[int, int], options: Options
) -> float:
    """Peak Python-allocated memory of one more run (no latency, tracemalloc on)."""
    tracemalloc.start()
    try:
        asyncio.run(_one(web, question, size, options, latency=False))
        return tracemalloc.get_traced_memory()[1] / 1024 / 1024
    finally:
        tracemalloc.stop()


def _add_size(
    result: BenchResult,
    size: tuple[int, int],
    runs: list[tuple[RunStats, PeakRss]],
    traced_mb: float,
    first: dict[str, float],
) -> None:
    prefix = f"{size[0]}x{size[1]}."
    stats = [run for run, _ in runs]
    values = {
        "wall_s": (mean([r.wall_s for r in stats]), "s"),
        "ideal_s": (mean([r.ideal_s for r in stats]), "s"),
        "sub_questions": (mean([r.sub_questions for r in stats]), "sub-questions"),
        "units": (mean([r.units for r in stats]), "units"),
        "sources_fetched": (mean([r.sources_fetched for r in stats]), "sources"),
        "sources_cited": (mean([r.sources_cited for r in stats]), "sources"),
        "model_calls": (mean([r.model_calls for r in stats]), "calls"),
        "input_tokens": (mean([r.input_tokens for r in stats]), "tokens (est.)"),
        "output_tokens": (mean([r.output_tokens for r in stats]), "tokens (est.)"),
        "peak_rss_mb": (max((peak.peak_mb for _, peak in runs), default=0.0), "MiB"),
        "rss_growth_mb": (max((peak.growth_mb for _, peak in runs), default=0.0), "MiB"),
        "traced_peak_mb": (traced_mb, "MiB"),
    }
    for name, (value, unit) in values.items():
        result.add(prefix + name, value, unit, digits=3)
    for name in ("wall_s", "input_tokens", "sources_fetched", "traced_peak_mb"):
        value = values[name][0]
        base = first.setdefault(name, value)
        if base:
            result.add(f"{prefix}{name}_vs_first", value / base, "x", digits=2)
