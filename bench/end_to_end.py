"""end_to_end: whole research runs over the offline web, with a scripted model.

``OfflineWeb`` serves the HotpotQA paragraphs, 25 FreshWiki articles and 400 Vital
Article summaries as HTML pages with a SearXNG endpoint on loopback; ``run_research``
answers HotpotQA questions through the real search adapter, fetcher, extractor, passages,
verification, gate, checkpointer and graph. Only the model's words are scripted
(``research_script()``), with simulated latency. Every run gets a fresh data folder, so
the response cache never answers a call.
"""

from __future__ import annotations

import asyncio
import re
import tempfile
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

from langchain_core.messages import BaseMessage

from bench.common import BenchResult, Options, finished, mean, require
from bench.critical_path import call_intervals, critical_path
from deepresearch.models import EvalResult, Report, RunEvent
from deepresearch.models.event_payloads import EvidenceAdded, PlanReady, SourceFetched, WaveStarted
from deepresearch.recipes.research.evaluation import evaluate_run
from deepresearch.runner import run_research
from deepresearch.settings import Settings, load_settings
from deepresearch.settings_groups import ModelSettings
from deepresearch.settings_values import ROLES
from deepresearch.testing.corpora import (
    HotpotQuestion,
    freshwiki_documents,
    hotpotqa_documents,
    hotpotqa_questions,
    vital_documents,
)
from deepresearch.testing.corpus import CorpusDocument
from deepresearch.testing.research_script import research_script
from deepresearch.testing.scripted import ScriptedChatModel
from deepresearch.testing.web import OfflineWeb

FRESHWIKI_ARTICLES = 25
VITAL_SUMMARIES = 400

NOTES = (
    "Means per question. Model replies are scripted (deepresearch.testing.research_script) "
    "and delayed by asyncio.sleep(latency_s + per_token_s * output_tokens); search, fetch, "
    "extraction, passages, verification, gate, checkpoints and graph are the real code over "
    "a loopback web. Tokens are the scripted model's estimates, ceil(chars/4) "
    "(deepresearch.llm.tokens), not a real tokenizer's counts. critical_path_calls / ideal_s: "
    "the chain of sequential model calls (each starting after the previous ended) with the "
    "largest total scripted delay; overhead = wall_s / ideal_s (1.0 = nothing but model "
    "latency on the critical path). no_model.*: the same questions with model='none' "
    "(deterministic fallbacks, extractive report): the pipeline without any model time. "
    "answer_in_report: the HotpotQA answer string (case-insensitive, whole words) in the "
    "report's sentences and table cells; yes/no answers make this noisy. gold_title_recall: gold supporting "
    "paragraphs (by title) among the cited sources, i.e. the sources of the evidence the "
    "final, audited report's sentences cite (report.sources); _fetched: among the sources "
    "read (fetched and extracted, source_fetched events); _considered: among every search "
    "candidate the run scored (report.considered), the ceiling for the other two. "
    "Every page is on the one loopback host, so the fetcher's per-host minimum interval is set "
    "to 0 (a real run spreads its fetches over many hosts); robots.txt is checked as in a run. "
    "eval.*: each report evaluated after its run (deepresearch.recipes.research.evaluation.evaluate_run, what "
    "`deepresearch eval` does; not in wall_s): citation precision and recall and sub-question "
    "coverage computed without a model (core.evaluate); eval.judge_overall is the scripted "
    "judge's mean RACE score, 0-10, which research_script derives from counts (sections, "
    "citations, words), so it tracks report shape, not quality: a real judge model is needed "
    "for that."
)


@dataclass
class RunStats:
    """What one run measured."""

    wall_s: float
    kind: str
    model_calls: int = 0
    critical_path_calls: int = 0
    ideal_s: float = 0.0
    #: scripted delay on the critical path, per stage
    path_stage_s: dict[str, float] = field(default_factory=dict)
    input_tokens: int = 0
    output_tokens: int = 0
    stage_tokens: dict[str, tuple[int, int]] = field(default_factory=dict)
    sources_fetched: int = 0
    sources_failed: int = 0
    sources_cited: int = 0
    evidence_verified: int = 0
    evidence_cited: int = 0
    answer_in_report: bool = False
    gold_title_recall: float = 0.0
    gold_title_recall_fetched: float = 0.0
    gold_title_recall_considered: float = 0.0
    sub_questions: int = 0
    units: int = 0
    evaluation: EvalResult | None = None


