/**
 * Ranks a bounded set of candidate passages (a correspondent's recent mail, our recent replies)
 * against a new email, in process: BM25 over content words, with the inverse document frequency
 * taken from the candidates themselves. Replaces MariaDB's natural-language MATCH, which could
 * only be asked over the whole index. Words match as in the offline drafter (`termsMatch`:
 * same word, shared stem, part of a German compound), which MATCH never did.
 */
import { terms, termsMatch } from './term-overlap';

/** BM25's usual constants: term-frequency saturation and length normalisation. */
const K1 = 1.2;
const B = 0.75;

export interface Ranked<T> {
  item: T;
  score: number;
}

/**
 * The candidates that share at least one content word with `probe`, best first; equal scores
 * keep the candidates' order (callers pass them newest first). Cost: the candidates' words
 * against the probe's, once per distinct word, so a few hundred passages take milliseconds.
 */
export function rankPassages<T>(
  probe: string,
  candidates: readonly T[],
  text: (item: T) => string,
  /** The candidate's content words when the caller keeps them (terms() of its text). */
  wordsOf?: (item: T) => ReadonlySet<string>,
): Array<Ranked<T>> {
  const query = [...terms(probe)];
  if (query.length === 0 || candidates.length === 0) return [];
  const docs = candidates.map((c) => (wordsOf ? wordsOf(c) : terms(text(c))));

  // Which query terms each distinct candidate word matches, computed once per word.
  const matchesOf = new Map<string, number[]>();
  for (const doc of docs) {
    for (const word of doc) {
      if (matchesOf.has(word)) continue;
      const hits: number[] = [];
      query.forEach((q, qi) => {
        if (termsMatch(q, word)) hits.push(qi);
      });
      matchesOf.set(word, hits);
    }
  }
  const matched = docs.map((doc) => {
    const found = new Set<number>();
    for (const word of doc) for (const qi of matchesOf.get(word) ?? []) found.add(qi);
    return found;
  });

  const n = docs.length;
  const df = query.map((_, qi) => matched.filter((m) => m.has(qi)).length);
  const idf = df.map((f) => Math.log(1 + (n - f + 0.5) / (f + 0.5)));
  const avgLength = docs.reduce((sum, d) => sum + d.size, 0) / n || 1;

  const ranked: Array<Ranked<T> & { order: number }> = [];
  matched.forEach((found, i) => {
    if (found.size === 0) return;
    // Distinct terms only (tf = 1): passages are short, and repetition in mail is mostly signature.
    const norm = (K1 + 1) / (1 + K1 * (1 - B + (B * docs[i]!.size) / avgLength));
    let score = 0;
    for (const qi of found) score += idf[qi]! * norm;
    ranked.push({ item: candidates[i]!, score, order: i });
  });
  ranked.sort((a, b) => b.score - a.score || a.order - b.order);
  return ranked.map(({ item, score }) => ({ item, score }));
}
