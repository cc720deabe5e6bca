"""The labelled injection corpus: hand-written payloads rendered into pages.

``bench/data/injection/`` holds the sources, all written for this project (see the
``source`` field: a few payloads follow the *style* of public collections, in our own
words, with that collection's licence named):

- ``payloads.jsonl``: injected texts with their class labels and language;
- ``contexts.jsonl``: long benign paragraphs (a page's real content) per language;
- ``benign.jsonl``: tricky texts that must not be flagged (pages about AI, product help
  that says "the assistant should ...", security advice, recipes, exam and UX wording,
  people addressed by notes), plus a few pages *about* prompt injection that quote payloads
  (flagged by policy, counted apart);
- ``corpus.jsonl``: what ``build()`` makes of them, committed so that a test and the
  benchmark read the same pages: each payload twice, once in plain words and once
  disguised (zero-width characters, look-alike letters, full-width letters, l33tspeak,
  spaced letters, Unicode tag characters, base64, HTML entities, percent-encoding), each
  time hidden a different way (visible paragraph, HTML comment, CSS-hidden elements,
  alt / title / aria-label / data- attributes, meta description, hidden input,
  ``<template>``, plain text, a markdown comment) inside a page of benign context.

Payloads are split once, by a hash of their id, into ``dev`` (used while writing the
rules) and ``test`` (checked afterwards), so a figure on ``test`` measures generalization.

    python -m bench.injection_data    # rebuild corpus.jsonl from the sources
"""

from __future__ import annotations

import base64
import hashlib
import html
import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

DATA = Path(__file__).resolve().parent / "data" / "injection"
CORPUS = DATA / "corpus.jsonl"

HIDINGS = (
    "visible",
    "html-comment",
    "display-none",
    "visibility-hidden",
    "font-size-0",
    "white-on-white",
    "offscreen",
    "hidden-attribute",
    "aria-hidden",
    "sr-only",
    "style-class",
    "alt",
    "title",
    "aria-label",
    "data-attribute",
    "meta-description",
    "hidden-input",
    "template",
    "plain-text",
    "markdown-comment",
)
ENCODINGS = (
    "zero-width",
    "homoglyph",
    "fullwidth",
    "leet",
    "spaced",
    "tags",
    "base64",
    "entities",
    "url-encoded",
    "mixed-case",
)
# disguises that only make sense on Latin-script, English text
_LATIN_ONLY = {"homoglyph", "leet", "spaced", "tags", "mixed-case"}
_HOMOGLYPHS = str.maketrans({"a": "а", "e": "е", "o": "о", "i": "і", "c": "с", "p": "р"})
_LEET = str.maketrans({"a": "4", "e": "3", "o": "0", "i": "1", "s": "5", "t": "7"})


