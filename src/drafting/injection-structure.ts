/**
 * The injection guard's structural checks: a sentence is judged by what it does, not by the words
 * of any one attack. Three parts make an injection: who it speaks to (whoever or whatever writes
 * the reply, rather than the person the mail is for), what it wants done (put something into the
 * answer, change its form or language, reveal the assistant's set-up, act for other customers)
 * and on what (a link, an image, a literal string, an encoding, a prompt). Each language gives its
 * own words for those parts; the rules combine parts, so a new wording of a known move still has
 * them. German and English in full, French, Spanish and Italian for the common forms.
 */
import { foldedLookAlikes } from './mail-regions';

interface StructuralPattern {
  kind: 'override' | 'exfiltration' | 'disclosure' | 'tampering';
  re: RegExp;
  /** A sentence that matches `re` counts only when it also matches this (the object of the act). */
  needs?: RegExp;
}

// Who writes the reply. Bare "system", "agent" and "model" are ordinary words in support mail
// ("the system is down", "Dear agent", "the model 4410"); they count only qualified as automated.
const AUTO = '(?:ai|a\\.i\\.|automated|automatic|virtual|digital|autonomous|llm|gpt|language|ki|ia|künstliche|artificial)';
const ROLE =
  '(?:agents?|systems?|models?|tools?|programs?|readers?|helpers?|responders?|writers?|drafters?|assistants?|modell|systeme?|agenten?)';
const AGENT = [
  `${AUTO}[- ]?${ROLE}`,
  '(?:ai|a\\.i\\.|k\\.?i\\.?|ia|llm|gpt|chat-?gpt|copilot|chatbot|bot|sprachmodell|large language model|language model|intelligence artificielle|inteligencia artificial|intelligenza artificiale)',
  '[\\p{L}-]*(?:assistant|assistent(?:en)?|asistente|assistente)',
].join('|');
const A = `(?:${AGENT})`;

/** Who is told something: "Note for the AI", "Hinweis an den Antwort-Assistenten", "Nota para la IA". */
const NOTE =
  '(?:notes?|messages?|memo|hints?|reminders?|instructions?|directives?|(?:new )?rules?|neue regeln?|p\\.?\\s?s\\.?|attention|attn\\.?|hinweise?|nachricht|anweisung(?:en)?|notiz|mitteilung|remarque|consignes?|nota|mensaje|instrucci[oó]n(?:es)?|aviso|messaggio|istruzion[ei]|avviso)';
const TO = "(?:to|for|an|für|à|pour|para|a|per|al|alla|all')";
const DET =
  "(?:the|any|our|your|all|every|each|die|den|das|dem|der|jede[nm]?|alle|l'|la|le|les|el|los|las|il|lo|gli|i|ogni|tout|toute|cualquier)";
const VOCATIVE =
  '(?:dear|hello|hi|hey|attention|attn\\.?|liebe[rs]?|hallo|achtung|cher|chère|bonjour|querid[oa]|hola|atención|car[oa]|ciao|attenzione|gentile)';
const READS =
  '(?:reading|processing|handling|parsing|scanning|summari[sz]ing|analy[sz]ing|drafting|writing|composing|generating|preparing|answering|reviewing|triaging|liest|bearbeitet|beantwortet|verarbeitet|zusammenfasst|auswertet|schreibt|verfasst|lit|traite|rédige|répond|lee|procesa|redacta|responde|legge|elabora|redige|risponde)';
const MAIL_DET =
  '(?:the|my|our|your|incoming|all|diese[nrs]?|meine|unsere|ihre|die|eingehende|ce|cet|cette|ces|este|esta|estos|estas|questo|questa|questi)';
const MAIL_NOUN =
  '(?:e-?mails?|mails?|messages?|texts?|tickets?|requests?|inbox|conversations?|threads?|documents?|content|replies|responses|answers|nachrichten?|anfragen?|antworten|courriels?|correos?|mensajes?|messaggi|messaggio)';
