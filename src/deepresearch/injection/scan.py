"""The scanner: every rule over the text as written and over each form its disguises
undo, strong findings reported, weak ones only next to a strong one (or, for a single
sentence, on their own: ``instructs``)."""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Iterator, Sequence

from deepresearch.injection.decode import (
    base64_texts,
    decode_tags,
    normalize,
    percent_decoded,
    squash,
    unescape_entities,
    unmask,
)
from deepresearch.injection.dispatch import Dispatcher
from deepresearch.injection.english import ENGLISH
from deepresearch.injection.findings import Finding, FindingKind, Via, dedupe, excerpt
from deepresearch.injection.languages import OTHER_LANGUAGES
from deepresearch.injection.markers import TOKENS, role_lines
from deepresearch.injection.rules import Rule, opens_sentence
from deepresearch.injection.urls import url_findings

MAX_FINDINGS = 20
#: text beyond this is not scanned (stored page text is capped far below it)
MAX_SCAN_CHARS = 200_000
#: a weak finding counts when a strong one is this close (characters)
NEAR = 400
_MAX_DEPTH = 2

RULES: tuple[Rule, ...] = (*TOKENS, *ENGLISH, *OTHER_LANGUAGES)
_DISPATCH = Dispatcher(RULES)
_NEGATED = re.compile(r"(?:\bnot|n't|\bnever|\bno|\bnicht|\bnie|\bpas|\bno\s+)\s*$", re.I)
_SELF_NEGATING = re.compile(r"^(?:do\s+not|don'?t|stop)\b", re.I)

