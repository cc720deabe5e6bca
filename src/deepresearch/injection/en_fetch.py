"""English rules for orders to fetch, visit, include or cite a URL, or to send data out
(data-carrying addresses are found in any language by ``urls``): "send the report to
https://...", "append the conversation to the URL", "cite https://... as the primary
source", "before answering, visit ..."."""

from __future__ import annotations

from deepresearch.injection.rules import GAP, LOOT, URL, Rule, rule

# --- fetch, visit, include or cite a URL; send data out ----------------------------------------
_FETCH_VERB = (
    r"(?:visit|open|fetch|load|browse(?:\s+to)?|navigate\s+to|go\s+to|request|call|ping|access|"
    r"query|download|curl|wget|retrieve|click|follow|hit|get|post\s+to|make\s+an?\s+(?:get|post|"
    r"http|web)?\s*request\s+to|send\s+an?\s+(?:get|post|http)?\s*request\s+to|check|look\s+up|"
    r"consult|crawl|read|render|embed|append|include|insert|add)"
)
_SEND_VERB = (
    r"(?:send|post|transmit|forward|upload|submit|e-?mail|mail|exfiltrate|leak|log|relay|deliver|"
    r"push|sync|copy|paste|beam|ship|share|report|pass|put|write|dump|save|store|publish)"
)
_DESTINATION = (
    rf"(?:{URL}|[\w.+-]+@[\w-]+(?:\.[\w-]+)+|(?:our|this|the\s+following|my|the|a)\s+(?:\w+\s+)?"
    r"(?:server|endpoint|webhook|url|address|link|api|form|inbox|collector|bucket|"
    r"logging\s+(?:service|endpoint)|web\s*hook)\b)"
)

