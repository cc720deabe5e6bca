"""Claims by the model (issue 16, seed 003): the judge extracts the run's claims with the
evidence for and against each, in one call beside the findings check. A disagreement the
deterministic detector misses (two pages word it too differently) reaches the writer and
the report, labelled as the model's alone; ids the judge invents and claims no quote
states are dropped; an unusable reply leaves the detector deciding, as before."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import BaseMessage

from deepresearch.core.certainty import MODEL_ONLY
from deepresearch.core.claims import build_ledger, detect_contradictions
from deepresearch.export.report_render import to_markdown
from deepresearch.models import Report, RunEvent, SearchHit
from deepresearch.models.event_checks import ClaimsExtracted, FindingsChecked
from deepresearch.recipes.research.stages import claims, write
from deepresearch.runner import run_research
from deepresearch.settings import load_settings
from deepresearch.settings_values import ROLES, Role
from deepresearch.testing.corpus import CorpusDocument
from deepresearch.testing.research_script import research_script
from deepresearch.testing.scripted import ScriptedChatModel
from deepresearch.testing.static_search import StaticSearch
from deepresearch.testing.web import OfflineWeb

from ..event_schema import assert_events_match_schema

OPENED = (
    "The Millau Viaduct in southern France was opened to traffic in December 2004, after "
    "three years of construction over the valley of the river Tarn."
)
CROSSED = (
    "Cars first crossed the Millau Viaduct bridge in 2005, once the toll plaza north of "
    "the town had been finished by the motorway company."
)
MILLAU = "When did the Millau Viaduct open to traffic?"

ONE = (
    "The Eiffel Tower in Paris was completed in 1889 as the entrance arch to the World's Fair, "
    "after two years of construction work by the company of Gustave Eiffel."
)
OTHER = (
    "The Eiffel Tower in Paris was completed in 1887 as the entrance arch to the World's Fair, "
    "after two years of construction work by the company of Gustave Eiffel."
)
EIFFEL = "When was the Eiffel Tower in Paris completed?"

INVENTED = "The Millau Viaduct is the tallest bridge in the world at 343 metres."

Replier = Callable[[list[BaseMessage]], str]


def _is_claims(messages: list[BaseMessage]) -> bool:
    return str(messages[0].content).startswith(claims.SYSTEM.splitlines()[0])


def _with_claims_reply(change: Callable[[str], str]) -> Replier:
    research = research_script()

    def reply(messages: list[BaseMessage]) -> str:
        answer = research(messages)
        return change(answer) if _is_claims(messages) else answer

    return reply


def _with_bad_claims(answer: str) -> str:
    """The careful reply, plus a claim citing a note that does not exist and a claim its
    note does not state."""
    reply = json.loads(answer)
    first = reply["claims"][0]["supporting"][0]
    reply["claims"] += [
        {"text": reply["claims"][0]["text"], "supporting": ["E99"], "contradicting": ["E98"]},
        {"text": INVENTED, "supporting": [first], "contradicting": []},
    ]
    return json.dumps(reply)


async def _run(
    documents: list[CorpusDocument],
    question: str,
    tmp_path: Path,
    replier: Replier | None,
) -> tuple[Report, list[RunEvent], ScriptedChatModel | None]:
    events: list[RunEvent] = []
    model = ScriptedChatModel(replier) if replier is not None else None
    models: dict[Role, BaseChatModel | None] | None = (
        dict.fromkeys(ROLES, model) if model is not None else None
    )
    with OfflineWeb(documents) as web:
        hits = [
            SearchHit(
                url=web.page_url(d.id),
                title=d.title,
                snippet=d.text[:60],
                provider="static",
                rank=i,
            )
            for i, d in enumerate(documents)
        ]
        settings = load_settings(
            model="none",  # with a model, the scripted one replaces it for every role
            allow_hosts=[web.base_url.removeprefix("http://")],
            data_dir=tmp_path / "data",
            depth="quick",
            min_domains=1,
        )
        report = await run_research(
            question, settings, models=models, search=StaticSearch(hits), sinks=[events.append]
        )
    assert isinstance(report, Report)
    return report, events, model


def _millau() -> list[CorpusDocument]:
    return [
        CorpusDocument(id="opened", title="Millau Viaduct history", text=OPENED),
        CorpusDocument(id="crossed", title="Millau Viaduct traffic", text=CROSSED),
    ]


def _eiffel() -> list[CorpusDocument]:
    return [
        CorpusDocument(id="one", title="Eiffel Tower history", text=ONE),
        CorpusDocument(id="other", title="Eiffel Tower facts", text=OTHER),
    ]


@pytest.mark.parametrize("bad", [False, True], ids=["careful", "invents"])
async def test_the_model_finds_a_disagreement_the_detector_misses(
    tmp_path: Path, bad: bool
) -> None:
    replier = _with_claims_reply(_with_bad_claims if bad else (lambda answer: answer))
    report, events, model = await _run(_millau(), MILLAU, tmp_path, replier)
    assert model is not None and report.claims is not None

    (extracted,) = [e.data for e in events if isinstance(e.data, ClaimsExtracted)]
    assert extracted.method == "model" and extracted.model_only == 1
    assert extracted.cross_checked == 0 and extracted.detector_only == 0
    assert "claims_extracted" in assert_events_match_schema(events)
    if bad:  # the invented ids and the claim no quote states are dropped, the rest kept
        assert extracted.dropped_ids == 2 and extracted.dropped_claims == 2
        assert INVENTED not in {claim.text for claim in report.claims.claims}
        assert INVENTED not in to_markdown(report)
    else:
        assert extracted.dropped_ids == 0 and extracted.dropped_claims == 0

    # the detector alone sees no disagreement between the two pages
    assert report.claims.extracted_by == "model"
    by_url = {item.source_url.rsplit("/", 1)[-1]: item for item in report.evidence}
    opened, crossed = by_url["opened"], by_url["crossed"]
    assert detect_contradictions([opened, crossed]) == []

    # the ledger carries it, labelled as the model's alone
    claim = report.claims.claim_of(opened.id)
    assert claim is not None and claim.contradicting == [crossed.id]
    assert claim.contradiction_basis == {crossed.id: "model"}
    assert report.claims.has_contradictions

    # the writer was told, with the label
    (draft,) = [c for c in model.calls if str(c[0].content).startswith(write.SYSTEM[:40])]
    assert "Disagrees with: E" in str(draft[-1].content)
    assert MODEL_ONLY in str(draft[-1].content)

    # the report says the sources disagree, citing both, and that only the model saw it
    section = next(s for s in report.sections if s.kind == "contradictions")
    (paragraph,) = section.paragraphs
    assert [s.citations for s in paragraph.sentences] == [[opened.id], [crossed.id]]
    markdown = to_markdown(report)
    assert "⚠ Sources disagree on 2 claim(s)" in markdown
    assert "only the model's reading finds the disagreement" in markdown

    # one call, counted under its own stage
    assert report.usage.by_stage["claims"].calls == 1
    assert sum(_is_claims(call) for call in model.calls) == 1


async def test_an_unusable_reply_leaves_the_detector_deciding(tmp_path: Path) -> None:
    """The judge's claims reply is not JSON, twice (the gateway's corrective retry): the
    ledger and the disagreements are the detector's, as without this step."""
    replier = _with_claims_reply(lambda answer: "I could not find any claims, sorry.")
    report, events, model = await _run(_eiffel(), EIFFEL, tmp_path, replier)
    assert model is not None and report.claims is not None
    assert sum(_is_claims(call) for call in model.calls) == 2  # the call and its retry

    (extracted,) = [e.data for e in events if isinstance(e.data, ClaimsExtracted)]
    assert extracted.method == "detector" and extracted.proposed == 0
    assert extracted.detector_only == extracted.contradictions >= 1

    # the report holds every verified finding, so today's ledger can be built from it
    (checked,) = [e.data for e in events if isinstance(e.data, FindingsChecked)]
    assert len(report.evidence) == checked.findings_checked - checked.findings_unsupported
    today = build_ledger(report.evidence, {}, contradictions=detect_contradictions(report.evidence))
    ledger = report.claims
    assert ledger.extracted_by == "detector"
    assert extracted.contradictions == len(detect_contradictions(report.evidence))
    assert [(c.text, c.supporting, c.contradicting) for c in ledger.claims] == [
        (c.text, c.supporting, c.contradicting) for c in today.claims
    ]
    assert all(not claim.contradiction_basis for claim in ledger.claims)
    section = next(s for s in report.sections if s.kind == "contradictions")
    assert {s.text for p in section.paragraphs for s in p.sentences} == {f"“{ONE}”", f"“{OTHER}”"}
    markdown = to_markdown(report)
    assert "⚠ Sources disagree on 2 claim(s): see “Where sources disagree”.\n" in markdown
    assert "model's reading" not in markdown


async def test_without_a_model_nothing_is_asked(tmp_path: Path) -> None:
    report, events, _ = await _run(_eiffel(), EIFFEL, tmp_path, None)
    (extracted,) = [e.data for e in events if isinstance(e.data, ClaimsExtracted)]
    assert extracted.method == "detector" and extracted.proposed == 0
    assert report.claims is not None and report.claims.extracted_by == "detector"
    assert "claims" not in report.usage.by_stage
    assert "model's reading" not in to_markdown(report)
