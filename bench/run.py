"""Run the benchmarks, print a table, write the results JSON.

    python -m bench.run [--only NAME] [--latency-s 0.5] [--per-token-s 0.01]
                        [--questions N] [--depths quick,standard] [--quotes N]
                        [--pages N] [--concurrency 1,4,16] [--scaling-sizes 2x3,4x5,8x8]
                        [--scaling-questions N] [--retrieval-questions N]
                        [--service-levels 1,3,6,10,20,40] [--sse-clients N] [--service-quick]
                        [--injection-docs N] [--employer-companies N]
                        [--startup-runs N] [--wide-topics N] [--wide-events N]
                        [--worker-processes 1,2,4] [--worker-jobs N]
                        [--out bench/results/latest.json]

The JSON holds the machine, the date, the git revision and, per benchmark, every figure
with its unit, the parameters and notes. With ``--only`` it holds only what ran.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from rich.console import Console
from rich.table import Table

from bench import (
    budget,
    charts,
    employer_metrics,
    end_to_end,
    extraction,
    fetch_extract,
    figures,
    injection,
    quote_verification,
    ranking,
    replay,
    retrieval,
    scaling,
    sections,
    service_load,
    startup,
    upload_cap,
    wide,
    workers,
)
from bench.common import DEFAULT_DATA_DIR, BenchResult, DataMissing, Options
from bench.machine import ROOT, describe, git_revision, now

BENCHMARKS: dict[str, Callable[[Options], BenchResult]] = {
    "end_to_end": end_to_end.run,
    "quote_verification": quote_verification.run,
    "extraction": extraction.run,
    "ranking": ranking.run,
    "fetch_extract": fetch_extract.run,
    "scaling": scaling.run,
    "retrieval": retrieval.run,
    "service_load": service_load.run,
    "upload_cap": upload_cap.run,
    "injection": injection.run,
    "startup": startup.run,
    "replay": replay.run,
    "wide": wide.run,
    "budget": budget.run,
    "workers": workers.run,
    "sections": sections.run,
    "employer_metrics": employer_metrics.run,
    "figures": figures.run,
    "charts": charts.run,
}
DEFAULT_OUT = ROOT / "bench" / "results" / "latest.json"
DEPTH_CHOICES = ("quick", "standard", "deep")


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m bench.run", description="Run deepresearch's benchmarks."
    )
    parser.add_argument(
        "--only",
        action="append",
        choices=sorted(BENCHMARKS),
        metavar="NAME",
        help=f"run only this benchmark (repeatable): {', '.join(BENCHMARKS)}",
    )
    parser.add_argument("--latency-s", type=float, default=0.5, help="scripted delay per call")
    parser.add_argument(
        "--per-token-s", type=float, default=0.01, help="scripted delay per output token"
    )
    parser.add_argument("--questions", type=int, default=5, help="HotpotQA questions per depth")
    parser.add_argument(
        "--ranking-questions", type=int, default=100, help="HotpotQA questions for ranking"
    )
    parser.add_argument(
        "--depths", default="quick,standard", help="comma-separated: quick, standard, deep"
    )
    parser.add_argument("--quotes", type=int, default=300, help="quote_verification cases")
    parser.add_argument(
        "--pages", type=int, default=None, help="extraction and fetch_extract pages (default all)"
    )
    parser.add_argument(
        "--concurrency", default="1,4,16", help="fetch_extract: comma-separated pages in flight"
    )
    parser.add_argument(
        "--scaling-sizes",
        default="2x3,4x5,8x8",
        help="scaling: comma-separated SUBQUESTIONSxSOURCES (max_sub_questions 1-8)",
    )
    parser.add_argument("--scaling-questions", type=int, default=3, help="questions per size")
    parser.add_argument(
        "--retrieval-questions", type=int, default=100, help="HotpotQA questions for retrieval"
    )
    parser.add_argument(
        "--service-levels",
        default="1,3,6,10,20,40",
        help="service_load: comma-separated max_concurrent_jobs levels (1-50)",
    )
    parser.add_argument(
        "--sse-clients", type=int, default=100, help="service_load: concurrent SSE clients"
    )
    parser.add_argument(
        "--service-quick",
        action="store_true",
        help="service_load: a tiny run (2 jobs, 3 SSE clients) to check it works",
    )
    parser.add_argument(
        "--injection-docs", type=int, default=None, help="injection: real documents (default all)"
    )
    parser.add_argument(
        "--employer-companies",
        type=int,
        default=None,
        help="employer_metrics: companies (default all 17)",
    )
    parser.add_argument(
        "--startup-runs", type=int, default=10, help="startup: timed processes per case"
    )
    parser.add_argument(
        "--wide-topics", type=int, default=12, help="wide: broad questions on Vital topics"
    )
    parser.add_argument(
        "--wide-events", type=int, default=5, help="wide: broad questions on FreshWiki articles"
    )
    parser.add_argument(
        "--worker-processes",
        default="1,2,4",
        help="workers: comma-separated worker processes per level (1-8)",
    )
    parser.add_argument("--worker-jobs", type=int, default=24, help="workers: jobs per level")
    parser.add_argument("--no-warmup", action="store_true", help="skip the untimed first run")
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA_DIR, help="shared data folder")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="results JSON to write")
    args = parser.parse_args(argv)
    depths = [part.strip() for part in args.depths.split(",") if part.strip()]
    unknown = [depth for depth in depths if depth not in DEPTH_CHOICES]
    if unknown or not depths:
        parser.error(f"--depths: choose from {', '.join(DEPTH_CHOICES)}")
    if args.questions < 1 or args.quotes < 3 or (args.pages is not None and args.pages < 1):
        parser.error("--questions and --pages must be >= 1, --quotes >= 3")
    if args.latency_s < 0 or args.per_token_s < 0:
        parser.error("--latency-s and --per-token-s must be >= 0")
    args.depths = tuple(depths)
    try:
        args.concurrency = tuple(int(part) for part in args.concurrency.split(",") if part.strip())
        args.scaling_sizes = tuple(_size(part) for part in args.scaling_sizes.split(",") if part)
    except ValueError:
        parser.error("--concurrency: integers; --scaling-sizes: NxM with N 1-8, M 1-20")
    if not args.concurrency or min(args.concurrency) < 1 or not args.scaling_sizes:
        parser.error("--concurrency and --scaling-sizes need at least one value, each >= 1")
    if args.scaling_questions < 1 or args.retrieval_questions < 1:
        parser.error("--scaling-questions and --retrieval-questions must be >= 1")
    try:
        args.service_levels = tuple(int(p) for p in args.service_levels.split(",") if p.strip())
    except ValueError:
        parser.error("--service-levels: comma-separated integers")
    if not args.service_levels or not all(1 <= n <= 50 for n in args.service_levels):
        parser.error("--service-levels: at least one level, each 1-50")
    if args.sse_clients < 1:
        parser.error("--sse-clients must be >= 1")
    if args.startup_runs < 1:
        parser.error("--startup-runs must be >= 1")
    if args.wide_topics < 0 or args.wide_events < 0 or args.wide_topics + args.wide_events < 1:
        parser.error("--wide-topics and --wide-events must be >= 0, together >= 1")
    try:
        args.worker_processes = tuple(int(p) for p in args.worker_processes.split(",") if p.strip())
    except ValueError:
        parser.error("--worker-processes: comma-separated integers")
    if not args.worker_processes or not all(1 <= n <= 8 for n in args.worker_processes):
        parser.error("--worker-processes: at least one level, each 1-8")
    if not 1 <= args.worker_jobs <= 100:
        parser.error("--worker-jobs must be 1-100")
    return args


def _size(text: str) -> tuple[int, int]:
    """``"4x5"`` -> (4, 5); ValueError outside max_sub_questions 1-8, sources 1-20."""
    left, _, right = text.strip().lower().partition("x")
    size = (int(left), int(right))
    if not (1 <= size[0] <= 8 and 1 <= size[1] <= 20):
        raise ValueError(text)
    return size


def run(names: Sequence[str], options: Options, console: Console) -> dict[str, BenchResult]:
    """Run the named benchmarks in order; each result's params get its own runtime."""
    results: dict[str, BenchResult] = {}
    for name in names:
        console.print(f"[bold]{name}[/bold] …", highlight=False)
        started = time.perf_counter()
        result = BENCHMARKS[name](options)
        elapsed = time.perf_counter() - started
        result.params["harness_s"] = round(elapsed, 2)
        console.print(f"  done in {elapsed:.1f} s", highlight=False)
        results[name] = result
    return results


