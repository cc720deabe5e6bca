"""What ``deepresearch runs list`` says of a run, from its record and its checkpoint."""

from __future__ import annotations

from typing import Literal

#: what ``runs list`` says of a run
Status = Literal[
    "complete", "paused", "awaiting_input", "cancelled", "failed", "running", "unknown"
]
#: what a checkpoint says: finished with a report, stopped at a pause that waits for a
#: person's answer, stopped before the end, or nothing
CheckpointState = Literal["complete", "waiting", "pending"] | None


def run_status(recorded: str | None, checkpoint: CheckpointState, *, alive: bool) -> Status:
    """The checkpoint decides whether a run is complete; the record tells a failed run
    (it ended with run_failed) and a running one (``alive``: its process still runs) from
    one that stopped before the end and can be resumed (paused: interrupted, killed, or
    stopped on purpose) or waits for a person's answer (``awaiting_input``: ``deepresearch
    reply`` continues it) or whose pause was cancelled (the MCP ``reply`` tool's cancel:
    ``cancelled``, though ``deepresearch reply`` may still continue it). A run with neither
    a checkpoint nor a recorded failure never reached its first checkpoint, or its
    checkpoints are in another data folder: unknown.

    Whether a run waits is the checkpoint's to say (a pending pause), never the record's:
    a reply that got past the pause and then failed leaves a record that may still say
    ``awaiting_input``, and such a run waits for nothing."""
    if checkpoint == "complete":
        return "complete"
    if recorded == "running" and alive:
        return "running"
    if recorded == "cancelled":
        return "cancelled"
    if checkpoint == "waiting":
        return "awaiting_input"
    if recorded == "failed":
        return "failed"
    if checkpoint == "pending":
        return "paused"
    return "unknown"
