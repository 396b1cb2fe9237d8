/**
 * The sentences of a draft and which of them state a fact. A reply is mostly formula (greeting,
 * thanks, "a colleague will follow up", closing); the sentences that matter for grounding are
 * those with a key fact (a number, an amount, a date, a weekday, an address) or the wording of a
 * policy, a promise, a deadline or a step to take. Found here by rule, so a drafter that leaves a
 * sentence out of its claims cannot hide it from the check. Pure.
 */

import { hasCommitmentWording, WEEKDAY_NAMES } from './customer-assertion';

/** The sentences of a body, in order: each line cut at sentence ends; empty lines dropped. */
export function draftSentences(body: string): string[] {
  const out: string[] = [];
  for (const line of body.split(/\r?\n/)) {
    const trimmed = line.trim();
    if (!trimmed) continue;
    // The same cut as passage sentences (src/retrieval/passage-sentences.ts), so a quoted passage
    // sentence comes back whole; a colon ends the intro before a quote.
    for (const s of trimmed.split(/(?<=[.!?:])\s+(?=[\p{Lu}\d„"“(])/u)) if (s.trim()) out.push(s.trim());
  }
  return out;
}

/** "(Source: knowledge:x.md#2)" and "(Quelle: …, auf Deutsch)": a citation note, not part of what is said. */
const SOURCE_NOTE = /\((?:source|quelle|sources|quellen):[^)]*\)/giu;
/** The sentence without its citation notes and the quotation marks around a quote. */
export function claimText(sentence: string): string {
  return sentence
    .replace(SOURCE_NOTE, ' ')
    .replace(/^[\s"„“”'»«]+|(?<![\s"„“”'»«])[\s"„“”'»«]+$/gu, '')
    .replace(/\s+/g, ' ')
    .trim();
}

const GREETING =
  /^(hello|hi|hey|dear|good (morning|afternoon|evening)|guten (tag|morgen|abend)|hallo|sehr geehrte[rs]?|liebe[rs]?|moin|servus|grüß gott)\b[^.!?]{0,80}[,!]?$/iu;
const THANKS = /^(many |vielen |herzlichen |besten |recht )?(thanks|thank you|dank|danke)\b/iu;
const CLOSING =
  /^((best|kind|warm|many)\s+)?regards\b|^(mit\s+)?(freundlichen|besten|viele[n]?|herzliche[n]?|liebe[n]?|schöne[n]?)\s+grü(ß|ss)e?n?\b|^(sincerely|cheers|yours)\b|^(ihr|your|the|das|euer)\s+(support|kundenservice|service)([- ]?team)?\b/iu;
/**
 * A promise of a person, an offer to write again, a note that the team looks into it: said of
 * every mail, so not a claim — unless it carries a key fact ("within 2 working days").
 */
const FOLLOW_UP =
  /(get back to you|follow up|in touch|reach out|let us know|reply to this (e-?mail|message)|simply reply|just reply|(any|further|other) questions|happy to help|glad to help|we are on it|look into (it|this|your)|colleague|member of our team|team member|kolleg|mitarbeiter|meldet sich|melden (uns|sich)|antworten sie (einfach )?auf|weitere[n]? fragen|fragen haben|gerne (weiter)?helfen|kümmern uns|prüft ihr anliegen|noch etwas offen|still unclear|nothing relevant|nichts passendes)/iu;

/** The wording of a policy, a promise, a deadline or a step to take (German and English). */
const POLICY =
  /(?<![\p{L}])(within|until|deadline|days?|weeks?|months?|hours?|business day|working day|free of charge|free|costs?|fees?|price|refund|reimburs|return|exchange|cancel|warranty|guarantee|you can|you may|you need to|you must|you have to|you will|you receive|you get|please (go|click|send|log|use|open|select|enter|fill|print|attach|include|contact)|we will|we'll|we refund|we send|we ship|we charge|we answer|(is|are) (not )?(possible|available|included|closed|open)|automatically|at the latest|in your (customer )?account|settings|tracking|link|innerhalb|bis zum|spätestens|frist|tage[n]?|woche[n]?|monate?|stunden?|werktag|kostenlos|gebühr|kosten|preis|erstatt|rücksend|zurücksend|umtausch|kündig|garantie|gewährleistung|können sie|müssen sie|sie können|sie müssen|sie erhalten|erhalten sie|bitte (senden|schicken|klicken|nutzen|öffnen|wählen|geben|füllen|drucken|legen|melden)|wir werden|wir erstatten|wir senden|wir schicken|wir buchen|(nicht )?möglich|geschlossen|geöffnet|automatisch|kundenkonto|einstellungen|sendungsverfolgung)/iu;

const WEEKDAYS = WEEKDAY_NAMES;
/** "may" is left out: "you may" is no date. */
const MONTHS = [
  'januar',
  'january',
  'februar',
  'february',
  'märz',
  'march',
  'april',
  'mai',
  'juni',
  'june',
  'juli',
  'july',
  'august',
  'september',
  'oktober',
  'october',
  'november',
  'dezember',
  'december',
];
/**
 * Numbers written as words, as digits. "one" and "ein/eine" are left out: an article or "the one
 * you ordered" is no number.
 */
const NUMBER_WORDS: Record<string, string> = {
  two: '2',
  three: '3',
  four: '4',
  five: '5',
  six: '6',
  seven: '7',
  eight: '8',
  nine: '9',
  ten: '10',
  eleven: '11',
  twelve: '12',
  fourteen: '14',
  fifteen: '15',
  twenty: '20',
  thirty: '30',
  zwei: '2',
  drei: '3',
  vier: '4',
  fünf: '5',
  sechs: '6',
  sieben: '7',
  acht: '8',
  neun: '9',
  zehn: '10',
  elf: '11',
  zwölf: '12',
  vierzehn: '14',
  fünfzehn: '15',
  zwanzig: '20',
  dreißig: '30',
};
// Whole words ("Mai", not the "mai" of "E-Mail"); a weekday may take an s ("samstags", "Saturdays").
const WORD_FACT = new RegExp(
  `(?<![\\p{L}])(?:(${WEEKDAYS.join('|')})s?|(${MONTHS.join('|')})|(${Object.keys(NUMBER_WORDS).join('|')}))(?![\\p{L}])`,
  'giu',
);
const ADDRESS = /(?<![\w.+-])[\w.+-]+@[\w-]+(\.[\w-]+)+|https?:\/\/[^\s)"]+|www\.[^\s)"]+/giu;

/**
 * The key facts of a text, normalised so a sentence and a passage can be compared: digit runs
 * ("14,99" gives 14 and 99; "drei" gives 3), weekday and month names by their stem ("samstags",
 * "Saturdays"), e-mail and web addresses.
 */
export function keyFacts(text: string): Set<string> {
  const t = text.toLowerCase();
  const out = new Set<string>();
  for (const m of t.matchAll(ADDRESS)) out.add(m[0].replace(/(?<![.,;:])[.,;:]+$/, ''));
  const rest = t.replace(ADDRESS, ' ');
  for (const m of rest.matchAll(/\d+/g)) out.add(String(Number(m[0])));
  for (const m of rest.matchAll(WORD_FACT)) out.add(m[1] ?? m[2] ?? NUMBER_WORDS[m[3]!]!);
  return out;
}

/** Why a sentence is or is not a claim; `formula` sentences are never claims. */
export type SentenceKind = 'formula' | 'fact' | 'plain';

/**
 * `formula`: greeting, thanks, closing, signature, citation note, an intro ending in a colon, a
 * follow-up promise without a key fact. `fact`: a key fact or the wording of a policy, promise,
 * deadline or step. `plain`: anything else (an apology, a sentence about the mail) — a claim only
 * when the drafter said it rests on a passage.
 */
export function sentenceKind(sentence: string): SentenceKind {
  const s = claimText(sentence);
  // An intro before a quote or a list ("About your other message "…":") says what follows, not a fact.
  if (s.length === 0 || s.endsWith(':') || GREETING.test(s) || THANKS.test(s) || CLOSING.test(s)) return 'formula';
  const facts = keyFacts(s).size > 0;
  // A name or team under the closing: a few words, no sentence mark, no number.
  if (!facts && s.split(/\s+/).length <= 4 && !/[.!?:;]$/.test(s)) return 'formula';
  if (!facts && FOLLOW_UP.test(s)) return 'formula';
  return facts || POLICY.test(s) ? 'fact' : 'plain';
}

/** Regret and good wishes that state nothing: "We are sorry for the trouble.", "Wir hoffen, das hilft." */
const COURTESY =
  /^(we are|we're|i am|i'm|we|i)?\s*(very |so |truly )?(sorry|apologi[sz]e|regret)|^(please )?(accept our apologies|excuse)|^(es tut uns|das tut uns|tut uns) (sehr |wirklich )?leid|^(wir )?(bitten|entschuldigen) (sie )?(um entschuldigung|vielmals|die unannehmlichkeiten)|^entschuldig|^(we |i )?hope (this|that|it) (helps|answers)|^(wir hoffen|ich hoffe),? (das|dies|damit)|^have a (nice|good|great)|^(einen )?(schönen|guten) (tag|abend)/iu;

/**
 * Whether a sentence is courtesy rather than content: greeting, thanks, closing, signature, an intro
 * before a quote, an offer to help further, an apology, a good wish — each only without a key fact
 * and without the wording of a commitment ("As your colleague promised, shipping is free." is no
 * follow-up note). Where every sentence is checked (a draft autonomy could send), these alone are left out.
 */
export function isCourtesy(sentence: string): boolean {
  const s = claimText(sentence);
  if (s.length === 0 || s.endsWith(':') || GREETING.test(s) || THANKS.test(s) || CLOSING.test(s)) return true;
  if (keyFacts(s).size > 0 || hasCommitmentWording(s)) return false;
  if (s.split(/\s+/).length <= 4 && !/[.!?:;]$/.test(s)) return true;
  return FOLLOW_UP.test(s) || COURTESY.test(s);
}