def document(results: dict[str, BenchResult], *, date: str, revision: str) -> dict[str, object]:
    """The results JSON: machine, date, git revision, benchmarks."""
    return {
        "machine": describe(),
        "date": date,
        "git_revision": revision,
        "benchmarks": {name: result.as_json() for name, result in results.items()},
    }


def table(results: dict[str, BenchResult]) -> Table:
    """Every figure, one row each."""
    grid = Table(title="deepresearch benchmarks")
    grid.add_column("benchmark")
    grid.add_column("figure")
    grid.add_column("value", justify="right")
    grid.add_column("unit")
    for name, result in results.items():
        for index, (figure, value) in enumerate(result.figures.items()):
            grid.add_row(name if index == 0 else "", figure, shown(value.value), value.unit)
        grid.add_section()
    return grid


def shown(value: float) -> str:
    """A figure for the table: thousands grouped, at most four significant decimals."""
    if value == int(value):
        return f"{value:,.0f}"
    if abs(value) >= 100:
        return f"{value:,.1f}"
    return f"{value:.4g}"


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    console = Console(stderr=True)
    options = Options(
        data_dir=args.data,
        latency_s=args.latency_s,
        per_token_s=args.per_token_s,
        questions=args.questions,
        ranking_questions=args.ranking_questions,
        depths=args.depths,
        quotes=args.quotes,
        pages=args.pages,
        warmup=not args.no_warmup,
        concurrency=args.concurrency,
        scaling_sizes=args.scaling_sizes,
        scaling_questions=args.scaling_questions,
        retrieval_questions=args.retrieval_questions,
        service_levels=args.service_levels,
        sse_clients=args.sse_clients,
        service_quick=args.service_quick,
        injection_docs=args.injection_docs,
        employer_companies=args.employer_companies,
        startup_runs=args.startup_runs,
        wide_topics=args.wide_topics,
        wide_events=args.wide_events,
        worker_processes=args.worker_processes,
        worker_jobs=args.worker_jobs,
    )
    names = [name for name in BENCHMARKS if not args.only or name in args.only]
    # taken before the run: the code measured is the code imported now
    date, revision = now(), git_revision()
    try:
        results = run(names, options, console)
    except DataMissing as exc:
        console.print(f"error: {exc} (pass --data DIR, or put the data at {DEFAULT_DATA_DIR})")
        return 2
    payload = document(results, date=date, revision=revision)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(payload, indent=2) + "\n", encoding="utf-8")
    out = Console()
    if not out.is_terminal:  # piped or under make: wide enough for the figure names
        out = Console(width=120)
    out.print(table(results))
    console.print(f"wrote {args.out}", highlight=False)
    return 0


if __name__ == "__main__":
    sys.exit(main())
