"""Rendering an EmployerResult: markdown, HTML, JSON. Pure.

The words every format shares are in ``profile_text``. Found facts cite their verified quotes by number ([1], [2]...), listed under Evidence
with their pages. Inferred items sit in their own section, labelled as assumptions.
Everything the reranker removed, and every routing decision, is shown.
"""

from __future__ import annotations

import html
from collections.abc import Sequence

from deepresearch.models import Evidence
from deepresearch.recipes.base import FORMATS
from deepresearch.recipes.employer.models import (
    CleanedData,
    EmployerResult,
    ProfileItem,
    RoutingStep,
)
from deepresearch.recipes.employer.profile_text import (
    ROUTING_HEADER,
    cite_numbers,
    cited_ids,
    evidence_numbers,
    meta_line,
    profile_title,
    routing_cells,
    shown_data,
    status_lines,
)


def render_employer(result: EmployerResult, fmt: str) -> str:
    """``result`` as ``md``, ``html`` or ``json``."""
    if fmt == "md":
        return to_markdown(result)
    if fmt == "html":
        return to_html(result)
    if fmt == "json":
        return to_json(result)
    raise ValueError(f"unknown format {fmt!r}; choose one of {', '.join(FORMATS)}")


def to_json(result: EmployerResult) -> str:
    return result.model_dump_json(indent=2) + "\n"


# -- markdown -------------------------------------------------------------------------------


def to_markdown(result: EmployerResult) -> str:
    numbers = evidence_numbers(result)
    data = shown_data(result)
    out = [f"# {_md(profile_title(result))}", ""]
    out += [f"*{_md(meta_line(result))}*", ""]
    out += [f"- {_md(line)}" for line in status_lines(result)]
    out.append("")
    if result.early_exit:
        out += [
            "> No profile is passed on: bad data is worse than no data. What the research "
            "found is shown below for transparency only.",
            "",
        ]
    out += ["## Summary", ""]
    if data.employer_summary:
        out += [f"{_md(data.employer_summary)}{_md_marks(data.summary_evidence, numbers)}", ""]
    else:
        out += ["*No summary could be built from verified sources.*", ""]
    for heading, items in (
        ("Tech stack (found in sources)", data.tech_stack),
        ("Requirements", data.identified_requirements),
        ("Culture signals", data.culture_signals),
    ):
        out += [f"## {heading}", ""]
        out += [f"- {_md(i.text)}{_md_marks(i.evidence, numbers)}" for i in items] or [
            "*None found.*"
        ]
        out.append("")
    out += _md_inferred(data)
    out += _md_quality(result)
    out += _md_routing(result.routing_trace)
    out += _md_searches(result)
    out += _md_evidence(result.evidence, numbers, result)
    return "\n".join(out).rstrip() + "\n"


def _md(text: str) -> str:
    flat = " ".join(text.split())
    for char in "\\`*_[]<>|":
        flat = flat.replace(char, "\\" + char)
    return flat


def _md_marks(ids: Sequence[str], numbers: dict[str, int]) -> str:
    marks = cite_numbers(ids, numbers)
    return (" " + "".join(f"[{n}]" for n in marks)) if marks else ""


def _md_inferred(data: CleanedData) -> list[str]:
    industry = data.inferred_industry
    if industry is None:
        return []
    out = [
        "## Inferred (not found in any source)",
        "",
        f"Industry: **{_md(industry.industry)}**, guessed from the words "
        f"{_md(', '.join(industry.matched_signals))}. Technologies typical of that industry, "
        "offered as assumptions to check, not as facts about this employer:",
        "",
    ]
    out += [f"- {_md(item.text)} *(inferred)*" for item in data.inferred_tech_stack] or [
        "- *(all already found in sources)*"
    ]
    return [*out, ""]


def _md_quality(result: EmployerResult) -> list[str]:
    r = result.reranker
    out = ["## Quality assessment", ""]
    out.append(f"- Flags: {_md(', '.join(r.quality_flags) or 'none')}")
    out.append(f"- Missing: {_md(', '.join(r.missing_data_categories) or 'nothing')}")
    out.append(f"- Bad-data patterns: {_md(', '.join(r.patterns_detected) or 'none')}")
    verification = r.company_verification
    out.append(f"- Company verification: {verification.status} ({_md(verification.note)})")
    out.append(f"- Reasoning: {_md(r.reasoning_trace)}")
    pruned = r.pruned_data
    removed = [
        (name, values)
        for name, values in (
            ("generic tech terms", pruned.tech_stack),
            ("generic requirements", pruned.identified_requirements),
            ("platitudes", pruned.culture_signals),
            ("not supported by any verified passage", pruned.unsupported),
        )
        if values
    ]
    if removed:
        out += ["", "Pruned:", ""]
        out += [f"- {name}: {_md('; '.join(values))}" for name, values in removed]
    if result.processing_errors or result.warnings:
        out += ["", "Problems:", ""]
        out += [f"- {_md(text)}" for text in [*result.processing_errors, *result.warnings]]
    return [*out, ""]


