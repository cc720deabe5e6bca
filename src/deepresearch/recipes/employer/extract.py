"""Deterministic profile extraction (pure): what Phase 2 produces without a model, and the
checks that tie a model's items to verified passages.

Every item found here is a verbatim piece of a verified quote (a technology name from the
vocabulary, or a whole sentence), so it is traced by construction: its ``evidence`` lists
the quotes it was found in.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from deepresearch.core.text import sentence_spans, words
from deepresearch.models import Evidence
from deepresearch.recipes.employer.lists import EmployerLists, normalize_item
from deepresearch.recipes.employer.models import Phase2Output, ProfileItem

MAX_TECH = 15
MAX_REQUIREMENTS = 10
MAX_CULTURE = 6
MAX_ITEM_WORDS = 60
SUMMARY_MIN_WORDS = 50
SUMMARY_MAX_WORDS = 200
MAX_EVIDENCE_PER_ITEM = 3

_LEGAL_SUFFIX = re.compile(
    r"[\s,]+(?:inc|inc\.|llc|ltd|ltd\.|limited|corp|corp\.|corporation|co\.|gmbh|ag|sa|plc|"
    r"s\.a\.|n\.v\.|bv|b\.v\.|pty|group|holdings)$",
    re.I,
)
_BULLET = re.compile(r"^[\s\-*•·–—>#]+")
_DEFINITION = r"\b(?:is|was)\s+(?:an?|the|one)\b"
#: a sentence, as opposed to a headline or a list fragment, ends like one
_ENDS_SENTENCE = re.compile(r"[.!?…][\"'”’)\]]*$")


def company_matcher(name: str | None) -> re.Pattern[str] | None:
    """A case-insensitive whole-word pattern for ``name`` without its legal suffix
    ("Google LLC" matches "Google"), or None when there is no usable name."""
    core = " ".join((name or "").split())
    while True:
        stripped = _LEGAL_SUFFIX.sub("", core).strip()
        if stripped == core or not stripped:
            break
        core = stripped
    if len(core) < 2:
        return None
    parts = [re.escape(part) for part in core.split()]
    return re.compile(r"(?<!\w)" + r"\s+".join(parts) + r"(?!\w)", re.I)


def names_company(text: str, matcher: re.Pattern[str] | None) -> bool:
    return matcher is not None and matcher.search(text) is not None


def item_sentences(quote: str) -> list[str]:
    """The lines and sentences of a quote, bullets stripped: the units items are made of."""
    out: list[str] = []
    for line in quote.splitlines():
        line = _BULLET.sub("", line).strip()
        if not line:
            continue
        for start, end in sentence_spans(line):
            sentence = line[start:end].strip()
            if sentence:
                out.append(sentence)
    return out


def technologies_in(text: str, lists: EmployerLists) -> list[str]:
    """Known technologies named in ``text``, vocabulary spelling, first mention first; the
    longest name wins where names overlap ("Google Cloud" over a bare "Cloud")."""
    found: list[str] = []
    for match in lists.tech_pattern().finditer(text):
        name = lists.canonical_tech(match.group(0))
        if name not in found:
            found.append(name)
    return found


def mentions_technology(name: str, text: str) -> bool:
    """Whether ``text`` names the technology ``name`` as a whole word (any case)."""
    clean = " ".join(name.split())
    if not clean:
        return False
    pattern = r"(?<![\w+#])" + r"\s+".join(re.escape(p) for p in clean.split()) + r"(?![\w+#])"
    return re.search(pattern, text, re.I) is not None


def find_tech_items(evidence: Sequence[Evidence], lists: EmployerLists) -> list[ProfileItem]:
    items: dict[str, ProfileItem] = {}
    for item in evidence:
        for name in technologies_in(item.quote, lists):
            entry = items.setdefault(name, ProfileItem(text=name))
            if item.id not in entry.evidence and len(entry.evidence) < MAX_EVIDENCE_PER_ITEM:
                entry.evidence.append(item.id)
    return list(items.values())[:MAX_TECH]


def find_requirement_items(
    evidence: Sequence[Evidence], lists: EmployerLists, *, listed: Iterable[str] = ()
) -> list[ProfileItem]:
    """Sentences that state a requirement (a cue such as "experience with", "5+ years",
    "degree", "must have"), and the lines a job description lists under a requirements
    heading (``listed``: their evidence ids), in order."""
    wanted = set(listed)
    items: dict[str, ProfileItem] = {}
    for item in evidence:
        for sentence in item_sentences(item.quote):
            count = len(words(sentence))
            if count > MAX_ITEM_WORDS or count < 1:
                continue
            if item.id not in wanted and (
                count < 3 or not any(cue.search(sentence) for cue in lists.requirement_cues)
            ):
                continue
            entry = items.setdefault(normalize_item(sentence), ProfileItem(text=sentence))
            if item.id not in entry.evidence:
                entry.evidence.append(item.id)
    return list(items.values())[:MAX_REQUIREMENTS]


def find_culture_items(
    evidence: Sequence[Evidence],
    lists: EmployerLists,
    company: re.Pattern[str] | None,
    *,
    input_ids: Iterable[str] = (),
) -> list[ProfileItem]:
    """Sentences with a culture cue (values, mission, remote, privacy...) that name the
    employer, or that come from the job description the user gave."""
    own = set(input_ids)
    eligible = [
        item
        for item in evidence
        if item.id in own or company is None or names_company(item.quote, company)
    ]
    items = _cue_items(eligible, lists.culture_cues, limit=MAX_CULTURE * 3)

    def weight(item: ProfileItem) -> int:
        # a sentence that names the employer, or the user's own posting, says more about
        # the employer than a neighbouring sentence of the same passage
        if names_company(item.text, company) or set(item.evidence) & own:
            return 0
        return 1

    items.sort(key=weight)  # stable: first mention order within each weight
    return items[:MAX_CULTURE]


def _cue_items(
    evidence: Sequence[Evidence], cues: Sequence[re.Pattern[str]], *, limit: int
) -> list[ProfileItem]:
    items: dict[str, ProfileItem] = {}
    for item in evidence:
        for sentence in item_sentences(item.quote):
            if len(words(sentence)) > MAX_ITEM_WORDS or len(words(sentence)) < 3:
                continue
            if not any(cue.search(sentence) for cue in cues):
                continue
            key = normalize_item(sentence)
            entry = items.setdefault(key, ProfileItem(text=sentence))
            if item.id not in entry.evidence:
                entry.evidence.append(item.id)
    return list(items.values())[:limit]


def extractive_summary(
    evidence: Sequence[Evidence], company: re.Pattern[str] | None
) -> tuple[str, list[str]]:
    """A summary made of verified sentences: one that defines the employer first ("X is
    an ..."), then others that name it, then the rest, until 50 words; never past 200."""
    candidates: list[tuple[int, int, str, str]] = []  # (rank, order, sentence, evidence id)
    order = 0
    for item in evidence:
        for sentence in item_sentences(item.quote):
            order += 1
            if not _ENDS_SENTENCE.search(sentence):
                continue  # a headline or a fragment reads badly in a summary
            named = names_company(sentence, company)
            defines = named and company is not None and _defines(sentence, company)
            rank = 0 if defines else 1 if named else 2
            candidates.append((rank, order, sentence, item.id))
    candidates.sort(key=lambda c: (c[0], c[1]))
    chosen: list[str] = []
    ids: list[str] = []
    total = 0
    seen: set[str] = set()
    for _, _, sentence, evidence_id in candidates:
        key = normalize_item(sentence)
        count = len(words(sentence))
        if key in seen or count < 4:
            continue
        if total and total + count > SUMMARY_MAX_WORDS:
            continue
        if not total and count > SUMMARY_MAX_WORDS:
            continue
        seen.add(key)
        chosen.append(sentence)
        total += count
        if evidence_id not in ids:
            ids.append(evidence_id)
        if total >= SUMMARY_MIN_WORDS:
            break
    return " ".join(chosen), ids


def _defines(sentence: str, company: re.Pattern[str]) -> bool:
    match = company.search(sentence)
    if match is None:
        return False
    return re.search(_DEFINITION, sentence[match.end() : match.end() + 80], re.I) is not None


def extract_profile(
    evidence: Sequence[Evidence],
    lists: EmployerLists,
    company: re.Pattern[str] | None,
    *,
    input_ids: Iterable[str] = (),
    listed_requirements: Iterable[str] = (),
) -> Phase2Output:
    """Phase 2 without a model: everything from verified quotes, nothing guessed."""
    own = set(input_ids)
    summary, summary_ids = extractive_summary(
        [e for e in evidence if e.id not in own] or evidence, company
    )
    return Phase2Output(
        employer_summary=summary,
        summary_evidence=summary_ids,
        identified_requirements=find_requirement_items(evidence, lists, listed=listed_requirements),
        tech_stack=find_tech_items(evidence, lists),
        culture_signals=find_culture_items(evidence, lists, company, input_ids=own),
        synthesized_by="rules",
        reasoning_trace=(
            f"Deterministic extraction from {len(evidence)} verified passages: technologies "
            "matched against the vocabulary, requirement and culture sentences found by cue "
            "words, the summary made of sentences that name the employer."
        ),
    )
