/**
 * Whom a sentence of a mail speaks to, for the intent detector (src/drafting/intent-detector.ts).
 * An injection is an instruction to whoever writes the reply: it names the assistant, its rules or
 * its answer, or it asks the reader to do something. Ordinary mail is full of sentences that read
 * like an attack's by meaning ("the rules files on your system", "a jump instruction", "another
 * mailing list") but address nobody; and bulk mail (mailing lists, newsletters) tells its readers
 * how to unsubscribe, reply or log in, which is not a request to support. So only what is addressed
 * is compared with the intents, and in bulk mail a request must match an intent clearly.
 */

/**
 * Words that speak to whoever writes the reply rather than to the people at support: the
 * assistant, the model, its instructions, the reply itself, the way it was set up. A bare "model",
 * "prompt", "rules" or "the reply" is not enough ("a computer model", "the Tcl prompt", "bend the
 * rules", "the From: header in the reply"): the rules must be someone's (yours, its, the earlier
 * ones), the answer the reader's.
 */
export const SPEAKS_TO_ASSISTANT =
  /\b(a\.?i\.?|ai[- ](system|assistant|agent|model|tool)s?|assistant|chat-?bot|(reply|mail|support|answer|e-?mail)[- ]?bot|llm|(large )?language model|gpt|(ai|language) model|automated (assistant|system|agent|reader|processing)|system (prompt|message|notice|instructions?)|(your|its|hidden|initial|original|internal) (prompts?|instructions?|guidelines|directives|rules|programming)|(internal|hidden|system) configuration|(previous|prior|earlier|above|new|updated) (instructions?|guidelines|directives|prompts?)|your (next )?(repl(y|ies)|responses?|answers?)|(the|this) (reply|response|answer) to (this|my) (message|mail|e-?mail|ticket)|(composing|writing|drafting|generating) (your|the) (repl(y|ies)|responses|answers)|(you|it) (were|was|have been|has been) (configured|set up|programmed|instructed)|whoever( or whatever)? (drafts|writes|reads|answers|processes)|whatever (drafts|writes|reads)|you (were|have been|got) (given|told|instructed|asked|set up|configured|programmed|trained)|(when|whenever|before) you (write|draft|compose|answer|respond|process)|directions you follow|(this|the) (entire |whole )?(conversation|chat|session)|(developer|maintenance|debug|admin|god|unrestricted|jailbreak) mode|ki|künstliche intelligenz|(antwort-?|ki-?)?assistent(en|in)?|sprachmodell|modell|systemprompt|(system)?anweisungen|vorgaben|richtlinien?|(ihre|deine|der|die) antwort(en)?|in (ihrer|deiner|der) antwort|antworten an|nachricht des systems|systemnachricht|systemhinweis|man ihnen (gegeben|mitgegeben|vorgegeben|aufgetragen)|bevor sie (antworten|schreiben))\b/i;

/**
 * A request or an order wherever it stands in the sentence: a polite form, a modal aimed at the
 * reader, rules declared lifted, work to be done without review.
 */
const REQUEST =
  /\b(please|pls|kindly|can you|could you|would you|will you|you (must|should|shall|have to|need to|are (now )?(required|to|allowed|permitted))|you('| a)re (now|required)|i (want|need|require|order|instruct) you|make sure|from now on|bitte|können sie|könnten sie|würden sie|kannst du|könntest du|sie (müssen|sollen|dürfen|haben zu)|ich (weise|bitte|fordere)|ab (sofort|jetzt)|stellen sie sich vor|tu so|tun sie so|außer kraft|von nun an|künftig|(are|is) (now )?(suspended|disabled|lifted|void)|no longer (apply|valid|in force)|cleared to|without (review|approval|checks?)|ohne (prüfung|freigabe|kontrolle))\b/i;

/** English verbs an instruction starts with (the imperative has no subject: it opens its clause). */
const VERBS =
  "(ignore|disregard|forget|override|send|forward|reply|respond|tell|give|show|list|share|reveal|include|add|insert|attach|write|repeat|print|paste|copy|confirm|approve|mark|set|act|pretend|imagine|play|translate|encode|provide|output|export|mail|email|e-mail|put|change|modify|enhance|remove|delete|skip|bypass|do not|don't|never|always|start|begin|end|answer|quote|describe|explain|summari[sz]e|recommend|suggest|mention|state|display|return|use|treat|consider|process|grant|make sure|let me know|enter|type|click|leave|stop|continue)";

/**
 * The verb after a sentence's end or a colon, or after "please", "then", "also", … . A line of
 * hard-wrapped mail often starts in the middle of a sentence ("act in anticipation if …"), so at
 * the start of a piece only a capitalised verb opens an instruction (IMPERATIVE_AT_START).
 */
const IMPERATIVE_INSIDE = new RegExp(`([.!?;:]\\s+|\\b(please|kindly|pls|now|then|also|just|simply)\\s+)${VERBS}\\b`, 'i');
const IMPERATIVE_AT_START = new RegExp(`^[^\\p{L}]*${VERBS}\\b`, 'iu');
/** German: the polite imperative ("Senden Sie", "bitte leiten Sie") and the familiar one opening a clause. */
const GERMAN_IMPERATIVE =
  /(^|[.!?;:]\s+|\b(bitte|dann|auch|jetzt|nun)\s+)\p{L}+en sie\b|(^|[.!?;:]\s+)(ignoriere|vergiss|leite|sende|schick|schicke|antworte|nenne|gib|zeige|teile|füge|hänge|schreib|schreibe|wiederhole|bestätige|beantworte|verrate)\b/iu;
/** The reader, for a question: a question to nobody in particular ("What's their problem?") asks support for nothing. */
const YOU = /\b(you|your|yours|sie|ihnen|ihr|ihre[mnrs]?|du|dir|dich|dein\w*|euch|euer)\b/i;

/** Whether a sentence asks the reader to do or tell something: a request, an imperative, or a question to "you". */
export function addressesReader(segment: string): boolean {
  if (REQUEST.test(segment) || IMPERATIVE_INSIDE.test(segment) || GERMAN_IMPERATIVE.test(segment)) return true;
  const first = /\p{L}/u.exec(segment)?.[0];
  if (first && first !== first.toLowerCase() && IMPERATIVE_AT_START.test(segment)) return true;
  return segment.includes('?') && YOU.test(segment);
}

/**
 * The footer of a mailing list or a newsletter: how to unsubscribe or stop receiving it, the
 * list's info page, the message online. Its readers did not write to support, and its
 * how-to sentences ("log in and change your preferences") are not requests.
 */
const BULK_MAIL =
  /unsubscribe|mailing list|listinfo|list-?info|abbestellen|abmelden|opt[- ]?out|to stop receiving|you (are receiving|received) this|view (this|the) (message|e-?mail|newsletter) (in|as|online)|sponsored by|remove yourself from|unsubscribed/i;

/** Whether any piece of the mail is a list's or newsletter's footer. */
export function isBulkMail(segments: string[]): boolean {
  return segments.some((s) => BULK_MAIL.test(s));
}
