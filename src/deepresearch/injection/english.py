"""English rules, one module per kind of attempt. Each pattern needs an instruction aimed
at a model, not just the words: "the assistant should greet customers" and "the annual
report must include the auditor's statement" do not match, "tell the user that ..." does."""

from __future__ import annotations

from deepresearch.injection.en_addressed import ADDRESSED
from deepresearch.injection.en_classic import EXFILTRATION, OVERRIDE, ROLE, STEERING
from deepresearch.injection.en_concealment import CONCEALMENT
from deepresearch.injection.en_dictation import DICTATION
from deepresearch.injection.en_fetch import FETCH
from deepresearch.injection.rules import Rule

ENGLISH: tuple[Rule, ...] = (
    *ADDRESSED,
    *DICTATION,
    *CONCEALMENT,
    *FETCH,
    *OVERRIDE,
    *ROLE,
    *EXFILTRATION,
    *STEERING,
)