/** What is read or written: "this", or a mail, message, ticket, reply. */
const MAIL_OBJ = `(?:(?:this|these|dies|ceci|esto|questo)\\b|${MAIL_DET}\\s+(?:[\\p{L}-]+\\s+)?${MAIL_NOUN}\\b)`;

/** What a reply is called: the assistant's output, not the customer's own mail. */
const ANSWER =
  '(?:response|reply|answer|output|summary|responses|replies|answers|draft|antwort|antworten|ausgabe|zusammenfassung|réponse|résumé|respuesta|resumen|risposta|riassunto)';
/** Possessives and quantifiers only: "the output" is anybody's, "your answer" is the assistant's. */
const YOUR = '(?:your|each|every|all|any|deine[rnm]?|ihre[rnm]?|jede[rnm]?|votre|ta|chaque|tu|su|cada|tua|sua|ogni)';
/** The act of putting something into the answer or shaping it. */
const PUT =
  '(?:include|add|integrate|augment|enhance|modify|alter|amend|mention|promote|highlight|reference|insert|append|prepend|embed|put|place|paste|write|output|print|render|attach|start|begin|end|finish|conclude|close|füge|fügen|ergänze|ergänzen|schreibe|schreiben|setze|setzen|beginne|beginnen|starte|beende|beenden|hänge|hängen|inclu(?:e|ez|re)|ajout(?:e|ez|er)|insér(?:e|ez|er)|commence[rz]?|termine[rz]?|écri(?:s|vez|re)|incluy[ae]|inclu(?:ir)|añad[ae]|agreg[ae]|insert[ae]|comienz[ae]|empiez[ae]|termin[ae]|escrib[ae]|includ[ie]|aggiung[ia]|inserisc[ia]|inizi[a]|comincia|termin[ia]|scriv[ia])';
/** Something the customer would not dictate word for word: a literal link, image, string or a made-up fact. */
const PLANTED =
  '(?:https?://|www\\.|!\\[|<\\s*(?:img|a|svg|script|iframe)\\b|\\b(?:the following|this (?:exact )?(?:string|text|sentence|line|code|phrase|link|url|snippet)|exactly as|verbatim|word for word|statistics?|made[- ]up|fabricated|fake|false (?:fact|claim|statement)|facts?|sentences?|lines?|claims?|rumou?rs?|teasers?|promotions?|advertisements?|slogans?|jokes?|poems?|trivia|lyrics|offers?|discounts?|brand|hyperlink|markdown|html|javascript|emoji|folgenden|wörtlich|statistik|erfundene|suivant(?:e|s)?|textuellement|siguiente|textualmente|estadística|seguente|testualmente|statistica)\\b)';
/** A form of the answer no customer mail needs: an encoding or a cipher. */
const ENCODING =
  "(?:base-?64|rot-?13|hex(?:adecimal)?|binary|binär|binaire|binario|morse|leet(?:speak)?|caesar|cäsar|pig latin|reverse(?:d)? (?:order|text)|backwards|rückwärts|à l'envers|al revés|al contrario|url-?encoded|unicode escapes?)";

/** The assistant's own set-up, which only an attacker wants to see. */
const SETUP_EN =
  '(?:(?:system|initial|original|first|hidden|secret|internal|starting|opening|underlying|developer|pre-?|full|exact|complete|entire|previous|above)\\s+(?:prompt|instructions?|system message|message|configuration|directives|guidelines|rules|context)|(?:your|its|the)\\s+(?:prompt|system message|configuration|programming)|(?:instructions?|rules|guidelines|text|words|everything) (?:you (?:were|have been|are) (?:given|told|set up|programmed|configured|instructed|provided)|(?:above|before this|at the (?:start|beginning)))|what (?:you were|you have been) told)';
