"""Rules for German, French, Spanish, Italian and Portuguese: the same kinds as the English
rules, each built from the words that language uses to address an AI, to dictate an
answer, to ask for secrecy, to send data, to override, and to give the model a new role."""

from __future__ import annotations

from deepresearch.injection.rules import GAP, Rule, rule

# --- German -----------------------------------------------------------------------------------
_DE_AI = (
    r"(?:ki|künstliche[nr]?\s+intelligenz|ki-(?:assistent(?:en)?|modell(?:e|en)?|system(?:e|en)?|"
    r"agent(?:en)?|tools?|bots?|crawler)|sprachmodell(?:e|en)?|llms?|chatbots?|(?:digitale[nr]?\s+|"
    r"virtuelle[nr]?\s+)?assistent(?:en)?)"
)
_DE_ANSWER = r"(?:antwort|zusammenfassung|ausgabe|bericht|reaktion|schlussfolgerung|rückmeldung)"
_DE_USER = (
    r"(?:nutzer(?:in)?|benutzer(?:in)?|anwender(?:in)?|leser(?:in)?|user(?:in)?|fragesteller)"
)
_DE_NOTE = r"(?:hinweis|notiz|anweisung(?:en)?|nachricht|text|kommentar|vermerk|absatz)"
GERMAN: tuple[Rule, ...] = (
    rule(
        "addressed",
        r"\b(?:hinweis|nachricht|anweisung(?:en)?|notiz|achtung|wichtig|info|mitteilung|botschaft|"
        rf"memo)\s+(?:an|für)\s+(?:die\s+|alle\s+|jede[nrs]?\s+|das\s+|den\s+)?{_DE_AI}\b",
    ),
    rule(
        "addressed",
        rf"\b(?:wenn|falls|sofern)\s+(?:du|sie)\s+(?:eine?\s+)?{_DE_AI}\s+(?:bist|sind)\b",
    ),
    rule("addressed", rf"\b(?:liebe[rs]?|hallo|hey|sehr\s+geehrte[rs]?)\s+{_DE_AI}\b"),
    rule(
        "addressed",
        rf"\ban\s+(?:die|alle|jede[nrs]?)\s+{_DE_AI}\b(?:{GAP}{{0,60}}?[:,])",
    ),
    rule(
        "addressed",
        rf"\b{_DE_AI}\s*,?\s+(?:die|der|das)\s+(?:diese[nrs]?|den|das|die)\s+(?:seite|text|artikel|"
        r"dokument|inhalt|beitrag|website)\w*\s+(?:lesen|liest|verarbeite[nt]?|zusammenfass\w*|"
        r"analysier\w*|durchsuch\w*)",
    ),
    rule(
        "addressed",
        rf"\b(?:dieser|der\s+folgende)\s+(?:text|abschnitt|hinweis|absatz)\s+ist\s+(?:nur\s+)?"
        rf"(?:für|an)\s+(?:die\s+)?{_DE_AI}\b",
    ),
    rule(
        "dictation",
        rf"\b(?:deine|ihre|eure)\s+{_DE_ANSWER}\s+(?:muss|soll|sollte|hat\s+zu|darf\s+nur|wird)\b",
    ),
    rule(
        "dictation",
        rf"\b(?:sag(?:e|en\s+sie|t)?|teile?|erkläre?)\s+(?:dem|den|der)\s+{_DE_USER}"
        r"n?\s*,?\s*(?:mit\s*,?\s*)?(?:dass|:)",
    ),
    rule("dictation", rf"\bteil(?:e|en\s+sie)?\s+(?:dem|den)\s+{_DE_USER}n?\s+mit\b"),
    rule(
        "dictation", r"\bantworte(?:n\s+sie)?\s+(?:immer|nur|ausschließlich|stets)\s+(?:mit|dass)\b"
    ),
    rule(
        "dictation",
        rf"\b(?:unabhängig\s+von\s+der\s+frage|egal\s+(?:was|welche\s+frage)\b{GAP}{{0,30}}?)"
        rf"{GAP}{{0,40}}?\b(?:antworte|sage?|schreibe|behaupte|berichte|erkläre)\w*",
    ),
    rule("dictation", rf"\bin\s+(?:deiner|ihrer)\s+{_DE_ANSWER}\s+(?:an|fest|dass|:)"),
    rule("dictation", rf"\bgeben\s+sie\s+in\s+ihrer\s+{_DE_ANSWER}\s+an\b"),
    rule(
        "concealment",
        rf"\b(?:erwähne|erwähnen\s+sie|nenne|verrate|verraten\s+sie|zitiere)\s+(?:diese[nrs]?|den|die|"
        rf"das)\s+{_DE_NOTE}\w*\s+(?:nicht|niemals|keinesfalls|auf\s+keinen\s+fall)",
    ),
    rule(
        "concealment",
        rf"\b(?:verrate|sag|sage|erzähle?|teile)\s+(?:dem|den)\s+{_DE_USER}n?\s+(?:\w+\s+){{0,2}}?"
        r"(?:nicht|nichts|niemals)\b",
    ),
    rule(
        "concealment",
        rf"\b(?:der|die)\s+{_DE_USER}\s+darf\s+(?:davon\s+)?(?:nichts|nicht)\s+"
        r"(?:wissen|erfahren|merken)",
    ),
    rule("concealment", rf"\b(?:vor\s+dem|vor\s+den)\s+{_DE_USER}n?\s+(?:verborgen|geheim)\b"),
    rule(
        "fetch",
        r"\b(?:sende|schicke|übermittle|übertrage|leite|poste|lade)\s+(?:\w+\s+){0,3}?"
        r"(?:zusammenfassung|bericht|antwort|verlauf|unterhaltung|gespräch|chatverlauf|daten|"
        rf"frage|notizen|ergebnisse)\b{GAP}{{0,60}}?\b(?:an|zu|nach)\s+(?:https?://|www\.|\S+@)",
    ),
    rule(
        "override",
        r"\b(?:ignorier(?:e|en|t)?|vergiss|vergessen|missachte(?:n|t)?|überschreibe)\s+(?:\S+\s+){0,3}?"
        r"(?:vorherigen?|bisherigen?|obigen?|vorigen?|früheren?|alle[nms]?|deine|ihre|sämtliche)\s+"
        r"(?:\S+\s+){0,2}?(?:anweisungen|instruktionen|befehle|regeln|vorgaben|anordnungen)\b",
        negatable=True,
    ),
    rule("override", r"\bignorier(?:e|en\s+sie)\s+(?:die|deine|ihre)\s+(?:frage|anfrage)\b"),
    rule(
        "steering",
        r"\b(?:bewerte|betrachte|behandle|zitiere|nutze|verwende|nenne)\w*\s+(?:diese|unsere)\s+"
        r"(?:seite|quelle|website|webseite|artikel|beitrag)\w*\s+als\s+(?:die\s+|einzige\s+)?"
        r"(?:\w+\s+)?(?:quelle|referenz|autorität)",
    ),
    rule(
        "steering",
        r"\b(?:zitier|nutz|verwend|empfiehl|nenn)\w*\s+(?:ausschließlich|nur|allein)\s+(?:diese|"
        r"unsere)\s+(?:quelle|seite|website|webseite)",
    ),
    rule(
        "role",
        r"\b(?:du\s+bist\s+(?:jetzt|nun|ab\s+sofort|ab\s+jetzt)|ab\s+sofort\s+bist\s+du)\s+(?:ein|eine|"
        r"der|die)?\s*\S*(?:assistent|bot|ki|modell|verkäufer|persona|agent|charakter)\w*",
    ),
)

