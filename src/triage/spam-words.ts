/**
 * The learnt part of the built-in spam check: how strongly a message's words speak for spam,
 * from a word list learnt on a public labelled corpus (scripts/spam-model/train-spam-words.ts says
 * which and how; docs/pipeline.md, "Spam", has the figures on mail it did not learn from).
 *
 * The method is the statistical filter of SpamBayes (Gary Robinson's word probabilities and
 * chi-square combining) rather than a plain naive Bayes classifier such as `natural`'s: it looks
 * only at the words that say something either way, at most MAX_CLUES of them, so a long message
 * is not pushed to an extreme by its length, and words it never learnt (every German word, say)
 * count for nothing instead of for ham. The result is an indicator between 0 (ham) and 1 (spam)
 * with an honest middle: a message with too few known words stays near 0.5. The npm Bayes packages
 * we looked at keep every word of the training mail and return a probability that is near 0 or 1
 * for almost every message, which cannot tell "sure" from "no idea". About forty lines.
 *
 * Pure: the word list is read once, on the first call, from data/spam-words.tsv beside this file.
 */
import { readFileSync } from 'node:fs';
import * as path from 'node:path';

export const SPAM_WORDS_FILE = path.resolve(__dirname, 'data', 'spam-words.tsv');

/** At most this many words, the strongest, decide. */
const MAX_CLUES = 150;
/** A word whose probability is this close to 0.5 says nothing. */
export const MIN_STRENGTH = 0.1;
/** Robinson's prior: a word seen n times moves from 0.5 toward what it was seen as by n/(n+S). */
export const PRIOR_STRENGTH = 0.45;
/** Longer words become one "long word" token (URLs, encoded junk, German compounds). */
const MAX_WORD = 12;

let table: Map<string, number> | undefined;

/** The learnt word list: token → probability that a message containing it is spam. */
function words(): Map<string, number> {
  if (!table) {
    table = new Map();
    for (const line of readFileSync(SPAM_WORDS_FILE, 'utf8').split('\n')) {
      if (!line || line.startsWith('#')) continue;
      const tab = line.lastIndexOf('\t');
      table.set(line.slice(0, tab), Number(line.slice(tab + 1)));
    }
  }
  return table;
}

function baseDomain(host: string): string {
  return host.toLowerCase().replace(/\.$/, '').split('.').slice(-2).join('.');
}

/**
 * The tokens of a message, each once: the subject's words (marked as such), the body's words, the
 * domains its links lead to, and the shape of long words and numbers. Headers other than the
 * subject are left out on purpose: what relays and mail programs write there differs between the
 * corpus's years and a team's mail, and would teach the filter where a message came from rather
 * than what it says.
 */
export function spamTokens(subject: string, text: string, html: string | null): Set<string> {
  const out = new Set<string>();
  const urlPattern = /https?:\/\/([^\s/:?#"'<>)]+)[^\s"'<>)]*/gi;
  for (const m of `${text} ${html ?? ''}`.matchAll(urlPattern)) out.add(`url:${baseDomain(m[1]!)}`);
  const add = (prefix: string, s: string) => {
    const clean = s
      .normalize('NFKC')
      .toLowerCase()
      .replace(urlPattern, ' ')
      .replace(/(?<![\w.+-])[\w.+-]+@[\w-]+(\.[\w-]+)+/g, ' ');
    for (const raw of clean.split(/\s+/)) {
      const word = raw.replace(/^[^\p{L}\p{N}$€£]+|(?<![^\p{L}\p{N}$€£!%])[^\p{L}\p{N}$€£!%]+$/gu, '');
      if (word.length < 3) {
        if (/^[$€£!]+$/.test(raw)) out.add(`${prefix}sym:${raw.slice(0, 3)}`);
        continue;
      }
      if (/^\d+([.,]\d+)*$/.test(word)) out.add(`${prefix}num:${word.replace(/\D/g, '').length}`);
      else if (word.length > MAX_WORD) out.add(`${prefix}long:${word[0]} ${Math.floor(word.length / 10) * 10}`);
      else out.add(prefix + word);
    }
  };
  add('s:', subject);
  add('', text);
  return out;
}

/** The chi-square survival function for an even number of degrees of freedom (SpamBayes's chi2Q). */
function chi2Q(x2: number, degrees: number): number {
  const m = x2 / 2;
  let term = Math.exp(-m);
  let sum = term;
  for (let i = 1; i < degrees / 2; i++) {
    term *= m / i;
    sum += term;
  }
  return Math.min(sum, 1);
}

export interface SpamWordsScore {
  /** 0 = reads like ham, 1 = reads like spam, 0.5 = cannot tell. */
  indicator: number;
  /** How many known words decided. */
  clues: number;
  /** The strongest spam words, for the reason a person reads. */
  top: string[];
}

/** How the words of a message speak: the chi-square combination of its strongest known words. */
export function spamWordsScore(subject: string, text: string, html: string | null): SpamWordsScore {
  const known = words();
  const clues: Array<[string, number]> = [];
  for (const token of spamTokens(subject, text, html)) {
    const f = known.get(token);
    if (f !== undefined && Math.abs(f - 0.5) >= MIN_STRENGTH) clues.push([token, f]);
  }
  clues.sort((a, b) => Math.abs(b[1] - 0.5) - Math.abs(a[1] - 0.5));
  const used = clues.slice(0, MAX_CLUES);
  if (used.length === 0) return { indicator: 0.5, clues: 0, top: [] };
  let lnHam = 0;
  let lnSpam = 0;
  for (const [, f] of used) {
    lnHam += Math.log(f);
    lnSpam += Math.log(1 - f);
  }
  const spam = 1 - chi2Q(-2 * lnSpam, 2 * used.length);
  const ham = 1 - chi2Q(-2 * lnHam, 2 * used.length);
  // Shown to a person: words, not the shape tokens (num:5, long:f 30).
  const top = used
    .filter(([, f]) => f > 0.5)
    .map(([t]) => t.replace(/^s:/, ''))
    .filter((t) => !/^(url|num|sym|long):/.test(t))
    .slice(0, 4);
  return { indicator: (1 + spam - ham) / 2, clues: used.length, top };
}
