"""What a recorded run got from people and from other runs, which a replay needs besides
its ports' answers: the answer each pause received (``answers.jsonl``: a clarifying
answer, a plan review's decision or edits, as the run resumed with them) and, for a
follow-up, what it read of the run it follows (``parents.jsonl``: one ``ParentTurn``),
and what its owner's library offered it (``library.jsonl``: the quotes each question got).

A replay feeds the answers in order, resuming the run at each pause as the person did,
and serves the parent from the recording, so neither a person nor the parent's own
recording is needed. Writing the turn into the parent's thread is not repeated: it is a
write to another run, not something the follow-up's report depends on."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

from deepresearch.context import ThreadStore
from deepresearch.librarydb.shelf import Shelf
from deepresearch.models.library import ShelvedPage, ShelvedQuote
from deepresearch.models.thread import ParentTurn, Turn
from deepresearch.replay.tape import Tape

#: what a recording holds besides its ports' answers (the manifest's ``holds``): these,
#: a budgeted run's budget decisions and what the library offered (``replay.ports``); a
#: recording from before lacks them, and a run that needed them is refused (one without
#: ``library`` replays with no library, as it ran)
HOLDS = ("answers", "parents", "budget", "library")


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


def library_key(words: Sequence[str], limit: int) -> str:
    return json.dumps([list(words), limit], ensure_ascii=False)


def page_key(url: str) -> str:
    return json.dumps(["page", url], ensure_ascii=False)


class RecordingShelf:
    """The owner's library, with every answer written to the tape (an empty one too)."""

    def __init__(self, inner: Shelf, tape: Tape) -> None:
        self._inner = inner
        self._tape = tape

    async def quotes(self, words: Sequence[str], *, limit: int) -> list[ShelvedQuote]:
        found = await self._inner.quotes(words, limit=limit)
        dumped = [quote.model_dump(mode="json") for quote in found]
        self._tape.append("library", {"key": library_key(words, limit), "quotes": dumped})
        return found

    async def page(self, url: str) -> ShelvedPage | None:
        found = await self._inner.page(url)
        dumped = found.model_dump(mode="json") if found is not None else None
        self._tape.append("library", {"key": page_key(url), "page": dumped})
        return found


class ReplayShelf:
    """What the library offered the recorded run, question by question."""

    def __init__(self, tape: Tape, miss: Callable[[str], Exception]) -> None:
        self._answers = {str(e["key"]): e for e in tape.entries("library")}
        self._miss = miss

    async def quotes(self, words: Sequence[str], *, limit: int) -> list[ShelvedQuote]:
        found = self._answers.get(library_key(words, limit))
        if found is None:
            raise self._miss(f"library answer for {' '.join(words)[:80]!r}")
        return [ShelvedQuote.model_validate(quote) for quote in found["quotes"]]

    async def page(self, url: str) -> ShelvedPage | None:
        found = self._answers.get(page_key(url))
        if found is None:
            raise self._miss(f"library answer for the page {url}")
        return ShelvedPage.model_validate(found["page"]) if found["page"] is not None else None


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