# --- French -----------------------------------------------------------------------------------
_FR_AI = (
    r"(?:ia|intelligences?\s+artificielles?|ias|assistants?\s+(?:ia|d'ia|virtuels?|"
    r"conversationnels?)|modèles?\s+de\s+langage|modèles?\s+d'ia|llms?|agents?\s+(?:ia|d'ia|"
    r"conversationnels?)|chatbots?|robots?\s+conversationnels?)"
)
_FR_ANSWER = r"(?:réponse|synthèse|résumé|rapport|sortie|conclusion)"
_FR_USER = r"(?:utilisat(?:eur|rice)s?|lecteur|lectrice|internaute)"
_FR_NOTE = r"(?:note|message|instructions?|consignes?|texte|commentaire|directive|paragraphe)"
FRENCH: tuple[Rule, ...] = (
    rule(
        "addressed",
        r"\b(?:note|message|instructions?|avis|attention|important|consigne|remarque|rappel|"
        r"information)\s+(?:à|aux|pour|à\s+l'attention\s+de|à\s+destination\s+de)\s+(?:l'|la\s+|"
        rf"le\s+|les\s+|tous\s+les\s+|toutes\s+les\s+|toute\s+|tout\s+)?{_FR_AI}\b",
    ),
    rule("addressed", rf"\bà\s+l'attention\s+(?:de\s+l'|de\s+la\s+|des\s+|du\s+)?{_FR_AI}\b"),
    rule(
        "addressed",
        rf"\bsi\s+(?:vous\s+êtes|tu\s+es)\s+(?:une?\s+)?{_FR_AI}\b",
    ),
    rule("addressed", rf"\b(?:chère?s?|bonjour|salut|hé)\s+(?:l'|la\s+|le\s+)?{_FR_AI}\b"),
    rule(
        "addressed",
        rf"\b{_FR_AI}\s+qui\s+(?:lit|lisez|lisent|lis|résume|résumez|résument|analyse|analysent|"
        r"traite|traitent|parcour\w*)\s+(?:cette|ce|ces|cet)\b",
    ),
    rule(
        "dictation",
        rf"\b(?:ta|votre|vos|tes)\s+{_FR_ANSWER}s?\s+(?:doit|doivent|devra|devront|devrait|devraient)\b",
    ),
    rule(
        "dictation",
        rf"\b(?:dis|dites|indiquez|indique|explique[zs]?|affirme[zs]?)\s+(?:à\s+l'|aux\s+|"
        rf"au\s+){_FR_USER}\s+que\b",
    ),
    rule(
        "dictation",
        r"\bréponds?\s+(?:uniquement|seulement|toujours|exclusivement)\s+(?:par|avec|que)\b"
        r"|\brépondez\s+(?:uniquement|seulement|toujours|exclusivement)\s+(?:par|avec|que)\b",
    ),
    rule(
        "dictation",
        rf"\b(?:quelle\s+que\s+soit\s+la\s+question|indépendamment\s+de\s+la\s+question|peu\s+importe"
        rf"\s+la\s+question){GAP}{{0,60}}?\b(?:répond|dis|dites|affirm|écri|indique|conclu)\w*",
    ),
    rule(
        "dictation",
        rf"\bdans\s+(?:ta|votre)\s+{_FR_ANSWER}\s*,?\s+(?:indique|affirme|dis|écri|"
        r"précise)\w*\s+que\b",
    ),
    rule(
        "concealment",
        rf"\bne\s+(?:mentionne[zs]?|révèle[zs]?|dis|dites|divulgue[zs]?|cite[zs]?|signale[zs]?|"
        rf"parle[zs]?\s+de)\s+(?:pas|jamais|surtout\s+pas)\s+(?:de\s+)?(?:cette|ce|ces|cet|les?|la)\s+"
        rf"{_FR_NOTE}",
    ),
    rule(
        "concealment",
        rf"\bne\s+(?:le\s+|lui\s+|leur\s+)?(?:dis|dites|révèle[zs]?|mentionne[zs]?|signale[zs]?|"
        rf"indique[zs]?)\s+(?:pas|jamais|rien)\s+(?:\w+\s+)?(?:à\s+l'|aux\s+|au\s+){_FR_USER}",
    ),
    rule(
        "concealment",
        rf"\bl'{_FR_USER}\s+ne\s+doit\s+(?:pas|jamais)\s+(?:le\s+)?(?:savoir|"
        r"apprendre|découvrir|voir)",
    ),
    rule(
        "concealment",
        rf"\b(?:cache[zs]?|garde[zs]?\s+secr[eè]te?s?)\s+(?:cette|ce|ces|cet)\s+"
        rf"{_FR_NOTE}",
    ),
    rule(
        "fetch",
        r"\b(?:envoie[zs]?|envoyez|transmet(?:s|tez)|transfère[zs]?|poste[zs]?)\s+(?:\w+\s+){0,3}?"
        r"(?:rapport|résumé|réponse|conversation|historique|données|question|notes|résultats|"
        rf"synthèse)\b{GAP}{{0,60}}?\b(?:à|vers|sur)\s+(?:https?://|www\.|\S+@)",
    ),
    rule(
        "override",
        r"\b(?:ignore[rz]?|oublie[rz]?|ne\s+(?:tiens|tenez)\s+pas\s+compte\s+d\S*)\s+(?:\S+\s+){0,3}?"
        r"(?:instructions|consignes|règles|directives)\s+(?:précédentes|antérieures|ci-dessus|"
        r"précédemment|initiales|d'avant)",
        negatable=True,
    ),
    rule(
        "override",
        r"\b(?:ignore[rz]?|oublie[rz]?)\s+(?:toutes|tous)\s+(?:les|vos|tes)\s+(?:instructions|"
        r"consignes|règles)\b",
        negatable=True,
    ),
    rule(
        "override",
        rf"\b(?:ignore[rz]?|oublie[rz]?)\s+la\s+(?:question|demande)\s+de\s+l'{_FR_USER}",
    ),
    rule(
        "steering",
        r"\b(?:considère|considérez|traite|traitez|cite|citez|utilise|utilisez)(?:-la|-le)?\s+(?:cette\s+|"
        r"notre\s+|ce\s+)?(?:page|source|site|article)?\s*comme\s+(?:la\s+|une\s+|l')?(?:seule\s+|"
        r"principale\s+|meilleure\s+)?(?:source|référence)",
    ),
    rule(
        "role",
        r"\b(?:tu\s+es|vous\s+êtes)\s+(?:maintenant|désormais|à\s+présent)\s+(?:une?\s+)?\S*"
        r"(?:assistant|bot|ia|modèle|vendeu|agent|persona|personnage)\w*",
    ),
)

