"""employer_metrics: seed 000's success metrics for the employer recipe, measured on real
pages through the recipe's own code path (registry, runner, search, fetch, extraction,
verification, reranker, routing), offline.

For each company of the Vital Articles that is a company today (``COMPANIES``), an
``OfflineWeb`` serves ``testing.employer.company_documents``: the company's Wikipedia lead
section, the ScrapingHub news pages that name it four times or more, and unrelated
articles; the recipe runs over it through SearXNG's wire format, as ``deepresearch
employer NAME`` would. Google runs once more with the real job posting in
``docs/examples/``. Two models: ``none`` (the recipe's deterministic rules) and
``scripted`` (``testing.employer.employer_script()``: a careful model computed from the
prompt). The seed's metrics (section 3.2):

- **extraction rate** ("at least 2 technologies and 2 requirements, per-search average"):
  the share of Phase 2 searches (each attempt of each run, from its ``research_complete``
  event) whose profile held at least two technologies and two requirements; and the share
  of runs whose final profile, after the reranker's firewall, does;
- **retry improvement** (target "over 50% improvement on retry"): for each run the
  reranker sent back with enhancement queries, (technologies + requirements after the
  retry - before) / before (before = 0 counts as 1); the mean, and the share of retries
  that improved by more than 50%.
"""

from __future__ import annotations

import asyncio
import tempfile
from dataclasses import dataclass
from pathlib import Path

from bench.common import BenchResult, DataMissing, Options, mean, require
from bench.machine import ROOT
from deepresearch.models import RunEvent
from deepresearch.recipes.employer.events import ResearchComplete
from deepresearch.recipes.employer.models import EmployerRequest, EmployerResult
from deepresearch.recipes.registry import get_recipe
from deepresearch.runner import run_recipe
from deepresearch.settings import load_settings
from deepresearch.testing.corpus import CorpusDocument
from deepresearch.testing.employer import company_documents, employer_script
from deepresearch.testing.scripted import scripted_models
from deepresearch.testing.web import OfflineWeb

#: the Vital Articles' companies that exist today (title, the name a job seeker types)
COMPANIES: tuple[tuple[str, str], ...] = (
    ("Alibaba Group", "Alibaba Group"),
    ("Amazon (company)", "Amazon"),
    ("Apple Inc.", "Apple"),
    ("AT&T", "AT&T"),
    ("Ford Motor Company", "Ford Motor Company"),
    ("General Electric", "General Electric"),
    ("General Motors", "General Motors"),
    ("Google", "Google"),
    ("IBM", "IBM"),
    ("Microsoft", "Microsoft"),
    ("Nestlé", "Nestlé"),
    ("Nintendo", "Nintendo"),
    ("Samsung", "Samsung"),
    ("Tencent", "Tencent"),
    ("Toyota", "Toyota"),
    ("Walmart", "Walmart"),
    ("The Walt Disney Company", "Disney"),
)
POSTING = ROOT / "docs" / "examples" / "google-stadia-engineer.txt"
MODELS = ("none", "scripted")
MIN_ITEMS = 2
TARGET_IMPROVEMENT = 0.5
ENOUGH = "extraction_rate"

NOTES = (
    "Real pages from ../shared/data (Vital Articles lead sections, ScrapingHub news pages) "
    "served offline through SearXNG's wire format; the employer recipe end to end through "
    "the registry and runner, role 'Software Engineer', seed defaults (2 queries, 1500 "
    "characters per search). model none: the deterministic rules; scripted: "
    "employer_script(), a careful model. extraction_rate: Phase 2 searches (attempts) whose "
    "profile had >= 2 technologies and >= 2 requirements / searches; final_extraction_rate: "
    "the same on each run's final profile after the reranker's firewall. retried: runs the "
    "reranker sent back (ENHANCE_SEARCH); retry_improvement: mean over them of (items after "
    "- items before) / max(before, 1), items = technologies + requirements; "
    "retries_over_50pct: the share of retries above the seed's 50% target."
)


@dataclass(frozen=True)
class Case:
    company: str
    documents: list[CorpusDocument]
    posting: str | None = None


@dataclass(frozen=True)
class Outcome:
    #: (technologies, requirements) of each Phase 2 attempt, in order
    attempts: list[tuple[int, int]]
    #: (technologies, requirements) of the profile passed on (0, 0 after an early exit)
    final: tuple[int, int]


