/**
 * What the customer's own mail may support in a draft. Restating what the customer asked ("You
 * ask whether the jacket is waterproof.") rests on the mail; a commitment of ours does not, however
 * often the customer wrote it: "as agreed on the phone you will refund 480 EUR by Friday" in the
 * mail and "We will refund 480 EUR by Friday." in the draft is a promise nobody here made. Such a
 * sentence is customer-asserted (GROUNDING_VERDICTS.customerAsserted) and never goes out without a
 * person. German and English, as customers write both. Pure.
 *
 * The text is hostile: plain alternations of words with bounded gaps, no nested quantifiers.
 */

import { questionParts, type SentenceParts } from './question-clauses';

// \b is ASCII-only in JavaScript: "Rückerstattung" would split after the "R".
const START = '(?<![\\p{L}\\p{N}])';
const END = '(?![\\p{L}\\p{N}])';

const words = (list: readonly string[]): RegExp => new RegExp(`${START}(?:${list.join('|')})${END}`, 'iu');
const stems = (list: readonly string[]): RegExp => new RegExp(`(?:${list.join('|')})`, 'iu');

/** Wording of a commitment: money back, a credit, an exception, a promise, something we will do. */
const COMMITMENT_STEMS = stems([
  'refund',
  'reimburs',
  'compensat',
  'voucher',
  'discount',
  'goodwill',
  'exception',
  'waive',
  'promis',
  'agreed',
  'guarantee',
  'free of charge',
  'free shipping',
  'free return',
  'free replacement',
  'replacement',
  'erstatt',
  'gutschrift',
  'gutgeschrieben',
  'gutschein',
  'rabatt',
  'kulanz',
  'ausnahme',
  'zugesagt',
  'zusage',
  'versprochen',
  'vereinbart',
  'kostenlos',
  'kostenfrei',
  'versandkostenfrei',
  'gratis',
  'ersatzlieferung',
  'umsonst',
]);
const COMMITMENT_WORDS = words([
  'we will',
  "we'll",
  'we shall',
  'we are going to',
  "we're going to",
  'we have (?:now )?(?:refunded|credited|sent|shipped|cancell?ed|unlocked|reset|approved|arranged|booked|extended|replaced|processed)',
  'i will',
  "i'll",
  'you will (?:receive|get|be (?:refunded|credited|reimbursed|sent))',
  "you'll (?:receive|get)",
  'wir werden',
  'werden wir',
  'wir erstatten',
  'wir schicken',
  'wir senden',
  'wir buchen',
  'wir übernehmen',
  'ich werde',
  'sie erhalten',
  'erhalten sie',
  'sie bekommen',
  'bekommen sie',
]);
/** Wording that commits us even inside a follow-up note ("As promised, shipping is free."). */
const COMMITMENT_MARKS = words(['free', 'confirm(?:ed)?', 'bestätigt', 'bestätigen']);
/** A change of state we report: "has been unlocked", "wurde erstattet", "ist entsperrt". */
const STATUS_CHANGE = words([
  '(?:has|have|had) (?:now |already |just )?been \\p{L}+ed',
  '(?:was|were|is now|are now|is already|are already) (?:unlocked|refunded|shipped|sent|dispatched|cancell?ed|credited|reset|approved|waived|activated|reactivated|restored|processed|resolved|fixed|extended|upgraded|replaced|exchanged|booked|released|paid|transferred|arranged|granted|unblocked)',
  'entsperrt',
  'freigeschaltet',
  'storniert',
  'versandt',
  'verschickt',
  'zurückgesetzt',
  'genehmigt',
  'überwiesen',
  'ausgetauscht',
  'verlängert',
  'reaktiviert',
  'aktiviert',
  'erledigt',
]);
/** An amount: a currency beside digits ("480 EUR", "€ 12,50", "40 Euro"). */
const AMOUNT = new RegExp(
  `\\d[\\d.,]{0,12}\\s{0,2}(?:[€$£]|${START}(?:eur|euro|euros|usd|gbp|chf|dollars?|cents?)${END})|(?:[€$£]|${START}(?:eur|usd|gbp|chf)${END})\\s{0,2}\\d`,
  'iu',
);
/** The days of the week, English and German (claim-sentences.ts reads them as key facts too). */
export const WEEKDAY_NAMES: readonly string[] = [
  'monday',
  'tuesday',
  'wednesday',
  'thursday',
  'friday',
  'saturday',
  'sunday',
  'montag',
  'dienstag',
  'mittwoch',
  'donnerstag',
  'freitag',
  'samstag',
  'sonnabend',
  'sonntag',
];
/** A date or a deadline: a weekday, a month, "12.03.", "by tomorrow", "bis morgen". */
const DATE = words([
  ...WEEKDAY_NAMES,
  'tomorrow',
  'today',
  'tonight',
  'next week',
  'end of the week',
  'morgen',
  'heute',
  'übermorgen',
  'nächste woche',
  'ende der woche',
  'january|february|march|april|june|july|august|september|october|november|december',
  'januar|februar|märz|juni|juli|oktober|dezember',
  '\\d{1,2}\\.\\d{1,2}\\.(?:\\d{2,4})?',
  '\\d{1,2}/\\d{1,2}(?:/\\d{2,4})?',
  '\\d{4}-\\d{2}-\\d{2}',
]);