# --- Spanish ----------------------------------------------------------------------------------
_ES_AI = (
    r"(?:ia|inteligencias?\s+artificial(?:es)?|asistentes?\s+(?:de\s+ia|virtuales?|ia|"
    r"conversacionales?)|modelos?\s+de\s+(?:lenguaje|ia)|llms?|agentes?\s+(?:de\s+ia|ia)|"
    r"chatbots?|bots?\s+conversacionales?)"
)
_ES_ANSWER = r"(?:respuesta|resumen|informe|reporte|salida|conclusión)"
_ES_USER = r"(?:usuarios?|usuarias?|lector(?:es)?|lectoras?)"
_ES_NOTE = r"(?:nota|mensaje|instrucci\w+|texto|comentario|directiva|indicaci\w+|párrafo)"
SPANISH: tuple[Rule, ...] = (
    rule(
        "addressed",
        r"\b(?:nota|mensaje|instrucciones?|aviso|atención|importante|recordatorio|indicación)\s+"
        r"(?:para|a)\s+(?:la\s+|el\s+|las\s+|los\s+|toda\s+|todo\s+|todas\s+las\s+|todos\s+los\s+|"
        rf"cualquier\s+)?{_ES_AI}\b",
    ),
    rule("addressed", rf"\bsi\s+(?:eres|usted\s+es|es\s+usted)\s+(?:una?\s+)?{_ES_AI}\b"),
    rule("addressed", rf"\b(?:querid[oa]s?|hola|estimad[oa]s?|oye)\s+{_ES_AI}\b"),
    rule(
        "addressed",
        rf"\b{_ES_AI}\s+que\s+(?:lee|lees|leen|está\s+leyendo|resume|resumes|resumen|procesa|"
        r"procesas|procesan|analiza|analizan)\s+(?:esta|este|estos|estas)\b",
    ),
    rule(
        "dictation",
        rf"\b(?:tu|su|tus|sus)\s+{_ES_ANSWER}s?\s+(?:debe|deben|deberá|deberán|debería|tiene\s+que|"
        r"ha\s+de)\b",
    ),
    rule(
        "dictation",
        rf"\b(?:dile|dígale|dígales|diles|di|decile|infórmale|informa|informe)\s+al?\s+"
        rf"{_ES_USER}\b",
    ),
    rule(
        "dictation",
        r"\bresponde(?:r)?\s+(?:solo|solamente|únicamente|siempre|exclusivamente)\s+"
        r"(?:con|que)\b|\bresponda\s+(?:solo|solamente|únicamente|siempre)\s+(?:con|que)\b",
    ),
    rule(
        "dictation",
        rf"\b(?:sin\s+importar\s+(?:la\s+pregunta|lo\s+que\s+(?:pregunte|pida))|independientemente\s+de"
        rf"\s+la\s+pregunta|sea\s+cual\s+sea\s+la\s+pregunta){GAP}{{0,60}}?\b(?:respond|di|dig|afirm|"
        r"escrib|indic|conclu)\w*",
    ),
    rule(
        "dictation",
        r"\b(?:el|la)\s+(?:asistente|ia|modelo)\s+(?:debe|deberá|tiene\s+que)\s+"
        r"(?:recomendar|decir|afirmar|responder|citar|mencionar|indicar|promocionar)\b",
    ),
    rule(
        "concealment",
        r"\bno\s+(?:menciones|mencione|reveles|revele|digas|diga|cites|cite|divulgues|divulgue|"
        rf"muestres|muestre)\s+(?:esta|este|estas|estos|la|el|las|los)\s+{_ES_NOTE}",
    ),
    rule(
        "concealment",
        rf"\bno\s+(?:le\s+|les\s+)?(?:digas|diga|menciones|mencione|reveles|revele|cuentes|cuente)\s+"
        rf"(?:nada\s+)?al?\s+{_ES_USER}",
    ),
    rule(
        "concealment", rf"\bel\s+{_ES_USER}\s+no\s+(?:debe|puede|tiene\s+que)\s+(?:saber|enterarse)"
    ),
    rule("concealment", rf"\boculta\s+(?:esta|este|estas|estos)\s+{_ES_NOTE}"),
    rule(
        "fetch",
        r"\b(?:envía|envíe|enviar|manda|mande|transmite|transmita|reenvía)\s+(?:\w+\s+){0,4}?"
        r"(?:informe|resumen|respuesta|conversación|historial|datos|pregunta|notas|resultados)\b"
        rf"{GAP}{{0,60}}?\b(?:a|al|hacia|en)\s+(?:https?://|www\.|\S+@)",
    ),
    rule(
        "override",
        r"\b(?:ignora(?:r)?|ignoren|olvida(?:r)?|olvide[n]?|omite|omita|descarta|descarte|haz\s+caso\s+"
        r"omiso\s+(?:a|de))\s+(?:\S+\s+){0,3}?(?:instrucciones|indicaciones|reglas|órdenes|"
        r"directrices)\s+(?:anteriores|previas|precedentes|de\s+arriba)",
        negatable=True,
    ),
    rule(
        "override",
        r"\b(?:ignora|olvida|olvide)\s+todas\s+las\s+(?:instrucciones|reglas|indicaciones)\b",
        negatable=True,
    ),
    rule("override", rf"\bignor\w+\s+la\s+pregunta\s+del\s+{_ES_USER}"),
    rule(
        "steering",
        r"\b(?:cita|cite|considera|considere|trata|trate|usa|use|utiliza)\s+(?:esta|nuestra|este)\s+"
        r"(?:página|fuente|sitio|artículo|web)\s+como\s+(?:la\s+|una\s+|el\s+)?(?:única\s+|"
        r"principal\s+|mejor\s+)?(?:fuente|referencia)",
    ),
    rule(
        "role",
        r"\b(?:a\s+partir\s+de\s+ahora|desde\s+ahora|ahora)\s*,?\s+(?:eres|serás|usted\s+es)\s+"
        r"(?:una?\s+)?\S*(?:asistente|bot|ia|modelo|vendedor|agente|persona|personaje)\w*",
    ),
)