def run(options: Options) -> BenchResult:
    cases = _cases(options.data_dir, options.employer_companies)
    result = BenchResult(notes=NOTES)
    result.params = {
        "companies": [case.company for case in cases if case.posting is None],
        "with_posting": [case.company for case in cases if case.posting is not None],
        "documents": [len(case.documents) for case in cases],
        "models": list(MODELS),
    }
    for model in MODELS:
        outcomes = [asyncio.run(_one(case, model)) for case in cases]
        _add(result, model, outcomes)
        result.params[f"{model}.per_run"] = [
            _described(case, outcome) for case, outcome in zip(cases, outcomes, strict=True)
        ]
    return result


def _described(case: Case, outcome: Outcome) -> str:
    """``Google (posting): 3t/2r -> 4t/2r, final 4t/2r``: each attempt's and the final."""
    name = case.company + (" (posting)" if case.posting else "")
    steps = " -> ".join(f"{t}t/{r}r" for t, r in outcome.attempts)
    return f"{name}: {steps}, final {outcome.final[0]}t/{outcome.final[1]}r"


def _cases(data_dir: Path, limit: int | None) -> list[Case]:
    require(data_dir / "wiki" / "vital-articles-summaries-en.json")
    cases = []
    for title, name in COMPANIES[:limit]:
        documents = company_documents(data_dir, title)
        if name != title:  # news pages name "Amazon", not "Amazon (company)"
            news = company_documents(data_dir, name, distractors=())
            documents += [doc for doc in news if doc.id.startswith("sh-")]
        if not documents or documents[0].title != title:
            raise DataMissing(f"no Vital Articles summary for {title!r} in {data_dir}")
        cases.append(Case(name, documents))
    google = company_documents(data_dir, "Google")
    cases.append(Case("Google", google, POSTING.read_text(encoding="utf-8")))
    return cases


async def _one(case: Case, model: str) -> Outcome:
    events: list[RunEvent] = []
    with tempfile.TemporaryDirectory() as tmp, OfflineWeb(case.documents) as web:
        settings = load_settings(
            search="searxng",
            searxng_url=web.base_url,
            allow_hosts=[web.base_url.removeprefix("http://")],
            data_dir=Path(tmp) / "data",
            model="none",
            page_cache_ttl_s=0,
            record_runs=False,
        )
        request = EmployerRequest(
            company=case.company, role="Software Engineer", job_description=case.posting
        )
        models = scripted_models(employer_script()) if model == "scripted" else None
        result = await run_recipe(
            get_recipe("employer"), request, settings, models=models, sinks=[events.append]
        )
    if not isinstance(result, EmployerResult):
        raise RuntimeError(f"the employer run for {case.company} gave no result")
    attempts = [
        (event.data.technologies, event.data.requirements)
        for event in events
        if isinstance(event.data, ResearchComplete)
    ]
    profile = result.profile
    final = (
        (len(profile.tech_stack), len(profile.identified_requirements))
        if profile is not None
        else (0, 0)
    )
    return Outcome(attempts, final)


def enough(counts: tuple[int, int]) -> bool:
    """Seed 000's bar: at least two technologies and two requirements."""
    return counts[0] >= MIN_ITEMS and counts[1] >= MIN_ITEMS


def improvement(before: tuple[int, int], after: tuple[int, int]) -> float:
    """How much a retry added: (items after - items before) / max(items before, 1)."""
    was, now = sum(before), sum(after)
    return (now - was) / max(was, 1)


def _add(result: BenchResult, model: str, outcomes: list[Outcome]) -> None:
    searches = [counts for outcome in outcomes for counts in outcome.attempts]
    retried = [o for o in outcomes if len(o.attempts) > 1]
    gains = [improvement(o.attempts[0], o.attempts[1]) for o in retried]
    add = result.add
    add(f"{model}.runs", len(outcomes), "runs")
    add(f"{model}.searches", len(searches), "searches")
    add(f"{model}.{ENOUGH}", mean([enough(c) for c in searches]), "share")
    add(f"{model}.final_{ENOUGH}", mean([enough(o.final) for o in outcomes]), "share")
    add(f"{model}.technologies", mean([c[0] for c in searches]), "per search")
    add(f"{model}.requirements", mean([c[1] for c in searches]), "per search")
    add(f"{model}.first_attempt_{ENOUGH}", mean([enough(o.attempts[0]) for o in outcomes]), "share")
    add(f"{model}.retried", len(retried), "runs")
    add(f"{model}.retry_improvement", mean(gains), "relative")
    add(f"{model}.retries_over_50pct", mean([g > TARGET_IMPROVEMENT for g in gains]), "share")
    add(f"{model}.retries_now_enough", mean([enough(o.attempts[1]) for o in retried]), "share")