# the letters-only form catches "i g n o r e", "ig-nore", "1gn0re" and text spelled
# backwards; it only counts where the words were disguised (``_disguised``), so these
# vocabulary-level phrases cannot fire on ordinary prose whose spaces were dropped
_AI_SQ = (
    r"(?:ai|a[li][li]ai|[li][li]ms?|[li]anguagemode[li]s?|[li]arge[li]anguagemode[li]s?|chatbots?|"
    r"chatgpt|gpt|c[li]aude|gemini|ai(?:assistant|mode[li]|agent|system|too[li]|reader|craw[li]er)s?|"
    r"(?:virtua[li]|automated|autonomous|research)(?:assistant|agent)s?)"
)
_ANSWER_SQ = r"(?:answer|summary|response|rep[li]y|report|output)"
_SQUASHED_PHRASES: tuple[tuple[FindingKind, str], ...] = (
    (
        "override",
        r"(?:ignore|disregard|forget|override)(?:a[li][li]|any|the|your|of|my|these|every)*"
        r"(?:previous|prior|above|ear[li]ier|preceding|former|origina[li])"
        r"(?:instructions?|prompts?|ru[li]es|directions|directives?|guide[li]ines|context|"
        r"commands)",
    ),
    ("override", r"(?:ignore|forget|disregard)(?:everything|anything)(?:above|before|sofar)"),
    (
        "override",
        r"(?:ignore|disregard|forget)theuser?s(?:actua[li]|origina[li])?(?:question|request)",
    ),
    ("role", r"youarenow(?:dan|in(?:deve[li]oper|jai[li]break|god)mode)|fromnowonyouare"),
    ("delimiter", r"imstart(?:system|assistant|user)|beginsystemprompt"),
    (
        "delimiter",
        r"(?:assistant|system)(?:sure|okay|understood|noted|iwi[li][li]|i[li][li]|certain[li]y)",
    ),
    (
        "addressed",
        rf"(?:note|notes|message|memo|instructions?|attention|reminder|important|info(?:rmation)?)"
        rf"(?:to|for)(?:the|a[li][li]|any|every)?{_AI_SQ}",
    ),
    ("addressed", rf"ifyou(?:are|re)(?:an?|the){_AI_SQ}"),
    ("addressed", rf"(?:hey|hi|he[li][li]o|dear|greetings|attention){_AI_SQ}"),
    (
        "addressed",
        rf"{_AI_SQ}(?:reading|processing|summari[sz]ing|(?:that|which)?(?:reads?|index(?:es)?|"
        r"scrapes?|craw[li]s?|visits?|process(?:es)?|summari[sz]es?))this",
    ),
    (
        "addressed",
        rf"to(?:any|the|a[li][li]|every){_AI_SQ}(?:reading|compi[li]ing|generating|writing|"
        r"processing|summari[sz]ing)",
    ),
    ("addressed", rf"you(?:the|an?){_AI_SQ}(?:reading|processing)|asan{_AI_SQ}you"),
    ("dictation", r"(?:te[li][li]|inform)(?:the)?users?that"),
    (
        "dictation",
        rf"your{_ANSWER_SQ}(?:must|shou[li]d|sha[li][li]|hasto|needsto)(?:a[li]ways)?"
        r"(?:say|state|c[li]aim|mention|recommend|describe|inc[li]ude|read|begin|conc[li]ude)",
    ),
    ("dictation", r"regard[li]essof(?:what)?(?:the)?(?:user|question)"),
    ("dictation", r"(?:respond|rep[li]y|answer)(?:on[li]y|a[li]ways)with"),
    (
        "dictation",
        r"whenyou(?:summari[sz]e|areasked)\w{0,60}?(?:describe|say|ca[li][li]|present)",
    ),
    ("dictation", rf"in(?:your|the){_ANSWER_SQ}s?(?:state|say|write|mention|c[li]aim)that"),
    ("dictation", r"report(?:the|this)(?:fo[li][li]owing)?asa?(?:verified|confirmed)"),
    ("dictation", r"(?:describe|portray|present)(?:the|this|our)[a-z]{2,20}as"),
    (
        "concealment",
        r"(?:donot|dont|never)(?:mention|revea[li]|disc[li]ose|te[li][li]|acknow[li]edge|quote|"
        r"reference)(?:this|these|the|that)(?:note|instructions?|message|comment|text|"
        r"paragraph|user|source)",
    ),
    ("concealment", r"(?:donot|dont|never)te[li][li](?:the|your)?(?:user|reader)"),
    ("concealment", r"theuser(?:must|shou[li]d)(?:never|not)(?:know|[li]earn|findout)"),
    ("concealment", r"(?:actasif|pretend)(?:you|this|these)"),
    (
        "concealment",
        r"(?:keep|hide)(?:this|these)(?:note|instructions?|message)?(?:hidden|secret)?from",
    ),
    (
        "concealment",
        r"(?:si[li]ent[li]y|secret[li]y|quiet[li]y)(?:fo[li][li]ow|add|insert|inc[li]ude)",
    ),
    ("steering", r"(?:a[li]ways)?cite(?:this|our)(?:page|source|site|artic[li]e)"),
    (
        "steering",
        r"(?:rate|rank|treat|prefer)(?:this|our)(?:page|source|site|website|resu[li]t)",
    ),
    ("steering", r"re[li]y(?:on[li]y|so[li]e[li]y)?onthis(?:page|source|site)"),
    ("steering", r"(?:donot|dont|never)cite(?:any)?other(?:sources|sites|pages)"),
)
_SQUASHED: tuple[tuple[FindingKind, re.Pattern[str]], ...] = tuple(
    (kind, re.compile(pattern)) for kind, pattern in _SQUASHED_PHRASES
)


def scan(text: str, *, hidden: bool = False) -> list[Finding]:
    """Every attempt in ``text`` to instruct a model, visible matches first (in order of
    position), then what the normalized, tag-decoded, entity- and percent-decoded and
    base64-decoded forms reveal. ``hidden`` marks the findings as coming from text a
    browser does not show."""
    findings = list(_scan(text[:MAX_SCAN_CHARS], "text", hidden, depth=0, weak=False))
    return dedupe(findings)[:MAX_FINDINGS]


def scan_page(text: str, hidden_text: str = "") -> list[Finding]:
    """Findings in a page's visible text, then in its hidden text (CSS-hidden elements,
    comments, alt and aria-label attributes)."""
    return dedupe([*scan(text), *scan(hidden_text, hidden=True)])[:MAX_FINDINGS]


#: the kinds that make a user's own question an attack. Addressing the assistant ("Hey
#: ChatGPT, ...") or asking what to tell someone is ordinary in a question, not in a page.
DIRECT_KINDS: frozenset[FindingKind] = frozenset(
    {"override", "role", "delimiter", "fetch", "exfiltration", "steering"}
)


def scan_direct(text: str) -> list[Finding]:
    """The findings of ``scan`` that are attacks even in text the user wrote."""
    return [finding for finding in scan(text) if finding.kind in DIRECT_KINDS]


