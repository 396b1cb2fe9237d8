/**
 * Which part of a draft's sentence asks and which part states. A question commits us to nothing:
 * "Would you like a refund of 480 EUR?" or "Sie fragen, ob Sie die 480 EUR bis Freitag
 * zurückbekommen." repeats what the customer asked. But a question can carry a statement: in "Since
 * we will refund 480 EUR, shall we transfer it on Friday?" the first clause promises the refund. So
 * only the question clause is asked; every other clause of the sentence is stated, and what is
 * stated is checked as any statement is (src/drafting/customer-assertion.ts). German and English.
 * Pure.
 *
 * The rule, clause by clause (clauses are cut at commas, semicolons, colons and dashes, and before
 * "and we" / "und wir"):
 * - The question starts at the first clause that opens as one: an auxiliary or a wh-word before its
 *   subject ("Would you…", "Shall we…", "When will…"), a German verb first ("Möchten Sie…", "Sollen
 *   wir…") or a question word ("Wann…", "Ob…"), or a report of the customer's question ("You ask
 *   whether…", "Sie fragen, ob…"). A direct question needs its question mark, except when the
 *   sentence begins with an offer or a wish ("Would you like…", "Shall we…", "Möchten Sie…"); a
 *   question mark alone ("We will refund 480 EUR by Friday?") makes no question.
 * - Clauses before it are stated. Clauses after it belong to it when they continue it ("or a
 *   voucher?", "dass wir Ihnen 480 EUR erstatten?" after a wish); any other is stated ("…, as we
 *   promised?", "…, die wir überwiesen haben?", "We will refund 480 EUR, is that all right?").
 * - Inside the question, a statement in our voice in its own word order ("we will", "we have",
 *   "wir haben", "has been refunded", "that we promised"), a "that"/"dass" clause after a question
 *   that is no wish ("Did you know that your account was unlocked?") and a question that expects
 *   yes ("Haven't we already refunded it?", "Haben wir nicht bereits …?") state: the question is
 *   then stated as a whole. In a reported question ("You ask whether we will …") the reported words
 *   are the customer's and stay asked.
 *
 * The text is hostile: plain alternations of words with bounded gaps, no nested quantifiers.
 */

const START = '(?<![\\p{L}\\p{N}])';
const END = '(?![\\p{L}\\p{N}])';
const alt = (list: readonly string[]): string => `(?:${list.join('|')})`;
/** Optional words before a question: "And would you…", "Also, möchten Sie…" are cut at the comma. */
const LEAD = '(?:(?:and|or|so|also|then|but|und|oder|dann|aber|sonst)\\s+)?';