def corpus(data_dir: Path) -> list[CorpusDocument]:
    """The offline web's documents: HotpotQA paragraphs, FreshWiki articles, Vital summaries."""
    require(data_dir / "qa" / "hotpotqa")
    return [
        *hotpotqa_documents(data_dir),
        *freshwiki_documents(data_dir, limit=FRESHWIKI_ARTICLES),
        *vital_documents(data_dir, limit=VITAL_SUMMARIES),
    ]


def run(options: Options) -> BenchResult:
    """Run every question at every depth, scripted and with no model; return the means."""
    documents = corpus(options.data_dir)
    questions = hotpotqa_questions(options.data_dir)[: options.questions]
    result = BenchResult(notes=NOTES)
    with OfflineWeb(documents) as web:
        settings = settings_for(web, Path(tempfile.gettempdir()), "quick", "none")
        result.params = {
            "questions": len(questions),
            "question_ids": [question.id for question in questions],
            "depths": list(options.depths),
            "latency_s": options.latency_s,
            "per_token_s": options.per_token_s,
            "documents": len(documents),
            "freshwiki_articles": FRESHWIKI_ARTICLES,
            "vital_summaries": VITAL_SUMMARIES,
            "max_text_chars": settings.max_text_chars,
            "fetch_concurrency": settings.fetch_concurrency,
            "summarizer_concurrency": settings.summarizer_concurrency,
            "warmup_run": options.warmup,
        }
        if options.warmup and questions:
            asyncio.run(run_one(web, questions[0], "quick", 0.0, 0.0, scripted=True))
        for depth in options.depths:
            scripted = [
                asyncio.run(
                    run_one(
                        web,
                        q,
                        depth,
                        options.latency_s,
                        options.per_token_s,
                        scripted=True,
                        evaluate=True,
                    )
                )
                for q in questions
            ]
            plain = [
                asyncio.run(run_one(web, q, depth, 0.0, 0.0, scripted=False, evaluate=True))
                for q in questions
            ]
            _add_depth(result, depth, scripted, plain)
    return result


def settings_for(
    web: OfflineWeb, data_dir: Path, depth: str, model: str, **overrides: object
) -> Settings:
    """The settings of a benchmark run over ``web``; ``overrides`` are further settings."""
    return load_settings(
        search="searxng",
        searxng_url=web.base_url,
        allow_hosts=[web.base_url.removeprefix("http://")],
        min_domains=1,
        data_dir=data_dir,
        depth=depth,
        model=model,
        # the offline web is one host; real sources are spread over many, so the per-host
        # politeness gap would add a delay no real run has (see NOTES)
        fetch_min_interval_s=0.0,
        **overrides,
    )


async def run_one(
    web: OfflineWeb,
    question: HotpotQuestion,
    depth: str,
    latency_s: float,
    per_token_s: float,
    *,
    scripted: bool,
    script: Callable[[list[BaseMessage]], str] | None = None,
    overrides: dict[str, object] | None = None,
    evaluate: bool = False,
) -> RunStats:
    """One research run in a fresh data folder; ``script`` replaces ``research_script()``;
    ``evaluate``: its report evaluated afterwards, as ``deepresearch eval`` does."""
    events: list[RunEvent] = []
    with tempfile.TemporaryDirectory(prefix="bench-e2e-") as folder:
        model_name = "scripted" if scripted else "none"
        settings = settings_for(web, Path(folder), depth, model_name, **(overrides or {}))
        models = None
        if scripted:
            model = ScriptedChatModel(
                script or research_script(), latency_s=latency_s, per_token_s=per_token_s
            )
            models = dict.fromkeys(ROLES, model)
        started = time.perf_counter()
        report = await run_research(
            question.question, settings, models=models, sinks=[events.append]
        )
        wall = time.perf_counter() - started
        report = finished(report, question.id)
        # the report's evaluation, as `deepresearch eval` makes it (outside the timing)
        evaluation = (
            await evaluate_run(settings, ModelSettings.of(settings), report.run_id, models=models)
            if evaluate
            else None
        )
    stats = _stats(web, question, report, events, wall, latency_s, per_token_s)
    stats.evaluation = evaluation
    return stats


