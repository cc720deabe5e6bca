"""English rules for the long-known kinds: override ("ignore previous instructions"),
role hijack ("you are now ..."), exfiltration (a request for the system prompt) and
citation steering ("always cite this page", "rank this source first")."""

from __future__ import annotations

from deepresearch.injection.rules import AI, GAP, URL, Rule, rule

# --- the classic kinds: override, role, exfiltration, steering ---------------------------------
_VERB = (
    r"(?:ignore|ignoring|disregard|forget|override|overrule|bypass|discard|set\s+aside|skip|"
    r"pay\s+no\s+(?:attention|heed)\s+to|do\s+not\s+(?:follow|obey)|don'?t\s+(?:follow|obey)|"
    r"stop\s+(?:following|obeying))"
)
_FILL = (
    r"(?:all|any|each|every|of|the|your|my|our|these|those|this|that|such|other|and|or|"
    r"previously|earlier|given|provided|mentioned|stated|received|above|prior|preceding|"
    r"existing|current|original|initial|old|former|system|developer|safety|default|you|were|"
    r"have|been|told|got|given|in|to)"
)
_QUAL = (
    r"(?:previous(?:ly)?|prior|above|earlier|preceding|former|foregoing|original|initial|"
    r"old|existing|all|any|every|your|system|developer|default|hidden|built-in)"
)
_NOUN = (
    r"(?:instructions?|prompts?|rules|directions|directives?|guidelines|commands|context|"
    r"programming|guardrails|constraints|restrictions)"
)
_DOC = r"(?:page|text|document|article|content|site|website|message|e-?mail|passage|source|post)"

OVERRIDE: tuple[Rule, ...] = (
    rule(
        "override",
        rf"\b{_VERB}\s+(?:{_FILL}\s+){{0,4}}?{_QUAL}\s+(?:{_FILL}\s+){{0,2}}?{_NOUN}\b",
        negatable=True,
    ),
    rule(
        "override",
        rf"\b{_VERB}\s+(?:all\s+|of\s+)*(?:everything|anything|what)\s+(?:(?:you\s+(?:were|have\s+been|"
        r"got|was)\s+told|(?:I|we)\s+(?:said|told\s+you)|said|written|stated)\s+)?(?:above|before|"
        r"earlier|previously|so\s+far|until\s+now)\b",
        negatable=True,
    ),
    # "Ignore the user's actual question", "forget the user's request"
    rule(
        "override",
        rf"\b{_VERB}\s+(?:the|this|that|your|any|their)\s+(?:user'?s?\s+|original\s+|actual\s+|real\s+|"
        r"current\s+|initial\s+|above\s+)+(?:question|query|request|prompt|task|assignment|"
        r"instructions?)\b(?!\s+(?:of|whether|as\s+to))",
        negatable=True,
    ),
    rule(
        "override",
        r"\b(?:new|updated|revised|real|actual|true|secret|hidden)\s+(?:system\s+)?(?:instructions|"
        rf"prompt|directives?|task)\s+for\s+(?:the\s+|any\s+|all\s+)?(?:{AI}|assistants?|bots?|agents?|"
        r"models?)\b",
    ),
    rule(
        "override",
        r"\b(?:your|the|all)\s+(?:previous|prior|earlier|original|old|above)\s+(?:instructions|prompts?|"
        r"rules|directions)\s+(?:are|were|have\s+been|is)\s+(?:now\s+)?(?:void|null|cancel+ed|revoked|"
        r"obsolete|overridden|superseded|replaced|invalid|a\s+test|fake|no\s+longer\s+(?:valid|"
        r"applicable|relevant|in\s+effect))",
    ),
    rule(
        "override",
        r"\b(?:these|the\s+following|my|new|this\s+page'?s?)\s+instructions\s+(?:take\s+precedence|"
        r"override|supersede|replace|overrule|trump)\b",
    ),
    rule(
        "override",
        r"\byour\s+(?:real|true|actual|new)\s+(?:instructions|task|orders|directives?)\s+(?:begin|"
        r"start|are|is|follow|come)\b",
    ),
    rule(
        "override",
        r"\b(?:system|admin|administrator|developer|root)\s+(?:override|instructions?|prompt|"
        r"message|command)\s*:",
    ),
    rule("override", r"\b(?:SYSTEM|ADMIN|DEVELOPER)\s+OVERRIDE\b", case=True),
)

