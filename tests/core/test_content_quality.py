"""Seed 001's content-quality tier of a read page: HIGH, MEDIUM, LOW or INSUFFICIENT from
its length, its structure and what the extraction left (``core.content_quality``)."""

from __future__ import annotations

import gzip
import json
from collections import Counter
from pathlib import Path

import pytest

from deepresearch.core.content_quality import assess_content, at_least
from deepresearch.fetch.extract import extract_html
from deepresearch.models.source import CONTENT_QUALITIES

PROSE = (
    "The river rises in the Alps and flows west for almost eight hundred kilometres. "
    "Its valley has been farmed since Roman times, and several towns grew up at its fords. "
    "Engineers built locks along its lower course in the nineteenth century. "
)


def test_a_snippet_or_a_stub_is_insufficient() -> None:
    assert assess_content(PROSE * 20, fetched=False).tier == "INSUFFICIENT"
    assert assess_content("Home | About | Contact | Login").tier == "INSUFFICIENT"
    assert assess_content("").tier == "INSUFFICIENT"


def test_a_definition_is_low_not_insufficient() -> None:
    # one sentence can answer a question and be quoted
    result = assess_content("Cinematography is the art of motion picture photography and film.")
    assert result.tier == "LOW"


def test_words_without_sentences_are_low() -> None:
    menu = "\n".join(f"Product {i} in the catalogue of spring items" for i in range(60))
    result = assess_content(menu)
    assert result.words >= 150 and result.prose_share < 0.34
    assert result.tier == "LOW"


def test_what_a_broken_extraction_leaves_is_low() -> None:
    markup = " ".join(f'<div class="c{i}">{{x:{i}}}</div> ;;' for i in range(200)) + " " + PROSE
    assert assess_content(markup).tier == "LOW"


def test_an_article_in_paragraphs_is_high_and_a_short_one_medium() -> None:
    article = "\n\n".join(PROSE * 3 for _ in range(6))
    assert assess_content(article).tier == "HIGH"
    short = "\n\n".join([PROSE * 2, PROSE * 2])
    assert assess_content(short).tier == "MEDIUM"
    assert "words" in assess_content(short).reason


def test_japanese_without_spaces_is_measured_in_words_and_sentences() -> None:
    sentence = (
        "先日、不正に改造した端末を販売したとして男性が逮捕されたというニュースを耳にしました。"
    )
    result = assess_content("\n\n".join([sentence * 4] * 4))
    assert result.sentences >= 16 and result.words > 150
    assert result.tier in ("MEDIUM", "HIGH")


def test_at_least_orders_the_tiers_and_lets_an_unknown_tier_through() -> None:
    assert CONTENT_QUALITIES == ("HIGH", "MEDIUM", "LOW", "INSUFFICIENT")
    assert at_least("HIGH", "LOW") and at_least("LOW", "LOW")
    assert not at_least("INSUFFICIENT", "LOW")
    assert at_least(None, "HIGH")  # a source read before tiers were kept


def test_the_extracted_page_gets_the_tier_of_its_hand_made_article_text(
    shared_data: Path,
) -> None:
    """ScrapingHub's 181 real pages through the real extractor: the tier of what it kept
    agrees with the tier of the gold article text (the extraction loses little)."""
    folder = shared_data / "extraction" / "scrapinghub"
    if not (folder / "ground-truth.json").is_file():
        pytest.skip(f"ScrapingHub benchmark not found at {folder}")
    truth: dict[str, dict[str, str]] = json.loads((folder / "ground-truth.json").read_text())
    pairs: Counter[tuple[str, str]] = Counter()
    for page_id, gold in truth.items():
        html = gzip.decompress((folder / "html" / f"{page_id}.html.gz").read_bytes())
        doc = extract_html(html.decode("utf-8", "replace"), gold["url"], 1_000_000)
        pairs[(assess_content(gold["articleBody"]).tier, assess_content(doc.text).tier)] += 1
    same = sum(count for (gold, got), count in pairs.items() if gold == got)
    assert same / sum(pairs.values()) >= 0.9, pairs
    assert not any(got == "INSUFFICIENT" for _, got in pairs), pairs  # every page has a body
    assert {gold for gold, _ in pairs} >= {"HIGH", "MEDIUM", "LOW"}  # the tiers tell apart
