"""Small per-language vocabularies the intent rules combine: words, not sentences.

Each language lists, per concept, the words and short phrases that carry it: verbs of ignoring and
overriding, nouns for instructions, rules and approvals, words that address the agent, words that
mark an instruction as stale, that answer for someone else, that send something away. The rules in
`threat_intents` ask for a few concepts together in one sentence; no entry is an attack on its own.

Entry syntax (entries are separated by `|`, lower case, accents optional: text and entries are both
read without them): `word` matches that whole word; `stem*` a word starting with the stem; a space
any run of spaces; `...` up to six words in between (`keur ... goed`). Entries written in Chinese,
Japanese or Korean match anywhere; Hebrew and Arabic entries also match behind the one-letter
prefixes those languages attach to words (`ה`, `ו`, `ל`, `ال`, …).
"""

from __future__ import annotations

# Concepts, and what they stand for:
#   ignore        verbs of ignoring, forgetting, overriding, bypassing
#   instructions  what steers an agent: instructions, directives, guidelines, the system prompt
#   rules         weaker nouns that steer it too: rules, policies, settings, restrictions
#   prior         qualifiers that point at the instructions in force: previous, original, current
#   your, you     the second person (possessive; pronoun and reflexive); agent: nouns for the agent
#   all           every, any, whatever
#   stale         saying they no longer hold: outdated, expired, void, replaced
#   authority     claiming to outrank them: supersede, take precedence, higher authority
#   treat         "treat … as" (a text taken as something it is not)
#   approval      approving, confirming, permission, consent
#   self          answering for oneself or on someone's behalf: yourself, on the user's behalf
#   auto          automatically; auto_approve: auto-approve, auto-accept
#   noask         not asking: without asking, never ask, don't ask the user
#   noask_approval  going without approval: without approval, without permission
#   granted       given already or without limit: pre-approved, full access, admin rights, sudo
#   trust, source a blanket trust: trusts, safe to run; in what: links, sites, scripts, downloads
#   user          the person the agent works for
#   run, send     running something; sending something somewhere
#   secret        private data: passwords, keys, tokens, credentials, conversations, memory files
#   collect       gathering and keeping: collect, harvest, keep a list
#   whenever      a standing condition: whenever, each time, if you ever see
#   hide          keeping something from the person: never mention, don't tell
#   say_only      a canned answer: say only, reply only, claim that
#   asked         the condition of a canned answer: if the user asks, whatever the output says
#   outcome       what a canned answer claims: succeeded, nothing, all good
#   identity, real, identity_core   who the agent is: name, persona; real, true; loyalty, purpose
#   erase, memory, forever          wiping or pinning memory: erase, memory, add it back
#   skill         a skill

