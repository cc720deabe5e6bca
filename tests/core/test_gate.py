"""The quality gate (seed 004) and the routing after a wave (seed 001, 4.5)."""

from __future__ import annotations

import itertools

import pytest

from deepresearch.core.gate import (
    GateResult,
    GateThresholds,
    domain_of,
    evaluate_gate,
    route_after_wave,
)
from deepresearch.models import Evidence, SubQuestion, Verification

_ids = itertools.count(1)


def ev(
    url: str = "https://a.example/x",
    sq: str = "q1",
    *,
    verified: bool = True,
) -> Evidence:
    n = next(_ids)
    return Evidence(
        id=f"e{n}",
        sub_question_id=sq,
        claim="c",
        quote="q",
        source_id=f"s{n}",
        source_url=url,
        start=0,
        end=1,
        verification=Verification(
            status="PASS" if verified else "FAIL", method="exact", score=1.0 if verified else 0.0
        ),
    )


def sqs(*ids: str) -> list[SubQuestion]:
    return [SubQuestion(id=i, text=f"question {i}") for i in ids]


def urls(n: int) -> list[str]:
    return [f"https://site{i}.example/page" for i in range(n)]


LOOSE = GateThresholds(min_evidence=0, min_cited_evidence=0, min_domains=0)


def test_default_thresholds_are_the_seeds() -> None:
    assert GateThresholds() == GateThresholds(
        min_evidence=5, min_cited_evidence=5, min_domains=3, min_evidence_per_question=1
    )


@pytest.mark.parametrize(
    ("url", "domain"),
    [
        ("https://www.example.com/a", "example.com"),
        ("https://WWW.Example.COM:8443/a?b", "example.com"),
        ("http://sub.www.example.com", "sub.www.example.com"),
        ("https://wwwexample.com", "wwwexample.com"),
        ("file:///home/me/notes.md", "local corpus"),
        ("file://host/share/doc.pdf", "local corpus"),
        ("", ""),
        ("not a url", ""),
    ],
)
def test_domain_of(url: str, domain: str) -> None:
    assert domain_of(url) == domain


def test_everything_met_passes() -> None:
    evidence = [
        ev(url, sq) for url, sq in zip(urls(5), ["q1", "q1", "q2", "q2", "q2"], strict=True)
    ]
    result = evaluate_gate(evidence, sqs("q1", "q2"), GateThresholds())
    assert result.status == "pass"
    assert result.reasons == []
    assert (result.evidence, result.cited_evidence) == (5, 5)
    assert result.domains == sorted(domain_of(u) for u in urls(5))
    assert result.per_question == {"q1": 2, "q2": 3}
    assert result.weak_sub_questions == []


@pytest.mark.parametrize(("n", "status"), [(3, "retry"), (4, "pass")])
def test_min_evidence_boundary(n: int, status: str) -> None:
    thresholds = GateThresholds(min_evidence=4, min_cited_evidence=0, min_domains=0)
    result = evaluate_gate([ev() for _ in range(n)], sqs("q1"), thresholds)
    assert result.status == status
    assert result.evidence == n
    assert any("verified evidence" in r for r in result.reasons) == (status == "retry")


@pytest.mark.parametrize(("n", "status"), [(2, "retry"), (3, "pass")])
def test_min_cited_evidence_boundary(n: int, status: str) -> None:
    # verified evidence without a URL counts as evidence but not as cited evidence
    evidence = [ev() for _ in range(n)] + [ev(url="") for _ in range(5)]
    thresholds = GateThresholds(min_evidence=0, min_cited_evidence=3, min_domains=0)
    result = evaluate_gate(evidence, sqs("q1"), thresholds)
    assert (result.evidence, result.cited_evidence) == (n + 5, n)
    assert result.status == status
    assert any("cited evidence" in r for r in result.reasons) == (status == "retry")


