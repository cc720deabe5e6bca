"""docs/employer.md cannot rot: its Python example runs, and the example profiles in
docs/examples are what the recipe produces today on the same offline web."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from deepresearch.recipes.employer import EmployerRequest, render_employer
from deepresearch.testing.corpus import CorpusDocument, dump_corpus, parse_corpus
from deepresearch.testing.web import OfflineWeb

from .conftest import COMPANY, JOB_POSTING, run_employer, web_settings

DOCS = Path(__file__).resolve().parents[2] / "docs"
DOCS_URL = "http://127.0.0.1:8765"


@pytest.fixture
def cli_like_web(google_documents: list[CorpusDocument]) -> Iterator[OfflineWeb]:
    """The web the docs' commands serve: the corpus JSON, pages rendered from its text."""
    with OfflineWeb(parse_corpus(dump_corpus(google_documents))) as web:
        yield web


def _normalized(text: str, web: OfflineWeb) -> str:
    text = text.replace(web.base_url, DOCS_URL)
    text = text.replace(web.base_url.removeprefix("http://"), DOCS_URL.removeprefix("http://"))
    return re.sub(r"run-[0-9a-f]{12}", "run-ID", text)


def test_the_python_example_runs(
    cli_like_web: OfflineWeb,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    blocks = re.findall(r"```python\n(.*?)```", (DOCS / "employer.md").read_text(), re.S)
    assert blocks
    host = cli_like_web.base_url.removeprefix("http://")
    for block in blocks:
        code = block.replace(DOCS_URL, cli_like_web.base_url).replace("127.0.0.1:8765", host)
        exec(compile(code, "docs/employer.md", "exec"), {})
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "profile SPARSE CONTINUE_WITH_FLAGS"
    assert out[1] == "# Employer profile: Google"


@pytest.mark.parametrize(
    ("example", "request_"),
    [
        (
            "google-profile.md",
            EmployerRequest(company=COMPANY, job_description=JOB_POSTING.read_text()),
        ),
        ("google-company-profile.md", EmployerRequest(company=COMPANY, role="Software Engineer")),
    ],
)
async def test_the_example_profiles_are_current(
    cli_like_web: OfflineWeb, tmp_path: Path, example: str, request_: EmployerRequest
) -> None:
    result = await run_employer(request_, web_settings(cli_like_web, tmp_path))
    expected = _normalized((DOCS / "examples" / example).read_text(), cli_like_web)
    assert _normalized(render_employer(result, "md"), cli_like_web) == expected, (
        f"docs/examples/{example} is stale: regenerate it with the commands in docs/employer.md"
    )
