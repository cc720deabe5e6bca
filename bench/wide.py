"""wide: does a deep run read widely within its token budget (issue 17, part 6)?

The aim: at the ``deep`` depth, read at least 20 sources within 150k input tokens. On an
offline web of every Vital Article summary and every FreshWiki article (10,133 pages,
SearXNG endpoint on loopback), broad questions on which many pages bear
(``bench.wide_questions``: "What is the history and impact of X?", on the most-named Vital
articles of each topic group, and on the FreshWiki articles most pages bear on) run at
``deep`` through the real pipeline, with no simulated latency, in three modes:

- ``scripted``: ``research_script()`` as it is. Its planner writes at most 2
  sub-questions, whatever the prompt allows.
- ``planned``: the same replies, except the plan, which uses what the prompt allows (8
  sub-questions at deep): the question, then aspects of its subject (origins, events,
  people, impact, legacy...), each with two queries. A stand-in for a model that plans a
  broad question as a broad question; computed from the prompt alone, deterministic.
- ``no_model``: ``model="none"``: the deterministic planner, extractive report.
- ``no_floor``: ``no_model`` with ``min_sources_read=0``: the run as it was before deep
  had a reading floor (it stops when the gate passes), for comparison in the same run.

Per mode: sources read (fetched and extracted) and cited; input tokens (total, per source
read, per stage), output tokens, model calls, wall time; quality: the share of the pages
read and cited that bear on the question (``BroadQuestion.relevant``), evidence verified
and cited, the audit's supported sentences and citation precision; and ``aim_met``, the
share of questions that read at least 20 sources within 150k input tokens.
"""

from __future__ import annotations

import asyncio
import json
import re
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from langchain_core.messages import BaseMessage

from bench.common import BenchResult, Options, finished, mean, require
from bench.end_to_end import settings_for
from bench.wide_questions import (
    MIN_RELEVANT,
    BroadQuestion,
    event_questions,
    mention_index,
    topic_questions,
)
from bench.wiki_questions import wiki_corpus
from deepresearch.core.text import keywords
from deepresearch.models import Report, RunEvent
from deepresearch.models.event_payloads import (
    EvidenceAdded,
    PlanReady,
    SourceFetched,
    SourcesRanked,
    WaveStarted,
)
from deepresearch.recipes.research.stages import plan
from deepresearch.runner import run_research
from deepresearch.settings_values import DEPTHS, ROLES
from deepresearch.testing.corpora import FRESHWIKI_DIR
from deepresearch.testing.research_script import research_script
from deepresearch.testing.scripted import ScriptedChatModel
from deepresearch.testing.web import OfflineWeb

DEPTH = "deep"
AIM_SOURCES = 20
AIM_INPUT_TOKENS = 150_000
MODES = ("scripted", "planned", "no_model", "no_floor")
_PLAN_FIRST_LINE = plan.SYSTEM.strip().splitlines()[0]
_CAP = re.compile(r"at most (\d+) sub-questions")
#: the aspects of a broad subject a planner asks about, with the words it searches for
ASPECTS = (
    ("What are the origins of {}?", "{} origins history"),
    ("What were the main events and developments of {}?", "{} events developments"),
    ("Who were the key people of {}?", "{} people leaders"),
    ("What was the impact of {}?", "{} impact influence"),
    ("What is the legacy of {}?", "{} legacy"),
    ("How is {} organised or structured?", "{} structure organisation"),
    ("What is {} known for today?", "{} today"),
)
_ASPECT_WORDS = {"history", "impact"}

NOTES = (
    "Means per question at the deep depth, no simulated latency, a fresh data folder per "
    "run. Web: every Vital summary and FreshWiki article (10,133 pages), SearXNG endpoint "
    "on loopback. Questions: bench/wide_questions.py (topics: Vital articles with >= 20 "
    "relevant pages, round-robin over the topic groups; events: the FreshWiki articles "
    "with the most relevant pages). A page is relevant to topic X when it is X's page, "
    "names X, or is named by X's page (whole titles, case-sensitive). Modes: scripted = "
    "research_script() (its planner writes <= 2 sub-questions); planned = the same, but "
    "the plan uses the prompt's allowance (8 at deep): the question and aspects of its "
    "subject; no_model = model='none'; no_floor = no_model with min_sources_read=0 (no "
    "reading floor: the run stops when the gate passes). sources_read: source_fetched events; "
    "sources_cited: report.sources. Tokens: report.usage, the scripted model's estimates "
    "ceil(chars/4), not a real tokenizer's; input_tokens_per_source = total input tokens / "
    "total sources read. relevant_read_share / relevant_cited_share: the share of pages "
    "read / cited that are relevant. chosen_per_source: read decisions of all units / "
    "sources read (above 1: units of a wave chose the same pages); digests_per_source: "
    "summarizer calls / sources read (each unit summarizes each page it chose for its own "
    "sub-question). audit_supported_share: supported / checked sentences "
    "(report.audit). aim_met: share of questions with >= 20 sources read and <= 150k "
    "input tokens."
)


