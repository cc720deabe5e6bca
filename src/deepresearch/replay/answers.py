"""What a recorded run got from people and from other runs, which a replay needs besides
its ports' answers: the answer each pause received (``answers.jsonl``: a clarifying
answer, a plan review's decision or edits, as the run resumed with them) and, for a
follow-up, what it read of the run it follows (``parents.jsonl``: one ``ParentTurn``).

A replay feeds the answers in order, resuming the run at each pause as the person did,
and serves the parent from the recording, so neither a person nor the parent's own
recording is needed. Writing the turn into the parent's thread is not repeated: it is a
write to another run, not something the follow-up's report depends on."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from deepresearch.context import ThreadStore
from deepresearch.models.thread import ParentTurn, Turn
from deepresearch.replay.tape import Tape

#: what a recording holds besides its ports' answers (the manifest's ``holds``): these,
#: and a budgeted run's budget decisions (``replay.ports``); a recording from before
#: lacks them, and a run that needed them is refused
HOLDS = ("answers", "parents", "budget")


class RecordingThreads:
    """A follow-up's thread store whose every parent read is written to the tape."""

    def __init__(self, inner: ThreadStore, tape: Tape) -> None:
        self._inner = inner
        self._tape = tape

    async def parent(self, run_id: str) -> ParentTurn:
        parent = await self._inner.parent(run_id)
        self._tape.append("parents", {"run_id": run_id, "parent": parent.model_dump(mode="json")})
        return parent

    async def record_turn(self, root: str, turn: Turn) -> None:
        await self._inner.record_turn(root, turn)


class ReplayThreads:
    """The recorded parent of a replayed follow-up; its turn is listed nowhere."""

    def __init__(self, parents: dict[str, ParentTurn], miss: Callable[[str], Exception]) -> None:
        self._parents = parents
        self._miss = miss

    async def parent(self, run_id: str) -> ParentTurn:
        parent = self._parents.get(run_id)
        if parent is None:
            raise self._miss(f"state of run {run_id!r}, which this run follows up")
        return parent

    async def record_turn(self, root: str, turn: Turn) -> None:
        pass  # the thread's root is another run; the replay keeps nothing


def recorded_parents(tape: Tape) -> dict[str, ParentTurn]:
    return {
        str(entry["run_id"]): ParentTurn.model_validate(entry["parent"])
        for entry in tape.entries("parents")
    }


def recorded_answers(tape: Tape) -> list[dict[str, Any]]:
    """The answers in the order the pauses were answered. A pause answered twice (a run
    that stopped before it went past the pause, answered again when it was resumed)
    counts once, with the answer it went on with: the last."""
    answers: dict[str, dict[str, Any]] = {}
    for entry in tape.entries("answers"):
        answers[str(entry.get("pause", len(answers)))] = entry
    return list(answers.values())
