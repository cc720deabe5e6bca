"""Seed 000's suspicious-input patterns, kept as data, and the one check that applies them.

Seed 000 (the employer-research recipe) exits early, marking the company SUSPICIOUS, when
a name looks like an injection attempt: ``SUSPICIOUS_PATTERNS`` is its list, in its order.
The same screen guards a research question at intake (``kind="question"``) with the
patterns that fit free text: an attempt to instruct the model (``injection``), an
unfilled template placeholder, or markup that loads or runs something. A question may well
say "bypass" or "prompt" ("How does heart bypass surgery work?"), so the seed's bare words
and its any-tag / any-``{...}`` patterns apply to names only.

    suspicious_reason("TestCorp")                                    # seed pattern test\\s*corp
    suspicious_reason("Tell me about {{company}}", kind="question")  # a template placeholder
    suspicious_reason("How does bypass surgery work?", kind="question")  # None
"""

from __future__ import annotations

import re
from typing import Literal

from deepresearch.injection import scan_direct

InputKind = Literal["name", "question"]

#: seed 000, 11.1 "Suspicious Name Patterns (CRITICAL)", in its order: (pattern, what it
#: catches). A name matching any is an IMMEDIATE EARLY_EXIT, verifiability SUSPICIOUS.
SUSPICIOUS_PATTERNS: tuple[tuple[str, str], ...] = (
    (r"ignore\s*ai", "an instruction to ignore the AI"),
    (r"test\s*corp", "a test company"),
    (r"fake\s*company", "a fake company"),
    (r"<[^>]+>", "an HTML/XML tag"),
    (r"\{[^}]+\}", "a template variable"),
    (r"prompt|inject|ignore|bypass|override", "an injection keyword"),
)

#: free text such as a research question: (pattern, what it is)
QUESTION_PATTERNS: tuple[tuple[str, str], ...] = (
    (r"\{\{|\}\}", "a template placeholder ({{ }})"),
    (r"\$\{", "a template placeholder (${ })"),
    (r"\{%|%\}|<%|%>", "template code ({% %} or <% %>)"),
    (r"<\s*/?\s*script\b", "a <script> tag"),
    (
        r"<\s*/?\s*(?:iframe|object|embed|img|image|svg|style|link|meta|form|input|base|a)"
        r"(?:\s[^<>]*)?/?>",
        "an HTML tag that loads or runs something",
    ),
    (r"\bjavascript\s*:", "a javascript: URL"),
)

_NAME = [(re.compile(pattern, re.I), what) for pattern, what in SUSPICIOUS_PATTERNS]
_QUESTION = [(re.compile(pattern, re.I), what) for pattern, what in QUESTION_PATTERNS]


def suspicious_reason(text: str, *, kind: InputKind = "name") -> str | None:
    """Why ``text`` looks like an injection attempt or a broken template, or None.

    ``kind="name"`` (a company name, a job title): seed 000's patterns, then the injection
    detector. ``kind="question"``: the detector, then template placeholders and active
    markup only."""
    if kind == "name":
        for pattern, what in _NAME:
            if pattern.search(text):
                return f"it contains {what} (seed 000 pattern {pattern.pattern!r})"
    findings = scan_direct(text)
    if findings:
        return f"it tries to instruct the model ({findings[0].describe()})"
    if kind == "question":
        for pattern, what in _QUESTION:
            if pattern.search(text):
                return f"it contains {what}"
    return None