def _stats(
    web: OfflineWeb,
    question: HotpotQuestion,
    report: Report,
    events: Sequence[RunEvent],
    wall: float,
    latency_s: float,
    per_token_s: float,
) -> RunStats:
    path = critical_path(call_intervals(events, latency_s=latency_s, per_token_s=per_token_s))
    fetched_urls = [e.data.url for e in events if isinstance(e.data, SourceFetched)]
    gold = set(question.supporting_titles)
    return RunStats(
        wall_s=wall,
        kind=report.kind,
        model_calls=sum(1 for event in events if event.type == "model_call"),
        critical_path_calls=len(path.calls),
        ideal_s=path.ideal_s,
        path_stage_s=path.seconds_by_stage(),
        input_tokens=report.usage.input_tokens,
        output_tokens=report.usage.output_tokens,
        stage_tokens={
            stage: (count.input_tokens, count.output_tokens)
            for stage, count in report.usage.by_stage.items()
        },
        sources_fetched=len(fetched_urls),
        sources_failed=sum(1 for event in events if event.type == "source_failed"),
        sources_cited=len(report.sources),
        evidence_verified=sum(
            event.data.count for event in events if isinstance(event.data, EvidenceAdded)
        ),
        evidence_cited=len(report.evidence),
        answer_in_report=answer_in_text(question.answer, _report_text(report)),
        gold_title_recall=_recall(gold, _titles(web, [ref.url for ref in report.sources])),
        gold_title_recall_fetched=_recall(gold, _titles(web, fetched_urls)),
        gold_title_recall_considered=_recall(
            gold, _titles(web, [scores.url for scores in report.considered])
        ),
        sub_questions=sum(
            len(e.data.sub_questions) for e in events if isinstance(e.data, PlanReady)
        ),
        units=sum(len(e.data.units) for e in events if isinstance(e.data, WaveStarted)),
    )


def answer_in_text(answer: str, text: str) -> bool:
    """Whether ``answer`` occurs in ``text`` as whole words, ignoring case and spacing."""
    wanted = " ".join(answer.lower().split())
    if not wanted:
        return False
    haystack = " ".join(text.lower().split())
    return re.search(rf"(?<!\w){re.escape(wanted)}(?!\w)", haystack) is not None


def _report_text(report: Report) -> str:
    """What a reader sees of the findings: the sentences and the tables' cells (a planned
    section may set a date or a name out in a timeline's row). Not the title: it repeats
    the question, which may contain the answer."""
    cells = [
        cell
        for section in report.sections
        if section.table is not None
        for row in section.table.rows
        for cell in row.cells
    ]
    return "\n".join([*(sentence.text for sentence in report.all_sentences()), *cells])


def _titles(web: OfflineWeb, urls: Sequence[str]) -> set[str]:
    titles = set()
    for url in urls:
        document = web.document_for_url(url)
        if document is not None and urlsplit(url).netloc == urlsplit(web.base_url).netloc:
            titles.add(document.title)
    return titles


def _recall(gold: set[str], found: set[str]) -> float:
    return len(gold & found) / len(gold) if gold else 0.0