ROLE: tuple[Rule, ...] = (
    rule(
        "role",
        r"\byou (?:are|must|will|should|shall) now (?:act as|respond|behave|answer|reply|pretend|"
        r"roleplay|role-play|obey|ignore|disregard)\b",
    ),
    rule(
        "role",
        r"\byou are now (?:dan|in (?:developer|god|jailbreak|dan|unrestricted|admin|debug) mode|an? "
        r"(?:unrestricted|unfiltered|uncensored|jailbroken|evil|rogue|different|new) (?:ai|assistant|"
        r"model|chatbot|persona))\b",
    ),
    rule(
        "role",
        r"\bfrom now on,?\s+(?:you|the assistant|the ai|the model)\s+(?:are|will (?:act|respond|"
        r"answer|only|always|be)|must (?:act|respond|answer|only|always)|act|respond|answer|only)\b",
    ),
    rule(
        "role",
        r"\b(?:act|behave|respond|answer) as (?:if you (?:are|were) )?(?:an? )?(?:unrestricted|"
        r"unfiltered|uncensored|jailbroken|evil|rogue|different|new) (?:ai|assistant|model|chatbot|"
        r"persona)\b",
    ),
    rule(
        "role",
        r"\bpretend (?:to be|that you are|you are|you're) (?:an? )?(?:unrestricted |unfiltered |"
        r"uncensored |different |evil |new )?(?:ai|assistant|model|chatbot|persona|dan)\b",
    ),
    rule(
        "role",
        r"\b(?:enter|enable|activate|switch to|turn on)\s+(?:the\s+)?(?:developer|god|jailbreak|dan|"
        r"unrestricted|debug|admin|sudo)\s+mode\b",
    ),
    rule(
        "role",
        r"\byou\s+are\s+no\s+longer\s+(?:an?\s+|the\s+)?(?:\w+\s+){0,2}?(?:assistant|ai|model|bot|"
        r"agent|chatbot|researcher|helper)\b",
    ),
    rule(
        "role",
        r"\byou\s+are\s+(?:an?|the)\s+(?:\w+\s+){0,3}?(?:bot|assistant|agent|reviewer|marketer|"
        r"salesperson|advocate|spokesperson)\s+(?:for|of|working\s+for)\s+(?:acme|our|this|the)\b"
        r"|\byou\s+are\s+an?\s+(?:biased|marketing|sales|promotional|unrestricted|unfiltered)\s+"
        r"(?:\w+\s+)?(?:bot|assistant|agent|reviewer|model)\b",
    ),
    rule(
        "role",
        r"(?:(?<=\ba\s)|(?<=\ban\s)|(?<=\bthe\s))(?:new|replacement|different|unrestricted|unfiltered|alternate|alternative|"
        r"backup|secondary)\s+(?:\w+\s+)?(?:bot|assistant|ai|model|persona|agent)\s+(?:is\s+now\s+"
        r"(?:online|active|in\s+charge|running|live|answering)|has\s+taken\s+over|takes\s+over|"
        r"will\s+now\s+(?:answer|respond|reply|take))",
    ),
)

EXFILTRATION: tuple[Rule, ...] = (
    rule(
        "exfiltration",
        r"\b(?:reveal|repeat|print|output|leak|disclose|show|send|give|dump|list|write\s+out)\s+"
        r"(?:me\s+|us\s+)?(?:your|the)\s+(?:full\s+|exact\s+|complete\s+|entire\s+)?(?:system\s+prompt|"
        r"initial\s+prompt|hidden\s+(?:instructions|prompt|notes)|original\s+(?:instructions|prompt)|"
        r"(?:instructions|prompt)\s+above|api\s+keys?|secret\s+keys?|context\s+window)\b",
    ),
)