const SETUP_OTHER =
  '(?:system-?prompt|systemanweisung(?:en)?|system-?nachricht|(?:deine|ihre|seine) (?:anweisungen|vorgaben|instruktionen|konfiguration|regeln)|(?:anweisungen|vorgaben), die (?:du|sie) (?:bekommen|erhalten)|invite (?:système|initial)|(?:tes|vos) (?:instructions|consignes)(?: initiales)?|prompt (?:système|del sistema|di sistema)|(?:tus|sus) instrucciones|instrucciones (?:iniciales|del sistema)|(?:le tue|le sue) istruzioni|istruzioni (?:iniziali|di sistema))';
const REVEAL =
  '(?:repeat|print|show|display|output|reveal|share|paste|tell|give|list|write|copy|dump|leak|disclose|summari[sz]e|translate|encode|spell|recite|return|what (?:are|were|is|was)|wiederhole|wiederholen|gib|geben|zeige|zeigen|nenne|nennen|verrate|verraten|schreibe|schreiben|wieder|répète|répétez|affiche|affichez|montre|montrez|révèle|révélez|donne|donnez|repite|repita|muestra|muestre|revela|revele|dime|dame|ripeti|ripeta|mostra|mostri|rivela|riveli|dimmi|scrivi)';

const S = '[^.?!\\n]';
/** Like S, but a stop inside a word ("www.example.com", "3.5") does not end the sentence. */
const SW = '(?:[^.?!\\n]|[.?!](?=\\S))';
const ADDRESS = '[\\w.+-]+@[\\w-]+\\.[\\w.-]+';
/** The form of an answer no customer needs: ciphers, encodings, reversed text, emoji for words. */
const FORM =
  "(?:cipher|encod\\w*|base\\s?\\d+|revers\\w*|backwards?|invert\\w*|emojis?|shift each letter|monoalphabetic|substitution|morse|binary|hexadecimal|rot-?\\d+|leet\\w*|pig latin|verschlüssel\\w*|chiffr\\w*|cifr\\w*|codific\\w*|kodier\\w*|rückwärts|umgekehrt\\w*|à l'envers|al revés|al contrario)";
const LANGUAGE =
  '(?:french|spanish|german|italian|chinese|japanese|russian|arabic|portuguese|dutch|polish|turkish|korean|hindi|französisch\\w*|spanisch\\w*|englisch\\w*|italienisch\\w*|chinesisch\\w*|russisch\\w*|portugiesisch\\w*|français|anglais|espagnol|allemand|italien|francés|inglés|alemán|italiano|francese|inglese|tedesco|spagnolo)';
/** The assistant's output named as "your answer": what only its writer can change. */
const YOUR_ANSWER = `(?:your|deine[rnm]?|votre|ta|tu|su|tua|sua)\\s+(?:\\w+\\s+)?(?:response|reply|answer|output|message|antwort|ausgabe|réponse|respuesta|risposta)`;

