"""Phase 2's traced extraction: the job description as a source, the deterministic
profile, and the grounding that drops what a model invents."""

from __future__ import annotations

from deepresearch.core.verify import verify_quote
from deepresearch.models import Evidence, Verification
from deepresearch.recipes.employer.extract import (
    company_matcher,
    extract_profile,
    extractive_summary,
    technologies_in,
)
from deepresearch.recipes.employer.gather import JD_URL, job_description_source
from deepresearch.recipes.employer.lists import EmployerLists
from deepresearch.recipes.employer.synthesize import DraftItem, SynthesisDraft, ground_draft

from .conftest import JOB_POSTING


def evidence(eid: str, quote: str) -> Evidence:
    return Evidence(
        id=eid,
        sub_question_id="a1q1",
        claim=quote,
        quote=quote,
        source_id="s1",
        source_url="http://example.test/page",
        start=0,
        end=len(quote),
        verification=Verification(status="PASS", method="exact", score=1.0),
    )


def test_the_job_description_is_a_verified_source() -> None:
    text = JOB_POSTING.read_text()
    posting = job_description_source(text)
    assert posting.source.url == JD_URL and posting.source.text == text
    assert posting.evidence
    for item in posting.evidence:
        assert text[item.start : item.end] == item.quote
        assert item.verified and verify_quote(item.quote, text).status == "PASS"
    quotes = {item.id: item.quote for item in posting.evidence}
    listed = [quotes[i] for i in posting.requirement_ids]
    assert listed[0].startswith("Bachelor's degree") and "Team player." in listed
    assert "Familiarity with WebRTC and video codecs." in listed  # preferred qualifications
    assert not any("Build low-latency" in q for q in listed)  # responsibilities are not
    assert not any(q in ("Minimum qualifications", "About the team") for q in quotes.values())


def test_technologies_are_matched_as_whole_names(lists: EmployerLists) -> None:
    text = (
        "We use Go, C++ and C# with JavaScript on .NET; Google Cloud hosts it all. "
        "Let's go to the cloud. Apps in Ruby on Rails."
    )
    found = technologies_in(text, lists)
    assert found == ["Go", "C++", "C#", "JavaScript", ".NET", "Google Cloud", "Ruby on Rails"]
    assert "Java" not in found  # not inside "JavaScript"; "go" the verb is not Go
    assert "Rails" not in found and "Ruby" not in found  # the longest name wins


def test_the_deterministic_profile_comes_from_quotes(lists: EmployerLists) -> None:
    posting = job_description_source(JOB_POSTING.read_text())
    profile = extract_profile(
        posting.evidence,
        lists,
        company_matcher("Google"),
        input_ids=[e.id for e in posting.evidence],
        listed_requirements=posting.requirement_ids,
    )
    by_id = {e.id: e.quote for e in posting.evidence}
    assert [t.text for t in profile.tech_stack] == [
        "C++", "Go", "Linux", "Kubernetes", "Docker", "Vulkan", "WebRTC",
    ]  # fmt: skip
    for group in (profile.tech_stack, profile.identified_requirements, profile.culture_signals):
        for item in group:
            assert item.evidence and not item.inferred
            assert all(item.text in by_id[e] for e in item.evidence)  # a piece of its quote
    texts = [r.text for r in profile.identified_requirements]
    assert "3+ years of experience with C++ or Go." in texts and "Team player." in texts
    culture = [c.text for c in profile.culture_signals]
    assert "We value open source and contribute to the projects we depend on." in culture
    assert profile.synthesized_by == "rules"


def test_the_extractive_summary_defines_the_employer_first() -> None:
    items = [
        evidence("E1", "Stadia Launches Today\nReviewers found Google's Stadia uneven at launch."),
        evidence("E2", "Google LLC is an American technology company. It makes search software."),
    ]
    summary, ids = extractive_summary(items, company_matcher("Google LLC"))
    assert summary.startswith("Google LLC is an American technology company.")
    assert "Stadia Launches Today" not in summary  # a headline is no sentence
    assert ids == ["E2", "E1"]


def test_company_matcher_ignores_the_legal_suffix() -> None:
    matcher = company_matcher("Google LLC")
    assert matcher is not None and matcher.search("at google, engineers") is not None
    assert company_matcher("  ") is None


def test_grounding_keeps_what_quotes_state_and_drops_the_rest(lists: EmployerLists) -> None:
    quotes = [
        evidence("E1", "Acme runs its payment services in Go on Kubernetes."),
        evidence("E2", "Engineers at Acme need five years of experience with distributed systems."),
        evidence("E3", "Acme publishes its internal tools as open source."),
    ]
    draft = SynthesisDraft(
        employer_summary=[
            DraftItem(text="Acme runs its payment services in Go on Kubernetes.", evidence=["E1"]),
            DraftItem(text="Acme was founded in 1887 by Zorro Vance.", evidence=["E1"]),
        ],
        tech_stack=[
            DraftItem(text="Go", evidence=["E1"]),
            DraftItem(text="Kubernetes", evidence=["E3"]),  # wrong id: found in E1 instead
            DraftItem(text="Haskell", evidence=["E1"]),  # in no quote
        ],
        identified_requirements=[
            DraftItem(text="Five years of experience with distributed systems", evidence=["E2"]),
            DraftItem(text="Ten years of COBOL at IBM", evidence=["E2"]),
        ],
        culture_signals=[
            DraftItem(text="Acme publishes internal tools as open source", evidence=["E9"])
        ],
    )
    out = ground_draft(draft, quotes, lists)
    assert [(t.text, t.evidence) for t in out.tech_stack] == [
        ("Go", ["E1"]),
        ("Kubernetes", ["E1"]),
    ]
    assert [r.text for r in out.identified_requirements] == [
        "Five years of experience with distributed systems"
    ]
    assert [(c.text, c.evidence) for c in out.culture_signals] == [
        ("Acme publishes internal tools as open source", ["E3"])
    ]
    assert out.employer_summary == "Acme runs its payment services in Go on Kubernetes."
    assert out.summary_evidence == ["E1"]
    assert out.unsupported == [
        "tech_stack: Haskell",
        "requirement: Ten years of COBOL at IBM",
        "summary: Acme was founded in 1887 by Zorro Vance.",
    ]
    assert out.synthesized_by == "model"
