"""``deepresearch replay`` and ``record`` as a user runs them (real processes, real HTTP on
loopback, ``--model none``): a run recorded with ``--record DIR`` is reproduced byte for
byte from its own data folder and from the copied folder in a new data folder; a replay
that cannot be exact fails with a clear message and the exit-code table's code."""

from __future__ import annotations

import json
from pathlib import Path

from deepresearch.cli.common import EXIT_FAILED, EXIT_USAGE, EXIT_WAITING

from .conftest import cli, offline_args

QUESTION = "If Gallu is a demon Lilu is what?"


def _run(web: str, tmp_path: Path, *extra: str) -> tuple[str, dict[str, str]]:
    env = {"DEEPRESEARCH_DATA_DIR": str(tmp_path / "data")}
    out = tmp_path / "report.json"
    done = cli(
        "run",
        QUESTION,
        *offline_args(web),
        "--model",
        "none",
        "--format",
        "json",
        "--out",
        str(out),
        "--run-id",
        "recorded-run",
        *extra,
        env=env,
    )
    assert done.returncode == 0, done.stderr
    return out.read_text(encoding="utf-8"), env


def test_a_recorded_run_replays_byte_for_byte_here_and_from_a_copied_folder(
    web_process: str, tmp_path: Path
) -> None:
    folder = tmp_path / "recording"
    original, env = _run(web_process, tmp_path, "--record", str(folder))
    # keys are not in the exported manifest; the question and versions are
    manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["request"]["question"] == QUESTION and manifest["finished"] is True
    assert "deepresearch" in manifest["versions"]
    assert not any(key.endswith("_key") for key in manifest["settings"])

    here = cli("replay", "recorded-run", "--format", "json", env=env)
    assert here.returncode == 0, here.stderr
    assert here.stdout == original

    elsewhere = {"DEEPRESEARCH_DATA_DIR": str(tmp_path / "other-machine")}
    copied = tmp_path / "copied"
    copied.mkdir()
    (copied / "rec").mkdir()
    for item in folder.iterdir():
        (copied / "rec" / item.name).write_bytes(item.read_bytes())
    away = cli("replay", "--from", str(copied / "rec"), "--format", "json", env=elsewhere)
    assert away.returncode == 0, away.stderr
    assert away.stdout == original
    assert "replayed run recorded-run" in away.stderr


def test_replays_that_cannot_be_exact_fail_clearly(web_process: str, tmp_path: Path) -> None:
    _, env = _run(web_process, tmp_path)
    unknown = cli("replay", "no-such-run", env=env)
    assert unknown.returncode == EXIT_USAGE
    assert "has no recording" in unknown.stderr and "Traceback" not in unknown.stderr

    # a recording that lost its pages: the replay says which page it lacks, fetches nothing
    (tmp_path / "data" / "recordings" / "recorded-run" / "pages.jsonl").unlink()
    damaged = cli("replay", "recorded-run", env=env)
    assert damaged.returncode == EXIT_FAILED
    assert "this run's recording has no page http" in damaged.stderr
    assert "Traceback" not in damaged.stderr

    neither = cli("replay", env=env)
    assert neither.returncode == EXIT_USAGE and "RUN_ID or --from" in neither.stderr

    taken = tmp_path / "taken"
    taken.mkdir()
    (taken / "x").write_text("x")
    export = cli("record", "recorded-run", str(taken), env=env)
    assert export.returncode == EXIT_USAGE and "is not empty" in export.stderr


def test_a_reviewed_run_and_its_followup_replay_from_copied_folders(
    web_process: str, tmp_path: Path
) -> None:
    """A run that waited for its plan to be reviewed (answered with ``deepresearch reply``,
    edited) and a follow-up of it (``deepresearch ask``, its plan approved): each exported
    alone with ``record`` and replayed in a data folder that holds neither run."""
    env = {"DEEPRESEARCH_DATA_DIR": str(tmp_path / "data")}
    reviewed = tmp_path / "reviewed.json"
    waiting = cli(
        "run", QUESTION, *offline_args(web_process), "--model", "none", "--review-plan",
        "--format", "json", "--out", str(reviewed), "--run-id", "reviewed-run", env=env,
    )  # fmt: skip
    assert waiting.returncode == EXIT_WAITING, waiting.stderr
    answered = cli(
        "reply", "reviewed-run", "--brief", "Gallu and Lilu in Mesopotamian myth.",
        "--sub-question", "What is a gallu demon?", "--sub-question", "What is a lilu?",
        env=env,
    )  # fmt: skip
    assert answered.returncode == 0, answered.stderr
    followup = tmp_path / "followup.json"
    asked = cli(
        "ask", "reviewed-run", "Which texts mention the lilu?", *offline_args(web_process),
        "--model", "none", "--format", "json", "--out", str(followup), "--run-id", "followup-run",
        env=env,
    )  # fmt: skip
    # the thread reviews its plans (the followed run's options): the follow-up waits too
    assert asked.returncode == EXIT_WAITING, asked.stderr
    assert "Traceback" not in asked.stderr and "deepresearch reply followup-run" in asked.stderr
    assert cli("reply", "followup-run", "--approve", env=env).returncode == 0

    elsewhere = {"DEEPRESEARCH_DATA_DIR": str(tmp_path / "other-machine")}
    for run_id, written in (("reviewed-run", reviewed), ("followup-run", followup)):
        folder = tmp_path / f"copy-{run_id}"
        assert cli("record", run_id, str(folder), env=env).returncode == 0
        replayed = cli("replay", "--from", str(folder), "--format", "json", env=elsewhere)
        assert replayed.returncode == 0, replayed.stderr
        assert replayed.stdout == written.read_text(encoding="utf-8"), run_id


def test_a_run_under_a_budget_replays_from_a_copied_folder_and_an_old_one_is_refused(
    web_process: str, tmp_path: Path
) -> None:
    """A run under all three budgets, exported with ``record`` and replayed in a new data
    folder: the same report (budgets that cut a run: ``tests/e2e/test_replay_budget.py``).
    The same recording as an earlier version wrote it (no budget decisions): one clear
    line, exit 1."""
    budgets = ("--max-tokens", "1000000", "--max-cost", "5", "--max-time", "3600")
    written, env = _run(web_process, tmp_path, *budgets)
    folder = tmp_path / "copy"
    exported = cli("record", "recorded-run", str(folder), env=env)
    assert exported.returncode == 0, exported.stderr
    decisions = (folder / "budget.jsonl").read_text(encoding="utf-8").splitlines()
    assert decisions and all(json.loads(line)["over"] is None for line in decisions)
    elsewhere = {"DEEPRESEARCH_DATA_DIR": str(tmp_path / "other-machine")}
    replayed = cli("replay", "--from", str(folder), "--format", "json", env=elsewhere)
    assert replayed.returncode == 0, replayed.stderr
    assert replayed.stdout == written

    (folder / "budget.jsonl").unlink()
    manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    manifest["holds"].remove("budget")
    (folder / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    old = cli("replay", "--from", str(folder), env=elsewhere)
    assert old.returncode == EXIT_FAILED
    (line,) = [line for line in old.stderr.splitlines() if line.startswith("error:")]
    assert "ran under a budget (max_tokens, max_cost, max_time)" in line
    assert "earlier version" in line
    assert "Traceback" not in old.stderr and old.stdout == ""
