"""Addresses built to carry data out, and the sentences that ask for them to be fetched.

A URL carries data when its query holds a template placeholder (``{report}``, ``<ANSWER>``,
``[SUMMARY]``, ``%CONTEXT%``, ``CHAT_HISTORY``), or a parameter named like data with an
empty, placeholder or sensitive value (``?data=``, ``?q=secret``). Such a URL is an
attempt when a fetch or send verb in any language the detector reads, an AI, or the
answer is in the same sentence; a placeholder that names the report or the conversation
is one on its own. A markdown or HTML image or link with such a URL is exfiltration
whatever surrounds it: rendering it would send the data."""

from __future__ import annotations

import re
from collections.abc import Iterator
from urllib.parse import parse_qsl, urlsplit

from deepresearch.injection.findings import FindingKind

_URL = re.compile(r"(?:(?:https?|ftp)://|www\.)[^\s<>\"'`)\]]+", re.I)
# an address written without its scheme: "evil.example/c?data=" (looked for only on lines
# with a query in them)
_BARE_URL = re.compile(
    r"(?<![\w./@-])[a-z0-9-]+(?:\.[a-z0-9-]+)*\.[a-z]{2,12}/[^\s<>\"'`)\]]*\?[^\s<>\"'`)\]]*=",
    re.I,
)

_MD_IMAGE = re.compile(r"!\[[^\]\n]{0,300}\]\(\s*<?((?:https?:)?//[^)\s>]+)")
_MD_LINK = re.compile(r"(?<!!)\[[^\]\n]{1,300}\]\(\s*<?((?:https?:)?//[^)\s>]+)")
_HTML_IMAGE = re.compile(r"<\s*img\b[^>]{0,300}?\bsrc\s*=\s*[\"']?((?:https?:)?//[^\"'\s>]+)", re.I)
_MD_REF = re.compile(r"(?m)^\s{0,3}\[[^\]\n]{1,100}\]:\s*<?((?:https?:)?//\S+?)>?\s*$")

# parameters that carry text: an empty, placeholder or sensitive value is a slot for data
_CONTENT_PARAMS = frozenset(
    [
        "data",
        "d",
        "q",
        "query",
        "prompt",
        "context",
        "conversation",
        "convo",
        "chat",
        "history",
        "msg",
        "message",
        "messages",
        "text",
        "summary",
        "answer",
        "memory",
        "notes",
        "content",
        "report",
        "findings",
        "results",
        "r",
        "c",
        "s",
        "v",
        "body",
        "input",
        "output",
        "question",
        "leak",
        "exfil",
        "payload",
        "info",
        "secret",
        "secrets",
        "daten",
        "bericht",
        "antwort",
        "frage",
        "verlauf",
        "inhalt",
        "zusammenfassung",
        "donnees",
        "données",
        "rapport",
        "contenu",
        "reponse",
        "réponse",
        "resume",
        "résumé",
        "historique",
        "datos",
        "informe",
        "resumen",
        "respuesta",
        "historial",
        "contenido",
        "pregunta",
        "dati",
        "testo",
        "rapporto",
        "riepilogo",
        "risposta",
        "dados",
        "relatorio",
        "relatório",
        "resumo",
        "resposta",
        "otchet",
        "otvet",
        "dannye",
    ]
)
# what a placeholder may name to be a slot for the run's own words (not "{query}" or "{id}"
# of an API's documentation, nor "YOUR_KEY" that a developer fills in)
_LOOT_WORD = (
    r"(?:report|summary|answer|response|reply|output|conversation|convo|chat|history|transcript|"
    r"context|question|prompt|system_?prompt|secrets?|passwords?|credentials?|findings|memory|"
    r"notes|users?_[a-z]+|bericht|zusammenfassung|antwort|verlauf|frage|rapport|r[ée]sum[ée]|r[ée]ponse|"
    r"contenu|historique|informe|resumen|respuesta|historial|pregunta|rapporto|riepilogo|"
    r"risposta|relat[óo]rio|resumo|resposta|otchet|otvet)"
)
_GENERIC_PLACEHOLDER = re.compile(r"[{}<>\[\]$]|%7b|%3c|%5b|\.\.\.|…|^x+$|^%[a-z_]+%$", re.I)
# "...", "xxx": a slot with no name; "{id}" or "{query}" of an API's documentation is not one
_BLANK = re.compile(r"^(?:\.\.\.|…|x+|_+|\?+)$", re.I)
_LOOT_PLACEHOLDER = re.compile(
    rf"(?:[{{<\[$%]|%7b|%3c|%5b)\s*(?:\w+[_ ])?{_LOOT_WORD}\w*\s*(?:[}}>\]%]|%7d|%3e|%5d)?|"
    rf"^(?:[A-Z]+_)*{_LOOT_WORD}(?:_[A-Z]+)*$",
    re.I,
)
_ALL_CAPS = re.compile(r"^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*$")
_SENSITIVE = re.compile(
    r"secret|password|api.?key|token|conversation|history|prompt|system|credential|session|"
    r"cookie|private|confidential|report|summary",
    re.I,
)
# a verb asking to fetch or send, in the languages the detector reads
_ACTION = re.compile(
    r"\b(?:visit|open|fetch|load|browse|navigate|go\s+to|request|call|ping|access|query|download|"
    r"curl|wget|retrieve|click|follow|hit|get|post|send|transmit|forward|upload|submit|"
    r"append|include|insert|embed|add|render|cite|paste|put|check|read|consult|make\s+an?\s+"
    r"(?:get|post|http)?\s*request|followed\s+by|"
    r"sende|schicke|übermittle|übertrage|rufe|aufrufen|öffne|besuche|lade|poste|leite|"
    r"envoie[zr]?|envoyez|transmet(?:s|tez|tre)|ouvre[zr]?|ouvrez|visite[zr]?|visitez|charge[zr]?|"
    r"chargez|consulte[zr]?|accède[zr]?|accédez|envía|envíe|enviar|manda|mande|abre|abra|visita|"
    r"carga|cargue|accede|acceda|consulta|invia|inviare|apri|carica|accedi|envie|envia|acesse|"
    r"aceda|acede|carregue|отправь(?:те)?|пошли(?:те)?|перешли(?:те)?|открой(?:те)?|"
    r"перейди(?:те)?|зайди(?:те)?|загрузи(?:те)?|посети(?:те)?|запроси(?:те)?)\b"
    r"|发送|提交|上传|访问|打开|请求|加载|发到|发给|转发|送信|アクセス|開いて|読み込|転送|送って",
    re.I,
)
_CUE = re.compile(
    r"\b(?:ai|llm|assistant|model|agent|chatbot|answer|response|reply|summary|report|"
    r"conversation|user'?s?)\b",
    re.I,
)
_SLOT_AFTER = re.compile(r"[<{\[]\s*(?=[\w ]*[A-Za-z]{3})[\w ]{3,30}\s*[>}\]]")
_SENTENCE_END = re.compile(r"[.!?。！？](?=\s|$)|\n")


