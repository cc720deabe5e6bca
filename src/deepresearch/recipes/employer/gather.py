"""Phase 2's searches: query -> search provider -> preprocess -> read pages (the engine's
fetcher, with its address guard, and its extractor) -> passages -> the best verified
passages of that search, up to ``max_result_chars``.

The job description a user gives is a source too (``input:job-description``): its lines
become evidence like any page's passages, so requirements taken from it are traced to it.
When the employer is known, only pages that name it are used: a page about something
else says nothing about the employer.
Only URLs a search returned are fetched, and pages whose text (visible or hidden) tries to
instruct a model are dropped: the engine's ``SourceReader`` does both, as in the main run.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from deepresearch.context import RunContext
from deepresearch.core.passages import make_passages, pooled_scores
from deepresearch.core.preprocess import preprocess
from deepresearch.core.tiers import tier_for
from deepresearch.core.verify import verify_quote
from deepresearch.errors import ProviderError
from deepresearch.injection import flag_reason
from deepresearch.injection.untrusted import data_block
from deepresearch.models import Evidence, Passage, Source
from deepresearch.models.event_payloads import SearchFailedWarning
from deepresearch.reading import SourceReader
from deepresearch.recipes.employer.extract import item_sentences, names_company
from deepresearch.recipes.employer.models import SearchResult, SourceInfo

STAGE = "deep_research"
JD_URL = "input:job-description"
JD_SOURCE_ID = "input"
MAX_JD_ITEMS = 60
#: a passage scoring below this share of the search's best passage is not relevant
MIN_RELATIVE_SCORE = 0.2
#: passages naming the employer rank this much higher
COMPANY_BOOST = 1.5


@dataclass
class Library:
    """Everything Phase 2 has read, across both attempts."""

    sources: dict[str, Source] = field(default_factory=dict)
    evidence: list[Evidence] = field(default_factory=list)
    dropped: dict[str, str] = field(default_factory=dict)
    input_ids: list[str] = field(default_factory=list)
    requirement_ids: list[str] = field(default_factory=list)
    company: re.Pattern[str] | None = None

    def next_id(self) -> str:
        return f"E{sum(1 for e in self.evidence if e.id.startswith('E')) + 1}"

    def by_id(self) -> dict[str, Evidence]:
        return {item.id: item for item in self.evidence}

    def source_infos(self) -> list[SourceInfo]:
        return [
            SourceInfo(
                id=source.id,
                url=source.url,
                title=source.title,
                domain=source.domain,
                kind=source.kind,
                fetched=source.fetched,
                names_company=source.url != JD_URL and names_company(source.text, self.company),
                dropped_reason=self.dropped.get(source.url),
            )
            for source in self.sources.values()
        ]


_REQUIREMENT_HEADING = re.compile(
    r"^(?:(?:minimum|preferred|basic|key|required|desired|technical)\s+)?(?:requirements|"
    r"qualifications|skills(?: and experience)?|what you(?:'ll)? (?:need|bring)|"
    r"what we(?:'re)? looking for|must[- ]haves?|nice[- ]to[- ]haves?|you (?:have|bring)|"
    r"about you|who you are)\s*:?$",
    re.I,
)
_ENDS_SENTENCE = re.compile(r"[.!?…][\"'”’)\]]*$")
_BULLET = re.compile(r"^\s*(?:[-*•·–—]|\d+[.)])\s+")


@dataclass(frozen=True)
class JobDescription:
    """The user's job description as a source, its lines as evidence (``J1``, ``J2``...),
    and the ids of the lines listed under a requirements heading."""

    source: Source
    evidence: list[Evidence]
    requirement_ids: list[str]


def _is_heading(line: str) -> bool:
    """A short line that is no sentence and no list item: a section heading."""
    return (
        not _BULLET.match(line)
        and not _ENDS_SENTENCE.search(line)
        and len(line.split()) <= 6
        and (line.endswith(":") or line[:1].isupper())
    )


def job_description_source(text: str) -> JobDescription:
    """Each line and sentence of the posting, located and verified in its text."""
    source = Source(
        id=JD_SOURCE_ID,
        url=JD_URL,
        title="Job description (your input)",
        domain="your input",
        text=text,
        kind="text",
        provider="input",
    )
    evidence: list[Evidence] = []
    requirement_ids: list[str] = []
    in_requirements = False
    cursor = 0
    for raw_line in text.splitlines():
        line = raw_line.strip()
        if not line:
            continue
        if _is_heading(line):
            in_requirements = bool(_REQUIREMENT_HEADING.match(line.rstrip(":").strip()))
            continue
        for sentence in item_sentences(line):
            start = text.find(sentence, cursor)
            if start < 0 or len(evidence) >= MAX_JD_ITEMS:
                continue
            cursor = start + len(sentence)
            check = verify_quote(sentence, text)
            if check.status != "PASS":
                continue
            item = Evidence(
                id=f"J{len(evidence) + 1}",
                sub_question_id="input",
                claim=sentence,
                quote=sentence,
                source_id=source.id,
                source_url=source.url,
                start=start,
                end=start + len(sentence),
                verification=check,
            )
            evidence.append(item)
            if in_requirements:
                requirement_ids.append(item.id)
    return JobDescription(source, evidence, requirement_ids)


def pick_passages(
    sources: Sequence[Source],
    query: str,
    *,
    max_chars: int,
    company: re.Pattern[str] | None,
    used: set[tuple[str, int]],
) -> list[tuple[Passage, Source]]:
    """The best passages of ``sources`` for ``query`` (pooled BM25, passages naming the
    employer boosted), not used before, in rank order, within ``max_chars`` in all."""
    readable = [s for s in sources if s.fetched and s.text]
    groups = [make_passages(source.id, source.text) for source in readable]
    scores = pooled_scores(groups, query)
    ranked: list[tuple[float, int, Passage, Source]] = []
    order = 0
    for source, group in zip(readable, groups, strict=True):
        for passage in group:
            order += 1
            score = scores.get(passage.id, 0.0)
            if names_company(passage.text, company):
                score *= COMPANY_BOOST
            ranked.append((score, order, passage, source))
    if not ranked:
        return []
    best = max(item[0] for item in ranked)
    if best <= 0:
        return []
    ranked.sort(key=lambda item: (-item[0], item[1]))
    chosen: list[tuple[Passage, Source]] = []
    total = 0
    for score, _, passage, source in ranked:
        if score < best * MIN_RELATIVE_SCORE:
            break
        if (source.id, passage.start) in used:
            continue
        size = len(passage.text) + 1
        if total + size > max_chars:
            continue
        chosen.append((passage, source))
        total += size
    return chosen


async def search_once(
    ctx: RunContext,
    reader: SourceReader,
    library: Library,
    query: str,
    *,
    query_id: str,
    sources_per_query: int,
    max_chars: int,
    require_company: bool,
) -> SearchResult:
    """One web search of Phase 2, its pages read and its best passages verified."""
    try:
        hits = await ctx.search.search(query, limit=max(sources_per_query * 2, 5))
    except ProviderError as exc:
        ctx.bus.emit(
            SearchFailedWarning(code="search_failed", query=query),
            stage=STAGE,
            message=f"Search failed: {exc.message}",
        )
        return SearchResult(query=query, error=exc.message)
    reader.provenance.add_hits(hits)  # the only URLs this search may fetch
    kept = preprocess(hits, limit=max(len(hits), 1)).hits
    allowed = [hit for hit in kept if tier_for(hit.url, ctx.domain_rules) != "FLAGGED"]
    chosen = allowed[:sources_per_query]
    readings = await asyncio.gather(*(reader.read(hit) for hit in chosen))
    usable: list[Source] = []
    for reading in readings:
        source = reading.source
        library.sources.setdefault(source.url, source)
        if not source.fetched or not source.text or source.url in library.dropped:
            continue  # unreadable, or dropped by an earlier attempt
        if reading.findings:  # the reader warned: it tries to instruct the model
            library.dropped[source.url] = flag_reason(list(reading.findings))
            continue
        if require_company and not names_company(source.text, library.company):
            continue
        usable.append(source)
    used = {(item.source_id, item.start) for item in library.evidence}
    picked = pick_passages(usable, query, max_chars=max_chars, company=library.company, used=used)
    ids: list[str] = []
    for passage, source in picked:
        check = verify_quote(passage.text, source.text)
        if check.status != "PASS":
            continue
        item = Evidence(
            id=library.next_id(),
            sub_question_id=query_id,
            claim=passage.text,
            quote=passage.text,
            source_id=source.id,
            source_url=source.url,
            start=passage.start,
            end=passage.end,
            passage_id=passage.id,
            score=passage.score,
            verification=check,
        )
        library.evidence.append(item)
        ids.append(item.id)
    by_id = library.by_id()
    return SearchResult(
        query=query,
        findings="\n".join(by_id[i].quote for i in ids),
        evidence=ids,
        sources=list(dict.fromkeys(by_id[i].source_url for i in ids)),
        hits=len(hits),
    )


def format_search_results(
    results: Sequence[SearchResult],
    evidence: Sequence[Evidence],
    sources: dict[str, Source],
    *,
    input_ids: Sequence[str] = (),
    blocks: bool = False,
) -> str:
    """Seed 6.4's format, with provenance: each finding carries its evidence id and the
    page it came from. ``blocks`` wraps every passage in a ``<passage>`` data block (what
    a model sees); otherwise plain text (the reasoning trace and the markdown)."""
    by_id = {item.id: item for item in evidence}
    parts: list[str] = []
    if input_ids:
        parts.append("--- Job Description (your input) ---")
        parts.extend(_finding(by_id[i], sources, blocks=blocks) for i in input_ids if i in by_id)
        parts.append("")
    for number, result in enumerate(results, start=1):
        parts.append(f"--- Search Result {number} ---")
        parts.append(f'Query: "{result.query}"')
        parts.append("Findings:")
        if not result.evidence:
            parts.append("(nothing relevant found)" if not result.error else f"({result.error})")
        parts.extend(_finding(by_id[i], sources, blocks=blocks) for i in result.evidence)
        parts.append("")
    return "\n".join(parts).strip()


def _finding(item: Evidence, sources: dict[str, Source], *, blocks: bool) -> str:
    source = sources.get(item.source_url)
    title = source.title if source is not None else ""
    if blocks:
        return data_block("passage", item.quote, id=item.id, source=title, url=item.source_url)
    return f"[{item.id}] {item.quote}\n    (source: {title or item.source_url} <{item.source_url}>)"
