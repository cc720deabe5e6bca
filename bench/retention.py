"""retention: bytes of storage per finished run before and after ``deepresearch gc``.

``N`` runs of the CLI (``deepresearch run --model none``, the offline web over the
HotpotQA documents of ``../shared/data``) into one fresh data folder, one after another,
as the issue's "17 small no-model jobs" grew ``checkpoints.sqlite3``; then ``deepresearch
gc`` (compaction of the finished runs' checkpoints to their last, stale pages, VACUUM).
Prints the checkpoint file's size and the whole data folder's SQLite files, per run,
before and after.

    python -m bench.retention [--runs 8]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from deepresearch.testing.corpora import hotpotqa_documents, hotpotqa_questions
from deepresearch.testing.corpus import save_corpus
from deepresearch.testing.web import offline_web_process

SHARED_DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"


def _cli(*args: str, data: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "DEEPRESEARCH_DATA_DIR": str(data)}
    return subprocess.run(  # noqa: S603 (our own command)
        [sys.executable, "-m", "deepresearch.cli.app", *args],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )


def _sizes(data: Path) -> tuple[int, int]:
    """(checkpoints.sqlite3 with its WAL, every SQLite file of the folder)."""
    checkpoints = sum(
        p.stat().st_size for p in data.glob("checkpoints.sqlite3*") if p.suffix != ".lock"
    )
    everything = sum(p.stat().st_size for p in data.glob("*.sqlite3*"))
    return checkpoints, everything


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=8)
    runs = parser.parse_args().runs
    with tempfile.TemporaryDirectory() as tmp:
        corpus = Path(tmp) / "corpus.json"
        save_corpus(list(hotpotqa_documents(SHARED_DATA)), corpus)
        data = Path(tmp) / "data"
        questions = [item.question for item in hotpotqa_questions(SHARED_DATA)][:runs]
        with offline_web_process(corpus) as web:
            host = web.removeprefix("http://")
            for number, question in enumerate(questions):
                _cli(
                    "run", question, "--model", "none", "--search", "searxng",
                    "--searxng-url", web, "--allow-host", host, "--run-id", f"bench-{number}",
                    "--out", str(Path(tmp) / f"{number}.md"), data=data,
                )  # fmt: skip
        before = _sizes(data)
        shown = _cli("gc", data=data)
        after = _sizes(data)
    print(shown.stdout.strip())
    print(f"runs: {len(questions)}")
    for label, (checkpoints, everything) in (("before gc", before), ("after gc", after)):
        print(
            f"{label}: checkpoints {checkpoints / 1e6:.2f} MB "
            f"({checkpoints / len(questions) / 1e3:.0f} kB a run); all SQLite files "
            f"{everything / 1e6:.2f} MB ({everything / len(questions) / 1e3:.0f} kB a run)"
        )


if __name__ == "__main__":
    main()