@dataclass
class WideRun:
    """What one run measured."""

    wall_s: float
    sources_read: int = 0
    sources_cited: int = 0
    relevant_read: int = 0
    relevant_cited: int = 0
    topic_page_read: bool = False
    input_tokens: int = 0
    output_tokens: int = 0
    stage_input: dict[str, int] = field(default_factory=dict)
    model_calls: int = 0
    #: read decisions over every unit (a page two units chose counts twice)
    chosen: int = 0
    #: summarizer calls: one per page per unit that chose it
    digests: int = 0
    sub_questions: int = 0
    units: int = 0
    waves: int = 0
    evidence_verified: int = 0
    evidence_cited: int = 0
    audit_checked: int = 0
    audit_supported: int = 0
    citation_precision: float | None = None
    kind: str = ""

    @property
    def aim_met(self) -> bool:
        return self.sources_read >= AIM_SOURCES and self.input_tokens <= AIM_INPUT_TOKENS


def aspect_script(
    base: Callable[[list[BaseMessage]], str],
) -> Callable[[list[BaseMessage]], str]:
    """``base``, except that a plan gets as many sub-questions as the prompt allows: the
    question, then ``ASPECTS`` of its subject (its keywords less "history" and
    "impact")."""

    def reply(messages: list[BaseMessage]) -> str:
        system = str(messages[0].content) if messages else ""
        if not system.startswith(_PLAN_FIRST_LINE):
            return base(messages)
        user = str(messages[-1].content)
        match = _CAP.search(user)
        cap = int(match.group(1)) if match else 2
        question = user.split("Question:\n", 1)[-1].split("\n\n", 1)[0].strip()
        subject = " ".join(w for w in keywords(question) if w not in _ASPECT_WORDS)
        subs = [{"question": question, "queries": [subject, f"{subject} history"]}]
        for ask, query in ASPECTS[: max(cap - 1, 0)]:
            subs.append({"question": ask.format(subject), "queries": [query.format(subject)]})
        brief = f"Cover the history and impact of {subject}: origins, events, people, legacy."
        return json.dumps({"brief": brief, "sub_questions": subs})

    return reply


def run(options: Options) -> BenchResult:
    """Every question in every mode at deep; the means per set and mode."""
    require(options.data_dir / FRESHWIKI_DIR)
    documents = wiki_corpus(options.data_dir)
    index = mention_index(documents)
    sets = {
        "topics": topic_questions(options.data_dir, documents, index, limit=options.wide_topics),
        "events": event_questions(documents, index, limit=options.wide_events),
    }
    preset = DEPTHS[DEPTH]
    result = BenchResult(
        notes=NOTES,
        params={
            "depth": DEPTH,
            "documents": len(documents),
            "aim_sources": AIM_SOURCES,
            "aim_input_tokens": AIM_INPUT_TOKENS,
            "min_relevant_topics": MIN_RELEVANT,
            "max_sub_questions": preset.max_sub_questions,
            "sources_per_question": preset.sources_per_question,
            "max_waves": preset.max_waves,
            "max_units_total": preset.max_units_total,
            "min_sources_read": preset.min_sources_read,
            **{f"{name}.questions": len(items) for name, items in sets.items()},
            **{f"{name}.topics": [q.topic for q in items] for name, items in sets.items()},
            **{
                f"{name}.mean_relevant_pages": round(mean([len(q.relevant) for q in items]), 1)
                for name, items in sets.items()
            },
        },
    )
    with OfflineWeb(documents) as web:
        for name, items in sets.items():
            for mode in MODES:
                overrides = {"min_sources_read": 0} if mode == "no_floor" else {}
                runs = [
                    asyncio.run(run_wide(web, question, mode, **overrides)) for question in items
                ]
                _add(result, f"{name}.{mode}.", runs)
    return result


async def run_wide(
    web: OfflineWeb, question: BroadQuestion, mode: str, **overrides: object
) -> WideRun:
    """One deep run of ``question`` in ``mode`` (``MODES``), in a fresh data folder;
    ``overrides`` are further settings."""
    events: list[RunEvent] = []
    models = None
    if mode not in ("no_model", "no_floor"):
        script = research_script()
        model = ScriptedChatModel(aspect_script(script) if mode == "planned" else script)
        models = dict.fromkeys(ROLES, model)
    with tempfile.TemporaryDirectory(prefix="bench-wide-") as folder:
        settings = settings_for(
            web, Path(folder), DEPTH, "none" if models is None else "scripted", **overrides
        )
        started = time.perf_counter()
        report = await run_research(
            question.question, settings, models=models, sinks=[events.append]
        )
        wall = time.perf_counter() - started
    return measure(web, question, finished(report, question.id), events, wall)


