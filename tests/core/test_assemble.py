"""Report assembly: source numbering, best evidence, the extractive report, limitations."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from deepresearch.core.assemble import (
    QUOTES_PER_SECTION,
    Written,
    assemble_report,
    best_evidence,
    extractive_sections,
    limitations,
    number_sources,
)
from deepresearch.core.gate import GateResult
from deepresearch.models import (
    Evidence,
    Paragraph,
    Section,
    Sentence,
    Source,
    SubQuestion,
    Verification,
)
from deepresearch.models.scores import SourceScores

PASS = Verification(status="PASS", method="exact", score=1.0)
FAIL = Verification(status="FAIL", method="fuzzy", score=0.2)


def ev(
    eid: str,
    source_id: str,
    *,
    sq: str = "q1",
    start: int = 0,
    score: float = 0.5,
    verified: bool = True,
    quote: str | None = None,
) -> Evidence:
    return Evidence(
        id=eid,
        sub_question_id=sq,
        claim=f"claim {eid}",
        quote=quote if quote is not None else f"quote of {eid}",
        source_id=source_id,
        source_url=f"https://{source_id}.example/",
        start=start,
        end=start + 10,
        score=score,
        verification=PASS if verified else FAIL,
    )


def src(sid: str, *, title: str = "", fetched: bool = True) -> Source:
    return Source(
        id=sid,
        url=f"https://{sid}.example/",
        title=title,
        domain=f"{sid}.example",
        fetched=fetched,
    )


def test_sources_are_numbered_in_order_of_first_citation() -> None:
    evidence = {
        "e1": ev("e1", "sa"),
        "e2": ev("e2", "sb"),
        "e3": ev("e3", "sc"),
        "e4": ev("e4", "sa"),
    }
    sources = {s: src(s, title=f"Title {s}") for s in ("sa", "sb", "sc")}
    sentences = [
        Sentence(text="One.", citations=["e3"]),
        Sentence(text="Two.", citations=["e4", "e2"]),
        Sentence(text="Three.", citations=["e1", "e3"]),
    ]
    refs = number_sources(sentences, evidence, sources)
    assert [(r.id, r.number) for r in refs] == [("sc", 1), ("sa", 2), ("sb", 3)]
    assert refs[0].url == "https://sc.example/"
    assert refs[0].title == "Title sc"
    assert refs[0].domain == "sc.example"


def test_unknown_citations_and_unknown_sources_are_ignored() -> None:
    evidence = {"e1": ev("e1", "sa"), "e2": ev("e2", "missing")}
    sources = {"sa": src("sa")}
    sentences = [
        Sentence(text="A.", citations=["nope", "e2"]),
        Sentence(text="B.", citations=["e1"]),
    ]
    refs = number_sources(sentences, evidence, sources)
    assert [(r.id, r.number) for r in refs] == [("sa", 1)]


def test_a_cited_source_keeps_its_publication_date_for_the_bibliographies() -> None:
    dated = src("sa").model_copy(update={"published": datetime(2021, 3, 4, tzinfo=UTC)})
    evidence = {"e1": ev("e1", "sa"), "e2": ev("e2", "sb")}
    sentences = [Sentence(text="A.", citations=["e1", "e2"])]
    refs = number_sources(sentences, evidence, {"sa": dated, "sb": src("sb")})
    assert [r.published for r in refs] == [datetime(2021, 3, 4, tzinfo=UTC), None]


def test_a_source_without_title_is_named_by_its_url() -> None:
    refs = number_sources(
        [Sentence(text="A.", citations=["e1"])], {"e1": ev("e1", "sa")}, {"sa": src("sa")}
    )
    assert refs[0].title == "https://sa.example/"


def test_no_citations_no_sources() -> None:
    assert number_sources([Sentence(text="A.")], {"e1": ev("e1", "sa")}, {"sa": src("sa")}) == []


def test_best_evidence_is_verified_one_per_passage_best_first() -> None:
    items = [
        ev("e1", "sa", start=0, score=0.2),
        ev("e2", "sa", start=0, score=0.9),  # same passage as e1, better
        ev("e3", "sb", start=0, score=0.8),
        ev("e4", "sa", start=50, score=0.8),  # same score as e3: id order
        ev("e5", "sc", start=0, score=1.0, verified=False),
    ]
    assert [e.id for e in best_evidence(items, 10)] == ["e2", "e3", "e4"]
    assert [e.id for e in best_evidence(items, 2)] == ["e2", "e3"]
    assert best_evidence(items, 0) == []


def _quote_ids(sentences: list[Sentence]) -> list[str]:
    return [cid for sentence in sentences for cid in sentence.citations]


def test_extractive_sections_are_made_of_quotes_only_and_never_repeat_one() -> None:
    sub_questions = [SubQuestion(id=i, text=f"Question {i}?") for i in ("q1", "q2", "q3")]
    evidence = [
        ev("e1", "sa", sq="q1", start=0, score=0.9, quote="Alpha is first."),
        ev("e2", "sb", sq="q1", start=0, score=0.7, quote="Beta is second."),
        ev("e3", "sc", sq="q1", start=0, score=0.5, quote="Gamma is third."),
        # q2 found the same passage as q1's best (same source and start): not repeated
        ev("e4", "sa", sq="q2", start=0, score=1.0, quote="Alpha is first."),
        ev("e5", "sd", sq="q2", start=5, score=0.4, quote="Delta is fourth."),
        ev("e6", "se", sq="q3", start=0, score=0.9, verified=False, quote="Not verified."),
    ]
    sections = extractive_sections(sub_questions, evidence)
    by_id = {e.id: e for e in evidence}
    everything = [s for sec in sections for p in sec.paragraphs for s in p.sentences]
    for sentence in everything:
        assert len(sentence.citations) == 1
        assert sentence.text == f"“{by_id[sentence.citations[0]].quote}”"
    keys = [(by_id[c].source_id, by_id[c].start) for c in _quote_ids(everything)]
    assert len(keys) == len(set(keys))
    assert [s.heading for s in sections] == ["Question q1?", "Question q2?"]
    assert [p.sentences[0].citations for p in sections[0].paragraphs] == [["e1"], ["e2"], ["e3"]]
    assert [p.sentences[0].citations for p in sections[1].paragraphs] == [["e5"]]
    assert "e6" not in _quote_ids(everything)


def test_extractive_sections_leave_out_what_the_findings_show() -> None:
    sub_questions = [SubQuestion(id="q1", text="Q?")]
    evidence = [ev("e1", "sa", start=0, score=0.9), ev("e2", "sb", start=0, score=0.5)]
    sections = extractive_sections(sub_questions, evidence, exclude={"e1"})
    assert _quote_ids([s for sec in sections for p in sec.paragraphs for s in p.sentences]) == [
        "e2"
    ]


def test_extractive_sections_cap_quotes_per_sub_question() -> None:
    sq = [SubQuestion(id="q1", text="Q?")]
    evidence = [ev(f"e{i}", f"s{i}", score=1 - i / 100) for i in range(10)]
    sections = extractive_sections(sq, evidence)
    assert len(sections[0].paragraphs) == QUOTES_PER_SECTION


def test_extractive_sections_without_verified_evidence_are_empty() -> None:
    sq = [SubQuestion(id="q1", text="Q?")]
    assert extractive_sections(sq, [ev("e1", "sa", verified=False)]) == []
    assert extractive_sections(sq, []) == []


def _sq(sid: str, status: str) -> SubQuestion:
    return SubQuestion(id=sid, text=f"Question {sid}?", status=status)


def test_limitations_say_what_went_wrong() -> None:
    out = limitations(
        gate=GateResult(status="retry", reasons=["2 distinct source domains, need 3"]),
        sub_questions=[_sq("q1", "covered"), _sq("q2", "weak"), _sq("q3", "failed")],
        sources={"sa": src("sa"), "sb": src("sb", fetched=False), "sc": src("sc", fetched=False)},
        model_errors=["timeout", "bad json", "timeout", "rate limit", "auth"],
    )
    assert out == [
        "The evidence did not meet the quality gate: 2 distinct source domains, need 3.",
        "No verified evidence was found for: Question q2?; Question q3?.",
        "2 source(s) could not be read and were not quoted.",
        "Model problems: auth; bad json; rate limit.",
    ]


@pytest.mark.parametrize("gate", [None, GateResult(status="pass")])
def test_no_limitations_when_all_went_well(gate: GateResult | None) -> None:
    out = limitations(
        gate=gate,
        sub_questions=[_sq("q1", "covered")],
        sources={"sa": src("sa")},
        model_errors=[],
    )
    assert out == []


def test_an_order_puts_the_chain_first_whatever_the_scores() -> None:
    items = [ev("e1", "sa", score=0.9), ev("e2", "sb", score=0.8), ev("e3", "sc", score=0.1)]
    assert [e.id for e in best_evidence(items, 2, order=["e3"])] == ["e3", "e1"]
    sections = extractive_sections([SubQuestion(id="q1", text="Q?")], items, order=["e3", "e2"])
    cited = _quote_ids([s for sec in sections for p in sec.paragraphs for s in p.sentences])
    assert cited == ["e3", "e2", "e1"]


def test_leads_left_unfollowed_are_a_limitation() -> None:
    notes = limitations(
        gate=None,
        sub_questions=[],
        sources={},
        model_errors=[],
        open_leads=["The Glass Orchard", "Tomas Berg"],
    )
    assert notes == [
        "Leads found in the evidence but not followed (no research wave or unit left): "
        "The Glass Orchard; Tomas Berg."
    ]


def _scores(url: str, decision: str, final: float) -> SourceScores:
    return SourceScores.model_validate(
        {
            "url": url,
            "domain": "a.example",
            "extractability": 1.0,
            "query_relevance": 1.0,
            "query_multiplier": 1.0,
            "domain_authority": 30,
            "recency": 0.5,
            "retrieval_relevance": 1.0,
            "tier": "UNVERIFIED",
            "credibility": 0.3,
            "signal_score": final,
            "final": final,
            "decision": decision,
        }
    )


def test_assemble_report_puts_exact_findings_first_and_disagreements_last() -> None:
    tower = ev("e1", "sa", quote="The tower was completed in 1889.")
    tower.claim = "The tower was completed in 1889 in Paris city."
    other = ev("e2", "sb", quote="The tower was completed in 1887.")
    other.claim = "The tower was completed in 1887 in Paris city."
    unused = ev("e3", "sc")
    body = Section(
        heading="History", paragraphs=[Paragraph(sentences=[Sentence(text="A.", citations=["e2"])])]
    )
    written = Written(
        kind="synthesized",
        title="The tower",
        notice=None,
        summary=[Sentence(text="Built in the 1880s.", citations=["e1"])],
        sections=[body],
        # the writer shortened one quote and named one that does not exist
        picks=[("e1", "“The tower was completed”"), ("e9", "“made up”")],
    )
    sources = {s: src(s) for s in ("sa", "sb", "sc")} | {"sd": src("sd", fetched=False)}
    done = assemble_report(
        written,
        run_id="run-1",
        question="When was the tower completed?",
        evidence=[tower, other, unused],
        sources=sources,
        considered=[
            _scores("https://x.example/", "dropped", 0.9),
            _scores("https://y.example/", "read", 0.4),
            _scores("https://z.example/", "read", 0.8),
        ],
        gate=None,
        sub_questions=[SubQuestion(id="q1", text="When?")],
        model_errors=["model m timed out", "model m timed out"],
        open_leads=[],
        created_at=datetime(2026, 1, 1, tzinfo=UTC),
    )
    report = done.report
    assert (done.findings_restored, done.findings_dropped) == (1, 1)
    headings = [section.heading for section in report.sections]
    assert headings == ["Verified Findings", "History", "Where sources disagree"]
    assert (
        report.sections[0].paragraphs[0].sentences[0].text == "“The tower was completed in 1889.”"
    )
    assert [ref.id for ref in report.sources] == ["sa", "sb"]  # the summary cites first
    assert [item.id for item in report.evidence] == ["e1", "e2"]  # only the cited
    assert [s.url for s in report.considered] == [
        "https://z.example/",
        "https://y.example/",
        "https://x.example/",
    ]
    assert report.limitations == [
        "1 source(s) could not be read and were not quoted.",
        "Model problems: model m timed out.",
    ]
    assert report.claims is not None and report.created_at is not None
