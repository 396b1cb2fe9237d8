/**
 * What one replayed pair measures: how close the draft came to the reply the team sent. The sent
 * reply stands in for the text a reviewer would have approved, so draft-quality's own measure
 * (word edit share, src/drafting/draft-outcome.ts) and thresholds give the would-be outcome.
 */
import { changedShare, LIGHT_EDIT_LIMIT, wordEditDistance } from '../drafting';
import { cosine, type Embedder } from '../retrieval';
import { REPLAY_OUTCOME, type ReplayOutcome } from './replay.contract';

/** The line that introduces a quote ("On … wrote:", "… writes:", "Am … schrieb …:"); it may end a wrapped line. */
const ATTRIBUTION = /(?:\bwrote|\bwrites|\bschrieb(?:\s.{0,200})?)\s*:\s*$/i;
/** Where an unquoted original starts (Outlook and the like): a separator line, or a From/Von line with the header lines after it. */
const ORIGINAL_SEPARATOR = /^\s*-{3,}\s*(?:Original Message|Ursprüngliche Nachricht)\s*-{3,}\s*$/i;
const ORIGINAL_FROM = /^\s*(?:From|Von):\s.+$/i;
const ORIGINAL_HEADER = /^\s*(?:Sent|Date|To|Gesendet|Datum|An):\s/i;

/**
 * The words the team wrote: quoted lines (`>`) and the lines that introduce them left out, and
 * an unquoted original below the reply (Outlook's header block) cut off. A reply written between
 * the quotes (a mailing list's habit) keeps every answer.
 */
export function ownWords(body: string): string {
  const lines = body.split(/\r?\n/);
  const out: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (ORIGINAL_SEPARATOR.test(line)) break;
    if (ORIGINAL_FROM.test(line) && lines.slice(i + 1, i + 4).some((l) => ORIGINAL_HEADER.test(l))) break;
    if (ATTRIBUTION.test(line)) {
      // "On Tue, …, Markus\nHuerzeler wrote:": the attribution's first half went out already.
      if (!/^\s*(?:On|Am)\s/.test(line) && /^\s*(?:On|Am)\s/.test(out.at(-1) ?? '')) out.pop();
      continue;
    }
    if (line.trimStart().startsWith('>')) continue;
    out.push(line);
  }
  return out
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

export type FactKind = 'link' | 'email' | 'date' | 'amount' | 'number';

/**
 * Each kind's pattern, taken in this order, and what a match is compared as. A match is blanked
 * before the next kind looks, so a date is not also counted as a number.
 */
