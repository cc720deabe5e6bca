"""The value sets the CLI's options take (``--depth``, ``--audit``,
``--on-model-unavailable``, ``--format``, ``--images``), as enums Typer lists in ``--help``; every
command that takes one of these options imports it from here."""

from __future__ import annotations

from enum import StrEnum


class Depth(StrEnum):
    quick = "quick"
    standard = "standard"
    deep = "deep"


class AuditMode(StrEnum):
    strict = "strict"
    mark = "mark"
    off = "off"


class Switch(StrEnum):
    on = "on"
    off = "off"


class OnModelUnavailable(StrEnum):
    fail = "fail"
    extractive = "extractive"


class Format(StrEnum):
    md = "md"
    html = "html"
    json = "json"
    pdf = "pdf"
    docx = "docx"
    odt = "odt"
    latex = "latex"
    bibtex = "bibtex"
    ris = "ris"
    csljson = "csljson"
