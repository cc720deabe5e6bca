"""How one research unit ended, pure (seed 004: "one research unit's failure is its own").

A unit is one sub-question's research within a wave. It ends ``completed``, or, when it
raised something unexpected or ran past its time limit, ``failed`` / ``timed_out`` with a
reason safe to show anyone (seed 004's sanitized messages: no stack trace, URL or
provider detail). Such a unit hands back an empty result and its sub-question is marked
failed with the reason; the other units of the wave and the run go on, and the gate and
the report's limitations name it.

Our own errors are not a unit's own: a refused key, a model that is unavailable under
``on_model_unavailable = fail``, a budget, a cancelled run are the run's, and stop it as
before (``owns``)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from deepresearch.errors import DeepResearchError
from deepresearch.models import SubQuestion
from deepresearch.models.plan import UnitStatus

TIMED_OUT = "research unit timed out"
FAILED = "research unit execution failed"


@dataclass(frozen=True)
class UnitOutcome:
    """How a unit ended, and why when it did not complete."""

    status: UnitStatus = "completed"
    reason: str | None = None

    @property
    def failed(self) -> bool:
        return self.status != "completed"


COMPLETED = UnitOutcome()


def owns(error: BaseException) -> bool:
    """Whether ``error`` is the unit's own failure (the unit fails, the run goes on) rather
    than the run's (it propagates as before): anything unexpected, and a time-out, is the
    unit's; our own errors (configuration, providers under a fail policy, budgets) and
    anything that is not an ``Exception`` (a cancelled task) are the run's."""
    return isinstance(error, Exception) and not isinstance(error, DeepResearchError)


def unit_outcome(error: BaseException) -> UnitOutcome:
    """The outcome of a unit that raised ``error`` (one it ``owns``): a time-out, the
    unit's own or one of its calls', is ``timed_out``; anything else ``failed``. The
    reason never carries the error's text, which may hold a URL or a provider's words."""
    if isinstance(error, TimeoutError):
        return UnitOutcome("timed_out", TIMED_OUT)
    return UnitOutcome("failed", FAILED)


def failed_units(sub_questions: Sequence[SubQuestion]) -> list[SubQuestion]:
    """The sub-questions left failed by their research unit, in plan order (a covered
    one whose further unit failed still has its answer: not among them)."""
    return [sq for sq in sub_questions if sq.failure and sq.status == "failed"]


def failure_note(sub_questions: Sequence[SubQuestion]) -> str | None:
    """The report's limitation for the sub-questions whose research failed, or None:
    ``Research failed for: <question> (research unit timed out); ...``."""
    failed = failed_units(sub_questions)
    if not failed:
        return None
    return "Research failed for: " + "; ".join(f"{sq.text} ({sq.failure})" for sq in failed) + "."