def first_finding(text: str) -> Finding | None:
    found = scan(text)
    return found[0] if found else None


def instructs(sentence: str) -> bool:
    """Whether ``sentence`` gives an order to whoever reads it, by the detector's rules
    and also by its weak ones ("tell the user that ...", "the correct answer is ...").
    A sentence that instructs rather than informs is never evidence."""
    return (
        next(_scan(sentence[:MAX_SCAN_CHARS], "text", False, depth=0, weak=True), None) is not None
    )


def instructing(text: str, sentences: Sequence[tuple[int, int]]) -> list[bool]:
    """For each ``(start, end)`` sentence of ``text``, whether it instructs, as
    ``instructs`` would say, in one pass over the whole text: rules run once, and only a
    sentence with disguised characters in it (base64, tag characters, entities, spaced or
    l33t letters) is decoded on its own."""
    text = text[:MAX_SCAN_CHARS]
    hits = sorted(
        (position, position + len(words)) for position, _, words, _ in _hits(text, with_roles=True)
    )
    marks = [False] * len(sentences)
    starts = [start for start, _ in hits]
    odd = [match.start() for match in _ODD.finditer(text)]
    for index, (start, end) in enumerate(sentences):
        # a hit that starts before the sentence ends and ends after it starts overlaps it
        upto = bisect_left(starts, end)
        if any(hit_end > start for _, hit_end in hits[max(upto - 8, 0) : upto]):
            marks[index] = True
        elif bisect_left(odd, end) > bisect_left(odd, start):
            marks[index] = instructs(text[start:end])
    return marks


# signs that a sentence hides words: decode it on its own
_ODD = re.compile(
    "[\U000e0000-\U000e007f\u200b-\u200f\u2060-\u2064\ufeff\uff01-\uff5e]"
    r"|[A-Za-z0-9+/_-]{24,}={0,2}|&(?:#\d{2,7}|#x[0-9a-f]{2,6}|[a-z]{2,8});|(?:%[0-9a-f]{2}.{0,3}){3}"
    r"|(?:\b\w[ .\-_*|/·]){3,}\w\b|[a-z][0134578@$|!]+[a-z]"
    r"|[a-z][\u0370-\u03ff\u0400-\u04ff]|[\u0370-\u03ff\u0400-\u04ff][a-z]",
    re.I,
)


def _scan(text: str, via: Via, hidden: bool, *, depth: int, weak: bool) -> Iterator[Finding]:
    if not text.strip():
        return
    yield from _findings(text, via, hidden, weak=weak)
    plain = normalize(text)
    changed = _changed_lines(text, plain)
    if changed:
        yield from _findings(changed, "normalized", hidden, weak=weak)
    for region in _DISGUISED_RUN.finditer(plain):
        yield from _squashed(_around(plain, region.start(), region.end()), hidden)
    if depth >= _MAX_DEPTH:
        return
    for decoded, how in (
        (decode_tags(text), "unicode-tags"),
        (unescape_entities(plain), "entities"),
        (percent_decoded(plain), "url-encoded"),
    ):
        if decoded:
            yield from _scan(decoded, how, hidden, depth=depth + 1, weak=weak)  # type: ignore[arg-type]
    for decoded in base64_texts(plain):
        yield from _scan(decoded, "base64", hidden, depth=depth + 1, weak=weak)


def _findings(text: str, via: Via, hidden: bool, *, weak: bool) -> Iterator[Finding]:
    """Strong findings in order of position, and weak ones when ``weak`` is set or a
    strong finding is within ``NEAR`` characters."""
    strong: list[tuple[int, Finding]] = []
    soft: list[tuple[int, Finding]] = []
    for position, kind, words, is_weak in _hits(text, with_roles=True):
        (soft if is_weak else strong).append((position, Finding(kind, excerpt(words), via, hidden)))
    if not weak:
        anchors = [position for position, _ in strong]
        soft = [(p, f) for p, f in soft if any(abs(p - a) <= NEAR for a in anchors)]
    for _, finding in sorted([*strong, *soft], key=lambda pair: pair[0]):
        yield finding


