"""retrieval: does a whole run find, read and cite the gold pages, and does its report hold
the answer? On HotpotQA (the development set) and on held-out Wikipedia questions.

``end_to_end`` reports the same recalls on its few questions, timed with model latency;
this runs many questions at the standard depth with no simulated latency, twice: with the
scripted model (``research_script()``) and with ``model="none"``, through
``end_to_end.run_one``. Recall of the gold pages (by title) at three points of the funnel:
among the search candidates the run scored (``considered``), among the sources it read
(fetched and extracted), and among the sources its final report cites (the sources of the
evidence the audited report's sentences cite). And, in the same run, the **baseline**: the
raw search top-k for the question itself, with k = the number of sources the run cited
(and k = 3): its gold recall, and whether those k pages' text holds the answer.

Sets: HotpotQA (``--retrieval-questions``, all 100 by default, on ``end_to_end``'s offline
web; figures ``scripted.*`` and ``no_model.*``) and the held-out ``wiki_single`` and ``wiki_two_hop`` questions of
``bench.wiki_questions`` (at most 40 and 30, and at most ``--retrieval-questions``) on an
offline web of every FreshWiki article and Vital summary (10,133 pages).
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from bench.common import BenchResult, Options, mean
from bench.end_to_end import RunStats, answer_in_text, corpus, run_one
from bench.wiki_questions import single_hop, two_hop, wiki_corpus
from deepresearch.testing.corpora import HotpotQuestion, hotpotqa_questions
from deepresearch.testing.web import OfflineWeb

DEPTH = "standard"
WIKI_SINGLE = 40
WIKI_TWO_HOP = 30
BASELINE_FIXED_K = 3

NOTES = (
    "Means over questions. recall_considered / recall_read / recall_cited: gold pages (by "
    "title) among report.considered (every candidate scored), the sources read "
    "(source_fetched events) and the sources the final report cites (report.sources: the "
    "sources of the evidence its sentences cite, after the audit). all_gold_cited: "
    "questions whose every gold page is cited (HotpotQA needs both hops). answer_in_report: "
    "the answer string (case-insensitive, whole words) in the report's sentences and table "
    "cells (yes/no "
    "answers, 9 of HotpotQA's 100, are never quoted). baseline_recall / baseline_answer: "
    "the search engine's top-k for the question itself with k = the number of sources that "
    "run cited (0 when it cited none): gold pages among them, and the answer in their text "
    "(whole pages, a weaker bar than the report's sentences); baseline_top3_*: the same "
    "with k = 3. gold_per_source_read / _cited: gold pages per source, a precision. "
    "scripted.*: research_script() replies with no latency (its recall measures the script "
    "as much as the pipeline); no_model.*: model='none'. Standard depth, fresh data folder "
    "per run. hotpotqa: end_to_end's offline web (1,419 pages), the development set. "
    "wiki_single / wiki_two_hop: held-out questions generated without a model "
    "(bench/wiki_questions.py; single: FreshWiki articles outside end_to_end's 25, two_hop: "
    "Vital summaries set aside by a hash of their title), on an offline web of every "
    "FreshWiki article and Vital summary (10,133 pages)."
)


def run(options: Options) -> BenchResult:
    """Every set, scripted and with no model; recall at each step of the funnel, the
    answer in the report, and the raw search baseline."""
    documents = corpus(options.data_dir)
    questions = hotpotqa_questions(options.data_dir)[: options.retrieval_questions]
    wiki = wiki_corpus(options.data_dir)
    cap = options.retrieval_questions
    wiki_sets = {
        "wiki_single": single_hop(options.data_dir, limit=min(WIKI_SINGLE, cap)),
        "wiki_two_hop": two_hop(options.data_dir, wiki, limit=min(WIKI_TWO_HOP, cap)),
    }
    result = BenchResult(
        notes=NOTES,
        params={
            "depth": DEPTH,
            "hotpotqa.questions": len(questions),
            "hotpotqa.documents": len(documents),
            "hotpotqa.mean_gold_paragraphs": round(
                mean([len(q.supporting_titles) for q in questions]), 3
            ),
            "wiki.documents": len(wiki),
            **{f"{name}.questions": len(items) for name, items in wiki_sets.items()},
        },
    )
    with OfflineWeb(documents) as web:
        _measure(result, "", web, questions)
    with OfflineWeb(wiki) as web:
        for name, items in wiki_sets.items():
            _measure(result, name, web, items)
    return result


def _measure(
    result: BenchResult, name: str, web: OfflineWeb, questions: Sequence[HotpotQuestion]
) -> None:
    """Both modes over ``questions``; figures named ``<name>.<mode>.*`` (HotpotQA's, the
    first set, keep their plain ``<mode>.*`` names)."""
    for mode, scripted in (("scripted", True), ("no_model", False)):
        runs = [
            asyncio.run(run_one(web, question, DEPTH, 0.0, 0.0, scripted=scripted))
            for question in questions
        ]
        _add(result, f"{name}.{mode}." if name else f"{mode}.", web, questions, runs)


def _add(
    result: BenchResult,
    prefix: str,
    web: OfflineWeb,
    questions: Sequence[HotpotQuestion],
    runs: list[RunStats],
) -> None:
    add = result.add
    gold = [len(question.supporting_titles) for question in questions]
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
    cited_k = [baseline(web, q, r.sources_cited) for q, r in zip(questions, runs, strict=True)]
    fixed_k = [baseline(web, q, BASELINE_FIXED_K) for q in questions]
    add(prefix + "baseline_recall", mean([recall for recall, _ in cited_k]), "fraction")
    add(prefix + "baseline_answer", mean([float(found) for _, found in cited_k]), "fraction")
    add(prefix + "baseline_top3_recall", mean([recall for recall, _ in fixed_k]), "fraction")
    add(prefix + "baseline_top3_answer", mean([float(found) for _, found in fixed_k]), "fraction")
    read = sum(r.sources_fetched for r in runs)
    cited = sum(r.sources_cited for r in runs)
    found_read = sum(r.gold_title_recall_fetched * n for r, n in zip(runs, gold, strict=True))
    found_cited = sum(r.gold_title_recall * n for r, n in zip(runs, gold, strict=True))
    add(prefix + "sources_read", read / len(runs) if runs else 0.0, "sources", digits=2)
    add(prefix + "sources_cited", cited / len(runs) if runs else 0.0, "sources", digits=2)
    add(prefix + "gold_per_source_read", found_read / read if read else 0.0, "gold/source")
    add(prefix + "gold_per_source_cited", found_cited / cited if cited else 0.0, "gold/source")


def baseline(web: OfflineWeb, question: HotpotQuestion, k: int) -> tuple[float, bool]:
    """The search engine's top ``k`` for the question itself: the share of gold pages among
    them, and whether their text holds the answer."""
    if k <= 0:
        return 0.0, False
    pages = [hit.document for hit in web.index.search(question.question, per_page=k).results]
    gold = set(question.supporting_titles)
    recall = len(gold & {page.title for page in pages}) / len(gold) if gold else 0.0
    return recall, any(answer_in_text(question.answer, page.text) for page in pages)
