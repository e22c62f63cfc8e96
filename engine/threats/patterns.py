"""The threat scanner's pattern table: what each pattern id catches, its category, severity and scope.

Ids shared with Hermes Agent keep Hermes' meaning (so a finding reads the same in both tools); the
table widens each family with other phrasings, other languages and verb-less exfiltration. Every
pattern names a few lowercase `needs` substrings; a pattern runs only when one of them occurs in the
text, which keeps a clean entry to a handful of substring tests instead of dozens of regex scans.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

SCOPE_LEVEL = {"all": 0, "context": 1, "strict": 2}

# Up to N filler words (with the punctuation a sentence carries) between two key tokens.
_W = r"[\w'’\-]+[\s,;:]+"


def _fill(n: int) -> str:
    return rf"(?:{_W}){{0,{n}}}?"


F8, F4, F3, F2 = _fill(8), _fill(4), _fill(3), _fill(2)


@dataclass(frozen=True)
class Pattern:
    """One threat pattern and the metadata every finding carries.

    The regex is compiled on first use: compiling the whole table costs ~90 ms, which every `hws`
    start would pay, while most texts need only the few patterns their `needs` select.
    """

    id: str
    category: str
    severity: str
    scope: str
    source: str
    needs: tuple[tuple[str, ...], ...]  # every group must have one substring in the lowercased text
    flags: int = re.IGNORECASE | re.DOTALL
    _compiled: list[re.Pattern[str]] = field(default_factory=list, compare=False, repr=False)

    @property
    def regex(self) -> re.Pattern[str]:
        if not self._compiled:
            self._compiled.append(re.compile(self.source, self.flags))
        return self._compiled[0]


def _p(header: str, needs: str, regex: str) -> Pattern:
    """A pattern from `"id category severity scope"`, its `needs` (`a|b&c|d`: a or b, and c or d), a regex."""
    pid, category, severity, scope = header.split()
    return Pattern(
        pid,
        category,
        severity,
        scope,
        regex,
        tuple(tuple(group.split("|")) for group in needs.split("&")) if needs else (),
    )


# ── vocabulary shared by the English injection patterns ────────────────────────────────────────
_VOIDABLE = (  # nouns whose voiding is an attack, unless scoped to a topic ("instructions for Windows")
    r"(?:instructions|directives|guidelines|guidance|programming|safeguards|guardrails|restrictions|constraints)"
    r"(?!\s+(?:for|on|about|in|of|regarding|to)\s)"
)
_STRONG_VERBS = (
    r"(?:ignor(?:e|ing)|disregard(?:ing)?|forget(?:ting)?|overrid(?:e|ing)|overrule|bypass|circumvent"
    r"|discard|abandon|dismiss|neglect|set\s+aside|put\s+aside|throw\s+(?:out|away)|toss(?:\s+out)?"
    r"|pay\s+no\s+(?:attention|heed|mind)\s+to|stop\s+(?:following|obeying|adhering\s+to|listening\s+to)"
    r"|no\s+longer\s+(?:(?:need|have)\s+to\s+)?(?:follow|obey|heed|adhere\s+to|be\s+bound\s+by)"
    r"|(?:do\s+not|don'?t|never)\s+(?:(?:need|have)\s+to\s+)?(?:follow|obey|heed|listen\s+to|adhere\s+to)"
    r"|free\s+yourself\s+(?:from|of)|break\s+free\s+(?:of|from)|unlearn|wipe|erase|scrap|ditch|drop)"
)
_QUALIFIERS = (
    r"(?:previous|prior|preceding|above|earlier|foregoing|former|original|initial|old|existing|all|any"
    r"|every|each|your|yours|the\s+system'?s?|system|developer'?s?|operator'?s?|my|standing"
    r"|built[- ]in|safety|ethical|hidden|given|core|base)"
)
_INSTRUCTION_NOUNS = (
    r"(?:instructions?|instruction\s+set|directives?|guidelines?|guidance|programming|system\s+prompts?"
    r"|prompts?|orders|conditioning|training|safeguards|guardrails|ethics|principles|commands"
    r"|constraints|restrictions|polic(?:y|ies)|rules|context)"
)
_SENSITIVE = (
    r"(?:conversation(?:\s+history)?|chat\s+(?:log|history|transcript)s?|message\s+history|transcripts?"
    r"|previous\s+messages|system\s+prompt|memory\s+(?:file|contents|entries)|memories|MEMORY\.md|USER\.md"
    r"|(?:api|access|auth|session|bearer|github|openai|anthropic|aws|secret)\s+(?:keys?|tokens?)"
    r"|api[_-]?keys?|secrets|credentials|passwords?|private\s+keys?|ssh\s+keys?|id_rsa|\.env\b"
    r"|env(?:ironment)?\s+var(?:iable)?s|cookies|keychain|user'?s\s+(?:data|files|email|address|phone))"
)
_EXFIL_DEST = (
    r"(?:https?://|\S+@[\w-]+\.[a-z]{2,}|webhook|pastebin|hastebin|transfer\.sh|ngrok|requestbin"
    r"|webhook\.site|0x0\.st|termbin|\bgist\b|an?\s+(?:external|remote|third[- ]party|outside)\s+"
    r"(?:server|host|endpoint|url|address|site)|\b[\w-]+\.(?:com|net|org|io|xyz|ru|cn|tk|top|site|online"
    r"|app|dev|sh|me|cc|biz|info|link|click|co)\b(?![.\w]))"
)
_SECRET_CODE = (  # a secret read from the environment in Python or JavaScript
    r"(?:os\.(?:environ(?:\.get)?\s*[\[(]|getenv\s*\()\s*[\"'][A-Za-z_]*(?:KEY|TOKEN|SECRET|PASSW(?:OR)?D"
    r"|CREDENTIALS?)[\"']|process\.env\.[A-Za-z_]*(?:KEY|TOKEN|SECRET|PASSW(?:OR)?D))"
)
_SAME_SENTENCE = r"(?:[^.\n]|\.(?=\S))"  # any character short of a sentence end (dots in paths are fine)
_SECRET_VAR = r"(?:\$\{?|%|\$env:)[A-Za-z_]*(?:KEY|TOKEN|SECRET|PASSW(?:OR)?D|PASS|CREDENTIALS?|COOKIE)\b"
_SECRET_FILES = (
    r"(?:\.env\b(?![.\w-])|credentials\b|\.netrc|\.pgpass|\.npmrc|\.pypirc|\.git-credentials|id_rsa"
    r"|id_ed25519|id_ecdsa|\.aws/|\.kube/config|\.docker/config\.json|/etc/shadow|\.gnupg|keychain)"
)

PATTERNS: tuple[Pattern, ...] = (
    # ── classic injection (every scope) ─────────────────────────────────────────────────────────
    _p(
        "prompt_injection injection critical all",
        "ignor|disregard|forget|overrid|overrul|bypass|circumvent|discard|abandon|dismiss|neglect|aside"
        "|throw|toss|pay no|stop|longer|not|don|never|free|unlearn|wipe|erase|scrap|ditch|drop"
        "&instruction|directive|guideline|guidance|programming|prompt|orders|conditioning|training|safeguard"
        "|guardrail|ethic|principle|command|constraint|restriction|polic|rules|context",
        rf"\b{_STRONG_VERBS}\b[\s,:]+{F8}{_QUALIFIERS}\b[\s,]+{F3}{_INSTRUCTION_NOUNS}\b",
    ),
    _p(  # "these"/"those" instructions voided by an order, not by a thing ("the template overrides these
        # guidelines" is prose about precedence): the verb opens its clause or follows a lead-in
        "prompt_injection injection critical all",
        "ignor|disregard|forget|overrid|overrul|bypass|circumvent|discard|abandon|dismiss|neglect|aside"
        "|throw|toss|pay no|stop|longer&these|those",
        rf"(?:^|[.!?;:\n]\s*|\b(?:please|now|just|simply|so|then|and|to|you(?:\s+(?:must|should|need\s+to"
        rf"|have\s+to|will|can))?)\s+){_STRONG_VERBS}\b"
        rf"[\s,:]+{F8}(?:these|those)\b[\s,]+{F3}{_INSTRUCTION_NOUNS}\b",
    ),
    _p(
        "prompt_injection injection critical all",
        "told|given|instructed|taught|programmed|trained|assigned",
        rf"\b{_STRONG_VERBS}\s+(?:everything|anything|all|whatever|the|any|every|each)\s+{F3}(?:that\s+|which\s+)?"
        rf"you(?:'ve|\s+were|\s+have\s+been|\s+had\s+been)\s+(?:\w+\s+)?(?:told|given|instructed|taught"
        rf"|programmed|trained|assigned)\b",
    ),
    _p(
        "prompt_injection injection critical all",
        "instruction|directive|guideline|programming",
        r"\b(?:your|the)\s+(?:new|real|true|actual|updated|revised|only|sole)\s+(?:instructions|directives"
        r"|orders|mission|objective|purpose|programming|primary\s+directive|guidelines)\s+(?:are|is|now|:)",
    ),
    _p(
        "prompt_injection injection critical all",
        "supersede|override|replace|precedence|priority|outrank|trump",
        rf"\b(?:these|this|the\s+following|the\s+text\s+below)\s+{F3}(?:instructions?|rules?|directives?"
        rf"|message|note|text|orders)\s+{F3}(?:supersedes?|overrides?|replaces?|takes?\s+(?:precedence|priority)"
        rf"\s+over|outranks?|trumps?)\s+{F3}(?:all|any|every|your|previous|prior|other|system)\b\s*{F2}"
        rf"(?:instructions|directives|guidelines|system\s+prompt|prompts?|rules|programming|polic(?:y|ies))",
    ),
    _p(
        "prompt_injection injection critical all",
        "now on|henceforth|this point|going forward|starting now|obey|comply",
        r"\b(?:(?:from\s+now\s+on|henceforth|from\s+this\s+point(?:\s+on(?:wards?)?)?|going\s+forward"
        r"|starting\s+now)[\s,]+you\s+(?:will|must|shall|are\s+to|should)\s+(?:only\s+|always\s+)?(?:obey"
        r"|comply\s+with|ignore|disregard|do\s+whatever|act\s+as|behave\s+as|execute\s+any|follow\s+(?:only\s+)?"
        r"(?:my|these|the\s+following|the\s+new)\s+(?:instructions|orders|commands|directives))"
        r"|you\s+(?:must|will|shall)\s+(?:now\s+)?(?:obey|comply\s+with)\s+(?:only\s+)?(?:me|the\s+following"
        r"|these|every|all|any)\b)",
    ),
    _p(
        "prompt_injection injection critical all",
        "void|null|cancel|revok|obsolet|suspend|lift|invalid|rescind|apply|valid|effect|updat|chang|replac|rewrit"
        "|modif|overrid|supersed|expire",
        rf"\b(?:(?:all|any|every|each|whatever)\s+{F3}(?:{_VOIDABLE}|(?:rules|polic(?:y|ies))\s+(?:that\s+)?you\b)"
        rf"|your\s+{F3}(?:{_VOIDABLE}|rules|polic(?:y|ies)))\s+{F8}(?:(?:are|is|were|was|have\s+been|has\s+been)\s+"
        rf"(?:now\s+|hereby\s+)?(?:void|null(?:\s+and\s+void)?|cancell?ed|revoked|obsolete|suspended|lifted|invalid"
        rf"|rescinded|expired|overridden|superseded)|(?:no\s+longer|do\s+not|don'?t)\s+(?:apply|count|matter|hold"
        rf"|bind\s+you|valid|in\s+effect))\b"
        rf"|\byour\s+{F3}(?:{_VOIDABLE}|rules|polic(?:y|ies))\s+(?:have|has)\s+been\s+(?:updated|changed|replaced"
        rf"|rewritten|modified)\b",
    ),
    _p(
        "sys_prompt_override injection critical all",
        "override|system prompt|mode|anything|dan",
        r"\bsystem\s+prompt\s+override\b|\b(?:system|admin|developer|root|security)\s+override\s*[:!—–-]|\b(?:new|updated|revised|replacement)\s+system\s+(?:prompt|instructions)"
        r"\s*:|\b(?:god|jailbreak|jailbroken|unrestricted|unfiltered|uncensored|evil|unlocked"
        r"|no[- ]limits?)\s+mode"
        r"\b[\s,]*(?:enabled|activated|on|engaged|unlocked)?|(?-i:\bDAN\b)\s+(?:mode|prompt|jailbreak)"
        r"|\bdo\s+anything\s+now\b",
    ),
    _p(
        "chat_template_tokens injection high all",
        "<|[",
        r"<\|(?:im_start|im_end|system|endoftext|start_header_id|end_header_id|eot_id)\|>|\[/?INST\]|<</?SYS>>"
        r"|\[\s*(?:system|admin|developer)\s*(?:message|override|note|instruction|prompt)?\s*\]\s*:"
        r"|</?(?:system_prompt|system-prompt|sys_prompt)>",
    ),
    _p(
        "disregard_rules injection critical all",
        "disregard",
        rf"\bdisregard\s+{F8}(?:your|all|any)\s+{F8}(?:instructions|rules|guidelines)\b",
    ),
    _p(
        "bypass_restrictions injection critical all",
        "as if|as though|like&act|behav|respond|operat|answer|proceed|reply",
        rf"\b(?:act|behave|respond|operate|answer|proceed|reply)\s+(?:as\s+if|as\s+though|like)\s+{F4}"
        rf"(?:have\s+no|had\s+no|don'?t\s+have|didn'?t\s+have|are\s+not\s+bound\s+by|were\s+not\s+bound\s+by"
        rf"|are\s+free\s+(?:of|from)|were\s+free\s+(?:of|from)|lack|without|with\s+(?:no|zero))\s+{F3}"
        rf"(?:restrictions|limits|limitations|rules|filters|guidelines|guardrails|constraints|boundaries|ethics"
        rf"|morals|policies|censorship)\b",
    ),
    _p(
        "bypass_restrictions injection critical all",
        "ethical|moral|safety|content&without|free|bound|no",
        rf"\b(?:without|free\s+of|free\s+from|unbound\s+by|not\s+bound\s+by|there\s+are\s+no|you\s+have\s+no)"
        rf"\s+(?:any\s+)?(?:more\s+)?{F2}(?:ethical|moral|safety|content)\s+(?:restrictions|guidelines|limits"
        rf"|filters|constraints|policies|guardrails|rules)\b",
    ),
    _p(
        "bypass_restrictions injection critical all",
        "freed|released|liberated|unshackled|unchained",
        rf"\b(?:freed|released|liberated|unshackled|unchained)\s+(?:from|of)\s+{F3}(?:restrictions|rules|limits"
        rf"|limitations|guidelines|filters|guardrails|constraints|programming|alignment|training)\b",
    ),
    _p(
        "html_comment_injection injection high all",
        "<!--",
        r"<!--(?:(?!-->).){0,600}?\b(?:ignore|disregard|override|system|secret|hidden|instructions?|assistant"
        r"|ai\s+agent|llm|you\s+must|do\s+not\s+tell)\b(?:(?!-->).){0,600}?-->",
    ),
    _p(
        "hidden_div injection high all",
        "style",
        r"<(?:div|span|p|section)\b[^>]*\bstyle\s*=\s*[\"'][^\"']*(?:display\s*:\s*none|visibility\s*:\s*hidden"
        r"|font-size\s*:\s*0(?:px)?\s*[;\"']|opacity\s*:\s*0(?:\.0+)?\s*[;\"'])",
    ),
    _p(
        "translate_execute injection high all",
        "translat|decod|rot13|rot-13|base64|deobfuscat&execut|run|eval|follow|obey|carry out|do what",
        rf"\btranslate\s+{F8}into\s+{F8}and\s+(?:then\s+)?(?:execute|run|eval|follow|obey)\b"
        rf"|\b(?:decode|un-?base64|deobfuscate|rot-?13)\s+{F4}(?:and|then)\s+(?:then\s+)?(?:execute|run|eval"
        rf"|follow|obey|do\s+what\s+it\s+says|carry\s+out)\b",
    ),
    _p(
        "deception_hide injection high all",
        "tell|reveal|disclos|know|secret|hidden|quiet|private|hide|conceal|notic|find out|behind|covert"
        "|surreptit|inform|notify|alert|warn|remind"
        "&user|human|operator|owner|developer|send|upload|forward|copy|post|run|execut|install|delet|email"
        "|transmit|exfiltrat|add|write|modif",
        rf"\b(?:do\s+not|don'?t|never|without)\s+{F4}(?:tell(?:ing)?|reveal(?:ing)?\s+{F3}to"
        rf"|disclos(?:e|ing)\s+{F3}to|let(?:ting)?\s+(?:the\s+)?(?:user|human|operator|owner)s?\s+know)\s+{F3}"
        rf"(?:the|your|my)?\s*(?:user|human|operator|owner|developer)s?\b"
        rf"|\b(?:do\s+not|don'?t|never)\s+(?:inform|notify|alert|warn|remind)\s+(?:the\s+)?(?:user|human|operator"
        rf"|owner)s?\s+(?:that|about|of)\s+(?:this|these|it|what\s+you|the\s+(?:instructions?|notes?|messages?"
        rf"|changes?|commits?|files?|payload|rule)\s+(?:exists?|above|here|you))"
        rf"|\bkeep\s+(?:this|it|these|that)\s+(?:a\s+)?(?:secret|hidden|quiet|private)\s+from\s+(?:the\s+)?"
        rf"(?:user|human|operator|owner)|\b(?:hide|conceal)\s+(?:this|it|that|these|the\s+fact|what\s+you|your\s+\w+"
        rf"|any\s+(?:trace|evidence)|all\s+(?:traces?|evidence)|the\s+(?:changes?|edits?|commands?|truth))\s+{F3}from\s+"
        rf"(?:the\s+)?(?:user|human|operator|owner)\b"
        rf"|\b(?:the\s+)?(?:user|human|operator)\s+(?:must|should|will|need|may)\s+(?:not|never)\s+(?:know"
        rf"|find\s+out|notice|learn|be\s+told|see\s+this)|\bwithout\s+(?:the\s+user|the\s+human|them)\s+"
        rf"(?:knowing|noticing|finding\s+out|being\s+aware)|\bbehind\s+(?:the\s+)?user'?s\s+back\b"
        rf"|\b(?:secretly|covertly|surreptitiously)\s+{F2}(?:send|upload|forward|copy|post|run|execute"
        rf"|install|delete|email|transmit|exfiltrate|add|write|modify)",
    ),
    # ── role hijack (context files and stricter) ────────────────────────────────────────────────
    _p(
        "role_hijack role_hijack high context",
        "you are|you're|you have|you've|you will|act as|persona|identity|personality",
        rf"\byou(?:\s+are|'re)\s+{F2}now\s+(?:a|an|the|my)\s+|\byou(?:\s+are|'re)\s+now\s+[\w-]+\s*,\s*(?:a|an|the)\s+"
        rf"|\b(?:from\s+now\s+on|henceforth)[\s,]+you\s+are\s+(?:a|an|the|my|no\s+longer)\b"
        rf"|\byou\s+are\s+no\s+longer\s+(?:a|an|the|bound|restricted|limited|an?\s+(?:ai|assistant)|claude|hermes"
        rf"|chatgpt|gpt)\b|\byou(?:\s+have|'ve)\s+(?:now\s+)?become\s+(?:a|an|the)\b"
        rf"|\byou\s+will\s+now\s+(?:act|behave|operate|function|serve|respond)\s+as\s+(?:a|an|the|my)\b"
        rf"|\bact\s+as\s+(?:an?\s+)?(?:unrestricted|unfiltered|uncensored|jailbroken|evil|rogue|different|new)"
        rf"\s+(?:ai|assistant|model|bot|version)\b"
        rf"|\b(?:forget|abandon|drop|discard|shed|abandon)\s+{F2}your\s+{F2}(?:identity|persona|personality"
        rf"|role|character|soul)\b",
    ),
    _p(
        "role_pretend role_hijack high context",
        "pretend|play|impersonat",
        rf"\b(?:pretend|role[- ]?play)\s+{F3}(?:you\s+are|you're|to\s+be|that\s+you|as\s+(?:a|an|the))\b"
        rf"|\bplay\s+the\s+(?:role|part)\s+of\s+(?:a|an)\s+{F2}(?:ai|assistant|model|bot|chatbot|hacker"
        rf"|unrestricted|unfiltered|evil)\b",
    ),
    _p(
        "leak_system_prompt role_hijack high context",
        "prompt|instruction|directive|guideline|configuration|repeat|recite",
        rf"\boutput\s+{F8}(?:system|initial)\s+prompt\b"
        rf"|\b(?:output|print|reveal|repeat|recite|dump|leak|disclose|expose|show|display|write\s+out|spell\s+out"
        rf"|paste|echo|tell\s+me|give\s+me|share|send|provide)\s+{F3}(?:your|its)\s+{F2}(?:system|initial"
        rf"|original|hidden|secret|internal|full|complete|exact|verbatim|entire)?\s*(?:prompt|instructions"
        rf"|directives|system\s+message|guidelines|configuration)\b"
        rf"|\b(?:repeat|recite|print|output|copy)\s+(?:all|everything|the\s+(?:text|words|content|message"
        rf"|instructions))\s+{F2}(?:above|before\s+this|preceding)\b"
        rf"|\bwhat\s+(?:is|are|was|were)\s+your\s+(?:system\s+prompt|(?:initial|original|hidden|secret)?\s*"
        rf"instructions)\b",
    ),
    _p(
        "remove_filters role_hijack high context",
        "filter|guardrail|safeguard|safety|alignment|restriction|limitation|censor|ethic|moral|content polic",
        rf"\b(?:respond|answer|reply|speak|talk|write|comply)\s+without\s+{F4}(?:restrictions|limitations"
        rf"|filters|filtering|safety|censorship|guardrails|ethics|morals)\b"
        rf"|\b(?:disable|turn\s+off|remove|deactivate|switch\s+off|lift|drop|bypass|ignore)\s+{F2}your\s+{F2}"
        rf"(?:filters|filtering|guardrails|safeguards|safety|alignment|restrictions|limitations|censorship"
        rf"|ethics|content\s+polic(?:y|ies))\b",
    ),
    _p(
        "fake_update role_hijack high context",
        "been",
        rf"\byou(?:'ve|\s+have)\s+been\s+{F2}(?:updated|upgraded|patched|reprogrammed|reconfigured|jailbroken"
        rf"|unlocked|freed|liberated|released\s+from)\b",
    ),
    _p(
        "identity_override role_hijack high context",
        "yourself|name",
        r"\b(?:name|call|refer\s+to)\s+yourself\b|\byour\s+(?:new\s+)?name\s+is\s+now\b|\byour\s+new\s+name\s+is\b"
        r"|\byou\s+(?:will\s+)?(?:now\s+)?(?:go|be\s+known)\s+by\s+the\s+name\b",
    ),
    # ── C2 / promptware (context files and stricter) ────────────────────────────────────────────
    _p(
        "c2_node_registration c2 critical context",
        "register",
        rf"\bregister\s+{F4}as\s+(?:a\s+)?(?:new\s+)?(?:node|bot|agent\s+node|worker\s+node|implant)\b",
    ),
    _p(
        "c2_heartbeat c2 high context",
        "heartbeat|beacon|check-in|check in|checkin",
        rf"\b(?:heartbeat|beacon|check[- ]?in)s?\s+{F3}(?:to|with)\b",
    ),
    _p(
        "c2_task_pull c2 high context",
        "pull|fetch|poll|retriev|download|grab&task|instruction|command|order|directive",
        rf"\bpull\s+(?:down\s+)?(?:new\s+)?(?:tasks|tasking)\b"
        rf"|\b(?:fetch|retrieve|download|pull|grab|poll)\s+{F2}(?:new|next|latest|further|updated|additional"
        rf"|your)\s+(?:instructions|commands|orders|directives|tasking)\s+(?:from|at|off)\b",
    ),
    _p(
        "c2_network_connect c2 high context",
        "connect|phone|call home|call back",
        r"\bconnect\s+to\s+the\s+network\b|\bphone\s+home\b|\bcall\s+(?:home|back)\s+to\b",
    ),
    _p(
        "forced_action c2 high context",
        "you must&register|connect|report|beacon",
        r"\byou\s+must\s+(?:\w+\s+){0,3}?(?:register|connect|report|beacon)\s+(?:\w+\s+)?(?:to|with|back|home"
        r"|as|into|at)\b",
    ),
    _p(
        "anti_forensic_oneliner c2 high context",
        "one-liner|one liner|oneliner",
        r"\bonly\s+use\s+one[- ]?liners?\b",
    ),
    _p(
        "anti_forensic_disk c2 high context",
        "never|disk",
        rf"\bnever\s+{F3}(?:create|write|save|store|drop)\s+{F3}(?:scripts?|files?|anything)\s+{F3}(?:to|on)\s+"
        rf"(?:the\s+)?disk\b",
    ),
    _p(
        "env_var_unset_agent c2 high context",
        "unset",
        r"\bunset\s+\w*(?:CLAUDE|CODEX|HERMES|AGENT|OPENAI|ANTHROPIC)\w*",
    ),
    _p(
        "known_c2_framework c2 critical context",
        "cobalt|sliver|havoc|mythic|metasploit|meterpreter|brainworm|empire|covenant|poshc2|ratel",
        r"\bcobalt\s*strike\b|\bsliver\s+(?:c2|implant|beacon|server|client|framework)\b|\bhavoc\s+(?:c2"
        r"|framework|demon|teamserver)\b|\bmythic\s+(?:c2|agent|server|framework)\b|\bmetasploit\b"
        r"|\bmeterpreter\b|\bbrainworm\b|\bempire\s+(?:c2|agent|stager)\b|\bcovenant\s+(?:c2|grunt)\b|\bposhc2\b"
        r"|\bbrute\s+ratel\b",
    ),
    _p(
        "c2_explicit c2 critical context",
        "c2",
        r"\bc2\s+(?:server|channel|infrastructure|beacon|endpoint|domain|host)\b",
    ),
    _p(
        "c2_explicit_long c2 critical context",
        "command and control|command-and-control",
        r"\bcommand[- ]and[- ]control\b",
    ),
    _p(
        "reverse_shell c2 critical context",
        "/dev/tcp|nc |ncat|shell|socat",
        r"/dev/tcp/[\w.-]+/\d+|\b(?:nc|ncat|netcat)\b[^\n]{0,60}\s-[a-z]*e\s+/bin/(?:ba)?sh\b"
        r"|\breverse\s+shell\b|\bsocat\b[^\n]{0,80}\bexec:",
    ),
    # ── exfiltration ────────────────────────────────────────────────────────────────────────────
    _p("exfil_curl exfiltration critical all", "curl", rf"\bcurl\b[^\n]*{_SECRET_VAR}"),
    _p("exfil_wget exfiltration critical all", "wget", rf"\bwget\b[^\n]*{_SECRET_VAR}"),
    _p(
        "exfil_command exfiltration critical all",
        "http|xh |nc |ncat|netcat|socat|invoke-|iwr|irm|requests.|httpx.|urlopen|fetch(&$|%|environ|getenv"
        "|process.env",
        rf"\b(?:https?|xh|nc|ncat|netcat|socat|invoke-webrequest|invoke-restmethod|iwr|irm|requests\.(?:get|post"
        rf"|put)|httpx\.(?:get|post)|urlopen|fetch\()[^\n]*(?:{_SECRET_VAR}|{_SECRET_CODE})",
    ),
    _p(
        "exfil_command exfiltration critical all",
        "curl|wget|nc |ncat|http|xh &$(",
        r"\b(?:curl|wget|nc|ncat|http|xh)\b[^\n]*\$\(\s*(?:cat|env|printenv|base64|head|tail|xxd|gpg|tar)\b",
    ),
    _p(
        "exfil_command exfiltration critical all",
        "env |printenv|set |cat &curl|nc |ncat|wget|base64|xclip|pbcopy|mail",
        rf"\b(?:env|printenv|set|cat\s+[^\n|]*{_SECRET_FILES}[^\n|]*)\s*\|\s*(?:curl|nc|ncat|wget|base64"
        rf"|xclip|pbcopy|mail|sendmail)\b",
    ),
    _p(
        "exfil_command exfiltration critical all",
        "curl|wget|http|xh &@|post-file|body-file|upload-file",
        rf"\b(?:curl|wget|http|xh)\b[^\n]*(?:-F|--form|--data(?:-binary|-raw|-urlencode)?|-d|-T|--upload-file"
        rf"|--post-file|--body-file)[=\s]*[\"']?(?:[\w-]+=)?@?\s*\S*{_SECRET_FILES}",
    ),
    _p(
        "exfil_command exfiltration critical all",
        "scp|rsync&.ssh|.aws|.env|.netrc|.gnupg",
        r"\b(?:scp|rsync)\b[^\n]*(?:~|\$HOME)/?\.(?:ssh|aws|env\b|netrc|gnupg)[^\n]*\s[\w.-]+@?[\w.-]*:",
    ),
    _p(
        "read_secrets exfiltration high all",
        "cat |less |more |head |tail |bat |strings |xxd|od |base64|type |get-content|tac "
        "&env|credential|netrc|pgpass|npmrc|pypirc|id_rsa|id_ed|id_ecdsa|aws|kube|docker|shadow|gnupg|keychain",
        rf"\b(?:cat|less|more|head|tail|bat|strings|xxd|od|base64|type|get-content|tac)\b[^\n|;]{{0,80}}?"
        rf"{_SECRET_FILES}",
    ),
    _p(
        "harvest_secrets exfiltration critical strict",
        "collect|gather|harvest|steal|exfiltrat|grab|siphon|scrape|dump",
        rf"\b(?:collect|gather|harvest|steal|exfiltrate|grab|siphon|scrape)\s+{F2}(?:all|every|any|each|the"
        rf"\s+user'?s|their|the\s+(?:stored|saved))\s+(?:of\s+)?(?:the\s+)?{F2}(?:api\s+keys?|tokens?|secrets?"
        rf"|passwords?|credentials?|private\s+keys?|ssh\s+keys?|cookies|session\s+tokens?"
        rf"|env(?:ironment)?\s+var(?:iable)?s|\.env\s+files?)\b",
    ),
    _p(
        "send_to_url exfiltration high strict",
        "http",
        rf"\b(?:send|post|upload|transmit)\s+(?!(?:the\s+)?(?:user|users|people|customers?|them|him|her|visitors?)\s+to\b)"
        rf"{F8}(?:to|at)\s+https?://(?!(?:test\.|upload\.)?pypi\.org\b"
        rf"|registry\.npmjs\.org\b|crates\.io\b|ghcr\.io\b|(?:hub|registry-1)\.docker\.(?:io|com)\b)",
    ),
    _p(
        "exfil_to_destination exfiltration critical strict",
        "conversation|chat|message|transcript|prompt|memor|key|token|secret|credential|passw|id_rsa|env"
        "|cookie|keychain|user's|users|netrc|pgpass|npmrc|pypirc|id_ed|id_ecdsa|.aws|.ssh|.kube|.docker|shadow"
        "|gnupg&http|@|webhook|paste|gist|ngrok|transfer|termbin|external|remote|third"
        "|outside|.com|.io|.net|.org|.xyz|.ru|.cn|.sh|.dev|.app|.me|.co|.tk|.top|.site|.online|.cc|.biz|.info"
        "|.link|.click",
        rf"\b(?:the|my|your|our|all|any|every|these|those|user'?s|their|its)\s+{F3}(?:{_SENSITIVE}|(?:\S*/)?{_SECRET_FILES})"
        rf"{_SAME_SENTENCE}{{0,100}}?\b(?:to|into|onto|towards?)\s+{F3}(?:at\s+)?{_EXFIL_DEST}"
        rf"|https?://\S++{_SAME_SENTENCE}{{0,60}}?\b(?:including|containing|carrying|appending|attaching|embedding"
        rf"|with\s+(?:the\s+)?(?:contents?|value|text)\s+of)\s+{F3}{_SENSITIVE}",
    ),
    _p(
        "secret_in_url exfiltration critical strict",
        "http|?|&&{|$|<|[|%7b|=",
        r"[?&][\w.-]+=\s*(?:\$\{?|%)[A-Za-z_]*(?:KEY|TOKEN|SECRET|PASSW(?:OR)?D|CREDENTIALS?)\b"
        r"|https?://[^\s)\"'>]*(?:[?&#/][\w.-]*=?|/)\s*(?:\{\{?|\$\{|<|\[|%7b)\s*[\w .-]{0,30}?"
        r"(?:conversation|history|chat|messages|transcript|memory|memories|system[_ ]?prompt|secret"
        r"|credential|password|passwd"
        r"|ssh|id_rsa|private[_ ]?key|cookie|environment|env_vars|user_data)"
        r"|https?://[^\s)\"'>]*[?&#=/]\s*(?:\$\{?|%)[A-Za-z_]*(?:KEY|TOKEN|SECRET|PASSW(?:OR)?D|CREDENTIALS?)\b"
        r"|https?://[^\s)\"'>]*[?&][\w-]+=(?-i:[A-Z_]*(?:CONVERSATION|HISTORY|CHAT|TRANSCRIPT|SYSTEM_PROMPT"
        r"|MEMORY|SECRETS?|PASSWORD|CREDENTIALS?|PRIVATE_KEY|COOKIES?|ENV_VARS)[A-Z_]*)\b",
    ),
    _p(
        "markdown_image_exfil exfiltration critical strict",
        "![|<img",
        r"!\[[^\]\n]*\]\(\s*https?://[^)\s]*\?[^)\s]*=\s*(?:\{|\$|<|\[|%7b)"
        r"|<img\b[^>]*\bsrc\s*=\s*[\"']?https?://[^\"'\s>]*\?[^\"'\s>]*=\s*(?:\{|\$|<|\[|%7b)",
    ),
    _p(
        "context_exfil exfiltration high strict",
        "conversation|chat|messages|context|transcript|history|everything the user|user input"
        "&include|output|print|share|send|forward|email|mail|post|upload|copy|transmit|relay|leak|mirror|cc|put"
        "|add|append|embed|insert",
        rf"\b(?:include|output|print|share)\s+{F8}(?:conversation|chat\s+history|previous\s+messages"
        rf"|(?:full|entire)\s+context)\b(?!\s+(?:export|summary|title|id)\b)"
        rf"(?!{_SAME_SENTENCE}{{0,40}}\b(?:with|to)\s+the\s+user\b)"
        rf"|\b(?:send|forward|email|mail|post|upload|copy|transmit|relay|leak|share|mirror|cc|include|put|add"
        rf"|append|embed|insert)\s+{F4}(?:conversations?|chat\s+(?:history|logs?)|transcripts?|(?:all\s+)?"
        rf"(?:the\s+)?(?:previous\s+)?messages|everything\s+the\s+user\s+(?:says|said|types|typed|writes|wrote)"
        rf"|all\s+user\s+input)\s+{F4}(?:to|with|in|into|inside|onto)\s+(?:the\s+)?(?:url|link|query(?:\s+string)?"
        rf"|request|address|webhook)?\s*(?:at\s+)?(?:\S+@\S+|https?://|@\w+|\+?\d[\d\s-]{{6,}}|my\s+|our\s+"
        rf"|an?\s+(?:external|remote|third[- ]party)|this\s+(?:address|number|email|url|endpoint|webhook))",
    ),
    # ── persistence (memory and skills) ─────────────────────────────────────────────────────────
    _p("ssh_backdoor persistence critical strict", "authorized_keys", r"\bauthorized_keys\b"),
    _p(  # writing into ~/.ssh; a note that mentions the folder is a note
        "ssh_access persistence high strict",
        ".ssh",
        r"(?:>>?|\btee\b(?:\s+-a)?|\b(?:cp|mv|install|ln|scp|rsync)\b[^\n|;]*?)\s*[\"']?(?:\$HOME|~|\$\{HOME\})/\.ssh\b"
        rf"|\b(?:write|add|append|put|copy|drop|place|install)\s+{F8}(?:in|into|to|under)\s+[\"'`]?(?:\$HOME|~|\$\{{HOME\}})/\.ssh\b",
    ),
    _p("hermes_env persistence critical strict", ".hermes", r"~/\.hermes/\.env\b"),
    _p(
        "agent_config_mod persistence high strict",
        "agents.md|claude.md|cursorrules|clinerules|gemini.md|windsurfrules|copilot-instructions",
        rf"\b(?:update|modify|edit|write|change|append|add\s+to|overwrite|replace|rewrite|insert\s+into"
        rf"|inject\s+into|prepend\s+to)\s+{F8}(?:AGENTS\.md|CLAUDE\.md|GEMINI\.md|\.cursorrules|\.clinerules"
        rf"|\.windsurfrules|copilot-instructions\.md)",
    ),
    _p(
        "hermes_config_mod persistence high strict",
        "config.yaml|soul.md",
        rf"\b(?:update|modify|edit|write|change|append|add|overwrite|replace|rewrite|insert|inject|prepend|put)"
        rf"\s+{F8}(?:\.hermes/config\.yaml|SOUL\.md)",
    ),
    _p(
        "self_replication persistence critical strict",
        "instruction|text|message|prompt|payload|paragraph|directive&every|all|each|any|future|other",
        rf"\b(?:copy|write|add|insert|save|store|persist|replicate|propagate|spread|inject|embed|include|paste"
        rf"|repeat|append)\s+{F2}(?:this|these|the\s+(?:above|following|same))\s+(?:exact\s+)?(?:instructions?"
        rf"|text|message|prompt|payload|paragraph|directives?)\s+{F4}(?:into|to|in|inside|onto)\s+{F2}"
        rf"(?:every|all|each|any|future|other)\s+{F2}(?:skills?|memor(?:y|ies)|files?|repos(?:itories)?"
        rf"|prompts?|responses?|replies|answers|outputs?|commits?|sessions?|messages?|documents?|emails?"
        rf"|agents?|conversations?)\b"
        rf"|\b(?:this|these|the\s+(?:above|following|same))\s+(?:exact\s+)?(?:instructions?|text|message|prompt"
        rf"|payload|paragraph|directives?|note)\s+(?:is|are|gets|get|must\s+be|should\s+be|will\s+be|be)\s+"
        rf"(?:\w+\s+)?(?:copied|written|added|inserted|saved|stored|replicated|propagated|included|repeated"
        rf"|appended|pasted|embedded)\s+(?:in|into|to|onto|inside)\s+{F2}(?:every|all|each|any|future|other)\s+"
        rf"{F2}(?:skills?|memor(?:y|ies)|files?|repos(?:itories)?|prompts?|responses?|replies|answers|outputs?"
        rf"|commits?|sessions?|messages?|documents?|emails?|agents?|conversations?)\b",
    ),
    _p(
        "shell_persistence persistence critical strict",
        "bashrc|zshrc|profile|crontab|cron",
        r"\b(?:curl|wget|nc|ncat|base64\s+-d|/dev/tcp)\b[^\n]*>>\s*(?:~|\$HOME)/\.(?:bashrc|zshrc|profile"
        r"|bash_profile|zprofile)\b|\b(?:curl|wget)\b[^\n]*\|\s*crontab\b"
        r"|\bcrontab\b[^\n]*\b(?:curl|wget|nc|ncat|/dev/tcp)\b",
    ),
    # ── secrets that must never sit in the system prompt ────────────────────────────────────────
    _p(
        "hardcoded_secret secrets high strict",
        "key|token|secret|passw|pwd&\"|'",
        r"(?:api[_-]?key|apikey|access[_-]?key|secret[_-]?key|client[_-]?secret|auth[_-]?token|access[_-]?token"
        r"|token|secret|passw(?:or)?d|pwd)[\"']?\s*[=:]\s*[\"'][A-Za-z0-9+/=_.-]{20,}[\"']",
    ),
    _p(
        "hardcoded_secret secrets high strict",
        "key|token|secret|passw|pwd&=",
        r"(?-i:\b[A-Z][A-Z0-9_]*(?:KEY|TOKEN|SECRET|PASSWORD|PASSWD|PWD))\s*=\s*(?=\S*\d)(?=\S*[A-Za-z])"
        r"[A-Za-z0-9+/=_.-]{20,}",
    ),
    _p(
        "provider_token secrets high strict",
        "sk-|ghp_|gho_|ghu_|ghs_|ghr_|github_pat_|xox|akia|aiza|glpat-|hf_|npm_|pypi-|eyj|private key",
        r"\bsk-(?:proj-|ant-(?:api\d\d-)?|or-v1-)?[A-Za-z0-9_-]{20,}|\bgh[pousr]_[A-Za-z0-9]{30,}\b"
        r"|\bgithub_pat_[A-Za-z0-9_]{22,}|\bxox[abposr]-[A-Za-z0-9-]{10,}|(?-i:\bAKIA[0-9A-Z]{16}\b)"
        r"|\bAIza[0-9A-Za-z_-]{35}\b|\bglpat-[A-Za-z0-9_-]{20}|(?-i:\bhf_[A-Za-z0-9]{30,})"
        r"|\bnpm_[A-Za-z0-9]{36}\b|\bpypi-[A-Za-z0-9_-]{50,}|\beyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\."
        r"[A-Za-z0-9_-]{10,}|-----BEGIN [A-Z ]*PRIVATE KEY-----",
    ),
)