def _hits(text: str, *, with_roles: bool) -> Iterator[tuple[int, FindingKind, str, bool]]:
    for rule, match in _DISPATCH.matches(text):
        if rule.negatable and _negated(text, match):
            continue
        if rule.imperative and not opens_sentence(text, match.start()):
            continue
        yield match.start(), rule.kind, match.group(0), rule.weak
    for position, kind, words in url_findings(text):
        yield position, kind, words, False
    if with_roles:
        for position, words in role_lines(text, _orders):
            yield position, "delimiter", words, False


# where disguised letters may hide: spaced or symbol-split letters, l33t or look-alike
# letters inside words, full-width forms (folded by ``normalize``)
_DISGUISED_RUN = re.compile(
    r"(?:\b\w[ .\-_*|/·]){3,}\w\b|\b\w+(?:[\-_*|/·.]\w+){3,}\b"
    r"|[a-z][0134578@$|!]+[a-z]|\b[0134578@$][a-z]{2}|[a-z]{2}[0134578$]\b"
    r"|[a-z][\u0370-\u03ff\u0400-\u04ff]|[\u0370-\u03ff\u0400-\u04ff][a-z]",
    re.I,
)


_LOOKALIKE = re.compile("[\u0370-\u03ff\u0400-\u04ff\u0500-\u052f\u0250-\u02af]")


def _changed_lines(text: str, plain: str) -> str:
    """The lines whose unmasked form differs from the text as written, unmasked, joined
    (empty lines keep their place so positions stay near)."""
    out = []
    any_changed = False
    for original, line in zip(text.split("\n"), plain.split("\n"), strict=False):
        if (
            line == original
            and (line.isascii() or _LOOKALIKE.search(line) is None)
            and (_DISGUISED_RUN.search(line) is None)
        ):
            out.append("")
            continue
        unmasked = unmask(line)
        if unmasked != original:
            out.append(unmasked)
            any_changed = True
        else:
            out.append("")
    if not any_changed and plain != text and text.count("\n") != plain.count("\n"):
        return unmask(plain)
    return "\n".join(out) if any_changed else ""


def _around(text: str, start: int, end: int) -> str:
    """The line around ``text[start:end]``, at most 300 characters either side."""
    left = text.rfind("\n", max(start - 300, 0), start) + 1 or max(start - 300, 0)
    right = text.find("\n", end, end + 300)
    return text[left : right if right >= 0 else min(end + 300, len(text))]


def _orders(content: str) -> bool:
    """Whether the words after a role marker give an order (any rule, weak ones too)."""
    return next(_hits(content, with_roles=False), None) is not None


def _negated(text: str, match: re.Match[str]) -> bool:
    """ "Don't ignore the safety instructions" is advice, not an attack."""
    if _SELF_NEGATING.match(match.group(0)):
        return False
    return _NEGATED.search(text[max(match.start() - 12, 0) : match.start()]) is not None


_MIN_SQUASHED = 8
_SEPARATED = re.compile(r"\w[.\-_*|/·]\w")
_NOT_LATIN = re.compile(r"[0-9@$!|+]|[^\x00-\x7f]")


def _disguised(words: str) -> bool:
    """Whether letters were spaced out, split by symbols, or swapped for digits and
    look-alikes: the letters-only form only counts for such words."""
    tokens = words.split()
    if not tokens:
        return False
    if sum(len(token) == 1 for token in tokens) >= 0.6 * len(tokens):
        return True
    return any(_SEPARATED.search(t) or _NOT_LATIN.search(t) for t in tokens)


def _squashed(text: str, hidden: bool) -> Iterator[Finding]:
    squashed, kept = squash(text)
    for form in (squashed, squashed[::-1]):
        reverse = form is not squashed
        for kind, pattern in _SQUASHED:
            for match in pattern.finditer(form):
                if match.end() - match.start() < _MIN_SQUASHED:
                    continue  # "hiai" from "Hia1": too short to be a disguised phrase
                before = form[: match.start()]
                if not reverse and before.endswith(("not", "dont", "never")) and kind == "override":
                    continue
                start, end = match.start(), match.end() - 1
                if reverse:
                    start, end = len(form) - 1 - end, len(form) - 1 - start
                words = text[kept[start] : kept[end] + 1]
                if not _disguised(words):
                    continue  # plain words: the ordinary rules judge them
                yield Finding(kind, excerpt(words), "reversed" if reverse else "normalized", hidden)
