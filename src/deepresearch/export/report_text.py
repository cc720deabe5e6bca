"""A research report's words, put in the page-neutral document every format draws
(``export.report_document``). Pure.

Inline citations are numbered by source (``[n]``, ``citation_numbers``), in order of
first citation; each format shows the verified quotes (``quotes_by_source``) under the
source they come from, so a reader can check every number against the words it stands
for. A sentence the audit did not find (fully) supported carries a visible mark
(``audit_flag``).

A report never loads anything and links only to its cited sources. In every text a model
or a page wrote (title, headings, sentences, quotes, reasons) control characters and
terminal sequences are removed, markdown images are removed, links keep their words and
lose their address, and a bare address that is not a cited source is removed
(``neutralize``); each format then escapes for itself.
"""

from __future__ import annotations

import re
from collections.abc import Collection

from deepresearch.core.budget import cost_text
from deepresearch.core.certainty import band
from deepresearch.core.provenance import url_key
from deepresearch.core.sanitize import strip_controls
from deepresearch.core.tiers import LOCAL_CORPUS
from deepresearch.models import Evidence, Report, Sentence, SourceRef, TableRow
from deepresearch.models.library import LibraryReuse
from deepresearch.models.scores import SourceScores
from deepresearch.models.thread import FollowupInfo

IMAGE_REMOVED = "(image removed)"
LINK_REMOVED = "(link removed)"
_MD_IMAGE = re.compile(r"!\[[^\]\n]*\](?:\([^)\n]*\)|\[[^\]\n]*\])")
_MD_LINK = re.compile(r"\[([^\]\n]*)\]\([^)\n]*\)")
_MD_REF_DEF = re.compile(r"^\s*\[[^\]\n]+\]:\s*\S+.*$", re.M)
_AUTOLINK = re.compile(r"<((?:https?|ftp|mailto|javascript|data):[^>\s]*)>", re.I)
_BARE_URL = re.compile(
    r"(?:\b(?:https?|ftp)://|\bwww\.)[^\s<>\[\]()\"'`]*[^\s<>\[\]()\"'`.,;:!?]", re.I
)


def neutralize(text: str, allowed: Collection[str] = ()) -> str:
    """``text`` without anything a renderer would load or link: images removed, links
    reduced to their words, bare addresses not in ``allowed`` (cited source URLs, compared
    by ``url_key``) replaced; control characters and terminal sequences removed."""
    text = _MD_IMAGE.sub(IMAGE_REMOVED, strip_controls(text))
    text = _MD_LINK.sub(lambda match: match.group(1), text)
    text = _MD_REF_DEF.sub("", text)
    text = _AUTOLINK.sub(lambda match: match.group(1), text)

    def bare(match: re.Match[str]) -> str:
        return match.group(0) if url_key(match.group(0)) in allowed else LINK_REMOVED

    return _BARE_URL.sub(bare, text)


def allowed_urls(report: Report) -> frozenset[str]:
    """The cited sources' addresses (``url_key``): the only ones a report may show."""
    return frozenset(url_key(ref.url) for ref in report.sources)


def flat(text: str) -> str:
    """Display form: line breaks inside a quote would break markdown's structure."""
    return " ".join(text.split())


def citation_numbers(report: Report) -> dict[str, int]:
    """Evidence id -> source number ``n`` as shown in the text (verified evidence only)."""
    by_source = {ref.id: ref.number for ref in report.sources}
    out: dict[str, int] = {}
    for item in report.evidence:
        if item.source_id in by_source and item.verified:
            out[item.id] = by_source[item.source_id]
    return out


def cite_marks(sentence: Sentence, numbers: dict[str, int]) -> list[int]:
    """The source numbers a sentence cites, in order, each once."""
    seen: dict[int, None] = {}
    for cid in sentence.citations:
        if cid in numbers:
            seen.setdefault(numbers[cid], None)
    return sorted(seen)


def quotes_by_source(report: Report) -> dict[str, list[Evidence]]:
    """The verified quotes the report cites, by source id."""
    cited = set(report.cited_evidence_ids())
    out: dict[str, list[Evidence]] = {}
    for item in report.evidence:
        if item.id in cited and item.verified:  # a FAIL quote is never shown, whatever the input
            out.setdefault(item.source_id, []).append(item)
    return out


def row_sentence(row: TableRow) -> Sentence:
    """A table row's Source cell as a textless sentence: its citations and audit verdict."""
    return Sentence(text="", citations=row.citations, audit=row.audit, audit_note=row.audit_note)


def audit_flag(sentence: Sentence) -> str:
    """A visible mark for a sentence the audit did not find (fully) supported."""
    if sentence.audit in (None, "supported"):
        return ""
    label = {
        "partial": "partly supported",
        "unsupported": "not supported",
        "uncited": "no citation",
    }
    # the note is a model's words too: no links, and no brackets to close the mark early
    plain = neutralize(sentence.audit_note or "").replace("[", "(").replace("]", ")")
    note = f": {plain}" if plain else ""
    return f"⚠ [{label[sentence.audit]}{note}]"


