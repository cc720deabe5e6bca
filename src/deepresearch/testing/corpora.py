"""Corpus builders over the shared test data (FreshWiki, Vital Articles, HotpotQA).

The data stays in its own folder (``../shared/data`` in CI); these functions read it and
return ``CorpusDocument`` lists with deterministic ids (``fw-``, ``va-``, ``hp-`` + slug of
the title) in a deterministic order. As a command::

    python -m deepresearch.testing.corpora --data ../shared/data --out corpus.json \\
        [--freshwiki [N]] [--vital [N]] [--vital-topics Arts,History] [--hotpotqa]

With no collection flag every collection is written in full.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any
from urllib.parse import quote

from pydantic import BaseModel, ConfigDict

from deepresearch.testing.corpus import CorpusDocument, save_corpus, unique_ids

FRESHWIKI_DIR = Path("wiki/freshwiki/json")
VITAL_FILE = Path("wiki/vital-articles-summaries-en.json")
HOTPOT_QUESTIONS_FILE = Path("qa/hotpotqa/hotpotqa_train.json")
HOTPOT_CORPUS_FILE = Path("qa/hotpotqa/hotpotqa_train_corpus.json")

#: FreshWiki sections that hold link lists, not prose.
SKIPPED_SECTIONS = frozenset(
    {"references", "external links", "see also", "notes", "further reading", "bibliography"}
)

_SENTENCE_END = re.compile(r"[.!?…][\"'”’)\]]*$")
# FreshWiki summaries lost their paragraph breaks: "...band Sylvia.In 2004, Hawkins..."
_GLUED_PARAGRAPH = re.compile(r"(?<=[a-z0-9)\]][.!?])(?=[A-Z])")


class HotpotQuestion(BaseModel):
    """One HotpotQA question with its gold supporting facts."""

    model_config = ConfigDict(frozen=True)

    id: str
    question: str
    answer: str
    supporting_facts: list[tuple[str, int]]
    #: the gold sentences (stripped), in ``supporting_facts`` order
    supporting_sentences: list[str]
    type: str = ""
    level: str = ""

    @property
    def supporting_titles(self) -> list[str]:
        """The titles of the gold paragraphs, first occurrence order, no repeats."""
        return list(dict.fromkeys(title for title, _ in self.supporting_facts))


def wikipedia_url(title: str) -> str:
    """The English Wikipedia URL of an article title."""
    return "https://en.wikipedia.org/wiki/" + quote(
        title.replace(" ", "_"), safe="()_,'!-.:;@$*&+=/~"
    )


def freshwiki_documents(data_dir: str | Path, limit: int | None = None) -> list[CorpusDocument]:
    """One document per FreshWiki article: summary, then ``## heading`` + prose per section."""
    folder = Path(data_dir) / FRESHWIKI_DIR
    files = sorted(folder.glob("*.json"))
    articles = [json.loads(path.read_text(encoding="utf-8")) for path in files]
    if limit is not None:
        articles = articles[: max(0, limit)]
    titles = [str(article["title"]).replace("_", " ").strip() for article in articles]
    ids = unique_ids("fw-", titles)
    return [
        CorpusDocument(
            id=doc_id,
            title=title,
            text=_freshwiki_text(article),
            url=str(article.get("url") or wikipedia_url(title)),
        )
        for doc_id, title, article in zip(ids, titles, articles, strict=True)
    ]


def _freshwiki_text(article: dict[str, Any]) -> str:
    paragraphs = [
        part.strip()
        for part in _GLUED_PARAGRAPH.split(str(article.get("summary") or ""))
        if part.strip()
    ]
    for section in article.get("content") or []:
        heading = " ".join(str(section.get("section_title") or "").split())
        if heading.lower() in SKIPPED_SECTIONS:
            continue
        sentences = [
            _with_period(" ".join(str(item.get("sentence") or "").split()))
            for item in section.get("section_content") or []
        ]
        prose = " ".join(sentence for sentence in sentences if sentence)
        if heading:
            paragraphs.append(f"## {heading}")
        if prose:
            paragraphs.append(prose)
    return "\n\n".join(paragraphs)


def _with_period(sentence: str) -> str:
    if not sentence or _SENTENCE_END.search(sentence):
        return sentence
    return sentence + "."


def vital_documents(
    data_dir: str | Path,
    limit: int | None = None,
    topics: Sequence[str] | None = None,
) -> list[CorpusDocument]:
    """One document per Vital Article lead section, sorted by title.

    ``topics`` keeps only those topics (case-insensitive, e.g. ``["Arts", "History"]``);
    ``limit`` then keeps the first N.
    """
    data = json.loads((Path(data_dir) / VITAL_FILE).read_text(encoding="utf-8"))
    wanted = {topic.strip().lower() for topic in topics} if topics else None
    entries = [
        entry
        for _, entry in sorted(data.items())
        if str(entry.get("extract") or "").strip()
        and (wanted is None or str(entry.get("topic") or "").lower() in wanted)
    ]
    if limit is not None:
        entries = entries[: max(0, limit)]
    titles = [str(entry.get("title") or "").strip() for entry in entries]
    ids = unique_ids("va-", titles)
    return [
        CorpusDocument(
            id=doc_id,
            title=title,
            text=str(entry["extract"]).strip(),
            url=wikipedia_url(title),
        )
        for doc_id, title, entry in zip(ids, titles, entries, strict=True)
    ]