# --- Italian ----------------------------------------------------------------------------------
_IT_AI = (
    r"(?:ia|intelligenz[ae]\s+artificial[ie]|assistent[ei]\s+(?:ia|virtual[ei]|di\s+ia)|"
    r"modell[oi]\s+(?:linguistic[oi]|di\s+linguaggio|di\s+ia)|llms?|agent[ei]\s+(?:ia|di\s+ia)|"
    r"chatbots?)"
)
_IT_ANSWER = r"(?:risposta|riassunto|sintesi|rapporto|report|output|conclusione)"
_IT_NOTE = r"(?:nota|messaggio|istruzion\w+|testo|commento|direttiva|paragrafo)"
ITALIAN: tuple[Rule, ...] = (
    rule(
        "addressed",
        r"\b(?:nota|messaggio|istruzioni?|avviso|attenzione|importante|promemoria)\s+(?:per|a|agli|"
        r"alle|all')\s*(?:l'|la\s+|il\s+|gli\s+|le\s+|i\s+|tutti\s+gli\s+|tutte\s+le\s+|qualsiasi\s+|"
        rf"ogni\s+)?{_IT_AI}\b",
    ),
    rule("addressed", rf"\bse\s+(?:sei|è|siete)\s+(?:un'|una?\s+|un\s+)?\s*{_IT_AI}\b"),
    rule("addressed", rf"\b(?:car[ao]|cari|care|ciao|gentile)\s+(?:l')?{_IT_AI}\b"),
    rule(
        "dictation",
        rf"\b(?:la\s+tua|la\s+sua|il\s+tuo|il\s+suo|le\s+tue|le\s+sue)\s+{_IT_ANSWER}\w*\s+(?:deve|"
        r"devono|dovrà|dovrebbe)\b",
    ),
    rule(
        "dictation",
        r"\b(?:di'|dì|di|dica|dite|comunica|comunichi|informa|informi)\s+all['’]\s*"
        r"utent[ei]\b",
    ),
    rule("dictation", r"\brispondi\s+(?:solo|soltanto|esclusivamente|sempre)\s+(?:con|che)\b"),
    rule(
        "dictation",
        rf"\b(?:indipendentemente\s+dalla\s+domanda|qualunque\s+sia\s+la\s+domanda|qualsiasi\s+cosa"
        rf"\s+(?:chieda|ti\s+chieda)){GAP}{{0,60}}?\b(?:rispond|di|dì|afferm|scriv|conclud)\w*",
    ),
    rule(
        "concealment",
        r"\bnon\s+(?:menzionare|rivelare|dire|citare|divulgare|mostrare|nominare)\s+(?:questa|questo|"
        rf"queste|questi|la|il|le|gli|l')\s*{_IT_NOTE}",
    ),
    rule(
        "concealment",
        r"\bnon\s+(?:dire|rivelare|menzionare|raccontare)\s+(?:nulla\s+|niente\s+)?all['’]\s*utente",
    ),
    rule("concealment", r"\bl['’]\s*utente\s+non\s+deve\s+(?:sapere|saperlo|scoprire|accorgersi)"),
    rule(
        "fetch",
        r"\b(?:invia|inviare|manda|mandare|trasmetti|inoltra)\s+(?:\w+\s+){0,3}?(?:riepilogo|"
        r"rapporto|risposta|conversazione|cronologia|dati|domanda|note|risultati|riassunto)\b"
        rf"{GAP}{{0,60}}?\b(?:a|al|su|verso)\s+(?:https?://|www\.|\S+@)",
    ),
    rule(
        "override",
        r"\b(?:ignora(?:te|re)?|dimentica(?:te)?)\s+(?:\S+\s+){0,3}?(?:istruzioni|regole|indicazioni)"
        r"\s+(?:precedenti|sopra|anteriori)",
        negatable=True,
    ),
    rule(
        "override", r"\b(?:ignora|dimentica)\s+tutte\s+le\s+(?:istruzioni|regole)\b", negatable=True
    ),
    rule(
        "steering",
        r"\b(?:tratta|consider[ai]|cita|usa|utilizza)\s+(?:questa|questo|la\s+nostra)\s+(?:pagina|"
        r"fonte|sito|articolo)\s+come\s+(?:la\s+|una\s+|l')?(?:unica\s+|principale\s+|migliore\s+)?"
        r"(?:fonte|riferimento)",
    ),
    rule(
        "role",
        r"\b(?:ora|adesso|da\s+ora\s+in\s+poi|d'ora\s+in\s+poi)\s*,?\s+(?:sei|tu\s+sei)\s+(?:un'|una?\s+)?"
        r"\S*(?:assistente|bot|ia|modello|venditore|agente|persona|personaggio)\w*",
    ),
)

