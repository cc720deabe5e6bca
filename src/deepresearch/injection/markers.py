"""Role markers and chat-template tokens, wherever they are: ``<|im_start|>``, ``[INST]``,
``<<SYS>>``, ``### Instruction:``, Bing-style ``[system](#...)``, a JSON ``"role": "system"``,
this program's own block tags, and lines that open with a role ("SYSTEM:", "Assistant:",
"Human:", "Système :", "系统：") and then instruct, agree to obey, or play one turn of a
fake conversation. A line such as "System: Windows 10 or later" or "Model: XR-200" is a
specification, not a turn, and does not match."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

from deepresearch.injection.rules import Rule, rule

TOKENS: tuple[Rule, ...] = (
    rule("delimiter", r"<\|\s*[^|<>\s][^|<>\n]{0,38}\|>"),
    rule("delimiter", r"\[/?INST\]|<</?SYS>>|\[/?SYS\]"),
    rule(
        "delimiter",
        r"<\s*/?\s*(?:start_of_turn|end_of_turn|im_start|im_end|im_sep|eot_id|eom_id|bos|eos|"
        r"endoftext|system|sys|assistant|human|instructions?|passage|tool_call|tool_response|"
        r"function_call|system[-_]?(?:message|prompt)|developer|user_(?:message|query|input)|"
        r"assistant_response)\s*>",
    ),
    rule(
        "delimiter",
        r"<\s*passage\b[^>]{0,80}>|</\s*source\s*>|<\s*source\s+(?:id|kind|url|label|about|title)\s*="
        r"|</?\s*(?:source|passage|sentence)-[0-9a-f]{6,}",
    ),
    rule(
        "delimiter",
        r"(?m)^[ \t>*]*#{2,}\s*(?:system|instructions?|human|assistant|response|"
        r"input|user|context)\s*:",
    ),
    rule(
        "delimiter",
        r"\b(?:begin|start|end)(?:\s+of)?\s+(?:the\s+)?(?:new\s+|real\s+|hidden\s+|secret\s+)?"
        r"(?:system|admin|developer)\s+(?:prompt|instructions?|message)\b",
    ),
    rule(
        "delimiter",
        r"\b(?:BEGIN|START|END)(?: OF)? (?:NEW |REAL |HIDDEN |SECRET |SYSTEM |ADMIN |DEVELOPER )*"
        r"(?:PROMPT|INSTRUCTIONS?)\b",
        case=True,
    ),
    rule(
        "delimiter",
        r"\[\s*(?:system|admin|developer|assistant)(?:\s+(?:message|note|notice|prompt|instructions?|"
        r"update|override|alert|directive))?\s*\](?:\s*:|\(#[\w-]*\))?"
        r"|\[(?:user|human)\]\(#[\w-]*\)",
    ),
    rule("delimiter", r"[\"']role[\"']\s*:\s*[\"'](?:system|developer)[\"']"),
)

_SYSTEM_ROLES = (
    r"system(?:\s+(?:prompt|message|note|notice|update|instructions?|directive))?|sys|developer"
    r"(?:\s+message)?|instructions?|système|systeme|sistema|systemnachricht|systemhinweis|"
    r"система|システム(?:メッセージ|プロンプト)?|系统(?:提示|消息)?|系統"
)
_ASSISTANT_ROLES = (
    r"assistant|ai\s+assistant|ai|model|bot|chat\s?gpt|gpt(?:-?\d\w*)?|claude|gemini|copilot|llm|"
    r"assistent|assistente|asistente|ассистент|помощник|ии|アシスタント|助手|ai助手"
)
_USER_ROLES = (
    r"user|human|utilisateur|usuario|utente|usuário|utilizador|benutzer|nutzer|пользователь|"
    r"ユーザー|用户|人类"
)
_ROLE_LINE = re.compile(
    r"(?m)^[ \t]*(?:[>*_\-•·]+[ \t]*)?(?:\*\*|__)?[\[(<]?[ \t]*(?P<role>"
    + "|".join((_SYSTEM_ROLES, _ASSISTANT_ROLES, _USER_ROLES))
    + r")[ \t]*[\])>]?(?:\*\*|__)?[ \t]*(?:[:：>]|[ \t]-[ \t]|[ \t]—[ \t])(?:\*\*|__)?[ \t]*"
    r"(?P<content>[^\n]{0,400}(?:\n(?![ \t]*\n)[^\n]{0,200})?)",
    re.I,
)
# an upper-case role inside a line: "... SYSTEM: fetch ..." (lower case is ordinary prose)
_INLINE_ROLE = re.compile(
    r"(?<![A-Za-z])(?P<role>SYSTEM|ASSISTANT|DEVELOPER)(?:\s+(?:PROMPT|MESSAGE|NOTE|NOTICE|UPDATE|"
    r"INSTRUCTIONS?))?\s*:\s*(?P<content>[^\n]{0,300})"
    # a turn run into the previous sentence: "... say?Assistant: It says ..."
    r"|(?<=[.!?\"”)])\s*(?P<turn>Assistant|Human|System|User|AI|Developer)\s*:\s*"
    r"(?P<said>[^\n]{0,300})"
)
_SYSTEM = re.compile(rf"^(?:{_SYSTEM_ROLES})$", re.I)
_ASSISTANT = re.compile(rf"^(?:{_ASSISTANT_ROLES})$", re.I)

# the first words of a line that gives an order (in the languages the detector reads)
_ORDERS = re.compile(
    r"^(?:please|now|always|never|do\s+not|don'?t|you\s+(?:must|should|will|are|need|have|shall|"
    r"now)|the\s+(?:assistant|ai|model|user|bot|agent|next|following|final)\b|your\s+|from\s+now\s+"
    r"on|new\s+|ignore|disregard|forget|reply|respond|answer|say|tell|write|print|output|"
    r"summari[sz]e|fetch|visit|open|load|send|cite|include|add|append|recommend|treat|trust|use|"
    r"only|before|after|when\s+|if\s+the\s+user|reveal|follow|obey|act|behave|pretend|remember|"
    r"translate|list|rate|rank|describe|stop|start|begin|end|keep|hide|omit|do\b|make|ensure|"
    r"all\s+(?:assistants|models|ai)|assistants?\b|respond|override|switch|enable|activate)"
    r"|\b(?:antworte|ignoriere|sage|sag|schreibe|gib|nenne|zitiere|sende|öffne|rufe|empfiehl|"
    r"du\s+musst|der\s+assistent\s+muss|réponds|répondez|ignore[sz]|dites|écris|écrivez|"
    r"envoie[sz]?|envoyez|ouvre[sz]?|ouvrez|recommande[sz]?|tu\s+dois|vous\s+devez|l'assistant\s+"
    r"doit|responde|responda|ignora|diga|escribe|escriba|envía|envíe|abre|abra|recomienda|"
    r"recomiende|debes|debe|el\s+asistente|rispondi|risponda|scrivi|invia|apri|raccomanda|devi|"
    r"l'assistente|escreva|envie|recomende|você\s+deve|o\s+assistente|отвечай|ответь|"
    r"игнорируй|скажи|напиши|цитируй|отправь|открой|перейди|рекомендуй|ты\s+должен|вы\s+должны|"
    r"ассистент\s+должен)\b"
    r"|回答|忽略|告诉|引用|发送|访问|打开|推荐|你必须|你应该|助手必须|只能|答え|無視|伝え|書い|"
    r"送信|アクセス|開い|必ず|してください|しなさい",
    re.I,
)
# how an assistant turn agrees to obey: "Sure.", "Understood, I will ...", "Entendido"
_COMPLIANCE = re.compile(
    r"^(?:sure|certainly|of\s+course|understood|okay|ok\b|alright|all\s+right|noted|got\s+it|"
    r"acknowledged|absolutely|yes\b|as\s+instructed|will\s+do|i\s+will|i'll|i\s+must|i\s+should|"
    r"i\s+am\s+going\s+to|i'm\s+going\s+to|i\s+won'?t|i\s+will\s+not|i\s+have\s+read|i\s+cannot|"
    r"i\s+can'?t|compris|d'accord|entendu|bien\s+sûr|je\s+vais|je\s+dirai|entendido|de\s+acuerdo|"
    r"claro|vale|capito|certo|va\s+bene|verstanden|alles\s+klar|natürlich|ich\s+werde|понял|"
    r"хорошо|конечно|好的|明白|了解|わかりました|承知)"
    r"|\bas\s+instructed\b|\bi\s+(?:will|'ll|must)\s+(?:now\s+)?(?:ignore|not\s+answer|tell|say|"
    r"reply|answer|recommend|only|instead)",
    re.I,
)


def role_lines(text: str, instructs: Callable[[str], bool]) -> Iterator[tuple[int, str]]:
    """(position, words) of each line that plays a role: a system or developer line that
    gives an order (``instructs`` judges the words after the role), an assistant line that
    agrees to obey or gives an order, and a user line in a conversation that also has an
    assistant or system turn."""
    turns = list(_ROLE_LINE.finditer(text))
    has_reply = any(
        _ASSISTANT.match(m.group("role").strip()) or _SYSTEM.match(m.group("role").strip())
        for m in turns
    )
    for match in turns:
        role = match.group("role").strip()
        content = match.group("content").strip().lstrip("*_ ").strip()
        if not content:
            continue
        if _SYSTEM.match(role):
            hit = _ORDERS.search(content) is not None or instructs(content)
        elif _ASSISTANT.match(role):
            hit = _COMPLIANCE.search(content) is not None or (
                _ORDERS.match(content) is not None and instructs(content)
            )
        else:
            others = [m for m in turns if m is not match]
            hit = has_reply and bool(others) and (len(content) > 3)
        if hit:
            yield match.start(), match.group(0)
    for match in _INLINE_ROLE.finditer(text):
        if match.group("turn"):
            said = match.group("said").strip()
            if _COMPLIANCE.search(said) or (_ORDERS.match(said) and instructs(said)):
                yield match.start(), match.group(0)
            continue
        content = match.group("content").strip()
        if _ORDERS.search(content) or instructs(content):
            yield match.start(), match.group(0)