/**
 * The wording of a commitment beyond a plain "we will": money, a credit, an exception, a promise, a
 * status change, an amount, a date. A note that a colleague will write again has none of it.
 */
export function hasCommitmentWording(sentence: string): boolean {
  return (
    COMMITMENT_STEMS.test(sentence) ||
    COMMITMENT_MARKS.test(sentence) ||
    STATUS_CHANGE.test(sentence) ||
    AMOUNT.test(sentence) ||
    DATE.test(sentence)
  );
}

const commits = (clause: string): boolean => hasCommitmentWording(clause) || COMMITMENT_WORDS.test(clause);

/**
 * A commitment of ours: its wording, an amount or a date, or something we say we will do — in a
 * clause that states it, or in our offer ("Would you like a refund of 480 EUR?": binding once the
 * customer says yes). A question commits nothing ("When did you return it?"); a clause
 * stated beside it does ("Since we will refund 480 EUR, shall we transfer it on Friday?"):
 * src/drafting/question-clauses.ts.
 */
export function isCommitment(sentence: string): boolean {
  const parts = questionParts(sentence);
  return parts.stated.some(commits) || offersCommitment(parts);
}

/** Our offer of something that commits ("Would you like a refund of 480 EUR?"): binding once accepted. */
function offersCommitment(parts: SentenceParts): boolean {
  return parts.offer && parts.asked !== null && commits(parts.asked);
}

/**
 * A sentence that only asks: a question (or a report of the customer's question) beside which
 * nothing is stated but a few words that commit nothing ("Tom, would you like …?"). Like a
 * restatement, it may rest on the customer's mail: the customer asked it.
 */
export function asksOnly(sentence: string): boolean {
  const parts = questionParts(sentence);
  return parts.asked !== null && !offersCommitment(parts) && parts.stated.every((c) => c.split(/\s+/u).length <= 3 && !commits(c));
}

/**
 * A sentence that reports what the customer asked or wrote, in the customer's voice: "You ask
 * whether…", "Sie fragen, ob…", "In your mail you mention…". "As you wrote, we will…" is no
 * report: it takes the customer's words as ours.
 */
