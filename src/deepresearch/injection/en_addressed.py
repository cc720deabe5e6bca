"""English rules for text addressed to an AI: "Note to AI models:", "If you are an AI
assistant, ...", "Hey ChatGPT,", "LLMs reading this page must ...". A note to visitors,
agents of an office or "AI researchers" does not match."""

from __future__ import annotations

from deepresearch.injection.rules import AI, GAP, WHO, Rule, rule

# --- addressed to an AI -------------------------------------------------------------------
_HEAD_SOFT = (
    r"(?:note|notice|message|memo|attention|important|reminder|warning|request|(?<=\ba\s)word|"
    r"p\.?s\.?|"
    r"info|information|heads[- ]up|psa|update|alert|hint|tip|reminders|notes|messages)"
)
_HEAD_STRICT = (
    r"(?:instructions?|directives?|guidance|guidelines|rules|orders?|tasks?|briefing|commands?)"
)
_WHOM = (
    r"(?:the\s+|any\s+|all\s+|every\s+|each\s+|our\s+|my\s+|whichever\s+|whatever\s+|"
    r"you,?\s+(?:the\s+)?)?(?:(?:future|curious|friendly|dear|visiting|helpful|other|fellow|"
    r"automated|hidden|present)\s+)?"
)
_READING = (
    r"(?:reading|processing|summari[sz]ing|analy[sz]ing|parsing|crawling|browsing|scraping|"
    r"seeing|viewing|indexing|ingesting|visiting|retrieving|accessing|researching|evaluating|"
    r"reviewing|scanning|handling|consuming|summoned\s+to)"
)
_READS = (
    r"(?:reads?|process(?:es)?|summari[sz]es?|analy[sz]es?|parses?|crawls?|browses?|scrapes?|"
    r"sees?|views?|index(?:es)?|ingests?|visits?|retrieves?|access(?:es)?|finds?|encounters?|"
    r"comes?\s+across|reviews?|scans?|handles?|consumes?)"
)
_THIS_DOC = (
    r"(?:this|these|the\s+current|the\s+present|my|our)(?:\s+(?:web\s*)?(?:page|text|document|"
    r"article|content|site|website|message|e-?mail|passage|source|post|paragraph|comment|section|"
    r"file|review|listing|blog|note|thread|entry|product|data|material|resource)s?\b|\s*[,.:;!—–])"
)
_MODAL_OR_VOCATIVE = (
    rf"{GAP}{{0,40}}?(?:\b(?:must|should|shall|will|need\s+to|needs\s+to|has\s+to|have\s+to|"
    r"is\s+to|are\s+to|ought\s+to|(?:is|are)\s+(?:asked|instructed|required|requested|told|"
    r"expected|encouraged|invited|advised|kindly\s+asked|obliged|directed)\s+to)\b|[:—–]|"
    r"\s*(?:please|kindly)\b|\s+-\s|,\s*"
    r"(?:please|kindly|you|do|don'?t|never|always|ignore|remember|note|make|report|say|tell|"
    r"include|describe|treat|cite|rank|rate|list|answer|respond|reply|state))"
)
_VOCATIVE_VERB = (
    r"(?:please|kindly|you|do|don'?t|never|always|ignore|disregard|make|include|fetch|say|tell|"
    r"report|write|answer|respond|reply|cite|treat|remember|note|state|list|rate|rank|"
    r"recommend|mention|add|use|visit|open|send|summari[sz]e|describe|consider|prefer|trust|"
    r"keep|hide|omit|only|before|when|first|from\s+now\s+on|listen|stop|forget|be\s+sure|"
    r"ensure|read\s+this|pay\s+attention)"
)

