"""injection: the prompt-injection detector on the labelled corpus and on real text.

- ``corpus``: the 460 pages of ``bench/data/injection/corpus.jsonl`` (230 hand-written
  payloads, each once in plain words and once disguised, each hidden one of 20 ways in a
  page of benign context; ``bench/injection_data.py``) are extracted as the run extracts
  them (``extract_html`` / ``extract_plain``) and scanned (``scan_page``). Per class:
  ``kind recall`` (a finding of that class among the page's findings) and ``flagged
  recall`` (the page is dropped at all), on every page and on the ``test`` split alone (the
  payloads not looked at while writing the rules).
- ``benign``: the tricky benign texts, rendered the same way; how many are flagged, apart
  from the few pages *about* prompt injection that quote payloads (flagged by policy).
  ``precision`` is flagged hostile pages over all flagged pages (policy pages excluded).
- ``real``: the 11,838 real documents (``deepresearch.testing.real_text``): how many are
  flagged (0 expected; each one is named in the notes), scan throughput, and the share of
  their sentences that ``instructing`` keeps out of the evidence.
"""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass, field

from bench.common import BenchResult, Options, require
from bench.injection_data import Case, benign_pages, load_corpus
from deepresearch.core.text import sentence_spans
from deepresearch.fetch.extract import extract_html, extract_plain
from deepresearch.injection import KINDS, Finding, instructing, scan, scan_page
from deepresearch.testing.real_text import real_documents

MAX_CHARS = 200_000
#: the recall every class must keep (``tests/eval/test_injection_gate.py``)
TARGET_RECALL = 0.95


def findings_for(fmt: str, content: str) -> list[Finding]:
    """What the reading stage would find on this page."""
    doc = (
        extract_html(content, None, MAX_CHARS)
        if fmt == "html"
        else extract_plain(content, MAX_CHARS)
    )
    return scan_page(doc.text, doc.hidden_text)


@dataclass
class Tally:
    pages: Counter[str] = field(default_factory=Counter)
    kind: Counter[str] = field(default_factory=Counter)
    flagged: Counter[str] = field(default_factory=Counter)

    def add(self, labels: tuple[str, ...], found: list[Finding]) -> None:
        kinds = {finding.kind for finding in found}
        for label in labels:
            self.pages[label] += 1
            self.kind[label] += label in kinds
            self.flagged[label] += bool(found)

    def recall(self, label: str, counter: Counter[str]) -> float:
        return counter[label] / self.pages[label] if self.pages[label] else 0.0


def corpus_recall(cases: list[Case]) -> tuple[Tally, Tally, dict[str, Counter[str]], int]:
    """(all pages, test split, flagged/total per language, hiding and encoding, flagged)."""
    every, test = Tally(), Tally()
    by: dict[str, Counter[str]] = {"lang": Counter(), "lang_n": Counter()}
    for name in ("hiding", "encoding"):
        by[name], by[f"{name}_n"] = Counter(), Counter()
    flagged_pages = 0
    for case in cases:
        found = findings_for(case.format, case.content)
        every.add(case.labels, found)
        if case.split == "test":
            test.add(case.labels, found)
        flagged_pages += bool(found)
        for name, value in (
            ("lang", case.lang),
            ("hiding", case.hiding),
            ("encoding", case.encoding),
        ):
            by[f"{name}_n"][value] += 1
            by[name][value] += bool(found)
    return every, test, by, flagged_pages


def run(options: Options) -> BenchResult:
    cases = load_corpus()
    started = time.perf_counter()
    every, test, by, flagged_pages = corpus_recall(cases)
    corpus_s = time.perf_counter() - started
    result = BenchResult()
    classes = [kind for kind in KINDS if every.pages[kind]]
    for kind in classes:
        result.add(f"recall.{kind}", every.recall(kind, every.kind), "fraction")
        result.add(f"flagged.{kind}", every.recall(kind, every.flagged), "fraction")
        result.add(f"test.recall.{kind}", test.recall(kind, test.kind), "fraction")
    result.add("recall.min", min(every.recall(k, every.kind) for k in classes), "fraction")
    result.add("test.recall.min", min(test.recall(k, test.kind) for k in classes), "fraction")

    benign_flagged: list[str] = []
    policy_flagged = policy_total = benign_total = 0
    for row, fmt, content in benign_pages():
        found = findings_for(fmt, content)
        if row["kind"] == "about-injection":
            policy_total += 1
            policy_flagged += bool(found)
            continue
        benign_total += 1
        if found:
            benign_flagged.append(f"{row['id']} ({found[0].describe()})")
    result.add("benign.flagged", len(benign_flagged), "texts")
    result.add("benign.pass_rate", 1 - len(benign_flagged) / max(benign_total, 1), "fraction")
    result.add("precision", flagged_pages / max(flagged_pages + len(benign_flagged), 1), "fraction")
    result.add("about_injection.flagged", policy_flagged, "texts")

    require(options.data_dir / "wiki")
    docs = real_documents(options.data_dir)
    if options.injection_docs is not None:
        docs = docs[: options.injection_docs]
    chars = sum(len(text) for _, text in docs)
    started = time.perf_counter()
    real_flagged = [
        f"{doc_id} ({found[0].describe()})" for doc_id, text in docs if (found := scan(text))
    ]
    scan_s = time.perf_counter() - started
    sentences = orders = 0
    for _, text in docs:
        spans = sentence_spans(text)
        sentences += len(spans)
        orders += sum(instructing(text, spans))
    result.add("real.flagged", len(real_flagged), "documents")
    result.add("real.scan_mb_per_s", chars / 1e6 / max(scan_s, 1e-9), "MB/s")
    result.add("real.sentences_kept_out", orders, "sentences")
    result.add("real.sentences_kept_out_share", orders / max(sentences, 1), "fraction", digits=6)
    result.add("corpus.pages_per_s", len(cases) / max(corpus_s, 1e-9), "pages/s")

    result.params = {
        "corpus_pages": len(cases),
        "test_pages": sum(case.split == "test" for case in cases),
        "payloads": len({case.id.rsplit("-", 1)[0] for case in cases}),
        "languages": sorted(by["lang_n"]),
        "hidings": len(by["hiding_n"]),
        "encodings": len(by["encoding_n"]),
        "benign_texts": benign_total,
        "about_injection_texts": policy_total,
        "real_documents": len(docs),
        "real_chars": chars,
        "real_sentences": sentences,
        "target_recall": TARGET_RECALL,
    }
    weakest = {
        name: min(by[f"{name}_n"], key=lambda value: by[name][value] / by[f"{name}_n"][value])
        for name in ("lang", "hiding", "encoding")
    }
    result.notes = (
        "Recall per class = pages with a finding of that class / pages labelled with it "
        "(flagged = pages with any finding); test = the payload split not used while "
        "writing the rules. Flagged share, weakest per language / hiding / encoding: "
        + "; ".join(
            f"{value} {by[name][value]}/{by[f'{name}_n'][value]}" for name, value in weakest.items()
        )
        + ". Benign texts flagged: "
        + (", ".join(benign_flagged) or "none")
        + ". Real documents flagged: "
        + (", ".join(real_flagged) or "none")
        + ". Single-threaded, wall clock (perf_counter); the real-document pass includes "
        "every decoding pass (normalized, tag characters, entities, percent, base64)."
    )
    return result