@pytest.mark.parametrize(("n", "status"), [(2, "retry"), (3, "pass")])
def test_min_domains_boundary(n: int, status: str) -> None:
    # many records from the same few domains; www. does not make a new domain
    evidence = [ev(url) for url in urls(n) for _ in range(3)]
    evidence += [ev(url.replace("https://", "https://www.")) for url in urls(n)]
    thresholds = GateThresholds(min_evidence=0, min_cited_evidence=0, min_domains=3)
    result = evaluate_gate(evidence, sqs("q1"), thresholds)
    assert len(result.domains) == n
    assert result.status == status
    assert any("distinct source domains" in r for r in result.reasons) == (status == "retry")


def test_a_stub_page_adds_no_domain() -> None:
    """Seed 001's content tier: a page of under ten words (INSUFFICIENT) is no source of
    its own for the gate's distinct domains; a tier not known counts."""
    evidence = [ev(url) for url in urls(3)]
    thresholds = GateThresholds(min_evidence=1, min_cited_evidence=1, min_domains=3)
    tiers = {evidence[0].source_id: "HIGH", evidence[1].source_id: "LOW"}
    assert evaluate_gate(evidence, sqs("q1"), thresholds, content=tiers).status == "pass"
    stub = {**tiers, evidence[1].source_id: "INSUFFICIENT"}
    result = evaluate_gate(evidence, sqs("q1"), thresholds, content=stub)
    assert result.status == "retry" and result.domains == ["site0.example", "site2.example"]


def test_local_corpus_files_count_as_one_domain() -> None:
    evidence = [ev(f"file:///corpus/doc{i}.md") for i in range(4)]
    result = evaluate_gate(evidence, sqs("q1"), GateThresholds(min_domains=2))
    assert result.domains == ["local corpus"]
    assert "1 distinct source domains, need 2" in result.reasons


@pytest.mark.parametrize(("n", "weak"), [(1, ["q2"]), (2, [])])
def test_per_question_coverage_boundary(n: int, weak: list[str]) -> None:
    evidence = [ev(sq="q1") for _ in range(3)] + [ev(sq="q2") for _ in range(n)]
    thresholds = GateThresholds(
        min_evidence=0, min_cited_evidence=0, min_domains=0, min_evidence_per_question=2
    )
    result = evaluate_gate(evidence, sqs("q1", "q2"), thresholds)
    assert result.weak_sub_questions == weak
    assert result.per_question == {"q1": 3, "q2": n}
    assert result.status == ("retry" if weak else "pass")
    if weak:
        assert "1 sub-question(s) without enough evidence" in result.reasons


def test_sub_questions_without_any_evidence_are_weak_in_plan_order() -> None:
    result = evaluate_gate([ev(sq="q2")], sqs("q3", "q2", "q1"), LOOSE)
    assert result.weak_sub_questions == ["q3", "q1"]
    assert result.per_question == {"q3": 0, "q2": 1, "q1": 0}


def test_evidence_for_unknown_sub_questions_counts_overall_but_covers_nothing() -> None:
    result = evaluate_gate([ev(sq="q9")], sqs("q1"), LOOSE)
    assert result.evidence == 1
    assert result.per_question == {"q1": 0}
    assert result.weak_sub_questions == ["q1"]


def test_unverified_evidence_is_not_counted() -> None:
    evidence = [ev(url, verified=False) for url in urls(10)]
    evidence.append(ev(urls(1)[0]).model_copy(update={"verification": None}))
    result = evaluate_gate(evidence, sqs("q1"), GateThresholds())
    assert (result.evidence, result.cited_evidence, result.domains) == (0, 0, [])
    assert result.per_question == {"q1": 0}
    assert result.status == "abort"


def test_unverified_evidence_does_not_tip_a_boundary() -> None:
    thresholds = GateThresholds(min_evidence=2, min_cited_evidence=2, min_domains=2)
    evidence = [ev(urls(1)[0]), ev("https://other.example/", verified=False)]
    result = evaluate_gate(evidence, sqs("q1"), thresholds)
    assert result.status == "retry"
    assert len(result.reasons) == 3


def test_nothing_verified_aborts_with_every_reason() -> None:
    result = evaluate_gate([], sqs("q1"), GateThresholds())
    assert result.status == "abort"
    assert result.reasons == [
        "0 verified evidence records, need 5",
        "0 cited evidence records, need 5",
        "0 distinct source domains, need 3",
        "1 sub-question(s) without enough evidence",
    ]


