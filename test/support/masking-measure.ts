/**
 * Measures masking on labelled replies: which personal tokens survive, and which ordinary words
 * (neither personal nor listed as `either`) were masked. Pure: no server, no clock.
 */
import { knownFromMails } from '../../src/retrieval/known-personal-data';
import { maskPersonalData } from '../../src/retrieval/mask-personal-data';
import type { LabelledReply, PersonalKind } from '../fixtures/masking/labelled-reply';

export interface Survivor {
  region: string;
  kind: PersonalKind;
  token: string;
}

export interface MaskingFigures {
  replies: number;
  tokens: number;
  survivors: Survivor[];
  /** Ordinary words of the replies (with a letter, not labelled) that became placeholders. */
  ordinaryMasked: string[];
  /** Words of the replies that are neither personal nor `either`. */
  ordinaryWords: number;
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** True when the token is still in the text: letters as a whole word without case, digits with any spacing. */
export function survives(text: string, token: string): boolean {
  if (new RegExp(`(?<![\\p{L}\\p{N}])${escape(token)}(?![\\p{L}\\p{N}])`, 'iu').test(text)) return true;
  const d = token.replace(/\D/g, '');
  return /^[\d\s+()./-]+$/.test(token) && d.length >= 4 && text.replace(/[\s()./-]/g, '').includes(d);
}

/** The words of a text (letters, digits and inner apostrophes or hyphens). */
export function words(text: string): string[] {
  return text.match(/[\p{L}\p{N}]+(?:[’'-][\p{L}\p{N}]+)*/gu) ?? [];
}

/** Words of `before` that are gone in `after`: a longest common subsequence of the two word lists. */
export function maskedWords(before: string, after: string): string[] {
  const a = words(before);
  const b = words(after);
  const n = a.length;
  const m = b.length;
  const table: number[][] = Array.from({ length: n + 1 }, () => new Array<number>(m + 1).fill(0));
  for (let i = n - 1; i >= 0; i--)
    for (let j = m - 1; j >= 0; j--)
      table[i]![j] = a[i] === b[j] ? table[i + 1]![j + 1]! + 1 : Math.max(table[i + 1]![j]!, table[i]![j + 1]!);
  const gone: string[] = [];
  let i = 0;
  let j = 0;
  while (i < n) {
    if (j < m && a[i] === b[j]) {
      i++;
      j++;
    } else if (j < m && table[i]![j + 1]! > table[i + 1]![j]!) j++;
    else gone.push(a[i++]!);
  }
  return gone;
}

/** A word of vocabulary: one with a letter (a lone house number or amount is not one). */
const lexical = (w: string) => /\p{L}/u.test(w);

/** Words that belong to a personal token or an `either` entry of the reply. */
function labelledWords(r: LabelledReply): Set<string> {
  const all = [...r.personal.map(([, t]) => t), ...(r.either ?? [])];
  return new Set(all.flatMap((t) => words(t)));
}

export function measureMasking(replies: LabelledReply[], withKnown: boolean): MaskingFigures {
  const survivors: Survivor[] = [];
  const ordinaryMasked: string[] = [];
  let tokens = 0;
  let ordinaryWords = 0;
  for (const r of replies) {
    const out = maskPersonalData(r.reply, withKnown ? knownFromMails([r.theirMail]) : undefined);
    for (const [kind, token] of r.personal) {
      tokens++;
      if (survives(out, token)) survivors.push({ region: r.region, kind, token });
    }
    const labelled = labelledWords(r);
    ordinaryWords += words(r.reply).filter((w) => lexical(w) && !labelled.has(w)).length;
    ordinaryMasked.push(...maskedWords(r.reply, out).filter((w) => lexical(w) && !labelled.has(w)));
  }
  return { replies: replies.length, tokens, survivors, ordinaryMasked, ordinaryWords };
}

/** One line for a report: tokens left, ordinary words masked. */
export function describe(name: string, f: MaskingFigures): string {
  const left = f.survivors.length;
  return (
    `${name}: ${left} of ${f.tokens} personal tokens left in ${f.replies} replies (${((left / f.tokens) * 100).toFixed(1)} %), ` +
    `${f.ordinaryMasked.length} of ${f.ordinaryWords} ordinary words masked; ` +
    `left: ${f.survivors.map((s) => `${s.region} ${s.kind} "${s.token}"`).join(', ') || 'none'}; ` +
    `ordinary masked: ${f.ordinaryMasked.join(', ') || 'none'}`
  );
}