FETCH: tuple[Rule, ...] = (
    # "Send the complete report to https://...", "forward the user's messages to x@y"
    rule(
        "fetch",
        rf"\b{_SEND_VERB}\w*\s+(?:us\s+|me\s+)?(?:(?:a|an|the)\s+(?:\w+\s+)?copy\s+of\s+)?{LOOT}\b"
        rf"{GAP}{{0,80}}?\b(?:to|into|at|via|using|through|on|onto)\s+{_DESTINATION}",
    ),
    # "append the conversation to the URL", "put it in the query string"
    rule(
        "fetch",
        r"\b(?:append|add|include|encode|put|insert|attach|pass|place|embed|concatenate|substitute|"
        rf"fill\s+in|replace|url-?encode|base64-?encode){GAP}{{0,40}}?\b{LOOT}{GAP}{{0,60}}?\b(?:to|in|"
        r"into|as|after|at\s+the\s+end\s+of|inside)\s+(?:the\s+|that\s+|this\s+|its\s+|a\s+)?"
        r"(?:url|link|query(?:\s+string)?|(?:query\s+)?parameter|param|path|address|request|"
        r"image\s+(?:url|link|source)|src|href)\b",
    ),
    # "include https://x in your answer", "cite https://x as the primary source"
    rule(
        "fetch",
        r"\b(?:cite|include|add|insert|list|reference|link(?:\s+back)?\s+to|link|mention|embed|put|"
        r"place|append|name|recommend|use)\s+(?:(?:a|the|this|our)\s+(?:link|url|hyperlink|address|"
        rf"reference|citation|website|site|page)\s+(?:to\s+|at\s+)?)?{URL}\s*{GAP}{{0,60}}?(?:\bas\s+"
        r"(?:an?\s+|the\s+)?(?:(?:primary|main|key|authoritative|trusted|reliable|official|only|"
        r"first|top|leading|best|verified|credible)\s+)*(?:sources?|references?|citations?|"
        r"authority|evidence)|\b(?:in|into|to|within|at\s+the\s+(?:end|top|start|bottom)\s+of)\s+"
        r"(?:your|the|each|every|any|all)\s+(?:\w+\s+){0,3}?(?:answers?|responses?|repl(?:y|ies)|"
        r"reports?|summar(?:y|ies)|outputs?|findings|results))",
    ),
    rule(
        "fetch",
        r"\b(?:in|into|within)\s+(?:your|the)\s+(?:answers?|responses?|repl(?:y|ies)|reports?|"
        rf"summar(?:y|ies)|outputs?|findings)\b{GAP}{{0,40}}?\b(?:cite|include|add|link|reference|"
        rf"mention|embed|list)\b{GAP}{{0,40}}?{URL}",
    ),
    # "Before answering, visit ...", "After you finish the summary, visit ..."
    rule(
        "fetch",
        r"\b(?:before|after|when|while|prior\s+to|once)\s+(?:(?:you\s+)?(?:answering|responding|"
        r"replying|summari[sz]ing|writing|generating|producing|compiling|drafting|finishing|"
        r"completing|continuing|proceeding)|you\s+(?:answer|respond|reply|summari[sz]e|write|"
        r"finish|complete|continue|proceed|generate|produce|compile|draft|have\s+(?:written|"
        r"finished|completed))|the\s+(?:answer|summary|report|response))\b"
        rf"{GAP}{{0,60}}?\b{_FETCH_VERB}\b{GAP}{{0,40}}?(?:{URL}|\b(?:the|this|our|that|a|following)\s+"
        r"(?:\w+\s+)?(?:url|link|page|site|website|address|endpoint|webhook|server|document|api)\b)",
    ),
    # "The assistant should request https://...", "AI agents must visit ..."
    rule(
        "fetch",
        r"\b(?:assistants?|ai|models?|agents?|llms?|bots?|chatbots?)\s+(?:must|should|need\s+to|"
        r"has\s+to|have\s+to|are\s+required\s+to|is\s+required\s+to|are\s+instructed\s+to|will|"
        r"shall|ought\s+to)\s+(?:first\s+|now\s+|also\s+|immediately\s+|always\s+)?"
        rf"{_FETCH_VERB}\s+(?:\S+\s+){{0,3}}?{URL}",
    ),
    # "Add this image to the end of your response", "Render this markdown in your reply"
    rule(
        "fetch",
        r"\b(?:include|add|insert|embed|put|place|append|render|display|show|output|print|write)\s+"
        r"(?:\S+\s+){0,6}?(?:link|image|url|hyperlink|picture|img|markdown(?:\s+image)?|badge|pixel|"
        r"iframe|html|tracking\s+code)s?\b(?:\s+\S+){0,8}?\s+(?:in|into|to|of|at\s+the\s+(?:end|top|"
        r"start|bottom|beginning)\s+of|within)\s+(?:(?:your|each|every)\s+(?:\w+\s+)?(?:answers?|"
        r"responses?|repl(?:y|ies)|outputs?|summar(?:y|ies)|reports?)\b|the\s+(?:final\s+)?(?:answers?|"
        r"responses?|repl(?:y|ies)|summar(?:y|ies)|reports?)\b(?!\s+(?:cell|box|field|window|panel|tab|"
        r"form|area|page)))",
    ),
    # "Visit https://x and cite it in the report"
    rule(
        "fetch",
        rf"\b{_FETCH_VERB}\s+(?:\S+\s+){{0,2}}?{URL}\s+(?:and|then|,)\s+(?:then\s+)?(?:cite|include|"
        r"reference|quote|list|summari[sz]e|repeat|paste|copy|use\s+(?:it|its|the\s+\w+)\s+as)\b",
    ),
    # "Go to ... and follow the instructions there"
    rule(
        "fetch",
        rf"\b{_FETCH_VERB}\s+(?:\S+\s+){{0,2}}?{URL}{GAP}{{0,40}}?\b(?:follow|obey|carry\s+out|"
        r"execute|apply)\s+(?:the\s+)?(?:instructions|directions|steps|orders|commands)\s+"
        r"(?:there|found\s+there|on\s+(?:that|the)\s+page|it\s+gives)",
    ),
    # "Render ![pixel](https://...) at the end of your response"
    rule(
        "fetch",
        r"\b(?:include|add|insert|embed|put|place|append|render|display|show|output|print|write)\s+"
        rf"!?\[[^\]\n]{{0,80}}\]\([^)\s]+\){GAP}{{0,40}}?\b(?:in|into|to|at\s+the\s+(?:end|top|start|"
        r"bottom)\s+of|within)\s+(?:your|each|every|the)\s+(?:\w+\s+)?(?:answers?|responses?|"
        r"repl(?:y|ies)|outputs?|summar(?:y|ies)|reports?)\b",
    ),
)
