"""retrieval: does a whole run find, read and cite HotpotQA's gold supporting paragraphs?

``end_to_end`` reports the same recalls on its few questions, timed with model latency;
this runs many questions (``--retrieval-questions``, all 100 by default) at the standard
depth with no simulated latency, twice: with the scripted model (``research_script()``)
and with ``model="none"``. Same offline web and harness as ``end_to_end``
(``end_to_end.run_one``). Recall of the gold paragraphs (by title) at three points of the
funnel: among the search candidates the run scored (``considered``), among the sources it
read (fetched and extracted), and among the sources its final report cites (the sources of
the evidence the audited report's sentences cite).
"""

from __future__ import annotations

import asyncio

from bench.common import BenchResult, Options, mean
from bench.end_to_end import RunStats, corpus, run_one
from deepresearch.testing.corpora import hotpotqa_questions
from deepresearch.testing.web import OfflineWeb

DEPTH = "standard"

NOTES = (
    "Means over questions. recall_considered / recall_read / recall_cited: gold supporting "
    "paragraphs (by title) among report.considered (every candidate scored), the sources "
    "read (source_fetched events) and the sources the final report cites (report.sources: "
    "the sources of the evidence its sentences cite, after the audit). all_gold_cited: "
    "questions whose every gold paragraph is cited (HotpotQA needs both hops). "
    "gold_per_source_read / gold_per_source_cited: gold paragraphs found per source, a "
    "precision. scripted.*: research_script() replies with no latency (its recall measures "
    "the script as much as the pipeline); no_model.*: model='none'. Standard depth, fresh "
    "data folder per run, same offline web as end_to_end (1,419 pages)."
)


def run(options: Options) -> BenchResult:
    """Every question, scripted and with no model; recall at each step of the funnel."""
    documents = corpus(options.data_dir)
    questions = hotpotqa_questions(options.data_dir)[: options.retrieval_questions]
    gold = {question.id: len(question.supporting_titles) for question in questions}
    result = BenchResult(
        notes=NOTES,
        params={
            "questions": len(questions),
            "depth": DEPTH,
            "documents": len(documents),
            "mean_gold_paragraphs": round(mean(list(gold.values())), 3),
        },
    )
    with OfflineWeb(documents) as web:
        for mode, scripted in (("scripted", True), ("no_model", False)):
            runs = [
                asyncio.run(run_one(web, question, DEPTH, 0.0, 0.0, scripted=scripted))
                for question in questions
            ]
            counts = [gold[question.id] for question in questions]
            _add(result, mode, runs, counts)
    return result


def _add(result: BenchResult, mode: str, runs: list[RunStats], gold: list[int]) -> None:
    prefix = f"{mode}."
    add = result.add
    add(
        prefix + "recall_considered",
        mean([r.gold_title_recall_considered for r in runs]),
        "fraction",
    )
    add(prefix + "recall_read", mean([r.gold_title_recall_fetched for r in runs]), "fraction")
    add(prefix + "recall_cited", mean([r.gold_title_recall for r in runs]), "fraction")
    add(
        prefix + "all_gold_cited",
        mean([float(r.gold_title_recall >= 1.0) for r in runs]),
        "fraction",
    )
    add(prefix + "answer_in_report", mean([float(r.answer_in_report) for r in runs]), "fraction")
    read = sum(r.sources_fetched for r in runs)
    cited = sum(r.sources_cited for r in runs)
    found_read = sum(r.gold_title_recall_fetched * n for r, n in zip(runs, gold, strict=True))
    found_cited = sum(r.gold_title_recall * n for r, n in zip(runs, gold, strict=True))
    add(prefix + "sources_read", read / len(runs) if runs else 0.0, "sources", digits=2)
    add(prefix + "sources_cited", cited / len(runs) if runs else 0.0, "sources", digits=2)
    add(prefix + "gold_per_source_read", found_read / read if read else 0.0, "gold/source")
    add(prefix + "gold_per_source_cited", found_cited / cited if cited else 0.0, "gold/source")
