/**
 * Which retrieved passages answer the customer's question, for the offline drafter. A passage
 * retrieval matched by meaning (`match.cosine`, multilingual-e5-small by default) counts when its
 * similarity reaches a threshold; one retrieval did not compare by vectors (an index that does
 * not rank, or a hit by words alone) counts as before, by the customer's words it shares.
 */
import type { DraftContextItem } from '../ports/drafter';
import { detectLanguageOr } from './language';
import { matchedTerms, overlapScore, terms } from './term-overlap';

type Language = 'de' | 'en';

/**
 * Cosine (e5 query vs passage) from which a passage answers. Measured on the demo's knowledge
 * folder: the passage that answers scored 0.83–0.93 (0.81–0.89 when in the other language),
 * the best passage for questions it cannot answer at most 0.80 (0.76 in the other language),
 * and other topics in the mail's language up to 0.85 — those the margin below keeps out.
 */
export const DEFAULT_MIN_ANSWER_COSINE = 0.82;
/** e5 scores a passage in the other language about this much lower than its translation would score. */
export const CROSS_LANGUAGE_COSINE_BONUS = 0.04;
/** A further passage must come this close to the best one's cosine: the next topic down is 0.05–0.07 behind. */
const COSINE_MARGIN = 0.03;
/**
 * A passage in the reply's language this close to one in the other language is preferred: most
 * likely the same FAQ in translation, and the customer reads it without a note. Kept small, so a
 * passage in the other language that answers better is not traded for an unrelated one.
 */
const SAME_LANGUAGE_TIE = 0.01;
/** Without vectors a passage must share at least this many of the customer's content words. */
const MIN_MATCHED_TERMS = 2;
/** … and score this share of the best passage's word overlap. */
const WORD_SCORE_SHARE = 0.6;

export interface Judged {
  item: DraftContextItem;
  language: Language;
  /** `cosine`: retrieval's vector similarity decided; `words`: the shared words did. */
  by: 'cosine' | 'words';
  /** By cosine: the similarity, plus the bonus for another language; by words: the weighted overlap. */
  strength: number;
  /** Query terms the passage shares (for the confidence of word matches). */
  matched: number;
}

export interface JudgeSettings {
  /** The customer's content words and their inverse frequencies over the candidates. */
  query: ReadonlySet<string>;
  idf: ReadonlyMap<string, number>;
  /** The reply's language: a passage in the other one is marked and weighed as such. */
  language: Language;
  minCosine: number;
  /** How much an item of this kind counts (knowledge over masked replies). */
  weight: (item: DraftContextItem) => number;
}

function judge(item: DraftContextItem, s: JudgeSettings): Judged | null {
  const language = detectLanguageOr(item.text, s.language);
  const cosine = item.match?.cosine;
  if (cosine !== undefined) {
    const strength = cosine + (language === s.language ? 0 : CROSS_LANGUAGE_COSINE_BONUS);
    return strength >= s.minCosine ? { item, language, by: 'cosine', strength, matched: 0 } : null;
  }
  const doc = terms(`${item.title ?? ''}\n${item.text}`);
  const matched = matchedTerms(s.query, doc).length;
  if (matched < MIN_MATCHED_TERMS) return null;
  // A passage in the other language still helps, but one in the mail's language reads better.
  const strength = overlapScore(s.query, doc, s.idf) * s.weight(item) * (language === s.language ? 1 : 0.5);
  return { item, language, by: 'words', strength, matched };
}

/**
 * The items that answer, best first. Those retrieval compared by vectors come first, by their
 * similarity (the passage closest in meaning leads, knowledge before masked replies); then those it ranked by words alone, in its
 * fused order; then those of an index that does not rank, by shared words. A passage far behind
 * the best of its kind of match is left out, and so is one in the other language when one in the
 * reply's language is about as close (see SAME_LANGUAGE_TIE).
 */
export function answeringItems(items: readonly DraftContextItem[], s: JudgeSettings): Judged[] {
  const judged = items.map((item) => judge(item, s)).filter((j): j is Judged => j !== null);
  const byCosine = judged.filter((j) => j.by === 'cosine');
  const byWords = judged.filter((j) => j.by === 'words');
  const bestCosine = Math.max(0, ...byCosine.map((j) => j.strength));
  const bestWords = Math.max(0, ...byWords.map((j) => j.strength));
  const closest = byCosine
    .filter((j) => j.strength >= bestCosine - COSINE_MARGIN)
    .filter(
      (j) => j.language === s.language || !byCosine.some((o) => o.language === s.language && o.strength >= j.strength - SAME_LANGUAGE_TIE),
    )
    // Knowledge before a masked reply that is about as close: knowledge is written to be quoted.
    .sort((a, b) => s.weight(b.item) - s.weight(a.item) || b.strength - a.strength);
  const fused = (j: Judged): number => (j.item.match ? j.item.match.fused * s.weight(j.item) : -1);
  const wordy = byWords
    .filter((j) => j.strength >= WORD_SCORE_SHARE * bestWords)
    .sort((a, b) => fused(b) - fused(a) || b.strength - a.strength);
  return [...closest, ...wordy];
}
