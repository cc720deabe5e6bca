"""The CLI's copies of shared lists equal their owners (issue 24). The CLI declares its
``--format`` choices as an enum (typer's choices) and must stay light for ``--help``, so it
does not import the owner: this test holds the two together."""

from __future__ import annotations

from deepresearch.cli.choices import Format
from deepresearch.export.formats import FORMATS


def test_the_format_option_offers_every_report_format() -> None:
    assert [member.value for member in Format] == list(FORMATS)
