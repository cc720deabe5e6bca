"""The findings check's rules (seed 002's validate_findings, before writing), pure.

A finding is a claim, in the summarizer's words, and the verified quote it rests on. The
quote is known to be in its source; the claim is not known to be in the quote. Each is read
against its quote (by the judge, else by ``core.support.check_support``):

- a claim that is its quote (the run without a summarizer) is supported as it stands;
- ``unsupported`` findings are dropped: the writer never sees them, they are never cited,
  and the audit counts them;
- ``partial`` ones stay (the quote says part of it): the audit counts them too.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from deepresearch.core.verify import normalize
from deepresearch.models import Evidence, FindingCheck


def is_own_quote(item: Evidence) -> bool:
    """The claim says nothing but its quote (normalized): nothing to check."""
    return normalize(item.claim).strip(" .") == normalize(item.quote).strip(" .")


def to_check(evidence: Iterable[Evidence]) -> list[Evidence]:
    """The findings to read against their quotes: the verified ones."""
    return [item for item in evidence if item.verified]


def drop_unsupported(
    evidence: Sequence[Evidence], checks: Sequence[FindingCheck]
) -> tuple[list[Evidence], list[str]]:
    """``evidence`` without the findings their quote does not support, and their ids."""
    dropped = {check.evidence_id for check in checks if check.verdict == "unsupported"}
    kept = [item for item in evidence if item.id not in dropped]
    return kept, [item.id for item in evidence if item.id in dropped]


def check_counts(checks: Sequence[FindingCheck]) -> dict[str, int]:
    """For the audit: findings checked, partly supported, and unsupported (dropped)."""
    return {
        "findings_checked": len(checks),
        "findings_partial": sum(1 for check in checks if check.verdict == "partial"),
        "findings_unsupported": sum(1 for check in checks if check.verdict == "unsupported"),
    }