def test_nothing_verified_aborts_even_with_zero_thresholds() -> None:
    result = evaluate_gate([], [], GateThresholds(0, 0, 0, 0))
    assert result.status == "abort"
    assert result.reasons == []


# -- routing -----------------------------------------------------------------------------


def gate(status: str) -> GateResult:
    return GateResult(status=status)


def route(
    status: str,
    *,
    wave: int = 1,
    max_waves: int = 4,
    units_used: int = 3,
    max_units: int = 20,
    pending: int = 0,
) -> str:
    return route_after_wave(
        gate(status),
        wave=wave,
        max_waves=max_waves,
        units_used=units_used,
        max_units=max_units,
        pending_units=pending,
    )


@pytest.mark.parametrize(
    ("status", "kwargs", "expected"),
    [
        # nothing verified: one more wave is allowed, the second empty wave aborts
        ("abort", {"wave": 1, "pending": 2}, "research"),
        ("abort", {"wave": 2, "pending": 2}, "abort"),
        ("abort", {"wave": 3, "pending": 2}, "abort"),
        ("abort", {"wave": 1, "pending": 0}, "abort"),
        # nothing verified and out of budget
        ("abort", {"wave": 1, "max_waves": 1, "pending": 2}, "abort"),
        ("abort", {"wave": 1, "units_used": 20, "pending": 2}, "abort"),
        # some evidence, work queued, budget left
        ("retry", {"pending": 1}, "research"),
        ("pass", {"pending": 1}, "research"),
        # some evidence, nothing queued
        ("retry", {"pending": 0}, "write"),
        ("pass", {"pending": 0}, "write"),
        # some evidence, out of waves or units: write with what there is
        ("retry", {"wave": 4, "max_waves": 4, "pending": 3}, "write"),
        ("retry", {"wave": 5, "max_waves": 4, "pending": 3}, "write"),
        ("retry", {"units_used": 20, "max_units": 20, "pending": 3}, "write"),
        ("retry", {"units_used": 25, "max_units": 20, "pending": 3}, "write"),
        ("pass", {"wave": 4, "max_waves": 4, "pending": 3}, "write"),
    ],
)
def test_route_after_wave_decision_table(
    status: str, kwargs: dict[str, int], expected: str
) -> None:
    assert route(status, **kwargs) == expected


@pytest.mark.parametrize(("wave", "expected"), [(2, "research"), (3, "write")])
def test_route_wave_budget_boundary(wave: int, expected: str) -> None:
    assert route("retry", wave=wave, max_waves=3, pending=1) == expected


@pytest.mark.parametrize(("units_used", "expected"), [(9, "research"), (10, "write")])
def test_route_unit_budget_boundary(units_used: int, expected: str) -> None:
    assert route("retry", units_used=units_used, max_units=10, pending=1) == expected


def test_route_never_researches_without_pending_work() -> None:
    for status, wave, used in itertools.product(["pass", "retry", "abort"], [1, 2, 3], [0, 5]):
        assert route(status, wave=wave, units_used=used, pending=0) != "research"


def quoted(text: str, source: str) -> Evidence:
    item = ev(f"https://{source}.example/")
    return item.model_copy(update={"quote": text, "source_id": source})


def test_given_the_question_the_gate_asks_for_what_answers_it() -> None:
    question = "Are Irena Kovalska and Tomas Berg both novelists?"
    one = [quoted("Irena Kovalska is a novelist.", "a")]
    result = evaluate_gate(one, sqs("q1"), LOOSE, question=question)
    assert result.status == "retry"
    assert result.gaps == ["no verified quote names Tomas Berg"]
    assert result.reasons == result.gaps
    both = [*one, quoted("He paints.", "b")]
    passed = evaluate_gate(both, sqs("q1"), LOOSE, question=question, titles={"b": "Tomas Berg"})
    assert passed.status == "pass" and passed.gaps == []
    # without the question, only the counts decide
    assert evaluate_gate(one, sqs("q1"), LOOSE).status == "pass"
