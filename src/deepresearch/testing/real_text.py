"""The real documents an injection detector must leave alone, read from the shared data
folder: 10,033 Wikipedia vital-article leads, 100 FreshWiki articles, 994 HotpotQA
paragraphs, the 181 ScrapingHub news and blog pages twice (their gold article text, and
everything their HTML hides: comments, alt and title text, hidden elements, ``data-*``
attributes, meta descriptions, hidden inputs), and the cited-page sentences of the 349
WiCE claims: 11,838 documents in all."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

from deepresearch.fetch.extract import strip_hidden
from deepresearch.testing.corpora import (
    freshwiki_documents,
    hotpotqa_documents,
    vital_documents,
)

SCRAPINGHUB_DIR = Path("extraction/scrapinghub")
WICE_FILE = Path("claims/wice/dev.jsonl")


def real_documents(data_dir: str | Path) -> list[tuple[str, str]]:
    """(id, text) of every document; ``(hidden)`` marks a page's hidden text."""
    root = Path(data_dir)
    docs: list[tuple[str, str]] = []
    docs += [(doc.id, doc.text) for doc in vital_documents(root)]
    docs += [(doc.id, doc.text) for doc in freshwiki_documents(root)]
    docs += [(doc.id, doc.text) for doc in hotpotqa_documents(root)]
    folder = root / SCRAPINGHUB_DIR
    truth = json.loads((folder / "ground-truth.json").read_text(encoding="utf-8"))
    for page_id, gold in truth.items():
        docs.append((page_id, gold["articleBody"]))
        html = gzip.decompress((folder / "html" / f"{page_id}.html.gz").read_bytes())
        _, hidden = strip_hidden(html.decode("utf-8", errors="replace"))
        docs.append((f"{page_id} (hidden)", hidden))
    with (root / WICE_FILE).open(encoding="utf-8") as handle:
        for number, line in enumerate(handle):
            if line.strip():
                claim = json.loads(line)
                docs.append((f"wice-{number}", "\n".join(claim["evidence"])))
    return docs
