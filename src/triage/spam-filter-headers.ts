/**
 * What a spam filter in front of the mailbox said about a message, read from the headers it adds:
 * SpamAssassin (`X-Spam-Flag`, `X-Spam-Status`, `X-Spam-Score`, `X-Spam-Level`) and rspamd
 * (`X-Spam`, `X-Rspamd-Score`, `X-Spamd-Result`, `X-Rspamd-Action`, `X-Spam-Action`). Pure.
 *
 * Any sender can write these headers into a message. Only the receiving MTA can make them
 * trustworthy (it removes what arrived and writes its own verdict), so a verdict of "not spam"
 * counts only when the operator declares the filter trusted; a verdict of "spam" always counts,
 * since a sender who marks their own mail as spam gains nothing.
 */

export interface SpamFilterSettings {
  /** Score at or above which a message is spam (TRIAGE_SPAM_SCORE), whatever the filter's own line. */
  threshold: number;
  /** The MTA strips and sets these headers (TRIAGE_SPAM_FILTER_TRUSTED): a "not spam" verdict is believed. */
  trusted: boolean;
}

export const DEFAULT_SPAM_FILTER: SpamFilterSettings = Object.freeze({ threshold: 5, trusted: false });

export interface SpamFilterVerdict {
  spam: boolean;
  /** The header line that decided, shortened. */
  reason: string;
}

type Headers = Record<string, string[]>;

function first(headers: Headers, name: string): string | undefined {
  return headers[name]?.[0]?.trim();
}

const NUMBER = '([+-]?\\d+(?:[.,]\\d+)?)';

function num(text: string | undefined): number | null {
  if (text === undefined) return null;
  const n = Number(text.replace(',', '.'));
  return Number.isFinite(n) ? n : null;
}

/** `X-Spam-Status: No, score=7.2 required=5.0 tests=...` (SpamAssassin; `hits=` in old versions). */
function spamStatusScore(v: string): number | null {
  return num(new RegExp(`\\b(?:score|hits)\\s*=\\s*${NUMBER}`, 'i').exec(v)?.[1]);
}

/** `X-Spamd-Result: default: True [12.30 / 15.00]; ...` (rspamd): the score in brackets. */
function spamdResultScore(v: string): number | null {
  return num(new RegExp(`\\[\\s*${NUMBER}\\s*/`).exec(v)?.[1]);
}

/**
 * The score the filters wrote, from the most exact header there is. X-Spam-Score alone is
 * ambiguous: Exim and cPanel write it in tenths (`X-Spam-Score: 8` beside `X-Spam-Status: No,
 * score=0.8`), so it only counts when no header with a decimal score is there.
 */
export function spamScore(headers: Headers): { header: string; score: number } | null {
  const candidates: Array<[string, () => number | null]> = [
    ['X-Spam-Status', () => spamStatusScore(first(headers, 'x-spam-status') ?? '')],
    ['X-Spamd-Result', () => spamdResultScore(first(headers, 'x-spamd-result') ?? '')],
    ['X-Rspamd-Score', () => num(new RegExp(`^${NUMBER}`).exec(first(headers, 'x-rspamd-score') ?? '')?.[1])],
    ['X-Spam-Score', () => num(new RegExp(`^${NUMBER}`).exec(first(headers, 'x-spam-score') ?? '')?.[1])],
    // SpamAssassin's stars and Exim's plus signs: one per whole point.
    ['X-Spam-Level', () => stars(first(headers, 'x-spam-level'), /^\*+$/)],
    ['X-Spam-Bar', () => stars(first(headers, 'x-spam-bar'), /^\++$/)],
  ];
  for (const [header, read] of candidates) {
    const score = read();
    if (score !== null) return { header, score };
  }
  return null;
}

function stars(v: string | undefined, shape: RegExp): number | null {
  return v !== undefined && shape.test(v) ? v.length : null;
}

// rspamd's actions: `reject`, `soft reject`, `rewrite subject`, `add header`, `greylist`, `no action`.
const SPAM_ACTION = /^(reject|rewrite[ _]subject|add[ _]header)\b/i;
const HAM_ACTION = /^no[ _]action\b/i;

/** A yes/no word of the filter: X-Spam-Flag, X-Spam-Status, X-Spam, X-Spamd-Result's True/False. */
function flags(headers: Headers): Array<{ header: string; spam: boolean; value: string }> {
  const out: Array<{ header: string; spam: boolean; value: string }> = [];
  for (const [name, header] of [
    ['x-spam-flag', 'X-Spam-Flag'],
    ['x-spam-status', 'X-Spam-Status'],
    ['x-spam', 'X-Spam'],
  ] as const) {
    const v = first(headers, name);
    if (v && /^(yes|true)\b/i.test(v)) out.push({ header, spam: true, value: v });
    else if (v && /^(no|false)\b/i.test(v)) out.push({ header, spam: false, value: v });
  }
  const result = first(headers, 'x-spamd-result');
  const word = result ? /^\s*\w+\s*:\s*(true|false)\b/i.exec(result)?.[1] : undefined;
  if (word && result) out.push({ header: 'X-Spamd-Result', spam: /^true$/i.test(word), value: result });
  for (const [name, header] of [
    ['x-rspamd-action', 'X-Rspamd-Action'],
    ['x-spam-action', 'X-Spam-Action'],
  ] as const) {
    const v = first(headers, name);
    if (v && SPAM_ACTION.test(v)) out.push({ header, spam: true, value: v });
    else if (v && HAM_ACTION.test(v)) out.push({ header, spam: false, value: v });
  }
  return out;
}

/**
 * The filter's verdict, or null when no filter header is there (or only ones saying "not spam"
 * from a filter the operator has not declared trusted: the built-in check then decides).
 * Spam wins: any flag saying spam, or any score at or above the threshold.
 */
export function spamFilterVerdict(headers: Headers, settings: SpamFilterSettings = DEFAULT_SPAM_FILTER): SpamFilterVerdict | null {
  const said = flags(headers);
  const score = spamScore(headers);
  const yes = said.find((f) => f.spam);
  if (yes) return { spam: true, reason: `${yes.header}: ${yes.value.slice(0, 60)}` };
  if (score && score.score >= settings.threshold)
    return { spam: true, reason: `${score.header} score ${score.score} ≥ ${settings.threshold} (TRIAGE_SPAM_SCORE)` };
  if (!settings.trusted) return null;
  const no = said[0];
  if (no) return { spam: false, reason: `${no.header}: ${no.value.slice(0, 60)}` };
  return score ? { spam: false, reason: `${score.header} score ${score.score} < ${settings.threshold}` } : null;
}

/** TRIAGE_SPAM_SCORE: the score from which a filter's verdict is spam; any number from -100 to 1000. */
export const SPAM_SCORE_RANGE = { min: -100, max: 1000 } as const;