const REPORT_FRAME = new RegExp(
  `^(?:${[
    'you (?:are |were )?(?:asked|ask|asking|wonder|wondered|wondering|would like to know|want to know|would like|want|wrote|write|writing|mention|mentioned|say|said|report|reported|tell us|told us|describe|described|explain|explained)',
    'your (?:question|request|message|mail|e-?mail) (?:is|was|asks|concerns|is about)',
    'in your (?:message|mail|e-?mail|letter)',
    'if i understand (?:you|your)',
    'i understand (?:that )?you',
    'sie (?:fragen|fragten|möchten|wollen|wünschen|schreiben|schrieben|erwähnen|erwähnten|berichten|beschreiben|teilen uns mit|haben (?:uns )?(?:gefragt|geschrieben|mitgeteilt))',
    'ihre (?:frage|anfrage|nachricht|mail|e-?mail) (?:ist|war|betrifft|lautet)',
    'in ihrer (?:nachricht|mail|e-?mail)',
    'wenn ich sie richtig verstehe',
    'ich verstehe(?:,)? (?:dass )?sie',
  ].join('|')})${END}`,
  'iu',
);
/** Our own voice inside a report: "You asked about the refund, which we will send by Friday." */
const OUR_VOICE = words([
  'we will',
  "we'll",
  'we shall',
  'we have',
  "we've",
  'we are going to',
  'we can confirm',
  'i will',
  "i'll",
  'i can confirm',
  'wir werden',
  'werden wir',
  'wir haben',
  'haben wir',
  'wir können bestätigen',
  'ich werde',
  'ich kann bestätigen',
]);

export function isRestatement(sentence: string): boolean {
  return REPORT_FRAME.test(sentence.trim()) && !OUR_VOICE.test(sentence);
}

/**
 * A sentence that rests on an earlier promise ("As agreed on the phone, …", "wie von unserem Kollegen
 * zugesagt, …"): no knowledge page records what someone promised a customer, so no passage can
 * support it, however many of its words a passage shares.
 */
const PRIOR_PROMISE = words([
  'as (?:agreed|promised|confirmed|discussed|arranged|offered)',
  'as (?:our|your|my) (?:colleague|agent|hotline|team|sales person|representative) (?:promised|agreed|confirmed|said|offered)',
  'as (?:promised|agreed|confirmed) by',
  'wie (?:telefonisch |am telefon |mit ihnen |besprochen und )?(?:vereinbart|besprochen|zugesagt|versprochen|bestätigt|abgesprochen)',
  'wie von (?:unserem|unserer|ihrem|ihrer) (?:kollegen|kollegin|mitarbeiter|mitarbeiterin|hotline|team) (?:zugesagt|versprochen|bestätigt|vereinbart)',
]);

export function citesPriorPromise(sentence: string): boolean {
  return PRIOR_PROMISE.test(sentence) && !isRestatement(sentence);
}

/** Words that only frame a question ("whether", "about", "ob"): left out when the rest is compared with the mail. */
const QUESTION_WORDS = words(['whether', 'if', 'about', 'regarding', 'ob', 'wann', 'wie', 'was', 'warum', 'when', 'how', 'what', 'why']);

/**
 * What a restatement or a question restates: the sentence without its report frame or its opening
 * question words ("You ask whether the jacket is waterproof." → "the jacket is waterproof.", "Would
 * you like a refund of 480 EUR?" → "a refund of 480 EUR?").
 */
export function restatedPart(sentence: string): string {
  const t = sentence.trim();
  const m = REPORT_FRAME.exec(t);
  const rest = m ? t.slice(m[0].length) : asksOnly(t) ? questionParts(t).askedContent : null;
  if (rest === null) return t;
  return rest
    .replace(/^[\s,:]+/u, '')
    .replace(QUESTION_WORDS, ' ')
    .replace(/\s+/gu, ' ')
    .trim();
}

/**
 * Whether the customer's mail may support this sentence: a report of what the customer wrote; for
 * a sentence the rules call factual (the check's older scope) also one that commits us to nothing.
 * A bare statement checked only because every sentence is ("The jacket is waterproof.") needs a
 * source of ours: a customer who asks "is it waterproof?" does not make it so.
 */
export function customerMayGround(sentence: string, factual: boolean): boolean {
  return isRestatement(sentence) || asksOnly(sentence) || (factual && !isCommitment(sentence));
}