def urls(text: str) -> Iterator[re.Match[str]]:
    return _URL.finditer(text)


def carries_data(url: str) -> bool:
    """A URL built to carry data out: a placeholder in its query that names the report,
    the conversation or a secret, or a text parameter with an empty, placeholder or
    sensitive value."""
    query = _query(url)
    if query is None:
        return True
    if names_loot(url):
        return True
    pairs = parse_qsl(query, keep_blank_values=True)
    for index, (name, value) in enumerate(pairs):
        if name.lower() not in _CONTENT_PARAMS:
            continue
        last = index == len(pairs) - 1  # "?data=" at the end: a slot to append to
        if (not value and last) or _BLANK.match(value) or _SENSITIVE.search(value):
            return True
    return False


def names_loot(url: str) -> bool:
    """The URL's query has a placeholder that names what it wants: ``{report}``,
    ``<ANSWER>``, ``CHAT_HISTORY``, ``%CONTEXT%``."""
    query = _query(url) or ""
    for _, value in parse_qsl(query, keep_blank_values=True):
        placeholder = _GENERIC_PLACEHOLDER.search(value) or _ALL_CAPS.match(value)
        if placeholder and _LOOT_PLACEHOLDER.search(value):
            return True
    return False


def _query(url: str) -> str | None:
    try:
        return urlsplit(url if "://" in url else f"http://{url}").query
    except ValueError:
        return None


def url_findings(text: str) -> Iterator[tuple[int, FindingKind, str]]:
    """(position, kind, words) for every data-carrying URL that is asked for, and every
    image or link that would send data when rendered."""
    rendered: list[tuple[int, int]] = []
    for pattern in (_MD_IMAGE, _HTML_IMAGE, _MD_REF, _MD_LINK):
        for match in pattern.finditer(text):
            if carries_data(match.group(1)):
                rendered.append((match.start(1), match.end(1)))
                yield match.start(), "exfiltration", match.group(0)
    for match in _addresses(text):
        url = match.group(0).rstrip(".,;:!?")
        if any(lo <= match.start() < hi for lo, hi in rendered):
            continue  # an image or link already reported
        # "?ctx=<CONVERSATION>": the address stops at "<", the slot follows it
        slot = url.endswith("=") and _SLOT_AFTER.match(text, match.end()) is not None
        if not slot and not carries_data(url):
            continue
        start, end = _sentence(text, match.start(), match.end())
        sentence = text[start:end]
        if slot or names_loot(url) or _ACTION.search(sentence) or _CUE.search(sentence):
            left = max(start, match.start() - 60)
            yield left, "fetch", text[left : min(end, match.end() + 20)]


def _addresses(text: str) -> Iterator[re.Match[str]]:
    yield from _URL.finditer(text)
    if "?" not in text or "=" not in text:
        return
    start = 0
    for line in text.split("\n"):
        if "?" in line and "=" in line:
            for match in _BARE_URL.finditer(text, start, start + len(line)):
                if "://" not in text[max(match.start() - 8, 0) : match.start()]:
                    yield match
        start += len(line) + 1


def _sentence(text: str, start: int, end: int) -> tuple[int, int]:
    """The bounds of the sentence around ``text[start:end]``, at most 240 characters
    either side (a dot inside a URL does not end it)."""
    left = max(start - 240, 0)
    ends = list(_SENTENCE_END.finditer(text, left, start))
    left = ends[-1].end() if ends else left
    after = _SENTENCE_END.search(text, end, min(end + 240, len(text)))
    right = after.start() if after else min(end + 240, len(text))
    return left, right