def _md_routing(trace: Sequence[RoutingStep]) -> list[str]:
    if not trace:
        return []
    out = [
        "## Routing",
        "",
        "| " + " | ".join((*ROUTING_HEADER, "state after")) + " |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for step in trace:
        after = step.after
        state = (
            f"search_attempt={after.search_attempt}, low_data_flag={after.low_data_flag}, "
            f"early_exit={after.early_exit}"
        )
        out.append("| " + " | ".join((*routing_cells(step), state)) + " |")
    return [*out, ""]


def _md_searches(result: EmployerResult) -> list[str]:
    out = ["## Searches", ""]
    for attempt in result.attempts:
        label = "first attempt" if attempt.attempt == 1 else "enhanced retry"
        if not attempt.queries:
            out.append(f"- Attempt {attempt.attempt} ({label}): not searched")
            continue
        for res in attempt.results:
            found = f"{len(res.evidence)} passages kept" if res.evidence else "nothing kept"
            if res.error:
                found = f"failed: {res.error}"
            out.append(f"- Attempt {attempt.attempt} ({label}): “{_md(res.query)}” — {found}")
    return [*out, ""]


def _md_evidence(
    evidence: Sequence[Evidence], numbers: dict[str, int], result: EmployerResult
) -> list[str]:
    """The cited quotes with their pages; the other passages read are only counted (the
    JSON output has them all)."""
    titles = {source.url: source.title for source in result.sources}
    cited = set(cited_ids(result))
    out = ["## Evidence", ""]
    for item in sorted(evidence, key=lambda e: numbers.get(e.id, 10**6)):
        if item.id not in cited:
            continue
        title = titles.get(item.source_url) or item.source_url
        out.append(
            f"{numbers[item.id]}. “{_md(item.quote)}” — {_md(title)} <{item.source_url}> ({item.id})"
        )
    if not cited:
        out.append("*No quote is cited.*")
    others = len(evidence) - len(cited)
    if others > 0:
        out += ["", f"*{others} other verified passages were read; the JSON output lists them.*"]
    return out


# -- HTML -----------------------------------------------------------------------------------

_STYLE = """
body{font:16px/1.5 system-ui,sans-serif;max-width:52rem;margin:2rem auto;padding:0 1rem;color:#222}
h1{font-size:1.6rem}h2{font-size:1.2rem;margin-top:2rem;border-bottom:1px solid #ddd}
.status{background:#f5f5f5;padding:.6rem 1rem;border-radius:6px}
.exit{background:#fde8e8}.flags{background:#fff7e0}
.inferred{background:#eef3ff;padding:.2rem 1rem;border-radius:6px}
sup a{text-decoration:none}table{border-collapse:collapse;font-size:.9rem}
td,th{border:1px solid #ddd;padding:.25rem .5rem}.quote{color:#444}
"""


def to_html(result: EmployerResult) -> str:
    numbers = evidence_numbers(result)
    parts = _html_head(result)
    parts += _html_profile(shown_data(result), numbers)
    parts += _html_quality(result)
    parts += _html_routing(result.routing_trace)
    parts += _html_searches(result)
    parts += _html_evidence(result, numbers)
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"


def _html_head(result: EmployerResult) -> list[str]:
    """The page's head, title and status box (its colour says early exit or low data)."""
    e = html.escape
    status_class = (
        "status exit"
        if result.early_exit
        else ("status flags" if result.low_data_flag else "status")
    )
    parts = [
        "<!doctype html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f"<title>{e(profile_title(result))}</title><style>{_STYLE}</style></head><body>",
        f"<h1>{e(profile_title(result))}</h1>",
        f'<div class="{status_class}">'
        + "".join(f"<div>{e(line)}</div>" for line in status_lines(result))
        + "</div>",
    ]
    if result.early_exit:
        parts.append(
            "<p><strong>No profile is passed on:</strong> bad data is worse than no data. "
            "What the research found is shown below for transparency only.</p>"
        )
    return parts


def _html_profile(data: CleanedData, numbers: dict[str, int]) -> list[str]:
    """The summary, the found items with their citations, the inferred ones apart."""
    e = html.escape
    parts = ["<h2>Summary</h2>"]
    if data.employer_summary:
        parts.append(
            f"<p>{e(data.employer_summary)}{_html_marks(data.summary_evidence, numbers)}</p>"
        )
    else:
        parts.append("<p><em>No summary could be built from verified sources.</em></p>")
    for heading, items in (
        ("Tech stack (found in sources)", data.tech_stack),
        ("Requirements", data.identified_requirements),
        ("Culture signals", data.culture_signals),
    ):
        parts.append(f"<h2>{e(heading)}</h2>")
        parts.append(_html_items(items, numbers))
    if data.inferred_industry is not None:
        ind = data.inferred_industry
        parts.append("<h2>Inferred (not found in any source)</h2>")
        parts.append(
            f'<div class="inferred"><p>Industry: <strong>{e(ind.industry)}</strong>, guessed '
            f"from the words {e(', '.join(ind.matched_signals))}. Technologies typical of that "
            "industry, offered as assumptions to check, not as facts about this employer:</p>"
            + _html_items(data.inferred_tech_stack, numbers)
            + "</div>"
        )
    return parts


def _html_quality(result: EmployerResult) -> list[str]:
    e = html.escape
    r = result.reranker
    parts = ["<h2>Quality assessment</h2><ul>"]
    for label, value in (
        ("Flags", ", ".join(r.quality_flags) or "none"),
        ("Missing", ", ".join(r.missing_data_categories) or "nothing"),
        ("Bad-data patterns", ", ".join(r.patterns_detected) or "none"),
        (
            "Company verification",
            f"{r.company_verification.status} ({r.company_verification.note})",
        ),
        ("Reasoning", r.reasoning_trace),
        ("Pruned tech terms", "; ".join(r.pruned_data.tech_stack) or "none"),
        ("Pruned requirements", "; ".join(r.pruned_data.identified_requirements) or "none"),
        ("Pruned platitudes", "; ".join(r.pruned_data.culture_signals) or "none"),
        ("Not supported by any verified passage", "; ".join(r.pruned_data.unsupported) or "none"),
    ):
        parts.append(f"<li>{e(label)}: {e(value)}</li>")
    parts.extend(
        f"<li>Problem: {e(text)}</li>" for text in [*result.processing_errors, *result.warnings]
    )
    parts.append("</ul>")
    return parts


def _html_routing(trace: Sequence[RoutingStep]) -> list[str]:
    if not trace:
        return []
    heads = "".join(f"<th>{name}</th>" for name in ROUTING_HEADER)
    parts = [f"<h2>Routing</h2><table><tr>{heads}</tr>"]
    for step in trace:
        cells = routing_cells(step)
        parts.append("<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in cells) + "</tr>")
    parts.append("</table>")
    return parts


def _html_searches(result: EmployerResult) -> list[str]:
    """The searches list, left open: the evidence section's first line closes it (so the
    page's bytes stay as they were)."""
    e = html.escape
    parts = ["<h2>Searches</h2><ul>"]
    for attempt in result.attempts:
        for res in attempt.results:
            kept = f"{len(res.evidence)} passages kept" if res.evidence else "nothing kept"
            parts.append(f"<li>Attempt {attempt.attempt}: “{e(res.query)}” — {e(kept)}</li>")
    return parts


def _html_evidence(result: EmployerResult, numbers: dict[str, int]) -> list[str]:
    """The cited quotes numbered as cited, then the other passages read, folded; its first
    line closes the searches list."""
    e = html.escape
    titles = {source.url: source.title for source in result.sources}
    cited = set(cited_ids(result))
    ordered = sorted(result.evidence, key=lambda ev: numbers.get(ev.id, 10**6))
    parts = ["</ul><h2>Evidence</h2>"]
    for heading, group in (
        ("", [item for item in ordered if item.id in cited]),
        ("Other verified passages read", [item for item in ordered if item.id not in cited]),
    ):
        if not group:
            continue
        start = numbers[group[0].id]
        parts.append(f"<details><summary>{e(heading)} ({len(group)})</summary>" if heading else "")
        parts.append(f'<ol start="{start}">')
        for item in group:
            url = item.source_url
            name = e(titles.get(url) or url)
            link = f'<a href="{e(url)}">{name}</a>' if url.startswith("http") else name
            parts.append(
                f'<li id="e{numbers[item.id]}"><span class="quote">“{e(item.quote)}”</span>'
                f" — {link}</li>"
            )
        parts.append("</ol></details>" if heading else "</ol>")
    return parts


def _html_marks(ids: Sequence[str], numbers: dict[str, int]) -> str:
    return "".join(f'<sup><a href="#e{n}">[{n}]</a></sup>' for n in cite_numbers(ids, numbers))


def _html_items(items: Sequence[ProfileItem], numbers: dict[str, int]) -> str:
    if not items:
        return "<p><em>None found.</em></p>"
    rows = []
    for item in items:
        label = " <em>(inferred)</em>" if item.inferred else ""
        rows.append(
            f"<li>{html.escape(item.text)}{label}{_html_marks(item.evidence, numbers)}</li>"
        )
    return "<ul>" + "".join(rows) + "</ul>"