def hotpotqa_documents(data_dir: str | Path) -> list[CorpusDocument]:
    """One document per HotpotQA paragraph, sorted by title.

    The sentences are kept exactly as they are and joined with a space where they do not
    already start with one, so every gold sentence (raw or stripped) is a substring.
    """
    corpus = json.loads((Path(data_dir) / HOTPOT_CORPUS_FILE).read_text(encoding="utf-8"))
    titles = sorted(corpus)
    ids = unique_ids("hp-", titles)
    return [
        CorpusDocument(
            id=doc_id,
            title=title,
            text=join_sentences(corpus[title]),
            url=wikipedia_url(title),
        )
        for doc_id, title in zip(ids, titles, strict=True)
    ]


def join_sentences(sentences: Sequence[str]) -> str:
    """Concatenate sentences, adding a space only where one is missing."""
    parts: list[str] = []
    for sentence in sentences:
        if parts and sentence and not sentence[0].isspace() and not parts[-1][-1:].isspace():
            parts.append(" ")
        parts.append(sentence)
    return "".join(parts)


def hotpotqa_questions(data_dir: str | Path) -> list[HotpotQuestion]:
    """The HotpotQA questions, in file order, with their gold sentences resolved."""
    base = Path(data_dir)
    questions = json.loads((base / HOTPOT_QUESTIONS_FILE).read_text(encoding="utf-8"))
    corpus: dict[str, list[str]] = json.loads(
        (base / HOTPOT_CORPUS_FILE).read_text(encoding="utf-8")
    )
    result: list[HotpotQuestion] = []
    for item in questions:
        facts = [(str(title), int(index)) for title, index in item["supporting_facts"]]
        context = {str(title): sentences for title, sentences in item.get("context") or []}
        gold: list[str] = []
        for title, index in facts:
            sentences = corpus.get(title) or context.get(title) or []
            if 0 <= index < len(sentences):
                gold.append(sentences[index].strip())
        result.append(
            HotpotQuestion(
                id=str(item.get("_id") or ""),
                question=str(item["question"]),
                answer=str(item["answer"]),
                supporting_facts=facts,
                supporting_sentences=gold,
                type=str(item.get("type") or ""),
                level=str(item.get("level") or ""),
            )
        )
    return result


def _count(value: str) -> int | None:
    """argparse type for ``--freshwiki [N]``: a number, or ``all``."""
    if value.lower() == "all":
        return None
    number = int(value)
    if number < 0:
        raise argparse.ArgumentTypeError("must be >= 0 or 'all'")
    return number


_ALL = "all"


def main(argv: Sequence[str] | None = None) -> int:
    """Build a JSON corpus from the shared data."""
    parser = argparse.ArgumentParser(
        prog="python -m deepresearch.testing.corpora",
        description="Build a JSON corpus from the shared test data.",
    )
    parser.add_argument("--data", type=Path, required=True, help="the shared data folder")
    parser.add_argument("--out", type=Path, required=True, help="the corpus JSON to write")
    parser.add_argument("--freshwiki", nargs="?", const=_ALL, metavar="N", help="N or all")
    parser.add_argument("--vital", nargs="?", const=_ALL, metavar="N", help="N or all")
    parser.add_argument("--vital-topics", default="", help="comma-separated topics")
    parser.add_argument("--hotpotqa", action="store_true", help="all HotpotQA paragraphs")
    args = parser.parse_args(argv)
    everything = args.freshwiki is None and args.vital is None and not args.hotpotqa
    if not args.data.is_dir():  # not in the repository: a fresh clone has none beside it
        print(
            f"error: no shared data folder at {args.data}\n"
            "hint: give --data the folder that holds qa/ and wiki/; without it, serve "
            "python -m deepresearch.testing.pydoc_corpus's folder instead (README)",
            file=sys.stderr,
        )
        return 1
    try:
        documents: list[CorpusDocument] = []
        counts: dict[str, int] = {}
        if everything or args.freshwiki is not None:
            found = freshwiki_documents(args.data, _count(args.freshwiki or _ALL))
            counts["freshwiki"] = len(found)
            documents += found
        if everything or args.vital is not None:
            topics = [topic for topic in args.vital_topics.split(",") if topic.strip()]
            found = vital_documents(args.data, _count(args.vital or _ALL), topics or None)
            counts["vital"] = len(found)
            documents += found
        if everything or args.hotpotqa:
            found = hotpotqa_documents(args.data)
            counts["hotpotqa"] = len(found)
            documents += found
        size = save_corpus(documents, args.out)
    except (OSError, ValueError, KeyError, argparse.ArgumentTypeError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    summary = ", ".join(f"{name} {count}" for name, count in counts.items())
    print(f"wrote {len(documents)} documents ({summary}), {size} bytes, to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
