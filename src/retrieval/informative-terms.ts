/**
 * The words of a mail worth a full-text search of the knowledge folder. MariaDB's `MATCH … IN
 * NATURAL LANGUAGE MODE` scores every passage that shares any word with the query, so with the
 * whole mail as the query its cost grew with the folder (10 ms at 1,000 passages, 0.9 s at 50,000,
 * docs/performance.md). A word most passages share adds almost nothing to the ranking (its inverse
 * document frequency is near zero) but all those passages to the work. So the query keeps the
 * mail's rarest words, by the folder's document frequency, until the passages they reach add up to
 * a budget: the work stays bounded however large the folder grows, and small folders, where every
 * word fits the budget, are searched as before.
 */

/** Passages the chosen words may reach together (by their estimated document frequency). */
export const MATCH_ROW_BUDGET = 1_000;

/** MariaDB's InnoDB full-text parser drops shorter words (`innodb_ft_min_token_size`, default 3). */
const MIN_TOKEN = 3;
/** Nor does it index longer ones (`innodb_ft_max_token_size`). */
const MAX_TOKEN = 84;
const NON_WORD = /[^\p{L}\p{N}_]+/u;

/** The distinct words of a text as the full-text index sees them (lower case, 3–84 characters). */
export function fullTextWords(text: string): Set<string> {
  const out = new Set<string>();
  for (const w of text.toLowerCase().split(NON_WORD)) if (w.length >= MIN_TOKEN && w.length <= MAX_TOKEN) out.add(w);
  return out;
}

/** How many of the folder's passages hold a word: estimated from a sample of them. */
export interface DocumentFrequencies {
  /** Passages in the folder. */
  passages: number;
  /** Passages sampled, and of them how many hold each word. */
  sampled: number;
  holding: ReadonlyMap<string, number>;
}

/**
 * The estimated number of passages holding `word`. A word the sample lacks is rare: counted as
 * half a sampled passage's share, so a sample of the whole folder counts it as under one.
 */
export function estimatedFrequency(df: DocumentFrequencies, word: string): number {
  if (df.sampled === 0) return 0;
  const n = df.holding.get(word) ?? 0.5;
  return (n / df.sampled) * df.passages;
}

/**
 * The query for MATCH: the probe's words, rarest first, while the passages they reach together
 * stay within `budget`; at least the rarest word, so a mail of common words still finds
 * something. Empty when the probe has no indexable word.
 */
export function informativeQuery(probe: string, df: DocumentFrequencies, budget = MATCH_ROW_BUDGET): string {
  const words = [...fullTextWords(probe)].map((word, order) => ({ word, order, n: estimatedFrequency(df, word) }));
  words.sort((a, b) => a.n - b.n || a.order - b.order);
  const kept: typeof words = [];
  let reach = 0;
  for (const w of words) {
    if (kept.length > 0 && reach + w.n > budget) break;
    kept.push(w);
    reach += w.n;
  }
  // In the mail's order: the query reads as the mail did, and tests read it easily.
  return kept
    .sort((a, b) => a.order - b.order)
    .map((w) => w.word)
    .join(' ');
}
