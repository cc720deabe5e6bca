"""What a user gives ``deepresearch`` is checked before any work, with exit code 2 and a
message, never a traceback: run ids (they name files), ``--out``, the question (one
normalisation and one length limit), and the configuration file."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from typer.testing import CliRunner

from deepresearch.cli.app import app

from .conftest import cli

runner = CliRunner()

GENERATORS = (
    "Python generators produce values lazily. A generator function uses the yield "
    "statement to hand back one value at a time and resumes where it left off."
)
LOCAL = ["--model", "none", "--search", "local"]


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    folder = tmp_path / "corpus"
    folder.mkdir()
    (folder / "generators.md").write_text(f"# Generators\n\n{GENERATORS}\n")
    return folder


def _files(root: Path) -> set[Path]:
    return {path for path in root.rglob("*") if path.is_file()}


class Done:
    """What a command did: its exit code and output."""

    def __init__(self, code: int, stdout: str, stderr: str) -> None:
        self.returncode, self.stdout, self.stderr = code, stdout, stderr


def quick(*args: str) -> Done:
    """The command in-process (for the checks that stop before any work; the runs
    themselves go through ``cli``, a real process)."""
    # --config sets DEEPRESEARCH_CONFIG for the process; the runner puts it back after
    result = runner.invoke(app, list(args), env={"DEEPRESEARCH_CONFIG": None})
    assert result.exception is None or isinstance(result.exception, SystemExit), result
    return Done(result.exit_code, result.stdout, result.stderr)


def _clean_failure(done: Done | subprocess.CompletedProcess[str], *needles: str) -> None:
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr and done.stderr.startswith("error: ")
    for needle in needles:
        assert needle in done.stderr


# run ids ----------------------------------------------------------------------------------
BAD_IDS = [
    "../../escaped",
    "../../tmp/x/evil",
    "/tmp/abs",
    "..",
    "a\\..\\b",
    "run\x1b]0;t\x07",
    "CON",
    "x" * 65,
    "-rf",
]


@pytest.mark.parametrize("bad", BAD_IDS)
def test_run_id_that_is_not_one_is_refused_before_any_work(
    bad: str, corpus: Path, tmp_path: Path
) -> None:
    before = _files(tmp_path)
    done = quick("run", "What are generators?", *LOCAL, "--corpus", str(corpus), "--run-id", bad)
    _clean_failure(done, "--run-id", "run id")
    assert "Research started" not in done.stderr
    assert _files(tmp_path) == before  # nothing written: no record, no report
    assert not (tmp_path / "data").exists()  # not even the data folder


@pytest.mark.parametrize("bad", ["../../escaped", "a/b", "nul"])
def test_resume_and_report_refuse_bad_ids(bad: str) -> None:
    _clean_failure(quick("run", "--resume", bad), "--resume")
    _clean_failure(quick("report", bad), "not a run id")


def test_unknown_run_ids_are_usage_errors() -> None:
    _clean_failure(cli("run", "--resume", "run-missing"), "no run 'run-missing'")
    _clean_failure(quick("report", "run-missing"), "no run")


def test_a_new_run_may_not_reuse_an_existing_id(corpus: Path, tmp_path: Path) -> None:
    first = cli("run", "What are generators?", *LOCAL, "--corpus", str(corpus), "--run-id", "mine")
    assert first.returncode == 0, first.stderr
    record = tmp_path / "data" / "runs" / "mine.json"
    kept = record.read_text()
    again = quick("run", "Another question?", *LOCAL, "--corpus", str(corpus), "--run-id", "mine")
    _clean_failure(again, "already exists", "--resume mine")
    assert record.read_text() == kept  # the first run's record is not overwritten


# --out ------------------------------------------------------------------------------------
def test_out_problems_are_found_before_the_run(corpus: Path, tmp_path: Path) -> None:
    (tmp_path / "afile").write_text("x")
    cases = {
        str(tmp_path): "is a folder",
        str(tmp_path / "afile" / "r.md"): "is a file, not a folder",
        "/proc/deepresearch-report.md": "cannot create files in /proc",
    }
    for out, needle in cases.items():
        done = quick("run", "What are generators?", *LOCAL, "--corpus", str(corpus), "--out", out)
        _clean_failure(done, needle, "hint: ")
        assert "Research started" not in done.stderr
    for command in (["report", "run-x"], ["employer", "Acme", *LOCAL]):
        done = quick(*command, "--out", str(tmp_path))
        _clean_failure(done, "is a folder")


def test_out_dash_writes_the_report_to_stdout(corpus: Path, tmp_path: Path) -> None:
    done = cli(
        "run", "What are generators?", *LOCAL, "--corpus", str(corpus), "--out", "-",
        "--run-id", "to-stdout",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("# What are generators?\n")
    assert "yield" in done.stdout and "report written to standard output" in done.stderr
    assert not list(tmp_path.glob("report.*")) and not (tmp_path / "-").exists()
    again = cli("report", "to-stdout", "--format", "json", "--out", "-")
    assert again.returncode == 0 and json.loads(again.stdout)["run_id"] == "to-stdout"
    both = quick("run", "Q?", *LOCAL, "--corpus", str(corpus), "--out", "-", "--json-events")
    _clean_failure(both, "standard output")


# the question ----------------------------------------------------------------------------
def test_the_question_is_normalised_like_everywhere_else(corpus: Path, tmp_path: Path) -> None:
    raw = "What are \x1b]0;PWNED\x07 generators\x07\x1b[31m?\x1b[0m\t \u202e"
    done = cli("run", raw, *LOCAL, "--corpus", str(corpus), "--run-id", "ctl", "--out", "r.md")
    assert done.returncode == 0, done.stderr
    record = json.loads((tmp_path / "data" / "runs" / "ctl.json").read_text())
    assert record["question"] == "What are generators?"
    report = (tmp_path / "r.md").read_text()
    assert report.startswith("# What are generators?\n")
    assert "\x1b" not in report and "\x07" not in report and "PWNED" not in report
    assert "\x1b" not in done.stderr and "\x07" not in done.stderr


def test_one_question_limit_everywhere(corpus: Path, tmp_path: Path) -> None:
    done = quick("run", "x" * 100_000, *LOCAL, "--corpus", str(corpus))
    _clean_failure(done, "100,000 characters long; the limit is 4,000")
    assert not (tmp_path / "data").exists()
    blank = quick("run", "\x07 \x1b[0m \t", *LOCAL, "--corpus", str(corpus))
    _clean_failure(blank, "the question is empty")
    employer = quick("employer", "x" * 5000, *LOCAL)
    _clean_failure(employer, "company", "4000")


# the configuration file ------------------------------------------------------------------
def test_invalid_toml_is_a_clear_usage_error(tmp_path: Path) -> None:
    config = tmp_path / "bad.toml"
    config.write_text('model = "none"\ndepth = \n')
    for command in (["run", "Q?"], ["doctor"], ["serve"]):
        done = quick(*command, "--config", str(config))
        _clean_failure(done, str(config), "not valid TOML", "line 2, column 9")


def test_unknown_config_keys_are_reported(tmp_path: Path) -> None:
    config = tmp_path / "typo.toml"
    config.write_text('model = "none"\ndept = "deep"\n')
    done = quick("run", "Q?", "--config", str(config))
    _clean_failure(done, "unknown setting 'dept' (did you mean 'depth'?)")
    (tmp_path / "deepresearch.toml").write_text('serch = "local"\n')  # found in the cwd
    _clean_failure(cli("doctor"), "unknown setting 'serch' (did you mean 'search'?)")