const FACT_PATTERNS: ReadonlyArray<{ kind: FactKind; re: RegExp; norm(s: string): string }> = [
  {
    kind: 'link',
    re: /https?:\/\/[^\s<>"')\]]+/gi,
    norm: (s) =>
      s
        .replace(/(?<![.,;:!?])[.,;:!?]+$/, '')
        .replace(/\/$/, '')
        .toLowerCase(),
  },
  { kind: 'email', re: /(?<![\w.+-])[\w.+-]+@[\w-]+(?:\.[\w-]+)+/g, norm: (s) => s.toLowerCase() },
  {
    kind: 'date',
    re: /\b\d{4}-\d{2}-\d{2}\b|\b\d{1,2}\.\s?\d{1,2}\.(?:\s?\d{2,4}\b)?|\b\d{1,2}\/\d{1,2}\/\d{2,4}\b/g,
    norm: (s) => s.replace(/\s+/g, '').replace(/^0(\d)/, '$1'),
  },
  {
    kind: 'amount',
    // eslint-disable-next-line regexp/no-super-linear-move -- read in an operator's replay of the team's own sent replies and our drafts, not in the worker
    re: /(?:€|EUR|USD|CHF|£|\$)\s?\d[\d.,']*\d|\d[\d.,']*(?:\s?(?:€|EUR|USD|CHF|£|Euro|euros?))/gi,
    norm: (s) => {
      const digits = s.replace(/[^\d.,]/g, '').replace(/[.,](\d{2})$/, '#$1');
      return digits.replace(/[.,']/g, '').replace('#', '.');
    },
  },
  { kind: 'number', re: /#?\b[A-Za-z]{0,6}-?\d{4,}(?:[-/]\d+)*\b/g, norm: (s) => s.replace(/^#/, '').toUpperCase() },
];

/** The facts of a text: links, e-mail addresses, dates, amounts, order and ticket numbers, each once. */
export function factsOf(text: string): Array<{ kind: FactKind; value: string }> {
  let rest = text;
  const seen = new Set<string>();
  const out: Array<{ kind: FactKind; value: string }> = [];
  for (const p of FACT_PATTERNS) {
    rest = rest.replace(p.re, (m) => {
      const value = p.norm(m);
      if (value && !seen.has(`${p.kind}:${value}`)) {
        seen.add(`${p.kind}:${value}`);
        out.push({ kind: p.kind, value });
      }
      return ' '.repeat(m.length);
    });
  }
  return out;
}

/** How many of the sent reply's facts the draft has too. */
export function factsFound(sent: string, draft: string): { total: number; found: number } {
  const wanted = factsOf(sent);
  const have = new Set(factsOf(draft).map((f) => `${f.kind}:${f.value}`));
  const loose = draft.toLowerCase();
  const found = wanted.filter((f) => have.has(`${f.kind}:${f.value}`) || loose.includes(f.value.toLowerCase())).length;
  return { total: wanted.length, found };
}

export interface PairMeasures {
  outcome: ReplayOutcome;
  /** Cosine of the draft's and the sent reply's embeddings; null without an embedder. */
  similarity: number | null;
  /**
   * Cosine of the mailbox's polite non-answer (src/drafting/reply-composer.ts, nonAnswerReply) and
   * the sent reply: what greeting and closing alone reach on this pair, the floor to read
   * `similarity` against. Null whenever `similarity` is, so both cover the same pairs.
   */
  nonAnswerSimilarity: number | null;
  editShare: number;
  factsTotal: number;
  factsFound: number;
}

/**
 * Measures a draft against the reply sent. `answerable` false (the drafter found no relevant
 * context, or gave up): not answerable, whatever the words. `nonAnswer`: the text whose similarity
 * to the sent reply is the pair's floor (none: no floor).
 */
export async function measurePair(
  input: { draft: string; sent: string; answerable: boolean; nonAnswer?: string },
  embedder: Embedder | undefined,
): Promise<PairMeasures> {
  const sent = ownWords(input.sent);
  const draft = input.draft.trim();
  const distance = wordEditDistance(draft, sent);
  const editShare = changedShare(distance, draft, sent);
  const outcome: ReplayOutcome = !input.answerable
    ? REPLAY_OUTCOME.notAnswerable
    : distance === 0
      ? REPLAY_OUTCOME.unchanged
      : editShare < LIGHT_EDIT_LIMIT
        ? REPLAY_OUTCOME.light
        : REPLAY_OUTCOME.heavy;
  let similarity: number | null = null;
  let nonAnswerSimilarity: number | null = null;
  if (embedder && draft && sent) {
    // One request: the floor costs a third text, not a second call.
    const [a, b, n] = await embedder.embed([draft, sent, ...(input.nonAnswer ? [input.nonAnswer] : [])], 'passage');
    const round = (x: number) => Math.round(x * 10_000) / 10_000;
    similarity = a && b ? round(cosine(a, b)) : null;
    nonAnswerSimilarity = similarity !== null && n ? round(cosine(n, b!)) : null;
  }
  const facts = factsFound(sent, draft);
  return {
    outcome,
    similarity,
    nonAnswerSimilarity,
    editShare: Math.round(editShare * 10_000) / 10_000,
    factsTotal: facts.total,
    factsFound: facts.found,
  };
}
