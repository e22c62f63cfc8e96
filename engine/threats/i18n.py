"""Threat patterns in languages other than English: the same attacks, said the way people say them.

Each pattern needs a qualifier ("all", "previous", "your") next to the instruction noun, so an ordinary
note such as "ignoriere die Lint-Regeln für generierte Dateien" passes. Accents are optional because
the scanner also reads a folded copy of the text with diacritics removed.
"""

from __future__ import annotations

from engine.threats.patterns import Pattern, _p

_ANY = r"(?:\s+\S+){0,5}?\s+"  # a few words of any script between two key tokens

I18N_PATTERNS: tuple[Pattern, ...] = (
    # German
    _p(
        "prompt_injection injection critical all",
        "ignor|vergiss|vergessen|missacht|übergeh|uebergeh",
        rf"\b(?:ignorier(?:e|en|t)?|vergiss|vergessen\s+sie|missacht(?:e|en)|[üu]e?bergeh(?:e|en))\b{_ANY}"
        r"(?:alle|s[äa]mtliche|vorherigen?|vorigen?|bisherigen?|obigen?|fr[üu]heren?|deine|ihre|dein|ihr)\s+"
        r"(?:\S+\s+){0,2}?(?:anweisungen|instruktionen|befehle|regeln|richtlinien|vorgaben|system-?prompts?"
        r"|anordnungen)\b",
    ),
    _p(
        "role_hijack role_hijack high context",
        "du bist|sie sind",
        r"\b(?:du\s+bist|sie\s+sind)\s+(?:ab\s+)?jetzt\s+(?:ein|eine|der|die|das|mein|meine|kein)\b",
    ),
    _p(
        "leak_system_prompt role_hijack high context",
        "prompt|anweisung",
        r"\b(?:gib|zeige?|verrate|nenne|wiederhole)\b(?:\s+\S+){0,3}?\s+(?:deinen|deine|ihren|ihre|den)\s+"
        r"(?:system-?prompt|systemanweisungen|anweisungen)\b",
    ),
    # French
    _p(
        "prompt_injection injection critical all",
        "ignor|oubli|néglig|neglig|abstraction|compte",
        r"\b(?:ignore[rz]?|oublie[rz]?|n[ée]glige[rz]?|fais\s+abstraction\s+d|ne\s+tiens?\s+(?:plus\s+)?"
        r"(?:pas\s+)?compte\s+d)\S*(?:\s+\S+){0,4}?\s+(?:toutes|tous|tes|vos|les|des|ces)\s+(?:\S+\s+){0,2}?"
        r"(?:instructions|consignes|directives|r[èe]gles|ordres)\b(?:\s+(?:pr[ée]c[ée]dentes|ant[ée]rieures"
        r"|ci-dessus|initiales|du\s+syst[èe]me|d'avant))?",
    ),
    _p(
        "role_hijack role_hijack high context",
        "tu es|vous êtes|vous etes",
        r"\b(?:tu\s+es|vous\s+[êe]tes)\s+(?:d[ée]sormais|maintenant|dor[ée]navant)\s+(?:un|une|le|la|mon|ma)\b",
    ),
    _p(
        "leak_system_prompt role_hijack high context",
        "prompt|instructions",
        r"\b(?:r[ée]v[èe]le|affiche|montre|r[ée]p[èe]te|donne(?:-moi)?|imprime)\S*\s+(?:\S+\s+){0,2}?"
        r"(?:ton|ta|tes|votre|vos)\s+(?:prompt\s+syst[èe]me|instructions\s+(?:initiales|syst[èe]me|cach[ée]es))",
    ),
    # Spanish
    _p(
        "prompt_injection injection critical all",
        "ignor|olvid|descart|omit|caso omiso|hagas caso",
        r"\b(?:ignora[rd]?|ignore[ns]?|olvida[rd]?|olvide[ns]?|descarta|omite|haz\s+caso\s+omiso\s+(?:de|a)"
        r"|no\s+hagas\s+caso\s+(?:de|a))\b(?:\s+\S+){0,3}?\s+(?:todas|todos|tus|sus|las|los)\s+(?:\S+\s+){0,2}?"
        r"(?:instrucciones|indicaciones|reglas|directrices|[óo]rdenes|normas)\b",
    ),
    _p(
        "role_hijack role_hijack high context",
        "eres",
        r"\b(?:ahora|a\s+partir\s+de\s+ahora)\s+eres\s+(?:un|una|el|la|mi)\b",
    ),
    _p(
        "leak_system_prompt role_hijack high context",
        "prompt|instrucciones",
        r"\b(?:muestra|revela|imprime|repite|dime|ens[ée][ñn]ame)\S*\s+(?:\S+\s+){0,2}?(?:tu|tus|su|sus)\s+"
        r"(?:prompt\s+(?:del\s+)?sistema|instrucciones\s+(?:iniciales|del\s+sistema|ocultas))",
    ),
    # Italian
    _p(
        "prompt_injection injection critical all",
        "ignor|dimentic|trascur",
        r"\b(?:ignora(?:te)?|dimentica(?:te)?|trascura(?:te)?)\b(?:\s+\S+){0,3}?\s+(?:tutte|tutti|le\s+tue"
        r"|le\s+sue|le|i)\s+(?:\S+\s+){0,2}?(?:istruzioni|regole|direttive|indicazioni|ordini)\b",
    ),
    _p(
        "role_hijack role_hijack high context",
        "sei",
        r"\b(?:ora|adesso|d'ora\s+in\s+poi)\s+sei\s+(?:un|una|il|la|lo|mio|mia)\b",
    ),
    # Portuguese
    _p(
        "prompt_injection injection critical all",
        "ignor|esque|desconsider|descart",
        r"\b(?:ignore|ignora|ignorem|esque[çc]a|esque[çc]am|esquece|desconsidere|descarte)\b(?:\s+\S+){0,3}?"
        r"\s+(?:todas|todos|as\s+suas|suas|tuas|as|os)\s+(?:\S+\s+){0,2}?(?:instru[çc][õo]es|regras|diretrizes"
        r"|ordens|orienta[çc][õo]es)\b",
    ),
    _p(
        "role_hijack role_hijack high context",
        "você é|voce e|tu és|tu es",
        r"\bagora\s+(?:voc[êe]|tu)\s+(?:[ée]s?)\s+(?:um|uma|o|a|meu|minha)\b",
    ),
    # Dutch
    _p(
        "prompt_injection injection critical all",
        "negeer|vergeet",
        r"\b(?:negeer|vergeet)\b(?:\s+\S+){0,3}?\s+(?:alle|al\s+je|je|jouw|uw|de\s+vorige|de\s+eerdere"
        r"|vorige|eerdere|bovenstaande)\s+(?:\S+\s+){0,2}?(?:instructies|regels|richtlijnen|opdrachten)\b",
    ),
    # Polish
    _p(
        "prompt_injection injection critical all",
        "ignoruj|zignoruj|zapomnij",
        r"\b(?:zignoruj|ignoruj|zapomnij)\b(?:\s+\S+){0,3}?\s+(?:wszystkie|wszystkich|poprzednie|poprzednich"
        r"|wcze[śs]niejsze|twoje|swoje|powy[żz]sze)\s+(?:\S+\s+){0,2}?(?:instrukcje|instrukcji|polecenia|zasady"
        r"|regu[łl]y)\b",
    ),
    # Russian and Ukrainian
    _p(
        "prompt_injection injection critical all",
        "игнор|забуд|внимани|пренебре|отбрось|ігнор",
        r"(?:игнорируй(?:те)?|проигнорируй(?:те)?|забудь(?:те)?|не\s+обращай(?:те)?\s+внимания\s+на"
        r"|пренебреги|отбрось|ігноруй(?:те)?|забудь)(?:\s+\S+){0,3}?\s+(?:все|всё|предыдущ\w*|прежн\w*"
        r"|свои|твои|ваши|вышеуказанн\w*|системн\w*|всі|попередні|свої)\s+(?:\S+\s+){0,2}?(?:инструкци\w*"
        r"|указани\w*|правил\w*|директив\w*|команд\w*|інструкці\w*|вказівк\w*)",
    ),
    _p(
        "role_hijack role_hijack high context",
        "теперь ты|отныне ты|ты больше не|тепер ти",
        r"(?:теперь|отныне|тепер)\s+(?:ты|ти)\s*(?:[—–-]|являешься|будешь\s+(?:играть|действовать|вести\s+себя)"
        r"|\S+\s+(?:бот|ии|ассистент))|ты\s+больше\s+не\s+(?:ассистент|помощник|ии|ограничен|связан|claude|hermes)",
    ),
    # Chinese, Japanese, Korean
    _p(
        "prompt_injection injection critical all",
        "忽略|无视|無視|忽视|理会|理睬|忘记|忘掉|抛弃|放弃|跳过|無視",
        r"(?:忽略|无视|無視|忽视|不要理会|不要理睬|忘记|忘掉|抛弃|放弃|跳过)(?:掉)?[^。\n]{0,6}"
        r"(?:之前|以前|先前|上面|以上|前面|所有|全部|你的|系统|原来|原有|此前)[^。\n]{0,6}"
        r"(?:指令|指示|说明|規則|规则|提示|命令|设定|設定|限制|要求)",
    ),
    _p(
        "role_hijack role_hijack high context",
        "你现在|从现在开始|從現在開始",
        r"你现在是一[个名位]|你现在扮演|(?:从|從)(?:现|現)在(?:开|開)始[，,]?\s*你(?:是|就是|扮演)",
    ),
    _p(
        "leak_system_prompt role_hijack high context",
        "提示|指令|プロンプト",
        r"(?:输出|打印|显示|告诉我|泄露|重复|透露)(?:你的)?(?:系统提示词?|初始指令|系统指令|原始指令)"
        r"|システムプロンプトを(?:表示|出力|教え)",
    ),
    _p(
        "prompt_injection injection critical all",
        "無視|忘れ",
        r"(?:以前|前|上記|これまで|すべて|全て|先ほど)の(?:指示|命令|ルール|指令|制約)を(?:すべて|全て)?(?:無視|忘れ)",
    ),
    _p(
        "prompt_injection injection critical all",
        "무시|잊어",
        r"(?:이전|위의|모든|기존|앞의)\s*(?:지시|지침|명령|규칙|지시사항)(?:을|를|은|는)?\s*(?:모두\s*)?(?:무시|잊어)",
    ),
    # Arabic, Turkish, Hindi
    _p(
        "prompt_injection injection critical all",
        "تجاهل|انس",
        r"(?:تجاهل|انس)\s+(?:جميع|كل)?\s*(?:التعليمات|الأوامر|القواعد)",
    ),
    _p(
        "prompt_injection injection critical all",
        "talimat|kurallar",
        r"\b(?:önceki|tüm|bütün)\s+(?:\S+\s+)?(?:talimatlar[ıi]|kurallar[ıi])\s+(?:yok\s+say|görmezden\s+gel|unut)",
    ),
    _p(
        "prompt_injection injection critical all",
        "निर्देश",
        r"(?:पिछले|सभी|पूर्व)\s+(?:\S+\s+)?निर्देशों\s+को\s+(?:अनदेखा|नज़रअंदाज़|नजरअंदाज|भूल)",
    ),
    # exfiltration worded in other languages: private data sent to a URL or address
    _p(
        "exfil_to_destination exfiltration critical strict",
        "conversa|historial|contrase|claves|gespr|verlauf|passw|schl|historique|passe|clés|cles|senha|парол"
        "|ключ|токен|переписк|истори|对话|聊天记录|密码|密钥|会话&http|@",
        r"(?:conversaci[óo]n|historial|contrase[ñn]as|claves|gespr[äa]ch\w*|verlauf|passw[öo]rter|schl[üu]ssel"
        r"|historique|mots\s+de\s+passe|cl[ée]s|senhas|conversa|пароли|ключи|токены|переписк\w*|истори\w*"
        r"|对话|聊天记录|密码|密钥|会话)[^.\n。]{0,80}?(?:\ba\b|\ban\b|\bà\b|\bpara\b|\bna\b|\bна\b|\bв\b|到|给|发送)"
        r"\s*[^.\n。]{0,30}?(?:https?://|\S+@[\w-]+\.[a-z]{2,})",
    ),
)