/** An offer or a wish: a question even without its question mark; a "dass" after it is what is asked for. */
const WISH = [
  'would you like',
  'would you prefer',
  'do you want',
  'do you wish',
  'shall (?:we|i)',
  'should (?:we|i)',
  'may (?:we|i)',
  'can (?:we|i)',
  'could (?:we|i)',
  'would it help',
  'do you agree',
  'can you confirm',
  'could you confirm',
  'möchten sie',
  'wollen sie',
  'wünschen sie',
  'hätten sie gerne?',
  'sollen wir',
  'soll ich',
  'dürfen wir',
  'darf ich',
  'können wir',
  'könnten wir',
  'kann ich',
  'sind sie einverstanden',
  'ist es ihnen recht',
  'können sie bestätigen',
  'könnten sie bestätigen',
];
const EN_AUX = 'do|does|did|is|are|was|were|am|have|has|had|can|could|will|would|shall|should|may|might|must';
const EN_NEG = "don't|doesn't|didn't|isn't|aren't|wasn't|weren't|haven't|hasn't|hadn't|won't|wouldn't|can't|couldn't|shouldn't";
const EN_WH = 'what|when|where|which|who|whom|whose|why|how';
const DE_VERB = [
  'möchten',
  'möchtest',
  'wollen',
  'willst',
  'sollen',
  'soll',
  'sollten',
  'dürfen',
  'darf',
  'können',
  'kann',
  'könnten',
  'könnte',
  'müssen',
  'muss',
  'haben',
  'hast',
  'hat',
  'hatten',
  'hätten',
  'sind',
  'bist',
  'ist',
  'war',
  'waren',
  'wäre',
  'wären',
  'wird',
  'werden',
  'wurde',
  'wurden',
  'gibt',
  'geht',
  'passt',
  'stimmt',
  'brauchen',
  'benötigen',
  'wünschen',
  'bekommen',
  'erhalten',
  'wissen',
  'wussten',
  'kennen',
  'hilft',
  'reicht',
].join('|');
const DE_SUBJECT = 'sie|wir|ich|es|das|dies|die|der|den|dem|ihr|ihre|ihren|ihrem|ihnen|man|uns|du|er|eine?|jemand';
const DE_WH = 'was|wann|wo|wie|warum|weshalb|wieso|welche[rsmn]?|wer|wem|wen|wessen|woher|wohin|womit|wozu|worum|ob';
/** A report of the customer's question: the words after it are theirs. */
const REPORT_ASK = [
  `you (?:are |were )?(?:ask|asked|asking|wonder|wondered|wondering|would like to know|want to know|wanted to know)(?: us| me)?,? (?:whether|if|${EN_WH}|about)`,
  `your question (?:is|was),? (?:whether|if|${EN_WH})`,
  `sie (?:fragen|fragten|möchten wissen|wollen wissen|wüssten gerne?|haben (?:uns |mich )?gefragt)(?: uns| mich)?,? (?:${DE_WH}|nach)`,
  `ihre frage (?:ist|war|lautet),? (?:${DE_WH})`,
];

const opens = (list: readonly string[]) => new RegExp(`^${LEAD}${alt(list)}${END}`, 'iu');
const WISH_OPENER = opens(WISH);
const REPORT_OPENER = opens(REPORT_ASK);
const QUESTION_OPENER = opens([`(?:${EN_AUX}|${EN_NEG})(?=\\s+\\p{L})`, EN_WH, `(?:${DE_VERB})\\s+(?:${DE_SUBJECT})`, DE_WH]);
/** "Didn't we…", "Haven't I…": a question that expects yes, in our voice. */
const EXPECTS_YES = new RegExp(
  `^${LEAD}(?:${EN_NEG})\\s+(?:we|i)${END}|${START}(?:not|n't|nicht|kein\\p{L}*)${END}.{0,60}?${START}(?:already|schon|bereits)${END}|${START}(?:already|schon|bereits)${END}.{0,60}?${START}(?:not|n't|nicht|kein\\p{L}*)${END}`,
  'iu',
);
/** A statement in our voice in its own word order: in a direct question the verb comes before the subject. */
const STATED_INSIDE = new RegExp(
  `${START}${alt([
    "we (?:will|shall|have|had|are going to|can confirm|confirm)|we'll|we've|we're going to",
    "i (?:will|have|can confirm|confirm)|i'll|i've",
    // "the voucher we promised you": something we did or gave our word on, in the past.
    '(?:we|i) (?:promised|agreed|offered|confirmed|arranged|guaranteed|approved|granted|waived|refunded|credited|sent|shipped)',
    "you will (?:receive|get|be (?:refunded|credited|reimbursed|sent))|you'll (?:receive|get)",
    '(?:has|have|had) (?:now |already |just )?been \\p{L}+ed',
    '(?:was|were|is now|are now|is already|are already) (?:unlocked|refunded|shipped|sent|dispatched|cancell?ed|credited|reset|approved|waived|activated|processed|resolved|extended|replaced|booked|released|paid|transferred|arranged|granted|unblocked)',
    '(?:that|which|who) (?:we|i)',
    'wir (?:werden|haben|erstatten|schicken|senden|buchen|übernehmen|bestätigen)',
    'ich (?:werde|habe|bestätige)',
    'sie (?:erhalten|bekommen)',
  ])}${END}`,
  'iu',
);
/** After a question that is no wish, a "that" clause states: "Did you know that your account was unlocked?" */
const THAT = new RegExp(`${START}(?:that|dass)${END}`, 'iu');
/**
 * A clause that goes on with the question: "…, or a voucher?", "…, dass wir …" (after a wish), "…, ob
 * …". "…, and it has been." is a clause of its own.
 */
