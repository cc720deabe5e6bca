"""Shared CLI pieces: the exit codes, building Settings from flags, checking what the
user gave (question, run id, output path and format) before any work, the one writer of
reports (text or binary, to a file or standard output), and printing errors and
untrusted text plainly.

Every command exits with one of these codes (README.md, "Exit codes", is the same table):

    0    done: the report (or profile) was written, or the job completed
    1    the run failed or was cancelled (reply --cancel; resume it), the report is not ready yet, a
         doctor check failed, or deepresearch itself failed unexpectedly
    2    usage or configuration: a bad flag, argument or config file, an invalid,
         unknown or already used run id, an unknown job, an output path that cannot
         be written, a missing or refused key, no service at the URL, a port in use
    3    nothing reliable found: the abort report (employer: the early exit) was written
    4    the run waits for your answer (a clarifying question, a plan or findings to
         review): deepresearch reply RUN_ID "..." (a job: jobs reply) continues it
    130  interrupted (Ctrl-C); a run resumes with --resume RUN_ID, serve shuts down first
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

import typer

from deepresearch.core.ids import check_run_id
from deepresearch.core.sanitize import for_terminal, normalize_question
from deepresearch.errors import ConfigError, DeepResearchError, InvalidInput
from deepresearch.export import BINARY_FORMATS

if TYPE_CHECKING:  # pydantic-settings loads when a command runs, not for --help
    from deepresearch.settings import Settings

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2
EXIT_ABORT = 3
EXIT_WAITING = 4
EXIT_INTERRUPTED = 130

#: ``--out -``: write to standard output
STDOUT = Path("-")


def fail(exc: DeepResearchError) -> NoReturn:
    code = EXIT_USAGE if isinstance(exc, ConfigError) else EXIT_FAILED
    error(exc.message, exc.hint, code=code)


def error(message: str, hint: str = "", *, code: int = EXIT_USAGE) -> NoReturn:
    """Print ``error: ...`` (and ``hint: ...``) on stderr and exit with ``code``.
    Messages may quote what a user, a page or a model wrote, so they are escaped."""
    typer.echo(f"error: {for_terminal(message)}", err=True)
    if hint:
        typer.echo(f"hint: {for_terminal(hint)}", err=True)
    raise typer.Exit(code)


def say(text: str) -> None:
    """A status line on stderr; untrusted parts are escaped."""
    typer.echo(for_terminal(text, multiline=True), err=True)


def settings_from(overrides: dict[str, Any]) -> Settings:
    from deepresearch.settings import load_settings

    try:
        return load_settings(**overrides)
    except DeepResearchError as exc:
        fail(exc)


def stderr_is_terminal() -> bool:
    return sys.stderr.isatty()


def use_config_file(config: Path | None) -> None:
    """Point Settings at ``--config FILE``, or stop with exit code 2 if it is missing."""
    if config is None:
        return
    if not config.is_file():
        error(f"configuration file {config} does not exist")
    os.environ["DEEPRESEARCH_CONFIG"] = str(config)


def question_or_exit(question: str) -> str:
    """The normalised question (the same rules as the library and the API), or exit 2."""
    try:
        return normalize_question(question)
    except InvalidInput as exc:
        fail(exc)


def run_id_or_exit(run_id: str, flag: str = "run id") -> str:
    """``run_id`` if it is a valid run id, or exit 2 before any work."""
    try:
        return check_run_id(run_id)
    except InvalidInput as exc:
        error(f"{flag}: {exc.message}", exc.hint)


def check_output(
    out: Path | None, fmt: str, *, default: Path = STDOUT, flag: str = "--out"
) -> Path:
    """Where ``fmt`` output goes (``out``, else ``default``), checked now, before any
    research; exit 2 if it could not be written there. ``-`` is standard output.

    A binary format (pdf, docx, odt) goes to standard output only when it was asked for
    (``--out -``) and standard output is not a terminal. A file must not be a folder, and
    its folder must exist or be creatable and take new files (missing parent folders are
    created when writing)."""
    target = default if out is None else out
    if target == STDOUT:
        if fmt in BINARY_FORMATS and out is None:
            error(
                f"{fmt.upper()} is a binary format; pass {flag} FILE",
                f"or {flag} - to send it to a pipe",
            )
        if fmt in BINARY_FORMATS and sys.stdout.isatty():
            error(
                f"not writing a binary {fmt.upper()} to the terminal",
                f"redirect standard output to a file or a program, or pass {flag} FILE",
            )
        return target
    hint = f"give {flag} a file path you can write, or {flag} - for standard output"
    if target.is_dir():
        error(f"{flag} {target} is a folder, not a file", hint)
    if target.exists():
        try:
            with target.open("a", encoding="utf-8"):  # opened, not changed
                pass
        except OSError as exc:
            error(f"{flag} {target} cannot be written ({exc.strerror or exc})", hint)
        return target
    folder = target.absolute().parent
    while not folder.exists():
        folder = folder.parent
    if not folder.is_dir():
        error(f"{flag} {target}: {folder} is a file, not a folder", hint)
    try:
        handle, probe = tempfile.mkstemp(dir=folder, prefix=".deepresearch-")
    except OSError as exc:
        error(f"{flag} {target}: cannot create files in {folder} ({exc.strerror or exc})", hint)
    os.close(handle)
    os.unlink(probe)
    return target


def write_output(out: Path, data: str | bytes, *, saved: str = "") -> None:
    """Write ``data`` (text, or a binary format's bytes) to ``out`` (``-``: stdout). A
    failure exits 2 saying where the work is kept (``saved``), so nothing is lost."""
    payload = data.encode("utf-8") if isinstance(data, str) else data
    try:
        if out == STDOUT:
            sys.stdout.flush()
            sys.stdout.buffer.write(payload)
            sys.stdout.buffer.flush()
            return
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_bytes(payload)
    except OSError as exc:
        error(f"could not write {shown(out)} ({exc.strerror or exc})", saved)


def shown(out: Path) -> str:
    return "standard output" if out == STDOUT else str(out)
