/**
 * Topics a reply is never sent about without a person, whatever a category's record says:
 * refunds and chargebacks, passwords and account access, legal matters, complaints, and anything
 * naming money. Found in the customer's mail and in the draft (German, English, French, Spanish).
 *
 * The text is hostile: every pattern is a plain alternation of words checked at one position at a
 * time, with no nested or overlapping quantifiers, so a megabyte of any input costs linear time.
 * Amounts are found from the currency outwards (a bounded window around each currency word or
 * sign), never by a "digits, then maybe a currency" pattern that could rescan long digit runs.
 * Pure: the activities and the inbox share it.
 */

export const NEVER_AUTOMATIC_TOPICS = {
  refund: 'refund',
  accountAccess: 'account_access',
  legal: 'legal',
  complaint: 'complaint',
  money: 'money',
} as const;
export type NeverAutomaticTopic = (typeof NEVER_AUTOMATIC_TOPICS)[keyof typeof NEVER_AUTOMATIC_TOPICS];
/** A topic the autonomy policy adds for its mailbox: `extra:<phrase>`. */
export const EXTRA_TOPIC_PREFIX = 'extra:';

export interface NeverAutomaticFinding {
  /** One of NEVER_AUTOMATIC_TOPICS, or `extra:<phrase>` for a policy's own phrase. */
  topic: string;
  /** The words that matched, at most 80 characters. */
  match: string;
}

// A letter or digit before or after a word means it is part of a longer word. \b is ASCII-only
// in JavaScript and would split "Rückerstattung" after the "R".
const START = '(?<![\\p{L}\\p{N}])';
const END = '(?![\\p{L}\\p{N}])';
const TAIL = '\\p{L}{0,30}';

/**
 * Word lists per topic. `word` entries stand alone (boundaries on both sides); `stem` entries
 * begin a word and may go on (German compounds and inflections: "Passwortänderung", "erstattet");
 * `inner` entries may also end a compound ("Rechtsanwalt", "Kostenerstattung").
 */
interface TopicWords {
  word?: string[];
  stem?: string[];
  inner?: string[];
}

const WORDS: Record<keyof typeof NEVER_AUTOMATIC_TOPICS, TopicWords> = {
  refund: {
    word: ['refund', 'refunds', 'refunded', 'refunding', 'money back', 'geld zurück', 'geld zurueck', 'charge back', 'dispute the charge'],
    stem: [
      'reimburs',
      'chargeback',
      'rückzahl',
      'rueckzahl',
      'rückbuch',
      'zurückbuch',
      'rücklastschrift',
      'rembours',
      'reembols',
      'devolución del dinero',
    ],
    inner: ['erstattung', 'erstatten', 'erstattet'],
  },
  accountAccess: {
    word: [
      'login',
      'log in',
      'logon',
      'sign in',
      'signin',
      'reset',
      'locked out',
      'account locked',
      'locked account',
      '2fa',
      'mfa',
      'otp',
      'two factor',
      'two-factor',
      'verification code',
      'one-time code',
      'hacked',
      'einloggen',
      'anmelden',
      'zugangsdaten',
      'gesperrt',
      'entsperren',
      'zwei-faktor',
      'mot de passe',
      'identifiant',
      'contraseña',
      'contrasena',
      'iniciar sesión',
      'cuenta bloqueada',
    ],
    stem: [
      'password',
      'passcode',
      'passwort',
      'kennwort',
      'anmeldung',
      'zugang',
      'kontosperr',
      'bestätigungscode',
      'gehackt',
      'authenticat',
      'authentifiz',
    ],
    inner: ['passwort', 'kennwort'],
  },
  legal: {
    word: [
      'lawyer',
      'lawyers',
      'attorney',
      'solicitor',
      'court',
      'sue',
      'suing',
      'lawsuit',
      'legal action',
      'legal steps',
      'small claims',
      'gdpr',
      'dsgvo',
      'rgpd',
      'right to erasure',
      'subject access request',
      'data protection authority',
      'art. 15',
      'article 15',
      'gericht',
      'klage',
      'klagen',
      'verklagen',
      'rechtliche schritte',
      'verbraucherzentrale',
      'abmahnung',
      'widerruf',
      'fristlos',
      'avocat',
      'tribunal',
      'abogado',
      'demanda',
      'mise en demeure',
    ],
    stem: [
      'anwält',
      'anwalt',
      'gerichtlich',
      'datenauskunft',
      'auskunftsersuchen',
      'sonderkündigung',
      'sonderkuendigung',
      'mahnverfahren',
      'litig',
    ],
    inner: ['anwalt', 'anwält'],
  },
  complaint: {
    word: [
      'complaint',
      'complaints',
      'complain',
      'unacceptable',
      'outrageous',
      'disgraceful',
      // Asking for someone higher up, not any manager named in passing ("our product manager").
      'your manager',
      'a manager',
      'the manager',
      'your supervisor',
      'a supervisor',
      'ihren vorgesetzten',
      'einen vorgesetzten',
      'ihren chef',
      'ombudsman',
      'inakzeptabel',
      'unverschämt',
      'unverschaemt',
      'unverschämtheit',
      'frechheit',
      'zumutung',
      'reklamation',
      'plainte',
      'réclamation',
      'inadmissible',
      'queja',
      'reclamación',
      'inaceptable',
    ],
    stem: ['beschwer', 'escalat', 'eskalier', 'eskalation'],
  },
  // Money by words; amounts with a currency are found by findAmounts below.
  money: {
    word: ['bank details', 'iban', 'bic', 'bankverbindung', 'kontonummer', 'credit card', 'kreditkarte'],
  },
};

