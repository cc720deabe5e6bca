"""Which figure goes in which section (``core.figures``, issue 26), on hand-made reports."""

from __future__ import annotations

from deepresearch.core.figures import (
    MIN_SCORE,
    FigureChoice,
    figure_score,
    offered,
    placed,
    rank_figures,
    with_picks,
)
from deepresearch.models import (
    Evidence,
    Paragraph,
    Report,
    Section,
    Sentence,
    Source,
    SourceRef,
    SubQuestion,
)
from deepresearch.models.figures import PageFigure

RAIN = PageFigure(
    image_url="https://a.example/rain.png",
    page_url="https://a.example/rain",
    caption="Monthly rain in Paris",
    context="Rain in Paris falls all year",
)
TOWER = PageFigure(
    image_url="https://b.example/tower.jpg",
    page_url="https://b.example/tower",
    caption="The Eiffel Tower at night",
)


def _source(sid: str, url: str, figures: list[PageFigure], **extra: object) -> Source:
    return Source(id=sid, url=url, text="text", figures=figures, **extra)  # type: ignore[arg-type]


def _evidence(eid: str, sq: str, sid: str) -> Evidence:
    return Evidence(
        id=eid,
        sub_question_id=sq,
        claim="c",
        quote="q",
        source_id=sid,
        source_url=sid,
        start=0,
        end=1,
    )


def _report(cited: list[str]) -> Report:
    sections = [
        Section(
            heading="The tower",
            paragraphs=[Paragraph(sentences=[Sentence(text="t", citations=["e2"])])],
        ),
        Section(
            heading="Rain", paragraphs=[Paragraph(sentences=[Sentence(text="r", citations=["e1"])])]
        ),
        Section(heading="Where sources disagree", kind="contradictions"),
    ]
    refs = [
        SourceRef(id=sid, number=n, url=sid, title=sid, domain=sid)
        for n, sid in enumerate(cited, 1)
    ]
    return Report(
        run_id="r",
        question="q",
        title="t",
        kind="extractive",
        sections=sections,
        sources=refs,
        evidence=[_evidence("e1", "sq1", "a"), _evidence("e2", "sq2", "b")],
    )


SUB_QUESTIONS = [
    SubQuestion(id="sq1", text="How much rain falls in Paris each month?"),
    SubQuestion(id="sq2", text="How tall is the Eiffel Tower?"),
]
SOURCES = {
    "a": _source("a", RAIN.page_url, [RAIN]),
    "b": _source("b", TOWER.page_url, [TOWER]),
}


def test_each_figure_goes_to_the_section_it_is_about() -> None:
    chosen = placed(rank_figures(_report(["a", "b"]), SOURCES, SUB_QUESTIONS))
    assert {(c.section, c.figure.image_url) for c in chosen} == {
        (0, TOWER.image_url),
        (1, RAIN.image_url),
    }
    assert all(choice.score >= MIN_SCORE for choice in chosen)


def test_only_figures_of_cited_pages_read_in_full_are_candidates() -> None:
    assert {c.source_id for c in rank_figures(_report(["b"]), SOURCES, SUB_QUESTIONS)} == {"b"}
    snippet = {**SOURCES, "b": _source("b", TOWER.page_url, [TOWER], fetched=False)}
    assert {c.source_id for c in rank_figures(_report(["a", "b"]), snippet, SUB_QUESTIONS)} == {"a"}


def test_a_caption_that_says_nothing_of_the_section_is_not_placed() -> None:
    assert figure_score("How tall is the Eiffel Tower?", RAIN) == 0.0
    unrelated = PageFigure(image_url="x", page_url="y", caption="A cat", context="Eiffel Tower")
    assert figure_score("How tall is the Eiffel Tower?", unrelated) == 0.0


def test_one_figure_a_section_and_each_image_once() -> None:
    second = RAIN.model_copy(update={"image_url": "https://a.example/rain2.png"})
    sources = {**SOURCES, "a": _source("a", RAIN.page_url, [RAIN, second])}
    chosen = placed(rank_figures(_report(["a", "b"]), sources, SUB_QUESTIONS))
    assert len(chosen) == 2 and len({c.section for c in chosen}) == 2


def _choice(section: int, figure: PageFigure, score: float) -> FigureChoice:
    return FigureChoice(section=section, source_id="s1", figure=figure, score=score)


def test_the_writer_is_offered_only_sections_with_a_choice() -> None:
    choices = [_choice(0, RAIN, 0.9), _choice(0, TOWER, 0.5), _choice(1, TOWER, 0.4)]
    assert offered(choices) == {0: choices[:2]}


def test_an_offered_pick_goes_first_and_any_other_pick_is_ignored() -> None:
    choices = [_choice(0, RAIN, 0.9), _choice(0, TOWER, 0.5), _choice(1, TOWER, 0.4)]
    offers = offered(choices)
    assert with_picks(choices, offers, {0: TOWER.image_url})[0] == choices[1]
    assert with_picks(choices, offers, {}) == choices
    assert with_picks(choices, offers, {0: "https://c.example/other.png"}) == choices
    assert with_picks(choices, offers, {1: RAIN.image_url}) == choices  # not offered there