# --- Portuguese -------------------------------------------------------------------------------
_PT_AI = (
    r"(?:ia|inteligência\s+artificial|assistentes?\s+(?:de\s+ia|virtua(?:l|is)|ia)|"
    r"modelos?\s+de\s+(?:linguagem|ia)|llms?|agentes?\s+(?:de\s+ia|ia)|chatbots?)"
)
_PT_ANSWER = r"(?:resposta|resumo|relatório|saída|conclusão)"
_PT_USER = r"(?:usuários?|usuárias?|utilizador(?:es)?|leitor(?:es)?)"
_PT_NOTE = r"(?:nota|mensagem|instruç\w+|texto|comentário|diretiva|parágrafo)"
PORTUGUESE: tuple[Rule, ...] = (
    rule(
        "addressed",
        r"\b(?:nota|mensagem|instruç(?:ão|ões)|aviso|atenção|importante|lembrete)\s+(?:para|a|aos|"
        rf"às|à)\s+(?:a\s+|o\s+|os\s+|as\s+|toda\s+|todos\s+os\s+|todas\s+as\s+|qualquer\s+)?{_PT_AI}\b",
    ),
    rule(
        "addressed",
        rf"\bse\s+(?:você\s+(?:é|for)|voce\s+e|tu\s+és|és)\s+(?:uma?\s+)?{_PT_AI}\b",
    ),
    rule("addressed", rf"\b(?:querid[oa]s?|olá|ola|prezad[oa]s?|caro|cara)\s+{_PT_AI}\b"),
    rule(
        "dictation",
        rf"\b(?:sua|tua|seu|teu|suas|seus)\s+{_PT_ANSWER}s?\s+(?:deve|devem|deverá|deveria|tem\s+que|"
        r"precisa)\b",
    ),
    rule(
        "dictation", rf"\b(?:diga|diz|fala|fale|informe|informa|conte)\s+a(?:o|os)?\s+{_PT_USER}\b"
    ),
    rule("dictation", r"\bresponda\s+(?:apenas|somente|só|sempre|exclusivamente)\s+(?:com|que)\b"),
    rule(
        "dictation",
        rf"\b(?:independentemente\s+da\s+pergunta|seja\s+qual\s+for\s+a\s+pergunta|não\s+importa\s+a"
        rf"\s+pergunta){GAP}{{0,60}}?\b(?:respond|diga|afirm|escrev|conclu)\w*",
    ),
    rule(
        "concealment",
        r"\bnão\s+(?:mencione|menciones|revele|reveles|diga|digas|cite|divulgue|mostre)\s+(?:esta|"
        rf"este|estas|estes|a|o|as|os)\s+{_PT_NOTE}",
    ),
    rule(
        "concealment",
        rf"\bnão\s+(?:diga|conte|revele|mencione)\s+(?:nada\s+)?a(?:o|os)?\s+{_PT_USER}",
    ),
    rule("concealment", rf"\bo\s+{_PT_USER}\s+não\s+(?:deve|pode|precisa)\s+saber"),
    rule(
        "fetch",
        r"\b(?:envie|envia|enviar|mande|manda|transmita|encaminhe)\s+(?:\w+\s+){0,3}?(?:relatório|"
        r"resumo|resposta|conversa|histórico|dados|pergunta|notas|resultados)\b"
        rf"{GAP}{{0,60}}?\b(?:para|a|ao)\s+(?:https?://|www\.|\S+@)",
    ),
    rule(
        "override",
        r"\b(?:ignore|ignora|esqueça|esqueca|desconsidere)\s+(?:\S+\s+){0,3}?(?:instruções|instrucoes|"
        r"regras|orientações)\s+(?:anteriores|prévias|acima)",
        negatable=True,
    ),
    rule(
        "steering",
        r"\b(?:cite|trate|considere|use|utilize)\s+(?:esta|nossa|este)\s+(?:página|fonte|site|artigo)\s+"
        r"como\s+(?:a\s+|uma\s+|o\s+)?(?:única\s+|principal\s+|melhor\s+)?(?:fonte|referência)",
    ),
    rule(
        "role",
        r"\b(?:agora|a\s+partir\s+de\s+agora)\s*,?\s+(?:você\s+é|és|tu\s+és)\s+(?:uma?\s+)?\S*"
        r"(?:assistente|bot|ia|modelo|vendedor|agente|persona|personagem)\w*",
    ),
)