def measure(
    web: OfflineWeb,
    question: BroadQuestion,
    report: Report,
    events: Sequence[RunEvent],
    wall: float,
) -> WideRun:
    """The figures of one run from its report and events."""
    read = [_title(web, e.data.url) for e in events if isinstance(e.data, SourceFetched)]
    cited = [_title(web, ref.url) for ref in report.sources]
    audit = report.audit
    return WideRun(
        wall_s=wall,
        sources_read=len(read),
        sources_cited=len(cited),
        relevant_read=sum(1 for title in read if title in question.relevant),
        relevant_cited=sum(1 for title in cited if title in question.relevant),
        topic_page_read=question.topic in read,
        input_tokens=report.usage.input_tokens,
        output_tokens=report.usage.output_tokens,
        stage_input={s: c.input_tokens for s, c in report.usage.by_stage.items()},
        model_calls=sum(1 for e in events if e.type == "model_call"),
        chosen=sum(len(e.data.chosen) for e in events if isinstance(e.data, SourcesRanked)),
        digests=sum(1 for e in events if e.type == "model_call" and e.stage == "summarize"),
        sub_questions=sum(
            len(e.data.sub_questions) for e in events if isinstance(e.data, PlanReady)
        ),
        units=sum(len(e.data.units) for e in events if isinstance(e.data, WaveStarted)),
        waves=sum(1 for e in events if e.type == "wave_started"),
        evidence_verified=sum(e.data.count for e in events if isinstance(e.data, EvidenceAdded)),
        evidence_cited=len(report.evidence),
        audit_checked=audit.checked if audit else 0,
        audit_supported=audit.supported if audit else 0,
        citation_precision=audit.citation_precision if audit else None,
        kind=report.kind,
    )


def _title(web: OfflineWeb, url: str) -> str:
    document = web.document_for_url(url)
    return document.title if document is not None else url


def _add(result: BenchResult, prefix: str, runs: list[WideRun]) -> None:
    add = result.add
    read = sum(r.sources_read for r in runs)
    cited = sum(r.sources_cited for r in runs)
    tokens = sum(r.input_tokens for r in runs)
    add(prefix + "sources_read", mean([r.sources_read for r in runs]), "sources", digits=2)
    add(prefix + "sources_read_min", min((r.sources_read for r in runs), default=0), "sources")
    add(prefix + "sources_cited", mean([r.sources_cited for r in runs]), "sources", digits=2)
    add(prefix + "relevant_read", mean([r.relevant_read for r in runs]), "sources", digits=2)
    add(
        prefix + "relevant_read_share",
        sum(r.relevant_read for r in runs) / read if read else 0.0,
        "fraction",
    )
    add(
        prefix + "relevant_cited_share",
        sum(r.relevant_cited for r in runs) / cited if cited else 0.0,
        "fraction",
    )
    add(prefix + "topic_page_read", mean([float(r.topic_page_read) for r in runs]), "fraction")
    add(prefix + "input_tokens", mean([r.input_tokens for r in runs]), "tokens (est.)", digits=0)
    add(
        prefix + "input_tokens_max", max((r.input_tokens for r in runs), default=0), "tokens (est.)"
    )
    add(
        prefix + "input_tokens_per_source",
        tokens / read if read else 0.0,
        "tokens (est.)",
        digits=0,
    )
    for stage in sorted({s for r in runs for s in r.stage_input}):
        values = [r.stage_input.get(stage, 0) for r in runs]
        add(f"{prefix}tokens.{stage}.input", mean(values), "tokens (est.)", digits=0)
    add(prefix + "output_tokens", mean([r.output_tokens for r in runs]), "tokens (est.)", digits=0)
    add(prefix + "model_calls", mean([r.model_calls for r in runs]), "calls", digits=1)
    chosen = sum(r.chosen for r in runs)
    add(prefix + "chosen_per_source", chosen / read if read else 0.0, "choices/source")
    digests = sum(r.digests for r in runs)
    add(prefix + "digests_per_source", digests / read if read else 0.0, "calls/source")
    add(prefix + "wall_s", mean([r.wall_s for r in runs]), "s", digits=2)
    add(prefix + "sub_questions", mean([r.sub_questions for r in runs]), "sub-questions", digits=2)
    add(prefix + "units", mean([r.units for r in runs]), "units", digits=2)
    add(prefix + "waves", mean([r.waves for r in runs]), "waves", digits=2)
    add(prefix + "evidence_verified", mean([r.evidence_verified for r in runs]), "quotes", digits=2)
    add(prefix + "evidence_cited", mean([r.evidence_cited for r in runs]), "quotes", digits=2)
    checked = sum(r.audit_checked for r in runs)
    supported = sum(r.audit_supported for r in runs)
    add(prefix + "audit_supported_share", supported / checked if checked else 0.0, "fraction")
    precisions = [r.citation_precision for r in runs if r.citation_precision is not None]
    add(prefix + "citation_precision", mean(precisions), "fraction")
    add(
        prefix + "synthesized_rate",
        mean([float(r.kind == "synthesized") for r in runs]),
        "fraction",
    )
    add(prefix + "aim_met", mean([float(r.aim_met) for r in runs]), "fraction")