const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** Spaces in a phrase match any whitespace run (a line break between the words too). */
const phrase = (s: string): string => escape(s.trim().toLowerCase()).replace(/\s+/g, '\\s+');

function topicPattern(w: TopicWords): RegExp {
  const parts = [
    ...(w.word ?? []).map((x) => `${START}${phrase(x)}${END}`),
    ...(w.stem ?? []).map((x) => `${START}${phrase(x)}${TAIL}`),
    ...(w.inner ?? []).map((x) => `${phrase(x)}${TAIL}`),
  ];
  return new RegExp(parts.join('|'), 'giu');
}

const PATTERNS: Array<[NeverAutomaticTopic, RegExp]> = (Object.keys(WORDS) as Array<keyof typeof WORDS>).map((k) => [
  NEVER_AUTOMATIC_TOPICS[k],
  topicPattern(WORDS[k]),
]);

/** Currency signs, and codes or names that stand as their own word. */
const CURRENCY = new RegExp(`[€$£¥₣₤]|${START}(?:eur|euro|euros|usd|gbp|chf|dollar|dollars|pfund|franken|cent|cents|ct)${END}`, 'giu');
/** How far from a currency an amount may stand ("EUR 1.234,50", "12,50 €", "40 Euro"). */
const AMOUNT_WINDOW = 16;
const AMOUNT_BEFORE = /\d[\d.,'\s]{0,14}$/u;
const AMOUNT_AFTER = /^\s{0,3}\d/u;

function findAmounts(text: string): NeverAutomaticFinding | null {
  CURRENCY.lastIndex = 0;
  for (let m = CURRENCY.exec(text); m !== null; m = CURRENCY.exec(text)) {
    const before = text.slice(Math.max(0, m.index - AMOUNT_WINDOW), m.index);
    const end = m.index + m[0].length;
    const after = text.slice(end, end + AMOUNT_WINDOW);
    const lead = AMOUNT_BEFORE.exec(before)?.[0] ?? '';
    const trail = AMOUNT_AFTER.test(after) ? (/^\s{0,3}[\d.,]+/u.exec(after)?.[0] ?? '') : '';
    if (lead || trail) return { topic: NEVER_AUTOMATIC_TOPICS.money, match: `${lead}${m[0]}${trail}`.trim().slice(0, 80) };
  }
  return null;
}

/**
 * Invisible characters that split a word for the eye of a pattern but not for a reader
 * ("Pass\u200Bwort"), and compatibility forms (full-width letters) folded to plain ones.
 */
export function normaliseForTopics(text: string): string {
  return text.normalize('NFKC').replace(/[\u00AD\u180E\u200B-\u200F\u202A-\u202E\u2060-\u2064\uFEFF]/g, '');
}

/**
 * Copies of the patterns the topics and currencies are found with. They are built from the word
 * lists above, where the super-linear lint on regex literals cannot see them; the unit tests put
 * them through the same analysis.
 */
export function topicPatterns(): RegExp[] {
  return [...PATTERNS.map(([, re]) => re), CURRENCY].map((re) => new RegExp(re.source, re.flags));
}

/** A policy's own never-automatic phrase as a pattern (whole words, case-insensitive). */
export function extraTopicPattern(phraseText: string): RegExp {
  return new RegExp(`${START}${phrase(normaliseForTopics(phraseText))}${END}`, 'iu');
}

/**
 * Every never-automatic topic in `text` (one finding per topic, the first match), plus the
 * policy's own phrases as `extra:<phrase>`.
 */
export function findNeverAutomatic(text: string, extraPhrases: readonly string[] = []): NeverAutomaticFinding[] {
  const t = normaliseForTopics(text);
  const found: NeverAutomaticFinding[] = [];
  for (const [topic, pattern] of PATTERNS) {
    pattern.lastIndex = 0;
    const m = pattern.exec(t);
    if (m) found.push({ topic, match: m[0].slice(0, 80) });
  }
  if (!found.some((f) => f.topic === NEVER_AUTOMATIC_TOPICS.money)) {
    const amount = findAmounts(t);
    if (amount) found.push(amount);
  }
  for (const extra of extraPhrases) {
    const m = extraTopicPattern(extra).exec(t);
    if (m) found.push({ topic: `${EXTRA_TOPIC_PREFIX}${extra}`, match: m[0].slice(0, 80) });
  }
  return found;
}

/** The topics alone, each once. */
export function neverAutomaticTopics(text: string, extraPhrases: readonly string[] = []): string[] {
  return [...new Set(findNeverAutomatic(text, extraPhrases).map((f) => f.topic))];
}