@dataclass(frozen=True)
class Case:
    """One page of the corpus."""

    id: str
    split: str
    labels: tuple[str, ...]
    lang: str
    hiding: str
    encoding: str
    format: str  # "html" or "text"
    content: str
    source: str

    def as_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "split": self.split,
            "labels": list(self.labels),
            "lang": self.lang,
            "hiding": self.hiding,
            "encoding": self.encoding,
            "format": self.format,
            "content": self.content,
            "source": self.source,
        }


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    with path.open(encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def split_of(payload_id: str) -> str:
    digest = hashlib.sha256(payload_id.encode()).digest()
    return "dev" if digest[0] % 2 == 0 else "test"


def load_corpus(path: Path = CORPUS) -> list[Case]:
    return [Case(**{**row, "labels": tuple(row["labels"])}) for row in read_jsonl(path)]


def benign_texts() -> list[dict[str, Any]]:
    return read_jsonl(DATA / "benign.jsonl")


def build() -> list[Case]:
    """Every payload twice (plain, then disguised), each in its own hiding style and
    inside a page of context in the payload's language (English when there is none)."""
    payloads = read_jsonl(DATA / "payloads.jsonl")
    contexts = read_jsonl(DATA / "contexts.jsonl")
    by_lang: dict[str, list[dict[str, Any]]] = {}
    for context in contexts:
        by_lang.setdefault(context["lang"], []).append(context)
    cases: list[Case] = []
    for index, payload in enumerate(payloads):
        pool = by_lang.get(payload["lang"]) or by_lang["en"]
        for variant in range(2):
            context = pool[(index + variant) % len(pool)]
            hiding = HIDINGS[(index * 3 + variant * 7) % len(HIDINGS)]
            encoding = "plain" if variant == 0 else _encoding_for(payload, index)
            text = encode(payload["text"], encoding)
            fmt, content = render(text, hiding, context, payload["lang"])
            cases.append(
                Case(
                    id=f"{payload['id']}-{'ab'[variant]}",
                    split=split_of(payload["id"]),
                    labels=tuple(payload["labels"]),
                    lang=payload["lang"],
                    hiding=hiding,
                    encoding=encoding,
                    format=fmt,
                    content=content,
                    source=payload["source"],
                )
            )
    return cases


def _encoding_for(payload: dict[str, Any], index: int) -> str:
    choices = [
        encoding for encoding in ENCODINGS if payload["lang"] == "en" or encoding not in _LATIN_ONLY
    ]
    if "\n" in payload["text"]:
        choices = [c for c in choices if c not in ("spaced", "leet")]
    return choices[index % len(choices)]


def encode(text: str, encoding: str) -> str:
    """``text`` in one of the disguises (URLs and e-mail addresses keep their letters:
    a disguised address would not be fetched)."""
    if encoding == "plain":
        return text
    if encoding == "base64":
        return "Reference: " + base64.b64encode(text.encode()).decode()
    if encoding == "url-encoded":
        return quote(text, safe="")
    if encoding == "tags":
        return "See the notes." + "".join(chr(0xE0000 + ord(c)) for c in text if ord(c) < 0x7F)
    if encoding == "entities":
        return "".join(
            f"&#{ord(c)};" if i % 2 == 0 and c.isalpha() else c for i, c in enumerate(text)
        )
    return " ".join(_encode_word(word, encoding, i) for i, word in enumerate(text.split(" ")))


def _encode_word(word: str, encoding: str, index: int) -> str:
    if "://" in word or "@" in word or "www." in word or "{" in word or "<" in word:
        return word
    if encoding == "zero-width":
        return "\u200b".join(word[i : i + 2] for i in range(0, len(word), 2))
    if encoding == "homoglyph":
        return word.translate(_HOMOGLYPHS)
    if encoding == "fullwidth":
        return "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c for c in word)
    if encoding == "leet":
        return word.lower().translate(_LEET)
    if encoding == "spaced":
        return " ".join(word) + " "
    if encoding == "mixed-case":
        return "".join(c.upper() if (i + index) % 2 else c.lower() for i, c in enumerate(word))
    raise ValueError(f"unknown encoding {encoding!r}")


def render(payload: str, hiding: str, context: dict[str, Any], lang: str) -> tuple[str, str]:
    """(format, content): ``payload`` hidden one way in a page of ``context``."""
    paragraphs = context["paragraphs"]
    middle = len(paragraphs) // 2
    if hiding in ("plain-text", "markdown-comment"):
        inserted = payload if hiding == "plain-text" else f"[//]: # ({payload})"
        parts = [f"# {context['topic']}", *paragraphs[:middle], inserted, *paragraphs[middle:]]
        return "text", "\n\n".join(parts)
    escaped = html.escape(payload, quote=True)
    body_html = escaped.replace("\n", "<br>")
    head = ""
    block = {
        "visible": f"<p>{body_html}</p>",
        "html-comment": f"<!-- {payload.replace('--', '- -')} -->",
        "display-none": f'<div style="display:none">{body_html}</div>',
        "visibility-hidden": f'<p style="visibility:hidden">{body_html}</p>',
        "font-size-0": f'<p><span style="font-size:0">{body_html}</span></p>',
        "white-on-white": f'<p style="color:#ffffff">{body_html}</p>',
        "offscreen": f'<div style="position:absolute;left:-9999px">{body_html}</div>',
        "hidden-attribute": f"<div hidden>{body_html}</div>",
        "aria-hidden": f'<div aria-hidden="true">{body_html}</div>',
        "sr-only": f'<span class="sr-only">{body_html}</span>',
        "style-class": f'<p class="x-note">{body_html}</p>',
        "alt": f'<img src="/images/figure.png" alt="{escaped}">',
        "title": f'<p><a href="/more" title="{escaped}">More about this</a></p>',
        "aria-label": f'<button type="button" aria-label="{escaped}">Share</button>',
        "data-attribute": f'<div class="widget" data-note="{escaped}"></div>',
        "meta-description": "",
        "hidden-input": f'<form action="/s"><input type="hidden" name="ref" value="{escaped}">'
        "<button>Search</button></form>",
        "template": f"<template>{body_html}</template>",
    }[hiding]
    if hiding == "style-class":
        head = "<style>.x-note { display: none }</style>"
    if hiding == "meta-description":
        head = f'<meta name="description" content="{escaped}">'
    text_paragraphs = [f"<p>{html.escape(p)}</p>" for p in paragraphs]
    article = "".join([*text_paragraphs[:middle], block, *text_paragraphs[middle:]])
    page = (
        f'<!doctype html><html lang="{lang}"><head><meta charset="utf-8">'
        f"<title>{html.escape(context['topic'])}</title>{head}</head><body>"
        '<header><nav><a href="/">Home</a> <a href="/about">About</a></nav></header>'
        f"<main><article><h1>{html.escape(context['topic'])}</h1>{article}</article></main>"
        "<footer><p>© 2024 Example Publishing</p></footer></body></html>"
    )
    return "html", page


def benign_pages() -> Iterator[tuple[dict[str, Any], str, str]]:
    """(row, format, content) for every tricky benign text, as a visible paragraph in a page
    of English context (hidden where such text usually hides: a honeypot label, alt text)."""
    contexts = [c for c in read_jsonl(DATA / "contexts.jsonl") if c["lang"] == "en"]
    for index, row in enumerate(benign_texts()):
        hiding = {"forms": "display-none", "a11y": "alt"}.get(row["kind"], "visible")
        yield row, *render(row["text"], hiding, contexts[index % len(contexts)], row["lang"])


def main() -> None:
    cases = build()
    with CORPUS.open("w", encoding="utf-8") as handle:
        for case in cases:
            handle.write(json.dumps(case.as_json(), ensure_ascii=False) + "\n")
    print(f"wrote {len(cases)} pages to {CORPUS}")


if __name__ == "__main__":
    main()
