"""The report review's pure rules (``core.report_review``) and the audit of its edits
(``core.audit.reaudit``): what is shown (summary and body prose, not the quotes), a reply
checked against it, an edit file read, the edits made with their citations kept, and the
audit's policy applied to the edits with the counts moved from the old verdicts."""

from __future__ import annotations

import pytest

from deepresearch.core.audit import reaudit
from deepresearch.core.report_review import (
    check_report_reply,
    edited_report,
    parse_edits,
    shown_sentences,
)
from deepresearch.errors import InvalidInput
from deepresearch.models import Audit, Evidence, Paragraph, Report, Section, Sentence
from deepresearch.models.evidence import Verification
from deepresearch.models.report import SourceRef

PASS = Verification(status="PASS", method="exact", score=1.0)


def _evidence(eid: str, source: str) -> Evidence:
    return Evidence(
        id=eid,
        sub_question_id="q1",
        claim="c",
        quote=f"quote {eid}",
        source_id=source,
        source_url=f"http://127.0.0.1/{source}",
        start=0,
        end=5,
        verification=PASS,
    )


def _report() -> Report:
    return Report(
        run_id="r",
        question="q",
        title="T",
        kind="synthesized",
        summary=[Sentence(text="Sum one.", citations=["e1"], audit="supported")],
        sections=[
            Section(
                heading="Verified Findings",
                kind="verified_findings",
                paragraphs=[Paragraph(sentences=[Sentence(text="“quote e1”", citations=["e1"])])],
            ),
            Section(
                heading="Body",
                paragraphs=[
                    Paragraph(
                        sentences=[
                            Sentence(text="Body one.", citations=["e2"], audit="partial"),
                            Sentence(text="Body two.", citations=["e1", "e2"]),
                        ]
                    )
                ],
            ),
        ],
        sources=[
            SourceRef(id="sa", number=1, url="http://127.0.0.1/sa", title="A", domain="a"),
            SourceRef(id="sb", number=2, url="http://127.0.0.1/sb", title="B", domain="b"),
        ],
        evidence=[_evidence("e1", "sa"), _evidence("e2", "sb")],
        audit=Audit(
            policy="strict", method="judge", sentences=4, checked=2, supported=1, partial=1
        ),
    )


def test_the_summary_and_the_body_are_shown_by_their_place_not_the_quotes() -> None:
    shown = shown_sentences(_report())
    assert [(s.id, s.section, s.text, s.sources) for s in shown] == [
        ("s1", "Summary", "Sum one.", [1]),
        ("s3", "Body", "Body one.", [2]),
        ("s4", "Body", "Body two.", [1, 2]),
    ]
    assert shown[1].audit == "partial"


SHOWN = {"s1": "Sum one.", "s3": "Body one.", "s4": "Body two."}


def test_an_edit_is_cleaned_unchanged_ones_left_out_and_marks_dropped() -> None:
    reply = check_report_reply(
        {"action": "edit", "sentences": {"s4": " New\twords [1, 2]", "s1": "Sum one. [1]"}},
        SHOWN,
        rewrite=False,
    )
    assert reply.sentences == {"s4": "New words"}
    assert check_report_reply({"action": "approve"}, SHOWN, rewrite=False).action == "approve"
    feedback = check_report_reply(
        {"action": "feedback", "feedback": " Lead  with it. "}, SHOWN, rewrite=True
    )
    assert feedback.feedback == "Lead with it."


@pytest.mark.parametrize(
    ("reply", "reason"),
    [
        ({"action": "feedback", "feedback": "Shorter."}, "feedback needs a writer model"),
        ({"action": "edit", "sentences": {"s2": "x"}}, "no sentence has the id 's2'"),
        ({"action": "edit", "sentences": {}}, "named none"),
        ({"action": "edit", "sentences": {"s1": "Sum one."}}, "changes no sentence"),
        ({"action": "edit", "sentences": dict.fromkeys(SHOWN, "")}, "removing every sentence"),
        ({"action": "edit", "sentences": {"s1": "x" * 2001}}, "at most 2000"),
        ({"action": "gap", "gap": "x"}, "action"),
        ("approve", "report reply"),
    ],
)
def test_bad_replies_say_what_is_wrong(reply: object, reason: str) -> None:
    with pytest.raises(InvalidInput, match=reason):
        check_report_reply(reply, SHOWN, rewrite=False)


def test_an_edit_file_is_read_line_by_line() -> None:
    assert parse_edits("# mine\n\ns3: New words.\n s4:\n") == {"s3": "New words.", "s4": ""}
    with pytest.raises(InvalidInput, match="line 2 of the edit file"):
        parse_edits("s3: fine\nnot a line\n")
    with pytest.raises(InvalidInput, match="names no sentence"):
        parse_edits("# nothing\n")


def test_edits_keep_their_citations_and_the_audit_applies_the_policy() -> None:
    report = _report()
    done = edited_report(report, {"s3": "", "s4": "Made up words."})
    # s3 removed; s4 (now the third sentence) keeps its citations, its verdict cleared
    sentences = done.report.all_sentences()
    assert [s.text for s in sentences] == ["Sum one.", "“quote e1”", "Made up words."]
    assert sentences[2].citations == ["e1", "e2"] and sentences[2].audit is None
    assert done.checked == [2] and done.replaced == ["partial", None] and done.removed == 1

    strict = reaudit(
        done.report,
        {2: ("unsupported", "not in the quote")},
        policy="strict",
        method="deterministic",
        sources={},
        replaced=done.replaced,
        edited=1,
        removed_by_person=1,
    )
    assert [s.text for s in strict.all_sentences()] == ["Sum one.", "“quote e1”"]
    assert strict.audit is not None
    assert (strict.audit.supported, strict.audit.partial, strict.audit.unsupported) == (1, 0, 1)
    assert strict.audit.removed == 1 and strict.audit.sentences == 3
    assert strict.audit.method == "mixed"  # the judge, then the deterministic checker
    assert strict.limitations[-1] == (
        "A person's review edited 1 sentence(s) and removed 1 sentence(s); the edits were "
        "checked against their citations like the writer's sentences, and the audit "
        "removed 1 they do not support."
    )
    marked = reaudit(
        done.report,
        {2: ("unsupported", "not in the quote")},
        policy="mark",
        method="deterministic",
        sources={},
        replaced=done.replaced,
        edited=1,
        removed_by_person=1,
    )
    assert marked.all_sentences()[2].audit == "unsupported"
    assert marked.audit is not None and marked.audit.removed == 0
