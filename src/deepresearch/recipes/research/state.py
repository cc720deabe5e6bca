"""The run's graph state. Everything in it is checkpointed after every stage, so a resumed
run continues with exactly what was fetched, verified and decided before."""

from __future__ import annotations

from typing import Any, Literal, TypedDict

from deepresearch.core.gate import GateResult
from deepresearch.models import (
    CouncilResult,
    Evidence,
    FindingCheck,
    Plan,
    Report,
    Source,
    SubQuestion,
    Usage,
)
from deepresearch.models.claims import ExtractedClaims
from deepresearch.models.library import LibraryReuse
from deepresearch.models.scores import SourceScores
from deepresearch.models.thread import Thread, Turn

Intent = Literal["research", "chitchat", "clarify", "malicious"]


class RunState(TypedDict, total=False):
    recipe: str  # whose run this is (absent in checkpoints from before recipes: research)
    run_id: str
    #: the random marker of this run's data blocks (``injection.untrusted``), kept so that a
    #: resumed run fences its prompts the same way
    boundary: str
    question: str
    #: a follow-up: the run it follows up (set at start), and its thread (``stages/followup``)
    followup_of: str
    thread: Thread
    #: the thread's root only: the turns that followed it (``threads.record_turn``)
    thread_turns: list[Turn]
    intent: Intent
    intent_reply: str
    #: the clarifying question intake asked and the person's answer (``stages/pause.py``)
    clarification: dict[str, str]
    plan: Plan
    #: the council's proposals, scores and decision, when a council planned the run
    council: CouncilResult
    sub_questions: list[SubQuestion]
    #: what the run took from its owner's library (``stages/library.py``), when anything
    library: LibraryReuse
    #: when the library was looked in (ISO time, the run's clock): a unit reads a fresh
    #: library page from its stored text by it (``reading.LibraryPages``)
    library_checked: str
    wave: int
    units_used: int
    sources: dict[str, Source]
    considered: dict[str, SourceScores]
    evidence: list[Evidence]
    gate: GateResult
    #: every verified finding read against its quote before writing (``stages/check.py``)
    finding_checks: list[FindingCheck]
    #: the person's findings review, once answered (``stages/pause.py``): ``action``,
    #: ``dropped`` ids, and a named ``gap`` with ``gap_id``, the sub-question researching it
    findings_review: dict[str, Any]
    #: the person's review of the finished report, once answered (``stages/pause.py``):
    #: ``action``, the edited ``sentences`` (id -> new words) or the ``feedback``
    report_review: dict[str, Any]
    #: what a person asked the run to research besides the question (an edited plan's
    #: sub-questions, a findings review's gap): the gate's subject check reads them too
    asked_for: list[str]
    #: the judge's claims as checked (``stages/claims.py``); None: the detector's alone
    extracted_claims: ExtractedClaims | None
    reflections: list[str]
    #: keys of the leads followed so far, and leads found but not followed (no room left)
    leads: list[str]
    open_leads: list[str]
    warnings: list[str]
    # the ledger (``ledger.py``), recorded after every node and restored on resume
    usage: Usage
    fetches: int
    model_errors: list[str]
    search_errors: list[str]
    report: Report
    findings_restored: int
    findings_dropped: int
    invented_citations: int
