"""The benchmark harness runs end to end with tiny parameters and writes its JSON.

Benchmarks never run in ``make test``; this only checks that ``python -m bench.run``
works: every benchmark runs, the JSON has the documented shape, the figures are positive.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from bench.common import DEFAULT_DATA_DIR
from bench.critical_path import CallInterval, critical_path
from bench.run import BENCHMARKS, main
from bench.wide_questions import mention_index

from deepresearch.testing.corpus import CorpusDocument

TINY = [
    "--questions", "1",
    "--latency-s", "0",
    "--per-token-s", "0",
    "--depths", "quick",
    "--quotes", "6",
    "--pages", "2",
    "--no-warmup",
    "--ranking-questions", "2",
    "--concurrency", "1,2",
    "--scaling-sizes", "1x1,2x2",
    "--scaling-questions", "1",
    "--retrieval-questions", "1",
    "--service-quick",
    "--injection-docs", "40",
    "--startup-runs", "1",
    "--wide-topics", "1",
    "--wide-events", "0",
    "--worker-processes", "1,2",
    "--worker-jobs", "2",
    "--employer-companies", "1",
]  # fmt: skip
POSITIVE = {
    "end_to_end": [
        "quick.wall_s",
        "quick.model_calls",
        "quick.sources_fetched",
        "quick.input_tokens",
        "quick.output_tokens",
        "quick.no_model.wall_s",
        "quick.eval.citation_precision",
        "quick.eval.judge_overall",
    ],
    "quote_verification": ["verify_quote_per_s", "naive_per_s", "speed_ratio", "agreement"],
    "extraction": ["pages_per_s", "mb_per_s", "mean_f1"],
    "ranking": ["candidates_per_question"],
    "fetch_extract": [
        "c1.pages_per_s",
        "c1.p50_ms",
        "c1.peak_rss_mb",
        "c1.mean_f1",
        "c2.pages_per_s",
        "c2.mean_f1",
        "trafilatura.pages_per_s",
        "trafilatura.mean_f1",
    ],
    "scaling": [
        "1x1.wall_s",
        "1x1.sub_questions",
        "1x1.input_tokens",
        "1x1.peak_rss_mb",
        "2x2.wall_s",
        "2x2.sub_questions",
        "2x2.sources_fetched",
        "2x2.wall_s_vs_first",
        "2x2.traced_peak_mb",
    ],
    "retrieval": [
        "scripted.recall_considered",
        "scripted.sources_read",
        "no_model.sources_read",
        "no_model.baseline_recall",
        "no_model.baseline_top3_answer",
        "wiki_single.no_model.recall_cited",
        "wiki_two_hop.scripted.answer_in_report",
    ],
    "injection": ["recall.min", "test.recall.min", "precision", "real.scan_mb_per_s"],
    "service_load": [
        "c1.jobs_per_min",
        "c1.status_p50_ms",
        "sse.events_per_s",
        "sse.clients_exact",
    ],
    "upload_cap": ["declared.refused_413", "chunked.refused_413", "declared.rss_before_mb"],
    "replay": ["run_wall_s", "replay_wall_s", "identical", "recording_kb"],
    "wide": [
        "topics.scripted.sources_read",
        "topics.scripted.input_tokens",
        "topics.scripted.input_tokens_per_source",
        "topics.planned.sources_read",
        "topics.planned.model_calls",
        "topics.no_model.sources_read",
        "topics.no_model.wall_s",
        "topics.no_floor.sources_read",
    ],
    "startup": [
        "import_wall_s",
        "help_wall_s",
        "help_cpu_s",
        "version_wall_s",
        "first_event_wall_s",
        "first_event_cpu_s",
        "run_total_wall_s",
    ],
    "budget": [
        "unbudgeted.tokens_mean",
        "unbudgeted.cost_mean",
        "tokens_50.spend_ratio_max",
        "cost_50.spend_ratio_max",
        "time_50.wall_ratio_max",
    ],
    "workers": ["w1.jobs_per_min", "w1.speedup", "w2.jobs_per_min", "w2.run_s"],
    # the posting case always runs: a real posting yields technologies and requirements
    "employer_metrics": ["none.runs", "none.searches", "none.final_extraction_rate"],
    "sections": [
        "careful.critical_path_calls",
        "careful.input_tokens",
        "careful.sections_planned",
        "careful.pass_after",
        "faulty.pass_after",
        "unrepaired.fallback",
        "careful.eval_citation_precision",
        "careful.eval_coverage",
    ],
    "charts": ["import_s"],
    "figures": [
        "reencode_photo_ms",
        "photo_out_kb",
        "render_html_ms.with",
        "html_kb.with",
        "pdf_kb.with",
        "docx_kb.with",
    ],
}


@pytest.fixture(scope="module")
def tiny_run(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """Every benchmark once, with tiny parameters: the JSON it wrote."""
    if not DEFAULT_DATA_DIR.is_dir():
        pytest.skip(f"shared data folder not found at {DEFAULT_DATA_DIR}")
    out = tmp_path_factory.mktemp("bench") / "results" / "latest.json"
    assert main([*TINY, "--out", str(out)]) == 0
    payload: dict[str, Any] = json.loads(out.read_text())
    return payload


def test_harness_writes_every_benchmark(tiny_run: dict[str, Any]) -> None:
    payload = tiny_run
    assert set(payload) == {"machine", "date", "git_revision", "benchmarks"}
    machine = payload["machine"]
    assert {"cpu_count", "cpu_model", "memory_gb", "python", "platform"} <= set(machine)
    assert machine["cpu_count"] >= 1
    assert payload["git_revision"]
    assert set(payload["benchmarks"]) == set(BENCHMARKS)
    for name, bench in payload["benchmarks"].items():
        assert set(bench) == {"figures", "params", "notes"}
        assert bench["notes"]
        assert bench["params"]["harness_s"] >= 0
        for figure in bench["figures"].values():
            assert set(figure) == {"value", "unit"} and figure["unit"]
            assert isinstance(figure["value"], int | float)
        for key in POSITIVE[name]:
            assert bench["figures"][key]["value"] > 0, f"{name}.{key} is not positive"


def test_fetch_extract_measures_every_level_and_the_baseline(tiny_run: dict[str, Any]) -> None:
    bench = tiny_run["benchmarks"]["fetch_extract"]
    assert bench["params"]["pages"] == 2 and bench["params"]["concurrency"] == [1, 2]
    figures = bench["figures"]
    for level in ("c1", "c2"):
        assert figures[f"{level}.failed"]["value"] == 0
        assert figures[f"{level}.pages_per_s"]["unit"] == "pages/s"
        assert figures[f"{level}.peak_rss_mb"]["unit"] == "MiB"
        assert 0 < figures[f"{level}.mean_f1"]["value"] <= 1
    assert 0 < figures["trafilatura.mean_f1"]["value"] <= 1


def test_scaling_widens_the_plan_to_each_size(tiny_run: dict[str, Any]) -> None:
    bench = tiny_run["benchmarks"]["scaling"]
    assert bench["params"]["sizes"] == ["1x1", "2x2"]
    figures = bench["figures"]
    assert figures["1x1.sub_questions"]["value"] == 1
    assert figures["2x2.sub_questions"]["value"] == 2  # the widened planner reply
    assert figures["1x1.wall_s_vs_first"]["value"] == 1
    assert figures["2x2.input_tokens"]["unit"] == "tokens (est.)"


def test_retrieval_reports_recall_at_each_step(tiny_run: dict[str, Any]) -> None:
    figures = tiny_run["benchmarks"]["retrieval"]["figures"]
    for mode in ("scripted", "no_model"):
        recalls = [
            figures[f"{mode}.recall_{step}"]["value"] for step in ("considered", "read", "cited")
        ]
        assert all(0 <= value <= 1 for value in recalls)
        assert recalls[0] >= recalls[1] >= recalls[2]  # each step keeps a subset of the last
        baseline = figures[f"{mode}.baseline_recall"]["value"]
        assert 0 <= baseline <= 1
    params = tiny_run["benchmarks"]["retrieval"]["params"]
    assert params["wiki_single.questions"] == 1 and params["wiki_two_hop.questions"] == 1
    assert "gold_title_recall_considered" in " ".join(
        tiny_run["benchmarks"]["end_to_end"]["figures"]
    )


def test_wide_runs_deep_in_every_mode(tiny_run: dict[str, Any]) -> None:
    bench = tiny_run["benchmarks"]["wide"]
    params, figures = bench["params"], bench["figures"]
    assert params["depth"] == "deep" and params["documents"] == 10_133
    assert params["topics.questions"] == 1 and params["events.questions"] == 0
    assert figures["topics.planned.sub_questions"]["value"] == 8  # deep's allowance
    assert figures["topics.scripted.sub_questions"]["value"] <= 2
    assert figures["topics.no_model.input_tokens"]["value"] == 0
    assert params["min_sources_read"] == 20
    for mode in ("scripted", "planned", "no_model", "no_floor"):
        assert 0 <= figures[f"topics.{mode}.relevant_read_share"]["value"] <= 1
        assert figures[f"topics.{mode}.aim_met"]["value"] in (0, 1)
    # the floor is what widens the no-model run: without it the gate stops it after wave 1
    assert figures["topics.no_model.sources_read"]["value"] >= 20
    assert (
        figures["topics.no_floor.sources_read"]["value"]
        < figures["topics.no_model.sources_read"]["value"]
    )


def test_wide_pages_bear_on_a_topic_by_its_whole_name() -> None:
    def page(title: str, text: str) -> CorpusDocument:
        return CorpusDocument(id=title.lower().replace(" ", "-"), title=title, text=text)

    documents = [
        page("Roman Empire", "The Roman Empire ruled the Mediterranean for centuries."),
        page("Empire", "An empire is a large state. Empire is also a name, as in Empire."),
        page("England", "England is a country."),
        page("Augustus", "Augustus was the first emperor of the Roman Empire."),
        page("Revolt", "The Great Empire fell to the Roman Empire."),
        page("Sport", "In England the sport grew."),
        page("Kingdom", "The Kingdom of England was a state."),
        page("Japan", "The Empire of Japan was a state."),
        page("House", "A house is a building; a house can be big. The House sat."),
        page("Home", "The House is where the family lived."),
    ]
    index = mention_index(documents)
    assert index.names["Augustus"] == {"Roman Empire"}  # the longest title, not "Empire"
    assert index.names["Revolt"] == {"Roman Empire"}  # "Great Empire" is another name
    assert index.names["Sport"] == {"England"}  # "In" only opens the sentence
    assert index.names["Japan"] == set()  # "Empire of Japan" is another name
    assert index.names["Kingdom"] == {"England"}  # but it names England
    assert index.names["Home"] == set()  # "house" is mostly a common word: no name
    assert index.relevant("Roman Empire") == {"Roman Empire", "Augustus", "Revolt"}
    assert index.relevant("England") == {"England", "Sport", "Kingdom"}


def test_bad_sizes_and_levels_are_usage_errors(tmp_path: Path) -> None:
    for flags in (["--scaling-sizes", "9x2"], ["--scaling-sizes", "2"], ["--concurrency", "0"]):
        with pytest.raises(SystemExit) as exit_info:
            main([*flags, "--out", str(tmp_path / "x.json")])
        assert exit_info.value.code == 2


def test_only_runs_the_named_benchmark(tmp_path: Path) -> None:
    if not DEFAULT_DATA_DIR.is_dir():
        pytest.skip(f"shared data folder not found at {DEFAULT_DATA_DIR}")
    out = tmp_path / "extraction.json"
    assert main(["--only", "extraction", "--pages", "1", "--out", str(out)]) == 0
    assert set(json.loads(out.read_text())["benchmarks"]) == {"extraction"}


def test_missing_data_is_an_error_not_a_crash(tmp_path: Path) -> None:
    out = tmp_path / "none.json"
    code = main(["--only", "extraction", "--data", str(tmp_path / "absent"), "--out", str(out)])
    assert code == 2
    assert not out.exists()


def test_critical_path_is_the_heaviest_sequential_chain() -> None:
    # a ─ b (parallel with c, d) ─ e; c and d overlap each other
    calls = [
        CallInterval(0.0, 1.0, 1.0, "a"),
        CallInterval(1.0, 2.0, 1.0, "b"),
        CallInterval(1.0, 4.0, 3.0, "c"),
        CallInterval(2.5, 3.5, 1.0, "d"),
        CallInterval(4.0, 5.0, 1.0, "e"),
    ]
    path = critical_path(calls)
    assert path.stages == ["a", "c", "e"]
    assert path.ideal_s == 5.0
    assert critical_path([]).calls == ()


def test_replay_reproduces_every_run_without_calls(tiny_run: dict[str, Any]) -> None:
    figures = tiny_run["benchmarks"]["replay"]["figures"]
    assert figures["identical"]["value"] == 1.0
    assert figures["replay_model_calls"]["value"] == 0
    assert figures["replay_requests"]["value"] == 0
    # the run under a token budget that refused calls replays byte for byte too
    assert figures["budgeted_refusals"]["value"] > 0
    assert figures["budgeted_identical"]["value"] == 1.0


def test_budgeted_runs_never_pass_their_budget(tiny_run: dict[str, Any]) -> None:
    figures = tiny_run["benchmarks"]["budget"]["figures"]
    for name in ("tokens_25", "tokens_50", "tokens_75", "cost_25", "cost_50", "cost_75"):
        assert figures[f"{name}.over_budget"]["value"] == 0, name
        assert figures[f"{name}.spend_ratio_max"]["value"] <= 1, name
