"""Plain pydantic data shared by every layer. No I/O lives here."""

from deepresearch.models.claims import Claim, ClaimLedger
from deepresearch.models.council import CouncilProposal, CouncilResult
from deepresearch.models.evaluation import DimensionScore, EvalResult
from deepresearch.models.events import EventType, Payload, RunEvent, StoredData
from deepresearch.models.evidence import Evidence, Verification
from deepresearch.models.findings import FindingCheck
from deepresearch.models.plan import Plan, SubQuestion, SubQuestionStatus
from deepresearch.models.report import (
    Audit,
    AuditPolicy,
    AuditVerdict,
    Paragraph,
    Report,
    ReportKind,
    Section,
    Sentence,
    SourceRef,
    Table,
    TableRow,
)
from deepresearch.models.search import SearchHit
from deepresearch.models.source import Passage, Source, SourceKind
from deepresearch.models.usage import ModelCall, TokenCount, Usage

__all__ = [
    "Audit",
    "AuditPolicy",
    "AuditVerdict",
    "Claim",
    "ClaimLedger",
    "CouncilProposal",
    "CouncilResult",
    "DimensionScore",
    "EvalResult",
    "EventType",
    "Evidence",
    "FindingCheck",
    "ModelCall",
    "Paragraph",
    "Passage",
    "Payload",
    "Plan",
    "Report",
    "ReportKind",
    "RunEvent",
    "SearchHit",
    "Section",
    "Sentence",
    "Source",
    "SourceKind",
    "SourceRef",
    "StoredData",
    "SubQuestion",
    "SubQuestionStatus",
    "Table",
    "TableRow",
    "TokenCount",
    "Usage",
    "Verification",
]