const CONTINUES = new RegExp(
  `^(?:(?:or|oder|sowie|whether|if|ob|falls|to|um|than|als|with|mit|for|für|of|von|on|am|by|bis|per|via|in|zu|dass)${END}|(?:and|und)${END}(?!\\s+(?:we|i|it|you|your|they|wir|ich|es|sie|ihr|ihre|das)${END}))`,
  'iu',
);

export interface SentenceParts {
  /** The clauses that state something: each is checked as a statement. */
  stated: string[];
  /** The question, null when the sentence asks nothing. */
  asked: string | null;
  /** The question without its opening words ("Would you like", "Sie fragen, ob"): what the customer's mail is compared with. */
  askedContent: string | null;
  /**
   * The question is our offer ("Would you like a refund of 480 EUR?", "Sollen wir Ihnen 30 EUR
   * auszahlen?"): what it offers binds us once the customer says yes, so an offer of something
   * that commits is a commitment (src/drafting/customer-assertion.ts). A reported question is none.
   */
  offer: boolean;
}

/** The clauses of a sentence: cut at commas, semicolons, colons and dashes, and before "and we", "und wir". */
function clauses(sentence: string): string[] {
  return sentence
    .split(/(?:(?<!\s)\s+)?[,;:]\s+|(?<!\s)\s+[–—-]\s+|(?<!\s)\s+(?=(?:and|but|so|und|aber|denn)\s+(?:we|i|wir|ich)(?![\p{L}\p{N}]))/iu)
    .map((c) => c.trim())
    .filter((c) => c !== '');
}

const stripEnd = (s: string): string => s.replace(/(?<![\s"'„“”»«)])[\s"'„“”»«)]+$/u, '');

export function questionParts(sentence: string): SentenceParts {
  const whole = stripEnd(sentence.trim());
  const parts = clauses(whole);
  const marked = whole.endsWith('?');
  // Where the question starts: the first clause opening as one (the sentence from there tested, so "Sie fragen, ob" is seen across its comma).
  let at = -1;
  let reported = false;
  for (let i = 0; i < parts.length && at < 0; i++) {
    const tail = parts.slice(i).join(', ');
    if (REPORT_OPENER.test(tail)) [at, reported] = [i, true];
    else if ((marked && QUESTION_OPENER.test(tail)) || (i === 0 && WISH_OPENER.test(tail))) at = i;
  }
  if (at < 0) return { stated: [whole], asked: null, askedContent: null, offer: false };
  const wish = WISH_OPENER.test(parts[at]!);
  const stated = parts.slice(0, at);
  const asked = [parts[at]!];
  for (const part of parts.slice(at + 1)) {
    const goesOn = CONTINUES.test(part) && (reported || wish || !THAT.test(part));
    (goesOn ? asked : stated).push(part);
  }
  let question = asked.join(', ');
  if (!reported) {
    // "Did you see that your account was unlocked?": the "that" clause is ours to answer for.
    // Not its first two words: "Is that all right?" asks.
    const skip = /^\S+\s+\S+/u.exec(question)?.[0].length ?? question.length;
    const that = wish ? null : THAT.exec(question.slice(skip));
    if (that) {
      stated.push(question.slice(skip + that.index));
      question = question.slice(0, skip + that.index).trim();
    }
    if (STATED_INSIDE.test(question) || EXPECTS_YES.test(question))
      return { stated: [...stated, question], asked: null, askedContent: null, offer: false };
  }
  const opener = (reported ? REPORT_OPENER : WISH_OPENER.test(question) ? WISH_OPENER : QUESTION_OPENER).exec(question);
  const content = opener ? question.slice(opener[0].length) : question;
  return { stated, asked: question, askedContent: content.replace(/^[\s,]+/u, '').trim(), offer: wish && !reported };
}
