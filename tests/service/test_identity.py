"""A worker pool's identity across its lives (``service.identity``): a slot of the data
folder held while the process lives, whose id every life of the slot shares."""

from __future__ import annotations

from pathlib import Path

from deepresearch.service.identity import take_life


def test_a_later_life_of_a_slot_shares_its_prefix_and_a_live_one_never_does(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "workers"
    first = take_life(folder)
    second = take_life(folder)  # another live pool on the same data folder
    assert first is not None and second is not None
    assert first.earlier != second.earlier
    assert first.worker_id.startswith(first.earlier)
    first.end()  # the first process ends (a crash releases the lock too)
    again = take_life(folder)
    assert again is not None
    assert again.earlier == first.earlier and again.worker_id != first.worker_id
    other = take_life(tmp_path / "elsewhere" / "workers")  # another machine's folder
    assert other is not None and other.earlier not in (first.earlier, second.earlier)
    for life in (second, again, other):
        life.end()
