"""Render a corpus document as a realistic HTML page for the offline web.

The page has what extractors meet on the real web: a doctype, ``<title>``, date metadata,
a header with navigation, the text in ``<article>`` (``<h2>``/``<h3>`` for heading
paragraphs, ``<pre>`` for indented blocks, ``<p>`` otherwise) and a footer of boilerplate.
Everything taken from the document is HTML-escaped.
"""

from __future__ import annotations

import re
from html import escape

from deepresearch.testing.corpus import CorpusDocument

SITE_NAME = "Offline Web"

_HEADING = re.compile(r"(#{1,6})\s+(.*)", re.DOTALL)


def _block(paragraph: str) -> str:
    heading = _HEADING.match(paragraph.strip())
    if heading:
        level = min(max(len(heading.group(1)), 2), 6)
        return f"<h{level}>{escape(' '.join(heading.group(2).split()))}</h{level}>"
    lines = [line for line in paragraph.split("\n") if not line.strip().startswith("```")]
    if any(line[:1].isspace() for line in lines):
        body = "\n".join(line.rstrip() for line in lines)
        return f"<pre><code>{escape(body)}</code></pre>"
    return f"<p>{escape(' '.join(paragraph.split()))}</p>"


def article_blocks(document: CorpusDocument) -> list[str]:
    """The HTML blocks of the article body, one per paragraph of ``document.text``."""
    paragraphs = [
        paragraph
        for paragraph in re.split(r"\n[ \t]*\n", document.text.replace("\r\n", "\n"))
        if paragraph.strip()
    ]
    first = _HEADING.match(paragraphs[0].strip()) if paragraphs else None
    if first and " ".join(first.group(2).split()) == " ".join(document.title.split()):
        paragraphs = paragraphs[1:]
    return [_block(paragraph) for paragraph in paragraphs]


def render_page(document: CorpusDocument) -> str:
    """The full HTML page of ``document``."""
    title = escape(document.title)
    meta: list[str] = []
    byline = ""
    if document.published is not None:
        day = document.published.isoformat()
        meta.append(f'<meta name="date" content="{day}">')
        meta.append(f'<meta property="article:published_time" content="{day}T00:00:00+00:00">')
        human = f"{document.published.day} {document.published:%B %Y}"
        byline = f'<p class="byline">Published <time datetime="{day}">{human}</time></p>\n'
    first_text = next((p for p in document.text.split("\n\n") if p.strip()[:1] != "#"), "")
    description = " ".join(first_text.split())[:200]
    meta.append(f'<meta name="description" content="{escape(description)}">')
    source = (
        f'<p class="source">Originally published at {escape(document.url)}</p>\n'
        if document.url
        else ""
    )
    body = "\n".join(article_blocks(document))
    head_meta = "\n".join(meta)
    return f"""<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title}</title>
{head_meta}
<meta property="og:title" content="{title}">
<meta property="og:type" content="article">
</head>
<body>
<header class="site-header">
<a class="logo" href="/">{SITE_NAME}</a>
<nav aria-label="Main">
<ul><li><a href="/">Home</a></li><li><a href="/about">About</a></li>\
<li><a href="/topics">Topics</a></li><li><a href="/contact">Contact</a></li></ul>
</nav>
<form class="search" action="/search" method="get"><input name="q" placeholder="Search">\
<input type="hidden" name="format" value="json"><button>Search</button></form>
</header>
<main>
<article>
<h1>{title}</h1>
{byline}{body}
</article>
<aside class="related"><h2>More from {SITE_NAME}</h2>
<ul><li><a href="/">Most read this week</a></li><li><a href="/">Editor's picks</a></li></ul>
</aside>
</main>
<footer class="site-footer">
{source}<p>Text is available under the Creative Commons Attribution-ShareAlike License.</p>
<p><a href="/privacy">Privacy policy</a> · <a href="/terms">Terms of use</a> ·
<a href="/cookies">Cookie settings</a></p>
<p>© {SITE_NAME}. All rights reserved.</p>
</footer>
</body>
</html>
"""


def render_home(count: int) -> str:
    """The offline web's front page."""
    return f"""<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>{SITE_NAME}</title></head>
<body>
<h1>{SITE_NAME}</h1>
<p>{count} documents. Pages live at /page/&lt;id&gt;; search with
/search?q=...&amp;format=json.</p>
</body>
</html>
"""
