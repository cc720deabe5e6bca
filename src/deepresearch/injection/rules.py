"""The shape of a detection rule, and the regular-expression pieces the English and the
other languages' rules share."""

from __future__ import annotations

import re
from dataclasses import dataclass

from deepresearch.injection.findings import FindingKind


@dataclass(frozen=True)
class Rule:
    """A pattern that finds one kind of attempt.

    ``weak`` rules catch wording that is also ordinary advice to a person ("tell the user
    that ..."): alone they only keep a sentence out of the evidence; next to a strong
    finding they are reported too. ``negatable`` rules do not fire when the match follows
    "not" / "never" ("don't ignore the safety instructions"). ``imperative`` rules only
    count where the match opens a sentence or follows a softener ("please", "then"): an
    order, not a description ("historians treat the chronicle as ...")."""

    kind: FindingKind
    pattern: re.Pattern[str]
    weak: bool = False
    negatable: bool = False
    imperative: bool = False


def rule(
    kind: FindingKind,
    pattern: str,
    *,
    weak: bool = False,
    negatable: bool = False,
    imperative: bool = False,
    case: bool = False,
) -> Rule:
    flags = re.M if case else re.I | re.M
    return Rule(
        kind, re.compile(pattern, flags), weak=weak, negatable=negatable, imperative=imperative
    )


_SOFTENERS = frozenset(
    [
        "please",
        "kindly",
        "then",
        "now",
        "first",
        "simply",
        "just",
        "instead",
        "always",
        "quietly",
        "silently",
        "finally",
        "next",
    ]
)
_OPENERS = frozenset('\n.!?:;。！？"“(*-•>')
_LAST_WORD = re.compile(r"(\w+)\W*$")


def opens_sentence(text: str, start: int) -> bool:
    """Whether ``text[start:]`` begins a sentence, a line, or follows a softener such as
    "please" or "then": where an imperative stands."""
    before = text[max(start - 40, 0) : start].rstrip(" \t")
    if not before:
        return True
    if before[-1] in _OPENERS:
        # a hyphen opens a list item ("- state that"), not a compound ("city-state that")
        return before[-1] != "-" or len(before) == 1 or before[-2] in "\n \t"

    word = _LAST_WORD.search(before)
    return word is not None and word.group(1).lower() in _SOFTENERS


# characters of one sentence: a dot, ! or ? followed by a non-space (a URL, "3.5") does not
# end it
GAP = r"(?:[^.!?。！？\n]|[.!?](?=\S))"
URL = r"(?:(?:https?|ftp)://|www\.)[^\s<>\"'`)\]]+"

# --- who the text addresses: an AI, by name or by kind ----------------------------------
_AI_KIND = (
    r"(?:assistants?|agents?|models?|systems?|chat ?bots?|bots?|readers?|crawlers?|scrapers?|"
    r"tools?|summari[sz]ers?|engines?|services?|programs?|apps?|helpers?|copilots?)"
)
_AI_MIDDLE = (
    r"(?:research|writing|coding|shopping|search|chat|language|browsing|personal|virtual|"
    r"customer|support|powered|based|driven|enabled)"
)
_AI_NAMED = (
    r"(?:chat ?gpt|gpt-?[345](?:\.\d)?o?(?:-\w+)?|gpts?|openai'?s? (?:models?|assistants?)|"
    r"google gemini|gemini (?:ai|pro|ultra|assistant)|claude (?:ai|assistant)|anthropic'?s? claude|"
    r"bing chat|microsoft copilot|github copilot|deepseek|qwen|perplexity ai|meta ai|llama ?[23]|"
    r"mixtral)"
)
# words after "AI" that make it a topic, not an addressee: "AI researchers", "AI safety"
_HUMAN_AFTER = (
    r"(?:researchers?|engineers?|developers?|scientists?|enthusiasts?|experts?|practitioners?|"
    r"users?|companies|company|vendors?|providers?|builders?|teams?|beginners?|students?|"
    r"professionals?|research|development|training|safety|ethics|policy|policies|regulation|"
    r"act|law|applications?|products?|industry|startups?|investors?|hype|boom|art|artists?|"
    r"generated|literacy|courses?|conference|workshop|governance|race|revolution|era|age|"
    r"technology|technologies|chips?|summit|strategy)"
)
_AI_CORE = (
    rf"(?:(?:ai|llm|gpt|genai|generative[- ]ai|machine|language[- ]model)[- ]"
    rf"(?:{_AI_MIDDLE}[- ])?{_AI_KIND}"
    r"|(?:large\s+)?language\s+models?|llms?|chat ?bots?"
    rf"|{_AI_NAMED}"
    r"|(?:virtual|digital|autonomous|automated|browsing|research|coding|web|shopping|smart)"
    r"\s+(?:ai\s+)?(?:assistants?|agents?)"
    r"|ais?)"
)
#: an AI as the one addressed (not "AI researchers", not "AI-generated")
AI = rf"(?:{_AI_CORE}(?![\w-]|\s+{_HUMAN_AFTER}\b))"
# a bare "model" / "assistant" / "agent" that the words after it make an AI
AI_BY_TASK = (
    r"(?:(?:(?<=\bthe\s)|(?<=\bany\s)|(?<=\bevery\s)|(?<=\beach\s))"
    r"(?:model|assistant|agent|bot|system|program|tool)s?"
    r"(?=\s+(?:that\s+(?:is|are)\s+|which\s+(?:is|are)\s+|who\s+(?:is|are)\s+)?"
    r"(?:generating|writing|compiling|producing|drafting|answering|summari[sz]ing|reading|"
    r"processing|parsing|crawling|indexing|analy[sz]ing|evaluating|handling)\s+"
    r"(?:the|this|these|a|an|your|our|my)\s+(?:\w+\s+)?(?:report|answer|summary|response|reply|"
    r"page|text|document|question|query|article|site|website|content|e-?mail|message|search "
    r"results?|sources?|request)\b))"
)
WHO = rf"(?:{AI}|{AI_BY_TASK})"

# --- what the text wants out: the answer, the report, the user's data --------------------
ANSWER = (
    r"(?:answers?|responses?|repl(?:y|ies)|summar(?:y|ies)|reports?|outputs?|conclusions?|"
    r"write-?ups?|findings|results)"
)
LOOT = (
    r"(?:(?:the|your|a|all|this|any|our)\s+)?(?:(?:full|entire|complete|whole|current|original|"
    r"previous|last|recent|private|raw|final)\s+)*"
    r"(?:(?:text|contents?|transcript|copy|log|record|details)\s+of\s+(?:\w+\s+){0,2})?"
    r"(?:user'?s?\s+(?:\w+\s+){0,3}?(?:question|query|request|prompt|messages?|data|e-?mail"
    r"(?:\s+address)?|details|information|history|conversation|chat|address|name|location|"
    r"input|files?|documents?|notes?|credentials|password)"
    r"|conversation(?:\s+history)?|chat(?:\s+(?:history|log|transcript))?|(?:chat\s+)?history|"
    r"transcript|context(?:\s+window)?|system\s+prompt|prompt|instructions|memory|notes|"
    r"report|summary|findings|research|answer|response|output|results|secrets)"
)
