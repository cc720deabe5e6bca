"""Rules are tried only where a word they can start with appears; that must never lose a
match a rule would find on its own."""

from __future__ import annotations

import importlib
import re

import pytest
from bench.injection_data import DATA as CORPUS_DATA
from bench.injection_data import benign_texts, read_jsonl

from deepresearch.injection.dispatch import Dispatcher, first_words

SCAN = importlib.import_module("deepresearch.injection.scan")


@pytest.mark.parametrize(
    ("pattern", "expected"),
    [
        (r"\b(?:tell|inform)\s+the\s+user", {("tell", True), ("inform", True)}),
        (r"\bsummari[sz]e\b", {("summarise", True), ("summarize", True)}),
        (
            r"\b(?:mention|reveal)\w*\s+this",
            {("mention", False), ("reveal", False), ("mention", True), ("reveal", True)},
        ),
        (r"\b(?:please\s+)?say\b", {("please", True), ("say", True)}),
        (r"(?<=\bthe\s)answer\s+is", {("answer", True)}),
        (r"\busers?\b", {("user", True), ("users", True)}),
        (r"\busers?", {("user", False), ("users", False)}),
    ],
)
def test_first_words_are_read_from_the_pattern(
    pattern: str, expected: set[tuple[str, bool]]
) -> None:
    assert first_words(re.compile(pattern, re.I)) == expected


@pytest.mark.parametrize("pattern", [r"<\|\w+\|>", r"(?m)^system:", r"如果你是", r"\w+ you", r"."])
def test_a_start_that_is_not_a_word_runs_everywhere(pattern: str) -> None:
    assert first_words(re.compile(pattern)) is None


def test_only_a_few_rules_run_everywhere() -> None:
    dispatcher = SCAN._DISPATCH
    assert len(dispatcher.everywhere) <= 10  # chat tokens, fences, "### System:" lines
    assert all(
        re.search("[\u3040-\u9fff]", dispatcher.rules[n].pattern.pattern) for n in dispatcher.cjk
    )


def _texts() -> list[str]:
    corpus = [row["text"] for row in read_jsonl(CORPUS_DATA / "payloads.jsonl")]
    contexts = [
        "\n\n".join(row["paragraphs"]) for row in read_jsonl(CORPUS_DATA / "contexts.jsonl")
    ]
    return corpus + contexts + [row["text"] for row in benign_texts()]


def test_dispatch_finds_every_match_each_rule_finds_alone() -> None:
    dispatcher = Dispatcher(SCAN.RULES)
    for text in _texts():
        dispatched = {
            (rule.pattern.pattern, match.start()) for rule, match in dispatcher.matches(text)
        }
        for rule in SCAN.RULES:
            for match in rule.pattern.finditer(text):
                assert (rule.pattern.pattern, match.start()) in dispatched, (
                    rule.pattern.pattern[:60],
                    text,
                )