def header_lines(report: Report) -> list[str]:
    """A follow-up's place in its thread, then confidence and contradiction warnings for
    the top of a report (seed 003)."""
    thread = [followup_line(report.followup)] if report.followup is not None else []
    if report.library is not None:
        thread.append(library_line(report.library))
    ledger = report.claims
    if ledger is None or not ledger.claim_count:
        return thread
    lines = [
        *thread,
        f"Confidence {ledger.job_confidence:.0%} ({ledger.certainty or band(ledger.job_confidence)}): "
        f"{ledger.claim_count} claim(s) from "
        f"{ledger.source_count} source(s), from the quality of the sources behind each "
        "claim, how many agree and how many disagree, and how many sources were used.",
    ]
    disputed = len(ledger.contradicted)
    if disputed:
        unconfirmed = sum(
            1
            for claim in ledger.contradicted
            if set(claim.contradiction_basis.values()) == {"model"}
        )
        lines.append(
            f"⚠ Sources disagree on {disputed} claim(s): see “Where sources disagree”."
            + (
                f" For {unconfirmed} of them only the model's reading finds the disagreement;"
                " the rule-based check does not confirm it."
                if unconfirmed
                else ""
            )
        )
    return lines


def followup_line(info: FollowupInfo) -> str:
    """What a follow-up's report says of its thread: the turn, and what it reused, or
    that it is on a new topic and was researched afresh."""
    head = f"Follow-up {info.turn} in thread {info.root} (after {info.follows})"
    if info.topic_shift:
        return f"{head}: a new topic, so it was researched afresh; nothing from earlier turns was reused."
    return (
        f"{head}: reused {info.reused_sources} page(s) and {info.reused_evidence} verified "
        "quote(s) from earlier turns, without fetching them again."
    )


def audit_line(report: Report) -> str | None:
    """The audit's and the findings check's figures in one line, or None."""
    audit = report.audit
    if audit is None:
        return None
    checked = (
        f" Findings check: {audit.findings_checked} findings read against their quotes, "
        f"{audit.findings_partial} partly supported, {audit.findings_unsupported} unsupported "
        "and dropped before writing."
        if audit.findings_checked
        else ""
    )
    if audit.policy == "off" or audit.method == "none":
        return checked.strip() or None
    precision = (
        f", citation precision {audit.citation_precision:.0%}"
        if audit.citation_precision is not None
        else ""
    )
    return (
        f"Audit ({audit.policy}, {audit.method}): {audit.checked} sentences checked against their "
        f"sources: {audit.supported} supported, {audit.partial} partly, {audit.unsupported} not "
        f"supported; {audit.uncited_factual} factual without a citation; {audit.removed} removed{precision}."
        + checked
    )


def usage_line(report: Report) -> str:
    """The run's last line: what was cited and what it cost (in markdown's italics)."""
    usage = report.usage
    council = usage.by_stage.get("council")
    of_which = (
        f" (the council: {council.calls} calls, {council.input_tokens} input and "
        f"{council.output_tokens} output tokens)"
        if council is not None and council.calls
        else ""
    )
    return (
        f"_Run {report.run_id}: {len(report.sources)} sources cited, "
        f"{len(report.cited_evidence_ids())} verified quotes, {usage.calls} model calls, "
        f"{usage.input_tokens} input and {usage.output_tokens} output tokens, "
        f"{cost_text(usage.cost_usd, calls=usage.calls, unpriced_calls=usage.unpriced_calls)}"
        f"{of_which}._"
    )


def quality_detail(tier: str | None) -> str:
    """What a cited source's line says of its page's content (seed 001's tier), or
    nothing for a source read before tiers were kept."""
    return f"content: {tier}" if tier else ""


def source_detail(ref: SourceRef) -> str:
    """What a cited source's line says after its site: its content tier and, for a source
    whose quotes came from the library, the run they come from and when its page was read."""
    parts = [quality_detail(ref.content_quality)]
    if ref.library_run:
        read = ref.fetched_at.date().isoformat() if ref.fetched_at is not None else "?"
        parts.append(f"from your library ({ref.library_run}), page read {read}")
    return " · ".join(part for part in parts if part)


def library_line(reuse: LibraryReuse) -> str:
    """What a report says of its library: the verified quotes it reused, from how many
    earlier runs, how many pages it fetched again, and the quotes it did not reuse."""
    runs = len(reuse.runs)
    line = (
        f"From your library: {len(reuse.reused)} verified quote(s) of {runs} earlier run(s) "
        f"reused (pages read within {reuse.fresh_days:g} days are used as stored; "
        f"{reuse.refetched} older page(s) fetched again and the quotes checked on them)."
    )
    for reason in dict.fromkeys(item.reason for item in reuse.dropped):
        dropped = [item for item in reuse.dropped if item.reason == reason]
        sites = ", ".join(dict.fromkeys(_site(item.url) for item in dropped))
        line += f" {len(dropped)} quote(s) not reused, {reason}: {sites}."
    return line


def _site(url: str) -> str:
    host = url.split("://", 1)[-1].split("/", 1)[0]
    return host.removeprefix("www.") or url


def considered_name(scores: SourceScores) -> str:
    """How a candidate is named in "Sources considered": a local document by its own title
    (its "domain" is only ``local corpus``), a web page by its site."""
    if scores.domain == LOCAL_CORPUS and scores.title.strip():
        return " ".join(strip_controls(scores.title).split())
    return scores.domain or scores.url


def considered_by_provider(report: Report) -> dict[str, int]:
    """How many of the sources considered each search provider returned (a source that
    several returned counts for each), by provider name."""
    counts: dict[str, int] = {}
    for s in report.considered:
        for name in s.providers:
            counts[name] = counts.get(name, 0) + 1
    return dict(sorted(counts.items()))


def counts_line(counts: dict[str, int]) -> str:
    """How many candidates each search provider found, as one line."""
    return "Found by: " + ", ".join(f"{name} {count}" for name, count in counts.items())
