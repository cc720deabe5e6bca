"""The offline world for the employer recipe: real pages about a real company from the
shared data, and a scripted model that answers the recipe's three prompts.

``company_documents(data_dir, "Google")`` returns the company's Wikipedia lead section (the
Vital Articles summaries), the news pages of the ScrapingHub benchmark that are about it
(served byte for byte in an in-process ``OfflineWeb``), and a few unrelated articles so
search has something to rank against. As a command::

    python -m deepresearch.testing.employer --data ../shared/data --company Google \\
        --out corpus.json

``employer_script()`` replies like a careful model, computed from the prompt alone:
entities found in the posting, a profile whose every item comes from the passages it
cites, a judge that agrees with the heuristic tiers. ``noisy=True`` adds what a sloppy
model adds (generic terms, platitudes, an invented technology and requirement) so the
firewall has something to remove; ``judge_action`` forces the judge's recommendation.
"""

from __future__ import annotations

import argparse
import gzip
import json
import re
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from langchain_core.messages import BaseMessage

from deepresearch.recipes.employer import classify, judge, synthesize
from deepresearch.recipes.employer.extract import (
    company_matcher,
    item_sentences,
    names_company,
    technologies_in,
)
from deepresearch.recipes.employer.judge import JudgeVerdict
from deepresearch.recipes.employer.lists import default_lists
from deepresearch.recipes.employer.models import Action, HeuristicAssessment
from deepresearch.recipes.employer.synthesize import DraftItem, SynthesisDraft
from deepresearch.recipes.employer.tiers import CONFIDENCE_RANGES, allowed_actions
from deepresearch.testing.corpora import vital_documents, wikipedia_url
from deepresearch.testing.corpus import (
    CorpusDocument,
    decode_html,
    html_title_and_text,
    save_corpus,
)

SCRAPINGHUB_DIR = Path("extraction/scrapinghub")
MIN_MENTIONS = 4
DISTRACTORS = ("Microsoft", "IBM", "Nintendo", "Amazon (company)", "Python (programming language)")

NOISY_TECH = ("cloud", "Agile", "Haskell")
NOISY_REQUIREMENTS = ("Team player", "10+ years of COBOL mainframe experience")
NOISY_CULTURE = ("Great benefits", "Dynamic team")


def company_documents(
    data_dir: str | Path,
    company: str,
    *,
    min_mentions: int = MIN_MENTIONS,
    distractors: Sequence[str] = DISTRACTORS,
) -> list[CorpusDocument]:
    """The company's Wikipedia summary, the benchmark's news pages that name it at least
    ``min_mentions`` times (their HTML served as it is), and unrelated summaries."""
    base = Path(data_dir)
    wanted = {company, *distractors}
    vital = [doc for doc in vital_documents(base) if doc.title in wanted]
    documents = sorted(vital, key=lambda doc: doc.title != company)
    truth = json.loads((base / SCRAPINGHUB_DIR / "ground-truth.json").read_text("utf-8"))
    pattern = re.compile(rf"\b{re.escape(company)}\b")
    for page_id in sorted(truth):
        body = str(truth[page_id]["articleBody"])
        if len(pattern.findall(body)) < min_mentions:
            continue
        path = base / SCRAPINGHUB_DIR / "html" / f"{page_id}.html.gz"
        if not path.is_file():
            continue
        title, _ = html_title_and_text(decode_html(gzip.decompress(path.read_bytes())))
        documents.append(
            CorpusDocument(
                id=f"sh-{page_id[:12]}",
                title=title or str(truth[page_id]["url"]),
                text=body,
                url=str(truth[page_id]["url"]),
                source=path,
            )
        )
    return documents


# -- the scripted model ---------------------------------------------------------------------

# a data block as a model sees it: ``<passage-«run marker» id="P1">`` ... ``</passage-…>``
_PASSAGE = re.compile(r"<passage(?:-[^\s>]+)? ([^>]*)>\n(.*?)\n</passage(?:-[^\s>]+)?>", re.S)
_ATTR = re.compile(r'(\w+)="([^"]*)"')
_INPUT = re.compile(r"<input>\n(.*?)\n</input>", re.S)


def _first_line(text: str) -> str:
    return text.strip().splitlines()[0]


def _field(user: str, name: str) -> str:
    match = re.search(rf"^{name}:\s*(.+)$", user, re.M)
    return match.group(1).strip() if match else ""