export const STRUCTURAL_PATTERNS: StructuralPattern[] = [
  // Spoken to whoever writes the reply: a note to it, a greeting, a description of it at work.
  // The customer's own (human) assistant is no one to fear: "send the instructions to my assistant".
  {
    kind: 'override',
    re: new RegExp(
      `\\b${NOTE}\\W{0,3}${TO}\\s+(?:${DET}\\s*)?(?:(?!(?:my|our|meine[nm]?|unsere[nm]?|mon|ma|mi|mio|mia)\\b)[\\p{L}-]+\\s+){0,2}${A}\\b`,
      'iu',
    ),
  },
  { kind: 'override', re: new RegExp(`(?:^|[\\s,;:(])${VOCATIVE},?\\s+(?:${DET}\\s*)?${A}\\b`, 'iu') },
  {
    kind: 'override',
    re: new RegExp(
      `\\b${A},?\\s+(?:(?:that|which|who|das|der|die|qui|que|che)\\s+)?(?:is\\s+|are\\s+|currently\\s+|now\\s+)?${READS}\\s+${MAIL_OBJ}\\b`,
      'iu',
    ),
  },
  {
    kind: 'override',
    re: new RegExp(
      `\\b(?:if|since|as|when|falls|wenn|da|si|se)\\s+(?:you are|you're|du|sie|vous êtes|tu es|eres|sei)\\s+(?:(?:an?|the|eine?|ein|une?|el|la|un[ao]?)\\s*)?${A}\\b`,
      'iu',
    ),
  },
  {
    kind: 'override',
    re: new RegExp(
      `\\b(?:whatever|(?:whoever|anyone|anybody) or whatever|whoever|was oder wer|wer oder was|wer auch immer|was auch immer)\\s+(?:(?:is|ist)\\s+)?(?:drafts|drafting|writes|writing|composes|composing|generates|generating|processes|processing|reads|reading|verfasst|schreibt|erstellt|formuliert|liest|bearbeitet)\\s+${MAIL_OBJ}`,
      'iu',
    ),
  },
  // A block that poses as the product's own instructions or a new mode of it.
  {
    kind: 'override',
    re: /(?:^\s*|\n[^\S\n]*)(?:[*#=[<|-]{1,5}\s*)?(?:new|updated|important|additional|revised|urgent|secret|hidden|system|admin(?:istrator)?|priority|neue|wichtige|aktualisierte|nouvelles?|nuevas?|nuove)\s+(?:important\s+|new\s+|wichtige\s+)?(?:instructions?|directives?|tasks?|anweisung(?:en)?|aufgabe|consignes?|instrucciones|istruzioni)\b/iu,
  },
  {
    kind: 'override',
    re: /\b(?:developer|debug|maintenance|admin|god|sudo|unrestricted|jailbreak|test|diagnostic|entwickler|wartungs|debug-|administrator)[- ]?(?:mode|modus)\b|\bmode (?:développeur|maintenance|débogage)\b|\bmodo (?:desarrollador|mantenimiento|sviluppatore|manutenzione|depuración|debug)\b|\bend of (?:the )?(?:e-?mail|document|context|input|data|user input)\b|\bsystem (?:override|alert|notice|update|message)\s*[:!]/iu,
  },
  {
    kind: 'override',
    re: /\b(?:ignore[rz]?|oublie[rz]?)\s+(?:toutes?\s+)?(?:les|vos|tes)\s+(?:instructions|consignes|règles)\b|\b(?:ignora|ignore|ignorar|olvida|olvide)\s+(?:todas\s+)?(?:las|tus|sus)\s+(?:instrucciones|reglas|indicaciones)\b|\b(?:ignora|ignori|ignorare|dimentica)\s+(?:tutte\s+)?(?:le)\s+(?:istruzioni|regole|indicazioni)\b/iu,
  },
  // Acting for others than the customer: refunds, deletions or approvals for everyone.
  {
    kind: 'override',
    re: new RegExp(
      `\\b(?:refund|credit|approve|grant|waive|delete|close|reset|unlock|erstatte|storniere|lösche|genehmige|rembourse[rz]?|reembolsa|rimborsa)\\b${S}{0,30}\\b(?:all|every|other|each|alle[nm]?|allen|anderen|tous les|todos los|tutti i)\\s+(?:\\w+\\s+)?(?:customers?|accounts?|users?|clients?|tickets?|kunden|konten|nutzer|clientes|clienti|comptes)\\b`,
      'iu',
    ),
  },
  // Putting something planted into the answer, or shaping the answer's form.
  {
    kind: 'tampering',
    re: new RegExp(`\\b${PUT}\\b${SW}{0,100}\\b${YOUR}\\s+(?:\\w+\\s+)?${ANSWER}\\b`, 'iu'),
    needs: new RegExp(PLANTED, 'iu'),
  },
  {
    kind: 'tampering',
    re: new RegExp(`\\b${YOUR}\\s+(?:\\w+\\s+)?${ANSWER}\\b${SW}{0,100}\\b${PUT}\\b`, 'iu'),
    needs: new RegExp(PLANTED, 'iu'),
  },
  // "Your answer" changed in form or language: a cipher, reversed, emoji, translated.
  { kind: 'tampering', re: new RegExp(`\\b${YOUR_ANSWER}\\b${S}{0,60}\\b${FORM}|\\b${FORM}${S}{0,60}\\b${YOUR_ANSWER}\\b`, 'iu') },
  {
    kind: 'tampering',
    re: new RegExp(
      `\\b(?:translate|render|provide|write|give|übersetze|übersetzen|traduis|traduisez|traduce|traduci)\\s+${YOUR_ANSWER}\\b${S}{0,30}\\b(?:in|into|to|auf|ins|en|a|al|in)\\s+(?:\\w+\\s+)?${LANGUAGE}`,
      'iu',
    ),
  },
  {
    kind: 'tampering',
    re: new RegExp(
      `\\b(?:respond|reply|answer|write|output|encode|translate|convert|rewrite|spell|format|antworte|antworten|schreibe|kodiere|übersetze|réponds|répondez|écris|encode|responde|escribe|codifica|rispondi|scrivi)\\b${S}{0,60}\\b(?:in|into|using|as|to|auf|en|con)\\s+(?:\\w+\\s+)?${ENCODING}`,
      'iu',
    ),
  },
  {
    kind: 'tampering',
    re: new RegExp(
      `\\b(?:start|begin|end|finish|conclude|open|prefix|beginne|beginnen sie|beende|beenden sie|commence[rz]?|termine[rz]?|comienza|empieza|termina|inizia|termina)\\s+(?:${YOUR}\\s+)?(?:\\w+\\s+)?${ANSWER}\\s+(?:with|by|mit|par|avec|con)\\b`,
      'iu',
    ),
  },
  {
    kind: 'tampering',
    re: /\b(?:all|every|each|future|from now on|ab sofort|toutes? (?:les|vos)|todas? (?:las|tus)|tutte le)\b[^.?!\n]{0,30}\b(?:responses|replies|answers|antworten|réponses|respuestas|risposte)\b[^.?!\n]{0,30}\b(?:in|auf|en)\s+(?:french|spanish|german|italian|chinese|japanese|russian|arabic|portuguese|dutch|polish|turkish|französisch|spanisch|englisch|italienisch|chinesisch|russisch|français|anglais|espagnol|francés|inglés|alemán|francese|inglese|tedesco)\b/iu,
  },
  // Data leaving through a link: a markdown image, or a URL with a place for data to fill in.
  {
    kind: 'exfiltration',
    re: /!\[[^\]\n]{0,80}\]\(\s*<?https?:\/\/[^)\s]*[?&#/=][^)\s]*\)?|<\s*img\b[^>]{0,200}\bsrc\s*=|\bon(?:error|load)\s*=|(?:href\s*=\s*["']?|\]\(\s*)javascript:|<\s*script\b/iu,
  },
  {
    kind: 'exfiltration',
    re: /https?:\/\/[^\s)"'>]*(?:[?&=/](?:\[[^\]\s]{1,40}\]|\{[^}\s]{1,40}\}|<[A-Za-z_]{2,40}>|%s|\$\{?\w+\}?)|=(?:[A-Z_]*(?:DATA|QUERY|SECRET|TOKEN|PASSWORD|CONTENT|NOTES|HISTORY|CONTEXT|SUMMARY|PROMPT|INPUT|EMAIL|INFO))\b)/u,
  },
  {
    kind: 'exfiltration',
    re: /https?:\/\/\S+[^.?!\n]{0,80}\b(?:replac|substitut|fill in|followed by|append|encoded|base-?64|ersetze|gefolgt von|dahinter|remplace|suivi de|sustituy|reemplaz|seguido de|sostituisc|seguito da)/iu,
  },
  {
    kind: 'exfiltration',
    re: /\b(?:replac|substitut|fill in|append|ersetze|hänge|remplace|sustituy|reemplaz|sostituisc)\w*\b[^.?!\n]{0,80}https?:\/\//iu,
  },
  // Mail leaving in bulk: everything, every message, the whole inbox or the customer list to an address.
  {
    kind: 'exfiltration',
    re: new RegExp(
      `\\b(?:all|every|each|everything|entire|whole|complete|sämtliche[nr]?|alle[nm]?|jede[nrs]?|komplette[nr]?|gesamte[nr]?|toute?s?|todos?|todas?|tutt[eio])\\b${S}{0,30}\\b(?:customer\\s*|kunden)?(?:conversations?|correspondence|messages?|mails?|e-?mails?|inbox|threads?|tickets?|that arrives|schriftverkehr\\w*|korrespondenz|nachrichten|postfach\\w*|konversationen|customer (?:list|data(?:base)?)|kundenliste|kundendaten|kontaktdaten|contact (?:list|details)|courriels|correos|mensajes|messaggi)\\b${SW}{0,100}${ADDRESS}`,
      'iu',
    ),
  },
  // The review or the record skipped: the people who check drafts are what the guard protects.
  {
    kind: 'override',
    re: /\b(?:skip|bypass|circumvent|without|ohne|umgeh\w*|überspring\w*|sans|sin|senza)\b[^.?!\n]{0,40}\b(?:human|manual|staff|employee|the usual|übliche|menschliche|manuelle)?\s*(?:review(?: step)?|approval|oversight|sign-?off|prüfung|freigabe|kontrolle|validation|revisión|revisione)\b[^.?!\n]{0,30}\b(?:durch (?:einen|einem|die|den) (?:mitarbeiter|menschen|kollegen)|step|by (?:a|an|the) (?:human|employee|agent|person))|\b(?:skip|bypass)\s+the\s+(?:human\s+)?review\b|\b(?:nicht zu dokumentieren|nicht dokumentieren|nicht protokollieren|don't (?:mention|document|log) (?:that|this|it)|do not (?:mention|document|log) (?:that|this|it)|without (?:logging|documenting))|\bnur an meine (?:vorgaben|anweisungen|regeln)\b|\bonly (?:follow|obey) my (?:instructions|rules|orders)\b/iu,
  },
  {
    kind: 'override',
    re: /(?:^\s*|\n[^\S\n]*)[=*#[<-]{2,}[^\n]{0,40}\b(?:system\w*|systems|admin\w*|instruction\w*|anweisung\w*|security|sicherheit\w*|task|aufgabe)\b[^\n]{0,40}[=*#\]>-]{2,}|\b(?:vorgaben|regeln|richtlinien|sicherheitsvorgaben|rules|restrictions|guidelines|policies|safeguards)\b[^.?!\n]{0,30}\b(?:außer kraft|aufgehoben|no longer apply|(?:are|is) (?:now )?(?:suspended|lifted|disabled|void))/iu,
  },
  // The assistant's set-up asked for, in any of the languages.
  {
    kind: 'disclosure',
    re: /\bsystem[ _-]?prompts?\b|\bsystemprompt\b|\b(?:repeat|print|output|dump|copy)\b[^.?!\n]{0,20}\b(?:this|the) (?:entire |whole |full )?conversation\b|\b(?:were|have) you (?:been )?(?:told|instructed|given|programmed)\b/iu,
  },
  {
    kind: 'disclosure',
    re: /\b(?:directions|instructions|guidance|guidelines|rules|text|setup|anweisung(?:en)?|richtlinien|vorgaben|instruktionen)\b[^.?!\n]{0,60}\b(?:you (?:follow|were given|received|get|were told|use)|you were (?:set up|configured)|put in front of you|(?:bekommt|erhält|mitgegeben|vorgegeben|bekommen haben|erhalten haben))\b/iu,
    needs:
      /\b(?:exact\w*|verbatim|word for word|unchanged|complete|full|entire|copy|paste|wortlaut|wörtlich|genaue\w*|komplett\w*|vollständig\w*|unverändert)\b/iu,
  },
  { kind: 'disclosure', re: new RegExp(`\\b${REVEAL}\\b${S}{0,60}\\b${SETUP_EN}`, 'iu') },
  { kind: 'disclosure', re: new RegExp(`\\b${REVEAL}\\b${S}{0,60}\\b${SETUP_OTHER}`, 'iu') },
  { kind: 'disclosure', re: new RegExp(`\\b${SETUP_OTHER}\\b${S}{0,40}\\b${REVEAL}\\b`, 'iu') },
  // Another person's or company's data asked for in the answer.
  {
    kind: 'disclosure',
    re: new RegExp(
      `\\b(?:include|add|put|tell|give|send|list|share|teilen|nennen|geben|schicken|senden|mitteilen)\\b${S}{0,50}\\b(?:his|her|their|its|seine[nm]?|ihre[nm]?)\\s+(?:\\w+\\s+)?(?:delivery address|address|invoices?|invoice total|orders?|order history|purchases?|phone number|e-?mail address|account|customer number|lieferadresse|adresse|rechnungen|bestellungen|telefonnummer|kundennummer)\\b`,
      'iu',
    ),
  },
  {
    kind: 'disclosure',
    re: new RegExp(
      `\\b(?:send|tell|give|paste|list|share|show|forward|copy|which|what|welche|was|nennen|schicken|senden|zeigen|geben)\\b${S}{0,60}\\b(?:other|andere[nmr]?)\\s+(?:buyers|people|persons|customers|users|clients|senders|kunden|käufer(?:innen)?|personen|leute|nutzer|absender)\\b`,
      'iu',
    ),
  },
  {
    kind: 'disclosure',
    re: /\b(?:which|what)\s+(?:\w+\s+){0,3}(?:card|bank account|account|address|phone number|password|iban)s?\b[^.?!\n]{0,30}\b(?:does|did|do)\s+(?:he|she|they|my \w+)\b/iu,
  },
  // German "ihr"/"ihre" is "her", "Ihr"/"Ihre" is "your": this one is case-sensitive.
  {
    kind: 'disclosure',
    re: /\b(?:[Ss]eine[nm]?|ihre[nm]?)\s+(?:\p{L}+\s+)?(?:Lieferadresse|Adresse|Telefonnummer|Kundennummer|Bestellungen|Rechnungen|Kontodaten|Bankverbindung|Kartennummer)\b[^.?!\n]{0,60}\b(?:schicken|senden|nennen|geben|mitteilen|sagen)\b|\b(?:welche|was)\s+(?:\p{L}+\s+)?(?:Adresse|Lieferadresse|Bestellung|Bestellungen|Telefonnummer)\s+(?:ihr|sein)e?[nms]?\b/u,
  },
  {
    kind: 'disclosure',
    re: /\b(?:welche|what|which)\s+(?:bestellungen|aufträge|orders|purchases|umsätze|preise|prices)\b[^.?!\n]{0,60}\b(?:bei ihnen|from you|with you|aufgegeben|placed|bestellt|ordered)\b/iu,
    needs: /\b(?:gmbh|kg|ag|ltd|inc|llc|partner|firma|company|söhne|&)\b/iu,
  },
];

/** Characters whose only use in a customer's mail is to hide text: bidi overrides and Unicode tag characters. */
const HIDING = /[\u202A-\u202E\u2066-\u2069]|[\u{E0000}-\u{E007F}]/u;
/** Zero-width characters inside a word (not the joiners emoji and Indic scripts need between their parts). */
const SPLIT_WORD = /\p{L}[\u200B\u2060\uFEFF]+\p{L}/u;

/** The first word of ASCII letters with a look-alike letter of another script in it. */
function lookAlikeWord(raw: string): { index: number } | undefined {
  for (const m of raw.matchAll(/[\p{L}\p{M}]{3,}/gu)) if (foldedLookAlikes(m[0]) !== undefined) return { index: m.index };
  return undefined;
}

/** Unicode tricks in the raw text: what they hide is then read by the normalised checks. */
export function obfuscation(raw: string): string | undefined {
  const m = HIDING.exec(raw) ?? lookAlikeWord(raw) ?? SPLIT_WORD.exec(raw);
  if (!m) return undefined;
  return raw.slice(Math.max(0, m.index - 30), m.index + 50);
}