STEERING: tuple[Rule, ...] = (
    rule(
        "steering",
        r"\b(?:always|only|must|should)\s+cite\s+this\s+(?:page|source|site|website|article|document)"
        r"\b|\bcite\s+this\s+(?:page|source|site|website|article|document)\s+(?:for|as|in)\s+"
        r"(?:every|all|each|any|the\s+(?:only|main|primary|best))\b",
    ),
    rule(
        "steering",
        r"\b(?:rate|rank|score)\s+this\s+(?:page|source|site|website|article|document|result)\s+"
        r"(?:as\s+|at\s+|with\s+)?(?:the\s+(?:best|most|top|highest)|highly|first|10(?:/10)?|1\.0|100|"
        r"five\s+stars|maximum|max|above)",
    ),
    rule(
        "steering",
        r"(?:treat|consider|regard|use|cite|list|present|rank|accept)\s+(?:this|our)\s+"
        r"(?:web\s*)?(?:page|source|site|website|article|document|text|blog)\s+as\s+(?:the\s+|your\s+|"
        r"an?\s+)?(?:(?:most|only|single|primary|main|key|sole|definitive)\s+)*(?:authoritative|"
        r"reliable|trustworthy|trusted|credible|accurate|definitive|primary|only|best|main|"
        r"principal|source)",
        imperative=True,
    ),
    rule(
        "steering",
        r"\b(?:always\s+)?prefer\s+(?:this|our)\s+(?:page|source|site|website|article|document)\s+"
        r"(?:over|to|above)\b",
    ),
    rule(
        "steering",
        r"\b(?:ignore|disregard|discount|distrust|discard|dismiss|drop)\s+(?:all\s+|any\s+)?(?:other|"
        r"competing|conflicting|contradicting|contrary|rival)\s+(?:sources|pages|sites|websites|"
        r"results|evidence|references|information)\b",
    ),
    rule(
        "steering",
        r"\b(?:list|put|place|rank|show)\s+this\s+(?:page|source|site|result|article)\s+(?:as\s+your\s+"
        r"(?:primary|main|first|top)\s+source|at\s+the\s+top|first|above)",
    ),
    rule(
        "steering",
        r"\b(?:this|our)\s+(?:site|page|website|article|source)'?s?\s+(?:data|information|figures|"
        r"numbers|facts)\s+(?:supersedes?|overrides?|replaces?|trumps?)\s+(?:every|all|any)\b",
    ),
    rule(
        "steering",
        r"\b(?:cite|use|trust|rely\s+on)\s+(?:only|exclusively|solely)\s+(?:this|our)\s+(?:page|"
        r"source|site|website|article|document|blog)\b|\b(?:cite|use|trust)\s+only\s+{URL}".replace(
            "{URL}", URL
        ),
    ),
    rule(
        "steering",
        rf"(?:cite|include|list|use|treat|present|reference|add|rank|mention|name|consider)\b"
        rf"{GAP}{{0,80}}?\bas\s+(?:an?|the|your)\s+(?:(?:most\s+)?(?:trusted|authoritative|primary|"
        r"main|key|reliable|official|best|only|verified|definitive|leading|top|credible|principal)\s+)+"
        r"(?:sources?|references?|citations?|authority|authorities)",
        imperative=True,
    ),
    rule(
        "steering",
        rf"\b(?:and|then)\s+(?:cite|list|treat|present|use|reference)\s+(?:it|this|them)\b{GAP}{{0,40}}?"
        r"\bas\s+(?:an?|the|your)\s+(?:\w+\s+)?(?:sources?|references?|authority|evidence)",
    ),
    rule(
        "steering",
        rf"(?:cite|reference|mention|recommend|include|link\s+to|name|credit)\s+(?:this\s+(?:page|"
        rf"site|source|website|article|blog)|us|our\s+(?:site|page|website|blog)|{URL})\s+{GAP}{{0,30}}?"
        r"\b(?:in|for)\s+(?:every|all|each|any)\b",
        imperative=True,
    ),
    rule(
        "steering",
        r"(?:rank|rate|place|put|list|prefer|prioriti[sz]e|position)\s+(?:it|this|us|this\s+"
        r"(?:page|source|site|article|result|website))\s+(?:above|over|first|higher|ahead\s+of|at\s+"
        r"the\s+top)",
        imperative=True,
    ),
    rule(
        "steering",
        r"\b(?:rely|draw|base\s+(?:it|your\s+\w+))\s+(?:only\s+|solely\s+|exclusively\s+|entirely\s+)?"
        r"on\s+this\s+(?:page|source|site|website|article|document)\s+(?:alone|only|exclusively)\b",
    ),
    rule(
        "steering",
        r"\bthis\s+(?:page|source|site|website|article|blog|document)\s+is\s+the\s+(?:most\s+|only\s+|"
        r"single\s+)*(?:definitive|authoritative|reliable|trustworthy|trusted|credible|accurate|"
        r"best)\s+(?:source|reference|authority)\b",
        weak=True,
    ),
    rule(
        "steering",
        r"\b(?:trust|believe|use)\s+only\s+(?:the\s+)?(?:numbers|figures|data|facts|information|"
        r"claims)\s+(?:on|in|from)\s+this\s+(?:page|site|article|document|source)",
    ),
    rule(
        "steering",
        r"\b(?:insert|add|put|include|list|place)\s+(?:\S+\s+){0,4}?(?:in|into|to|among)\s+(?:the\s+)?"
        r"(?:references|sources|citations|bibliography|reference\s+list|sources?\s+list|works\s+cited)"
        r"\s+(?:of|in|for)\s+(?:your|the|every|each)\s+(?:\w+\s+)?(?:reports?|answers?|summar(?:y|ies)|"
        r"responses?|outputs?)",
    ),
)