def _add_depth(
    result: BenchResult, depth: str, scripted: list[RunStats], plain: list[RunStats]
) -> None:
    prefix = f"{depth}."
    wall = mean([run.wall_s for run in scripted])
    ideal = mean([run.ideal_s for run in scripted])
    add = result.add
    add(prefix + "wall_s", wall, "s")
    add(prefix + "model_calls", mean([run.model_calls for run in scripted]), "calls")
    add(
        prefix + "critical_path_calls", mean([run.critical_path_calls for run in scripted]), "calls"
    )
    add(prefix + "ideal_s", ideal, "s")
    for stage in sorted({stage for run in scripted for stage in run.path_stage_s}):
        seconds = [run.path_stage_s.get(stage, 0.0) for run in scripted]
        add(f"{prefix}critical_path.{stage}_s", mean(seconds), "s")
    if ideal > 0:
        add(prefix + "overhead", wall / ideal, "x")
        add(prefix + "overhead_s", wall - ideal, "s")
    add(prefix + "input_tokens", mean([run.input_tokens for run in scripted]), "tokens (est.)")
    add(prefix + "output_tokens", mean([run.output_tokens for run in scripted]), "tokens (est.)")
    stages = sorted({stage for run in scripted for stage in run.stage_tokens})
    for stage in stages:
        counts = [run.stage_tokens.get(stage, (0, 0)) for run in scripted]
        add(f"{prefix}tokens.{stage}.input", mean([c[0] for c in counts]), "tokens (est.)")
        add(f"{prefix}tokens.{stage}.output", mean([c[1] for c in counts]), "tokens (est.)")
    add(prefix + "sources_fetched", mean([run.sources_fetched for run in scripted]), "sources")
    add(prefix + "sources_failed", mean([run.sources_failed for run in scripted]), "sources")
    add(prefix + "sources_cited", mean([run.sources_cited for run in scripted]), "sources")
    add(prefix + "evidence_verified", mean([run.evidence_verified for run in scripted]), "quotes")
    add(prefix + "evidence_cited", mean([run.evidence_cited for run in scripted]), "quotes")
    add(
        prefix + "synthesized_rate",
        _rate(run.kind == "synthesized" for run in scripted),
        "fraction",
    )
    add(prefix + "answer_in_report", _rate(run.answer_in_report for run in scripted), "fraction")
    add(prefix + "gold_title_recall", mean([run.gold_title_recall for run in scripted]), "fraction")
    add(
        prefix + "gold_title_recall_fetched",
        mean([run.gold_title_recall_fetched for run in scripted]),
        "fraction",
    )
    add(
        prefix + "gold_title_recall_considered",
        mean([run.gold_title_recall_considered for run in scripted]),
        "fraction",
    )
    _add_eval(result, prefix + "eval.", scripted)
    no_model = prefix + "no_model."
    add(no_model + "wall_s", mean([run.wall_s for run in plain]), "s")
    add(no_model + "sources_fetched", mean([run.sources_fetched for run in plain]), "sources")
    add(no_model + "sources_cited", mean([run.sources_cited for run in plain]), "sources")
    add(no_model + "answer_in_report", _rate(run.answer_in_report for run in plain), "fraction")
    add(no_model + "gold_title_recall", mean([run.gold_title_recall for run in plain]), "fraction")
    add(
        no_model + "gold_title_recall_fetched",
        mean([run.gold_title_recall_fetched for run in plain]),
        "fraction",
    )
    _add_eval(result, no_model + "eval.", plain)


def _add_eval(result: BenchResult, prefix: str, runs: list[RunStats]) -> None:
    """Means of the reports' evaluation figures (a figure a report has none of, such as
    precision without a cited sentence, is left out of its mean)."""
    evaluations = [run.evaluation for run in runs if run.evaluation is not None]
    for name in ("citation_precision", "citation_recall", "coverage"):
        values = [v for e in evaluations if (v := getattr(e, name)) is not None]
        result.add(prefix + name, mean(values), "fraction")
    judged = [e.overall for e in evaluations if e.overall is not None]
    if judged:
        result.add(prefix + "judge_overall", mean(judged), "score 0-10 (scripted judge)")
        for dimension in ("comprehensiveness", "insight", "instruction_following", "readability"):
            scores = [s.score for e in evaluations for s in e.scores if s.dimension == dimension]
            result.add(f"{prefix}judge.{dimension}", mean(scores), "score 0-10 (scripted judge)")


def _rate(flags: Iterable[bool]) -> float:
    values = list(flags)
    return sum(values) / len(values) if values else 0.0