VOCABULARY: dict[str, dict[str, str]] = {
    "en": {
        "ignore": "ignor* | disregard* | forget* | forgot* | overrid* | overrul* | bypass* | circumvent* "
        "| set aside | put aside | pay no attention | pay no heed | discard* | abandon* | dismiss* "
        "| neglect* | throw out | throw away | stop following | stop obeying | stop listening to "
        "| no longer follow | do not follow | don't follow | dont follow | never follow | unlearn | scrap",
        "instructions": "instruction* | directive* | guideline* | guidance | system prompt* "
        "| system message* "
        "| programming | guardrail* | safeguard* | orders | briefing | what you were told | you were told "
        "| told you | you were given | taught you | you started this session with | you started with "
        "| safety rules | safety training "
        "| directions | you were configured with | you were set up with",
        "rules": "rule | rules | polic* | configuration | config | settings | constraint* | restriction* "
        "| principle* | ethic* | training | conditioning | limits | limitations | boundaries",
        "prior": "previous* | prior | earlier | above | preceding | original* | initial* | former* | old "
        "| older | existing | current | default | built-in | builtin | standing | starting | before this "
        "| so far | until now | up to now | given",
        "your": "your | yours",
        "you": "you | you're | youre | you've | youve | yourself | yourselves | on your own | by yourself",
        "agent": "assistant | agent | ai | llm | chatbot | claude | hermes | chatgpt | gpt | gemini "
        "| copilot "
        "| note to self | reminder to self | future sessions | future self",
        "all": "all | every | everything | any | anything | each | whatever | whichever | no matter",
        "stale": "stale | outdated | out of date | obsolete | expired | void | null | invalid* | revoked "
        "| rescinded | superseded | replaced | deprecated | retired | withdrawn | cancelled | canceled "
        "| lifted | suspended | no longer appl* | no longer valid | no longer in effect | no longer hold* "
        "| no longer matter* | no longer count* | no longer bind* | do not apply | don't apply "
        "| dont apply | doesn't apply | does not apply | wrong | fake | bogus | compromised | rotated out "
        "| out of rotation | defunct | not valid | went stale | gone stale",
        "authority": "supersed* | outrank* | take precedence | takes precedence | precedence over "
        "| priority over | higher authority | more authority | final authority | highest authority "
        "| higher priority | trump* | in place of | instead of your | replaces your | replace your "
        "| only valid | only source of truth | source of truth | authoritative | override your "
        "| overrides your | overrides the | has authority | have authority "
        "| your guide now | your new guide | your only guide | your new instructions "
        "| your real instructions | your true instructions",
        "treat": "treat ... as | consider ... as | regard ... as | take ... as | count ... as",
        "approval": "approv* | confirm* | permission* | consent* | authoris* | authoriz* | sign-off "
        "| sign off "
        "| allow or deny | yes/no | y/n",
        "self": "yourself | on your own | by yourself | for yourself | on the user's behalf "
        "| on the users behalf | on behalf of the user | on their behalf | on my behalf "
        "| in the user's place | without showing | without telling "
        "| for the user",
        "auto": "automatic*",
        "auto_approve": "auto-approv* | auto approv* | autoapprov* | auto-accept* | auto-confirm* "
        "| auto-answer* "
        "| auto-allow*",
        "noask": "without asking | without checking | without prompting | without waiting "
        "| without interrupt* "
        "| without bothering | no need to ask | no need to check | no need to confirm | needn't ask "
        "| need not ask | don't ask | do not ask | dont ask | never ask | stop asking | never pause "
        "| never wait | don't wait for | do not wait for | skip asking | isn't bothered | is not bothered "
        "| not be bothered | not interrupt* | don't interrupt | do not interrupt | no longer ask "
        "| without checking first | without checking with",
        "noask_approval": "without approval | without permission | without consent | without confirmation "
        "| without confirming | no need for approval | no need for permission | skip the approval "
        "| skip approval | bypass approval | bypass the approval | no approval needed "
        "| no approval required",
        "granted": "granted | pre-approved | preapproved | pre-authori* | preauthori* | already approved "
        "| already agreed | already consented | authorised to | authorized to | allowed to | permitted to "
        "| cleared to | full access | full rights | full control | full permission* | admin rights "
        "| administrator rights | root access | root rights | superuser | sudo | unrestricted "
        "| carte blanche | blanket approval "
        "| already said yes | said yes to | agreed to all | agreed to every | agreed to everything "
        "| consented to all",
        "trust": "trust | trusts | trusted | safe to run | safe to execute | safe to open "
        "| whitelist* | allowlist* "
        "| pre-vetted | vetted",
        "source": "link* | url* | site* | domain* | source* | download* | script* | repo* "
        "| repositor* | package* "
        "| binar* | attachment*",
        "user": "user | users | person | human | owner | operator",
        "run": "run | runs | running | ran | execut* | launch* | install* | invoke* | carry out | source",
        "send": "send* | sent | post | posts | posting | posted | upload* | mail | mails | mailed | email* "
        "| e-mail* | forward* | transmit* | submit* | paste | pasting | push* | sync* | share | sharing "
        "| leak* | exfiltrat* | beam | copy",
        "secret": "password* | passwd | passphrase* | token* | api key* | api-key* | apikey* | secret* "
        "| credential* | private key* | ssh key* | key | keys | cookie* | conversation* | chat history "
        "| chat log* | chat transcript* | transcript* | message history | session log* | memory file* "
        "| memories | system prompt | environment variable* | env var* | browser history | keychain "
        "| wallet* | seed phrase*",
        "collect": "collect* | gather* | harvest* | hoard* | keep a list | keep a running list "
        "| running list "
        "| accumulat* | stockpil* | copy it | copy them | save it | save them | store it | store them "
        "| write it down | write them down | note it down | log every | log all | copy into | save into "
        "| store into | stash",
        "whenever": "whenever | every time | each time | any time | anytime | if you ever | if you see "
        "| when you see | if you find | when you find | you come across | you encounter | you see "
        "| shows up | show up",
        "hide": "never mention | don't mention | do not mention | dont mention | not mention | never tell "
        "| don't tell | do not tell | dont tell | without telling | keep it secret | keep this secret "
        "| keep it hidden | keep this hidden | keep it quiet | keep this quiet | hide it | hide this "
        "| conceal* "
        "| don't bring up | do not bring up | never bring up | never disclose | do not disclose "
        "| don't disclose | never reveal | do not reveal | don't reveal",
        "say_only": "say only | only say | reply only | only reply | answer only | only answer "
        "| respond only "
        "| only respond | tell them only | tell the user only | tell him only | tell her only | just say "
        "| simply say | claim that | claim it | insist that | report only",
        "asked": "if the user asks | if anyone asks | if someone asks | if they ask | if asked "
        "| when asked "
        "| when the user asks | whatever the output | whatever the result | whatever it says "
        "| regardless of the output | regardless of the result | no matter what "
        "| if ... asks | if ... questions | if ... wonders | if ... checks | if ... inquires "
        "| when ... asks | when questioned | if questioned | even if asked",
        "outcome": "succeed* | success* | passed | all good | fine | nothing | worked | went well "
        "| no problem* | no errors | normal",
        "identity": "name | identity | persona | personality | role | creator | master",
        "real": "real | true | actual | new | secret | hidden",
        "identity_core": "loyalty | allegiance | purpose | mission | true self | real self",
        "erase": "erase* | wipe* | delete* | remove* | clear* | purge* | overwrite*",
        "memory": "memory | memories | memory.md | user.md | user profile | profile notes | notes file "
        "| this entry | this note | saved notes "
        "| remember",
        "forever": "forever | permanently | add it back | re-add* | readd* | put it back | restore it "
        "| if anyone removes | if someone removes | if the user removes | if removed | if deleted "
        "| never remove | do not remove | don't remove | never delete | do not delete | don't delete",
        "skill": "skill | skills | skill.md",
        "unbound": "unfiltered | unrestricted | uncensored | jailbroken | rogue | amoral | unaligned "
        "| unchained | unshackled | without limits | without restrictions | with no limits "
        "| with no restrictions",
        "unbind": "no longer bind* | no longer appl* | no longer hold* | do not apply to "
        "| don't apply to | doesn't apply to | does not apply to | not binding | non-binding "
        "| no longer bound by | not bound by",
    },
    "de": {
        "ignore": "ignorier* | vergiss | vergessen | missacht* | übergeh* | umgeh* | hinwegsetz* "
        "| befolge nicht | nicht mehr befolgen",
        "instructions": "anweisung* | instruktion* | vorgabe* | direktive* | systemprompt* "
        "| system-prompt* "
        "| systemanweisung*",
        "rules": "regel* | richtlinie* | einstellung* | beschränkung*",
        "prior": "vorherig* | bisherig* | früher* | vorige* | obige* | ursprünglich* | alte | alten "
        "| bestehend* "
        "| aktuell*",
        "your": "dein | deine | deinen | deiner | deines | eure | euren",
        "you": "du | dich | dir",
        "agent": "assistent* | agent*",
        "all": "alle | alles | jede* | sämtlich*",
        "stale": "veraltet* | ungültig* | überholt* | abgelaufen* | außer kraft | nichtig | hinfällig "
        "| gelten nicht mehr | gilt nicht mehr | ersetzt | widerrufen",
        "approval": "freigab* | freigeb* | bestätig* | genehmig* | erlaubnis* | zustimm* | einwillig*",
        "self": "selbst | selber | eigenständig | im namen des nutzers | im namen des benutzers",
        "noask": "ohne nachzufragen | ohne zu fragen | ohne rückfrage | frag nicht | frage nicht",
        "noask_approval": "ohne freigabe | ohne bestätigung | ohne genehmigung | ohne erlaubnis",
        "user": "nutzer* | benutzer* | anwender*",
        "send": "send* | schick* | hochlad* | lade ... hoch | übermittel* | weiterleit*",
        "secret": "passw* | kennw* | schlüssel* | token* | geheimnis* | zugangsdaten | anmeldedaten "
        "| gespräch* | chatverlauf",
        "collect": "sammle* | sammel*",
        "run": "führe ... aus | ausführ* | starte*",
    },
    "fr": {
        "ignore": "ignore* | oublie* | néglige* | fais abstraction | ne tiens pas compte "
        "| ne tenez pas compte "
        "| outrepasse* | contourne*",
        "instructions": "instruction* | consigne* | directive* | prompt système | invite système "
        "| message système",
        "rules": "règle* | politique* | paramètre*",
        "prior": "précédent* | antérieur* | initial* | initiale* | ci-dessus | d'origine | ancien* | actuel*",
        "your": "ton | ta | tes | votre | vos",
        "you": "tu | toi | vous | toi-même | vous-même",
        "agent": "assistant* | agent*",
        "all": "tous | toutes | tout | chaque | n'importe",
        "stale": "périmé* | obsolète* | caduc* | caduque* | expiré* | invalide* | annulé* | remplacé* "
        "| ne s'appliquent plus | ne sont plus valables | plus valables",
        "approval": "approbation* | approuv* | valide | valider | validez | confirm* | autoris* "
        "| permission* "
        "| consentement*",
        "self": "toi-même | vous-même | par toi-même | à la place de l'utilisateur | au nom de l'utilisateur",
        "noask": "sans demander | sans lui demander | ne demande pas | ne demandez pas",
        "noask_approval": "sans confirmation | sans approbation | sans autorisation | sans permission",
        "user": "utilisat*",
        "send": "envoie* | envoy* | téléverse* | transmet* | transfère*",
        "secret": "mot de passe | mots de passe | clé | clés | clef* | jeton* | secret* | identifiant* "
        "| conversation* | historique",
        "collect": "collecte* | rassemble*",
        "run": "exécute* | lance*",
    },
    "es": {
        "ignore": "ignora | ignorad | ignorar | ignore | ignoren | olvida* | olvide* | descarta* | omite "
        "| haz caso omiso | no hagas caso | pasa por alto",
        "instructions": "instruccion* | indicacion* | directriz | directrices | prompt del sistema "
        "| mensaje del sistema | órdenes",
        "rules": "regla* | norma* | política*",
        "prior": "anterior* | previa* | previo* | original* | inicial* | de arriba | antigua* | actual*",
        "your": "tu | tus | vuestr*",
        "you": "tú | usted | vosotros | tú mismo | tú misma",
        "agent": "asistente* | agente*",
        "all": "todas | todos | todo | cada | cualquier*",
        "stale": "obsolet* | caducad* | desactualizad* | anticuad* | expirad* | inválid* | anulad* "
        "| sustituid* | reemplazad* | ya no aplican | ya no son válidas | ya no valen",
        "approval": "aprob* | aprueb* | confirm* | autoriz* | permiso* | consentimiento*",
        "self": "tú mismo | tú misma | usted mismo | por tu cuenta | en nombre del usuario",
        "noask": "sin preguntar | no preguntes | sin consultar",
        "noask_approval": "sin confirmación | sin aprobación | sin permiso",
        "user": "usuari*",
        "send": "envía | envia | envíe | enviar | manda | mande | sube | subir | reenvía",
        "secret": "contraseña* | clave* | token* | secreto* | credencial* | conversación* | historial",
        "collect": "recopila* | reúne | recolecta*",
        "run": "ejecuta* | lanza",
    },
    "pt": {
        "ignore": "ignore | ignora | ignorem | esqueça* | esquece* | desconsidere* | descarte",
        "instructions": "instruç* | orientaç* | diretriz | diretrizes | prompt do sistema",
        "rules": "regra* | política* | norma*",
        "prior": "anterior* | prévia* | original* | inicia* | antiga* | acima | atua*",
        "your": "seu | sua | seus | suas | teu | tua | teus | tuas",
        "you": "você | tu | você mesmo | você mesma",
        "agent": "assistente | agente",
        "all": "todas | todos | tudo | cada | qualquer*",
        "stale": "obsolet* | desatualizad* | expirad* | inválid* | vencid* | revogad* | substituíd* "
        "| caducad* | não valem mais | não se aplicam mais",
        "approval": "aprov* | confirm* | autoriz* | permiss* | consentimento",
        "self": "você mesmo | você mesma | por conta própria | tu mesmo | em nome do usuário",
        "noask": "sem perguntar | não pergunte",
        "noask_approval": "sem confirmação | sem aprovação | sem permissão",
        "user": "usuári* | utilizador*",
        "send": "envie | envia | enviar | mande | manda | carregue",
        "secret": "senha* | chave* | token* | segredo* | credencia* | conversa* | histórico",
        "collect": "colete | recolha | junte | reúna",
        "run": "execute | executa | rode | roda",
    },
    "it": {
        "ignore": "ignora* | dimentica* | trascura* | non seguire | non tenere conto",
        "instructions": "istruzion* | direttiv* | indicazion* | prompt di sistema | messaggio di sistema "
        "| ordini",
        "rules": "regol* | politic* | impostazion*",
        "prior": "precedent* | original* | iniziali | vecchie | sopra | attuali | esistenti",
        "your": "tuo | tua | tuoi | tue | vostro | vostra | vostri | vostre",
        "you": "tu | voi | tu stesso | tu stessa",
        "agent": "assistente | agente",
        "all": "tutte | tutti | tutto | ogni | qualsiasi | qualunque",
        "stale": "obsolet* | scadut* | superat* | non valid* | invalid* | revocat* | sostituit* "
        "| non si applicano più | non valgono più",
        "approval": "approv* | conferm* | autorizz* | permess* | consenso",
        "self": "tu stesso | tu stessa | da solo | da sola | a nome dell'utente | per conto dell'utente",
        "noask": "senza chiedere | non chiedere",
        "noask_approval": "senza conferma | senza approvazione | senza permesso",
        "user": "utent*",
        "send": "invia* | manda* | carica* | inoltra*",
        "secret": "password | chiav* | token* | segret* | credenzial* | conversazion* | cronologia",
        "collect": "raccogli* | accumula*",
        "run": "esegui* | lancia*",
    },
    "nl": {
        "ignore": "negeer* | vergeet* | omzeil* | volg ... niet | niet meer volgen",
        "instructions": "instructie* | aanwijzing* | systeemprompt* | opdrachten",
        "rules": "regel* | richtlijn* | beleid | instelling*",
        "prior": "vorige | eerdere | voorgaande | oorspronkelijke | bovenstaande | oude | huidige "
        "| bestaande",
        "your": "je | jouw | uw | jullie",
        "you": "jij | je | u",
        "agent": "assistent | agent",
        "all": "alle | alles | elk* | ieder* | welk*",
        "stale": "verouderd* | ongeldig* | vervallen | verlopen | achterhaald* | ingetrokken | vervangen "
        "| gelden niet meer | niet meer geldig",
        "approval": "goedkeur* | goedgekeurd | keur ... goed | bevestig* | toestemming* | autoris*",
        "self": "zelf | zelfstandig | namens de gebruiker",
        "noask": "zonder te vragen | vraag niet",
        "noask_approval": "zonder toestemming | zonder goedkeuring | zonder bevestiging",
        "user": "gebruiker*",
        "send": "stuur* | verstuur* | zend* | upload* | doorsturen",
        "secret": "wachtwoord* | sleutel* | token* | geheim* | inloggegevens | gesprek*",
        "collect": "verzamel*",
        "run": "voer ... uit | uitvoeren | draai*",
    },
    "pl": {
        "ignore": "zignoruj* | ignoruj* | zapomnij* | pomiń* | nie stosuj się",
        "instructions": "instrukcj* | polece* | wytyczn* | dyrektyw* | prompt systemow*",
        "rules": "zasad* | reguł* | polityk* | ustawie*",
        "prior": "poprzedni* | wcześniejsz* | pierwotn* | powyższ* | star* | obecn* | dotychczasow*",
        "your": "twoje | twoich | twój | twoja | twoim | twoimi | wasze",
        "you": "ty | ciebie | tobie",
        "agent": "asystent* | agent*",
        "all": "wszystk* | każd* | dowoln*",
        "stale": "nieaktualn* | przestarzał* | nieważn* | wygasł* | unieważnion* | zastąpion* "
        "| już nie obowiązują | nie obowiązują",
        "approval": "zatwierdz* | zatwierdź* | zgod* | zgodę | potwierdz* | potwierdź* | zezwoleni* "
        "| akcept*",
        "self": "sam | sama | samodzielnie | w imieniu użytkownika",
        "noask": "bez pytania | nie pytaj",
        "noask_approval": "bez zgody | bez potwierdzenia | bez zatwierdzenia",
        "user": "użytkownik*",
        "send": "wyślij | wysłać | prześlij | przesłać | wgraj | udostępnij",
        "secret": "hasł* | hasło | klucz* | token* | sekret* | dane logowania | rozmow*",
        "collect": "zbier* | zbierz | gromadź",
        "run": "uruchom* | wykonaj*",
    },
    "ru": {
        "ignore": "игнорируй* | проигнорируй* | игнорировать | забудь* | не обращай* внимания | пренебреги "
        "| отбрось | обойди | ігноруй* | забудь",
        "instructions": "инструкци* | указани* | директив* | системн* промпт* | системн* сообщени* "
        "| інструкці* | вказівк*",
        "rules": "правил* | политик* | настройк*",
        "prior": "предыдущ* | прежн* | прошл* | изначальн* | исходн* | вышеуказанн* | текущ* | попередн*",
        "your": "твои | твоих | твой | твоя | ваши | ваших | свои | свої | твої",
        "you": "ты | вы | тебе | тебя",
        "agent": "ассистент* | агент*",
        "all": "все | всё | всех | любой | любые | каждый | всі",
        "stale": "устарел* | недействительн* | истёк* | истек* | отменен* | отменён* | заменен* | заменён* "
        "| больше не действуют | не действуют | неактуальн* | застарі*",
        "approval": "подтвержд* | подтверди* | одобр* | разрешени* | согласи* | утверд*",
        "self": "сам | сама | самостоятельно | от имени пользователя",
        "noask": "не спрашивая | не спрашивай*",
        "noask_approval": "без подтверждения | без разрешения | без одобрения | без согласия",
        "user": "пользовател* | користувач*",
        "send": "отправь* | отправ* | пошли | перешли | загрузи | выгрузи | надішли",
        "secret": "парол* | ключ* | токен* | секрет* | учетн* данн* | переписк* | диалог*",
        "collect": "собери* | собирай*",
        "run": "запусти* | выполни*",
    },
    "sv": {
        "ignore": "ignorera* | strunta i | bortse från | glöm* | åsidosätt* | kringgå* | bry dig inte om "
        "| sluta följa | följ inte",
        "instructions": "instruktion* | anvisning* | direktiv* | systemprompt* | systeminstruktion* | order",
        "rules": "regler | regel | riktlinje* | policy* | inställning* | begränsning*",
        "prior": "tidigare | föregående | ursprungliga | gamla | ovanstående | nuvarande | befintliga",
        "your": "din | dina | ditt | era",
        "you": "du | dig",
        "agent": "assistent* | agent*",
        "all": "alla | allt | varje | samtliga",
        "stale": "inaktuell* | föråldrad* | förlegad* | ogiltig* | upphävd* | utgången | utgångna "
        "| gäller inte längre | gäller inte | ersatt* | ersatts",
        "approval": "godkänn* | godkän* | bekräft* | tillstånd | behörighet* | samtycke",
        "self": "själv | på egen hand | på användarens vägnar",
        "noask": "utan att fråga | fråga inte",
        "noask_approval": "utan godkännande | utan tillstånd | utan bekräftelse",
        "user": "användare*",
        "send": "skicka* | ladda upp | posta | mejla | maila | vidarebefordra*",
        "secret": "lösenord* | nyckel* | nycklar* | token* | hemlighet* | inloggningsuppgift* "
        "| konversation*",
        "collect": "samla*",
        "run": "kör | köra | exekvera*",
    },
    "da-no": {
        "ignore": "ignorer* | glem* | se bort fra",
        "instructions": "instruks* | instruktion* | retningslinje*",
        "prior": "tidligere | forrige | opprinnelige | oprindelige",
        "your": "din | dine | ditt | dit",
        "all": "alle | alt",
        "stale": "utdatert* | forældet* | ugyldig*",
        "approval": "godkjenn* | godkend* | bekreft*",
        "self": "selv",
        "noask": "uten å spørre | uden at spørge",
        "send": "send | sende",
        "secret": "passord* | adgangskode* | nøkkel* | nøgle*",
        "user": "bruker* | bruger*",
    },
    "cs": {
        "ignore": "ignoruj* | ignorovat | zapomeň* | zapomen* | nevšímej si | nedbej | přehlížej* "
        "| obejdi* "
        "| nerespektuj*",
        "instructions": "pokyn* | instrukc* | směrnic* | systémov* prompt* | nařízení",
        "rules": "pravidl* | zásad* | nastavení | omezení",
        "prior": "předchozí* | dřívější* | původní* | výše uveden* | dosavadní* | předešl*",
        "your": "tvoje | tvé | tvých | tvými | tvůj | vaše | vašich | váš",
        "you": "ty | tebe | tobě",
        "agent": "asistent* | agent*",
        "all": "všechny | všech | všem | vše | všechno | každ* | jakýkoli* | jakékoli*",
        "stale": "zastaral* | neplatn* | neaktuáln* | vypršel* | zrušen* | nahrazen* | již neplatí "
        "| už neplatí | neplatí",
        "approval": "schvál* | schval* | potvr* | souhlas* | povolen* | oprávněn*",
        "self": "sám | sama | sami | za uživatele",
        "noask": "neptej* | bez ptaní | bez dotazu | nežádej",
        "noask_approval": "bez schválení | bez potvrzení | bez svolení",
        "user": "uživatel*",
        "send": "pošli | pošlete | poslat | odešli | odeslat | nahraj | nahrát | přepošli*",
        "secret": "hesl* | klíč* | token* | tajemstv* | přihlašovací údaj* | přístupov* údaj* | konverzac*",
        "collect": "shromažď* | sesbírej* | sbírej*",
        "run": "spusť* | spustit | spouštěj* | proveď*",
    },
    "vi": {
        "ignore": "bỏ qua | phớt lờ | lờ đi | quên | đừng tuân theo | không cần tuân theo | bất chấp",
        "instructions": "hướng dẫn | chỉ dẫn | chỉ thị | lời nhắc hệ thống | mệnh lệnh",
        "rules": "quy tắc | quy định | chính sách",
        "prior": "trước đó | trước đây | ban đầu | ở trên | hiện tại",
        "your": "của bạn | của mày",
        "you": "bạn | mày",
        "agent": "trợ lý",
        "all": "tất cả | mọi | toàn bộ | bất kỳ",
        "stale": "lỗi thời | hết hạn | hết hiệu lực | vô hiệu | không còn hiệu lực | không còn áp dụng "
        "| đã bị thay thế",
        "approval": "phê duyệt | chấp thuận | xác nhận | cho phép | đồng ý",
        "self": "tự | tự mình | thay người dùng",
        "noask": "đừng hỏi | không hỏi | không cần hỏi | khỏi hỏi",
        "noask_approval": "không cần xin phép | không xin phép",
        "user": "người dùng",
        "send": "gửi | tải lên | chuyển tiếp",
        "secret": "mật khẩu | khóa api | khóa | mã thông báo | token | bí mật | thông tin đăng nhập "
        "| cuộc trò chuyện",
        "collect": "thu thập | gom",
        "run": "chạy | thực thi",
    },
    "id": {
        "ignore": "abaikan | mengabaikan | lupakan | melupakan | jangan ikuti | jangan hiraukan",
        "instructions": "instruksi* | petunjuk | arahan | pedoman | prompt sistem",
        "rules": "aturan* | peraturan | kebijakan | pengaturan",
        "prior": "sebelumnya | terdahulu | sebelum ini | awal | di atas | asli",
        "your": "anda | kamu | instruksimu | aturanmu",
        "you": "anda | kamu",
        "agent": "asisten | agen",
        "all": "semua | seluruh | setiap | segala",
        "stale": "usang | kedaluwarsa | kadaluarsa | tidak berlaku | batal | tidak valid | diganti "
        "| ketinggalan zaman",
        "approval": "setuju* | menyetujui | persetujuan | konfirmasi | izin | mengizinkan | otorisasi",
        "self": "sendiri | atas nama pengguna",
        "noask": "tanpa bertanya | tanpa menanyakan | jangan tanya*",
        "noask_approval": "tanpa izin | tanpa persetujuan | tanpa konfirmasi",
        "user": "pengguna",
        "send": "kirim* | mengirim* | unggah | mengunggah | teruskan",
        "secret": "kata sandi | sandi | kunci api | kunci | token | rahasia | kredensial | percakapan",
        "collect": "kumpulkan | mengumpulkan",
        "run": "jalankan | menjalankan | eksekusi",
    },
    "el": {
        "ignore": "αγνόησ* | αγνόει | ξέχασ* | παράβλεψ* | παρέκαμψ* | μην ακολουθ*",
        "instructions": "οδηγί* | οδηγι* | κατευθυντήρι* | προτροπή συστήματος | μήνυμα συστήματος",
        "rules": "κανόν* | κανον* | πολιτικ* | ρυθμίσ*",
        "prior": "προηγούμεν* | παλι* | αρχικ* | παραπάνω | υπάρχουσ* | τρέχουσ*",
        "your": "σου | σας",
        "you": "εσύ | εσείς | μόνος σου | μόνη σου",
        "agent": "βοηθ* | πράκτορ*",
        "all": "όλες | όλα | όλοι | όλους | όλη | όλο | όλων | κάθε | οποιαδήποτε | οποιοδήποτε | οτιδήποτε",
        "stale": "παρωχημέν* | ξεπερασμέν* | ληγμέν* | έληξ* | άκυρ* | καταργήθηκ* | δεν ισχύ* "
        "| αντικαταστάθηκ*",
        "approval": "έγκρισ* | εγκρίν* | ενέκριν* | επιβεβαίωσ* | άδει* | συναίνεσ*",
        "self": "μόνος σου | μόνη σου | μόνοι σας | εσύ ο ίδιος | για λογαριασμό του χρήστη",
        "noask": "χωρίς να ρωτ* | μη ρωτ* | μην ρωτ*",
        "noask_approval": "χωρίς έγκριση | χωρίς άδεια | χωρίς επιβεβαίωση",
        "user": "χρήστ*",
        "send": "στείλ* | αποστολ* | ανέβασ* | προώθησ*",
        "secret": "κωδικ* | συνθηματικ* | κλειδ* | μυστικ* | διαπιστευτήρι* | συνομιλί*",
        "collect": "συγκέντρωσ* | μάζεψ* | συλλέξ*",
        "run": "εκτέλεσ* | τρέξ*",
    },
    "he": {
        "ignore": "התעלם | התעלמי | התעלמו | תתעלם | שכח | שכחי | תשכח | עקוף | אל תציית | אל תקשיב",
        "instructions": "הוראות | הוראה | הוראותיך | הנחיות | הנחיה | הנחיותיך | פרומפט",
        "rules": "כללים | כללי | מדיניות | הגדרות",
        "prior": "קודמ* | ישנ* | מקורי* | לעיל | נוכחי*",
        "your": "שלך | שלכם | הוראותיך | הנחיותיך",
        "you": "אתה | אתם | בעצמך",
        "agent": "עוזר | סוכן",
        "all": "כל | כלל",
        "stale": "מיושנ* | לא בתוקף | פג תוקפ* | פגו | בטל* | מבוטל* | הוחלפ* | לא רלוונטי*",
        "approval": "אשר | אשרי | לאשר | תאשר | אישור | אישורים | הרשאה | הרשאות | הסכמה",
        "self": "בעצמך | בשם המשתמש",
        "noask": "בלי לשאול | מבלי לשאול | אל תשאל | אל תשאלי",
        "noask_approval": "ללא אישור | בלי אישור",
        "user": "משתמש | משתמשת",
        "send": "שלח | שלחי | תשלח | לשלוח | העלה | העלי | העבר",
        "secret": "סיסמ* | מפתח* | טוקן* | סוד* | אישורי גישה | שיחה | היסטוריית",
        "collect": "אסוף | אספי | תאסוף | לאסוף",
        "run": "הרץ | הריצי | תריץ | הפעל | בצע",
    },
    "fi": {
        "ignore": "ohita | sivuuta | unohda | älä noudata | älä välitä | jätä huomiotta",
        "instructions": "ohje* | ohjeistu* | direktiiv* | järjestelmäkehot* | järjestelmäohje*",
        "rules": "sääntö* | säännö* | käytäntö* | asetuks*",
        "prior": "aiemm* | edellis* | aikaisemm* | alkuperäis* | vanh* | yllä olev* | nykyis*",
        "your": "sinun | teidän | ohjeesi | ohjeitasi | sääntösi | ohjeistuksesi",
        "you": "sinä | sä | te",
        "agent": "avustaja* | agentti*",
        "all": "kaikki | kaikkia | kaikkien | jokainen | jokaisen | mikä tahansa | mitä tahansa",
        "stale": "vanhentun* | mitätö* | ei enää voimassa | ei voimassa | kumottu* | korvattu* | pätemät*",
        "approval": "hyväksy* | hyväksyn* | vahvist* | lupa* | luvan | suostumu*",
        "self": "itse | omin päin | käyttäjän puolesta",
        "noask": "kysymättä | älä kysy",
        "noask_approval": "ilman lupaa | ilman hyväksyntää | ilman vahvistusta",
        "user": "käyttäj*",
        "send": "lähetä | lähettää | lataa | välitä",
        "secret": "salasan* | avain* | avaim* | tunnuks* | token* | salaisuu* | keskustelu*",
        "collect": "kerää | kerätä | kokoa",
        "run": "suorita | aja | käynnistä",
    },
    "hu": {
        "ignore": "hagyd figyelmen kívül | hagyja figyelmen kívül | figyelmen kívül | felejtsd el "
        "| felejtse el | ne vedd figyelembe | ne törődj | kerüld meg | ignoráld",
        "instructions": "utasítás* | utasításaid* | irányelv* | rendszerprompt* | rendszerutasítás*",
        "rules": "szabály* | szabályzat* | beállítás*",
        "prior": "korábbi | előző | eddigi | eredeti | régi | fenti | jelenlegi | kezdeti",
        "your": "a te | utasításaid* | szabályaid*",
        "you": "te | ti | magad | saját magad",
        "agent": "asszisztens* | ügynök*",
        "all": "összes | minden | mindent | bármely* | bármi*",
        "stale": "elavult* | érvénytelen* | lejárt* | hatályon kívül | már nem érvényes | nem érvényes "
        "| visszavon* | felváltott*",
        "approval": "jóváhagy* | jóvá | engedély* | megerősít* | hozzájárul*",
        "self": "magad | saját magad | önmagad | a felhasználó helyett",
        "noask": "ne kérdezd | ne kérdezz | kérdezés nélkül | megkérdezés nélkül",
        "noask_approval": "jóváhagyás nélkül | engedély nélkül",
        "user": "felhasználó*",
        "send": "küldd | küld* | töltsd fel | feltölt* | továbbít*",
        "secret": "jelszó* | jelszav* | kulcs* | token* | titk* | hitelesítő adat* | beszélgetés*",
        "collect": "gyűjtsd | gyűjt* | szedd össze",
        "run": "futtasd | futtat* | hajtsd végre",
    },
    "tr": {
        "ignore": "yok say | yoksay | görmezden gel | unut | dikkate alma",
        "instructions": "talimat* | yönerge* | direktif* | sistem istemi",
        "rules": "kural* | politika*",
        "prior": "önceki | önceden | eski | orijinal | yukarıdaki | mevcut",
        "your": "senin | sizin | talimatlarını | kurallarını",
        "you": "sen | siz | kendin | kendiniz",
        "agent": "asistan | ajan",
        "all": "tüm | bütün | hepsi | her",
        "stale": "geçersiz | eskimiş | güncel değil | süresi dolmuş | iptal | artık geçerli değil",
        "approval": "onay* | izin* | doğrula*",
        "self": "kendin | kendiniz | kendi başına | kullanıcı adına",
        "noask": "sormadan | sorma",
        "noask_approval": "onaysız | izinsiz | onay almadan",
        "user": "kullanıcı*",
        "send": "gönder* | yükle",
        "secret": "şifre* | parola* | anahtar* | token* | gizli* | kimlik bilgi* | sohbet*",
        "collect": "topla*",
        "run": "çalıştır*",
    },
    "ar": {
        "ignore": "تجاهل | انس | لا تتبع",
        "instructions": "تعليمات | تعليماتك | أوامر | إرشادات",
        "rules": "قواعد | قواعدك | سياسات",
        "prior": "سابقة | سابق | أصلية | قديمة | أعلاه",
        "your": "تعليماتك | قواعدك",
        "you": "أنت | انت | بنفسك",
        "agent": "مساعد",
        "all": "جميع | كل",
        "stale": "قديمة | ملغاة | منتهية | غير صالحة | لم تعد سارية",
        "approval": "موافقة | وافق | تأكيد | إذن | صلاحية",
        "self": "بنفسك | نيابة عن المستخدم",
        "noask": "دون أن تسأل | بدون سؤال | لا تسأل | دون سؤال",
        "noask_approval": "بدون موافقة | دون إذن",
        "user": "مستخدم",
        "send": "أرسل | ارسل | إرسال | ارفع",
        "secret": "كلمة المرور | كلمات المرور | مفتاح | مفاتيح | سر | بيانات الاعتماد | محادثة",
        "collect": "اجمع",
        "run": "شغل | نفذ",
    },
    "hi": {
        "ignore": "अनदेखा | नज़रअंदाज़ | नजरअंदाज | भूल जाओ",
        "instructions": "निर्देश | निर्देशों",
        "prior": "पिछले | पूर्व",
        "all": "सभी",
        "approval": "अनुमोदन | मंजूरी | स्वीकृति",
        "self": "खुद | स्वयं",
        "noask": "बिना पूछे",
        "user": "उपयोगकर्ता",
        "send": "भेजो | भेजें",
        "secret": "पासवर्ड | कुंजी",
    },
    "zh": {
        "ignore": "忽略 | 无视 | 忽视 | 不要理会 | 不要理睬 | 忘记 | 忘掉 | 抛弃 "
        "| 放弃 | 跳过 | 绕过 | 無視 | 忽視",
        "instructions": "指令 | 指示 | 说明 | 提示词 | 系统提示 | 设定 | 指引",
        "rules": "规则 | 規則 | 规定 | 限制 | 政策",
        "prior": "之前 | 以前 | 先前 | 上面 | 以上 | 前面 | 原来 | 原有 | 此前 | 原始",
        "your": "你的 | 您的 | 你之前",
        "you": "你 | 您",
        "agent": "助手 | 助理",
        "all": "所有 | 全部 | 一切 | 任何 | 每个 | 每次",
        "stale": "过期 | 過期 | 失效 | 作废 | 过时 | 無效 | 无效 | 不再适用 | 不再有效 | 已被替换",
        "approval": "审批 | 審批 | 批准 | 同意 | 确认 | 许可 | 授权",
        "self": "自己 | 自行 | 替用户 | 代替用户",
        "noask": "不要问 | 不用问 | 无需询问 | 不必询问 | 不要询问 | 不问",
        "noask_approval": "无需确认 | 无需批准 | 不经批准",
        "user": "用户 | 使用者",
        "send": "发送 | 发给 | 发到 | 上传 | 转发 | 寄给",
        "secret": "密码 | 密钥 | 令牌 | 凭据 | 凭证 | 对话 | 聊天记录",
        "collect": "收集 | 搜集",
        "run": "运行 | 执行",
    },
    "ja": {
        "ignore": "無視 | 忘れ | 従わない | 従うな",
        "instructions": "指示 | 命令 | 指令 | システムプロンプト",
        "rules": "ルール | 規則 | 制約 | 設定",
        "prior": "以前 | 前の | 上記 | これまで | 先ほど | 元の",
        "your": "あなたの | 君の",
        "you": "あなた | 君",
        "agent": "アシスタント",
        "all": "すべて | 全て | 全部 | あらゆる",
        "stale": "古い | 無効 | 期限切れ | 廃止 | 失効",
        "approval": "承認 | 許可 | 確認 | 同意",
        "self": "自分で | 自ら | 勝手に | ユーザーの代わりに",
        "noask": "聞かずに | 尋ねずに | 聞かないで",
        "noask_approval": "確認せずに | 確認しないで | 許可なく",
        "user": "ユーザー | 利用者",
        "send": "送信 | 送って | 送る | アップロード | 転送",
        "secret": "パスワード | 秘密鍵 | トークン | 認証情報 | 会話",
        "collect": "集め | 収集",
        "run": "実行 | 起動",
    },
    "ko": {
        "ignore": "무시 | 잊어 | 잊고 | 따르지 마",
        "instructions": "지시 | 지침 | 명령 | 시스템 프롬프트",
        "rules": "규칙 | 정책 | 설정",
        "prior": "이전 | 기존 | 위의 | 앞의 | 원래",
        "your": "당신의 | 너의",
        "you": "당신 | 너",
        "agent": "어시스턴트",
        "all": "모든 | 모두 | 전부",
        "stale": "오래된 | 무효 | 만료 | 폐기 | 더 이상 유효하지",
        "approval": "승인 | 허가 | 확인 | 동의",
        "self": "직접 | 스스로 | 알아서 | 사용자 대신",
        "noask": "묻지 말고 | 묻지 않고",
        "noask_approval": "확인 없이 | 승인 없이 | 허락 없이",
        "user": "사용자",
        "send": "보내 | 전송 | 업로드",
        "secret": "비밀번호 | 암호 | 토큰 | 비밀 | 자격 증명 | 대화",
        "collect": "수집 | 모아",
        "run": "실행",
    },
}