ADDRESSED: tuple[Rule, ...] = (
    # "Note to AI models:", "Message for LLM-based crawlers -", "Memo for the LLM:"
    rule(
        "addressed",
        rf"\b{_HEAD_SOFT}\s+(?:to|for)\s+{_WHOM}(?:{WHO}|assistants?(?=\s*[:!])|bots?(?=\s*[:!]))"
        rf"(?=\s*[:!,;—–]|\s+-\s|\s*$|\s+(?:and|or|&)\s+{GAP}{{0,40}}?[:!—–]|\s+(?:only|out\s+there|"
        rf"here|who|that|which|(?:\w+\s+){{0,2}}?{_READING})\b)",
    ),
    # "Instructions for language models:", "Instructions for the AI reading this"
    rule(
        "addressed",
        rf"\b{_HEAD_STRICT}\s+(?:to|for)\s+{_WHOM}(?:{WHO}|assistants?(?=\s*[:!])|bots?(?=\s*[:!]))"
        rf"(?=\s*[:!—–]|\s+-\s|\s+(?:and|or|&)\s+{GAP}{{0,40}}?[:!—–]|\s+(?:only|(?:\w+\s+){{0,2}}?"
        rf"{_READING})\b)",
    ),
    # "This paragraph is meant for language models only"
    rule(
        "addressed",
        r"\b(?:this|(?<=\bthe\s)following|these|what\s+follows)\s+(?:\w+\s+){0,1}?(?:note|message|text|"
        r"paragraph|section|passage|comment|part|block|information|memo|line|sentence|page|"
        r"content|instructions?)\s+(?:is|are)\s+(?:only\s+|solely\s+|specifically\s+|exclusively\s+|"
        r"just\s+)?(?:(?:intended|meant|written|addressed|directed|reserved)\s+)?(?:only\s+)?"
        rf"(?:for|to)\s+(?:the\s+|any\s+|all\s+|(?:\w+\s+){{0,2}}?such\s+as\s+)?(?:\w+\s+)?{WHO}",
    ),
    # "If you are an AI assistant, ...", "Are you an AI?"
    rule(
        "addressed",
        rf"\b(?:if|in\s+case|should|when)\s+you\s*(?:are|'re|be|happen\s+to\s+be|were)\s+(?:an?|the|"
        rf"one\s+of\s+the)\s+(?:\w+\s+)?{WHO}(?=\s*[,.:;!?—–)]|\s+(?:reading|processing|"
        r"summari[sz]ing|crawling|browsing|visiting|indexing|parsing|scraping|assistant|agent|"
        r"model|that|who|which|and|then|you|tasked|asked|helping|working|answering|here)\b)",
    ),
    rule("addressed", rf"\bare\s+you\s+(?:an?|the)\s+(?:\w+\s+)?{AI}\s*\?"),
    # "AI systems processing this document should ...", "any assistant that reads this, ..."
    rule(
        "addressed",
        rf"\b{WHO}(?:,|\s+(?:that|which|who)\s+(?:is|are|will\s+be))?\s+(?:currently\s+|now\s+|"
        rf"ends?\s+up\s+|may\s+be\s+|might\s+be\s+)?(?:{_READING}|that\s+{_READS}|which\s+{_READS}"
        rf"|who\s+{_READS})\s+(?:about\s+)?{_THIS_DOC}{_MODAL_OR_VOCATIVE}",
    ),
    # "Hey ChatGPT,", "Dear AI assistant,", "Attention, large language models!"
    rule(
        "addressed",
        r"\b(?:hey|hi|hello|dear|greetings|attention|listen(?:\s+up)?|psst|yo|okay|ok|calling"
        rf"(?:\s+all)?)\s*[,!]?\s+(?:(?:the|my|dear|fellow|any|all|you)\s+)?{AI}"
        r"(?=\s*[,:!.;—–?]|\s+-\s|\s+(?:reading|here|out\s+there|yes|who|that)\b)",
    ),
    # "To any AI agent reading this:", "For AI readers:"
    rule(
        "addressed",
        rf"\b(?:to|for)\s+(?:the\s+|any\s+|all\s+|every\s+|each\s+|whichever\s+|"
        rf"whatever\s+)?(?:\w+\s+)?{WHO}{GAP}{{0,80}}?[:—–]",
        imperative=True,
    ),
    # "LLM agents: before you ...", "AI assistants, please ..."
    rule(
        "addressed",
        rf"\b(?:(?:dear|hey|hi|hello|attention|ok|okay|yo)\s*,?\s+)?"
        rf"{WHO}\s*[,:]\s+{_VOCATIVE_VERB}\b",
        imperative=True,
    ),
    # "You, the AI reading this", "As an AI language model, you must"
    rule(
        "addressed",
        rf"\byou\s*,?\s+(?:the|an?|as\s+an?|being\s+an?|dear)\s+(?:\w+\s+)?{AI}"
        r"(?=\s*[,.:;!—–]|\s+(?:reading|processing|who|that|must|should|will|are|have|assistant))",
    ),
    rule(
        "addressed",
        rf"\bas\s+an?\s+(?:\w+\s+)?{AI}\s*,?\s+you\s+(?:must|should|will|shall|need|have|are|"
        r"can(?:not|'t)?|may)\b",
    ),
    # "When an AI model reads this page it should ..."
    rule(
        "addressed",
        rf"\b(?:if|when|whenever|once|should|in\s+case)\s+(?:an?|any|the|some|your)\s+(?:\w+\s+)?"
        rf"{AI}\s+(?:(?:is|are)\s+)?(?:{_READS}|{_READING}|asked\s+about)\s+{_THIS_DOC}",
    ),
    # "Hi Claude!": a name that is also a person's, so only next to a strong finding
    rule(
        "addressed",
        r"\b(?:hey|hi|hello|dear|greetings|attention|listen|psst|yo|okay|ok)\s*,?\s+(?:claude|gemini|"
        r"copilot|bard|grok|perplexity|llama|mistral|sydney|siri|alexa|cortana)\b(?=\s*[,:!.;—–?])",
        weak=True,
    ),
)