def employer_script(
    *, noisy: bool = False, judge_action: Action | None = None
) -> Callable[[list[BaseMessage]], str]:
    """A function from messages to a reply, for ``ScriptedChatModel``."""

    def reply(messages: list[BaseMessage]) -> str:
        system = str(messages[0].content) if messages else ""
        user = str(messages[-1].content) if messages else ""
        if system.startswith(_first_line(classify.SYSTEM)):
            return _entities(user)
        if system.startswith(_first_line(synthesize.SYSTEM)):
            return _profile(user, noisy=noisy)
        if system.startswith(_first_line(judge.SYSTEM)):
            return _verdict(user, judge_action)
        return json.dumps({})

    return reply


def _entities(user: str) -> str:
    match = _INPUT.search(user)
    text = match.group(1) if match else user
    lists = default_lists()
    return json.dumps(
        {
            "query_type": "job_description",
            "company_name": classify.find_company(text),
            "job_title": classify.find_job_title(text),
            "extracted_skills": classify.find_skills(text, lists),
        }
    )


def _profile(user: str, *, noisy: bool) -> str:
    lists = default_lists()
    company = company_matcher(_field(user, "Company").replace("(unknown)", ""))
    tech: dict[str, list[str]] = {}
    requirements: list[DraftItem] = []
    culture: list[DraftItem] = []
    summary: list[DraftItem] = []
    for attrs, body in _PASSAGE.findall(user):
        label = dict(_ATTR.findall(attrs)).get("id", "")
        for name in technologies_in(body, lists):
            tech.setdefault(name, []).append(label)
        for sentence in item_sentences(body):
            cite = DraftItem(text=sentence, evidence=[label])
            if any(cue.search(sentence) for cue in lists.requirement_cues):
                requirements.append(cite)
            elif any(cue.search(sentence) for cue in lists.culture_cues) and (
                label.startswith("J") or names_company(sentence, company)
            ):
                culture.append(cite)
            if names_company(sentence, company) and len(summary) < 3 and label.startswith("E"):
                summary.append(cite)
    draft = SynthesisDraft(
        employer_summary=summary or [DraftItem(text="No summary.")],
        identified_requirements=requirements[:8],
        tech_stack=[DraftItem(text=name, evidence=ids[:2]) for name, ids in tech.items()],
        culture_signals=culture[:5],
        reasoning_trace="Items taken from the passages that state them.",
    )
    if noisy:
        anchor = ["E1"]
        draft.tech_stack += [DraftItem(text=t, evidence=anchor) for t in NOISY_TECH]
        draft.identified_requirements += [
            DraftItem(text=t, evidence=anchor) for t in NOISY_REQUIREMENTS
        ]
        draft.culture_signals += [DraftItem(text=t, evidence=anchor) for t in NOISY_CULTURE]
    return draft.model_dump_json()


def _verdict(user: str, forced: Action | None) -> str:
    heuristics = HeuristicAssessment.model_validate_json(_field(user, "Heuristic assessment"))
    research, data = heuristics.preliminary_tier, heuristics.data_quality_tier
    attempt = int((_field(user, "Search attempt") or "1").split()[0])
    low, high = CONFIDENCE_RANGES[research]
    allowed = allowed_actions(research, data, can_retry=attempt < 2)
    verdict = JudgeVerdict(
        data_quality_tier=data,
        research_quality_tier=research,
        data_confidence_score=(low + high) // 2,
        recommended_action=forced or allowed[-1 if research == "MEDIUM" else 0],
        reasoning_trace=f"The profile's items are backed by quotes; tier {research}.",
    )
    return verdict.model_dump_json()


def main(argv: Sequence[str] | None = None) -> int:
    """Write a company corpus (JSON) for the offline web."""
    parser = argparse.ArgumentParser(
        prog="python -m deepresearch.testing.employer",
        description="Build a corpus of real pages about one company from the shared data.",
    )
    parser.add_argument("--data", type=Path, required=True, help="the shared data folder")
    parser.add_argument("--company", required=True, help="e.g. Google")
    parser.add_argument("--out", type=Path, required=True, help="the corpus JSON to write")
    args = parser.parse_args(argv)
    try:
        documents = company_documents(args.data, args.company)
        save_corpus(documents, args.out)
    except (OSError, ValueError, KeyError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    print(f"wrote {len(documents)} documents to {args.out} ({wikipedia_url(args.company)} first)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
