/**
 * Which retrieved passages answer the customer's question, for the offline drafter. A passage
 * retrieval matched by meaning (`match.cosine`, Universal Sentence Encoder multilingual v3 by default) counts when its
 * similarity reaches a threshold; one retrieval did not compare by vectors (an index that does
 * not rank, or a hit by words alone) counts as before, by the customer's words it shares.
 */
import type { DraftContextItem } from './drafter.port';
import { detectLanguageOr } from '../platform/language';
import { matchedTerms, overlapScore, terms } from '../retrieval';

type Language = 'de' | 'en';

/**
 * Cosine (USE multilingual v3, query vs passage) from which a passage answers. Measured with
 * `node --import tsx scripts/eval/cosine-calibration.ts` on the labelled set: the passage that
 * answers scored 0.22–0.60 (median 0.42) in the mail's language and 0.31–0.57 (median 0.45) in the
 * other; the best passage for the 8 questions nothing answers at most 0.250. 0.26 keeps all of
 * those out with a little room; `npm run eval -- --min-cosine 0.35 --draft-min-cosine X`: 0.22
 * drafts one unanswerable question (not found 88 %), 0.25 and 0.26 none (100 %), citing the expected
 * file in 87 % and 85 % of answerable drafts, 0.30 in 80 %. Demo mails: answers 0.39–0.80, the
 * best passage that does not answer at most 0.32 — there the margin below keeps it out.
 */
export const DEFAULT_MIN_ANSWER_COSINE = 0.26;
/**
 * USE scores a passage in the other language as high as its translation (answers across languages
 * median 0.45, in the same language 0.42), so no bonus: 0.02 or 0.04 cited one expected file fewer.
 * (multilingual-e5-small needed 0.04.)
 */
export const CROSS_LANGUAGE_COSINE_BONUS = 0;
/**
 * A further passage must come this close to the best one's cosine. USE spreads similarities far
 * wider than e5 (answer minus best non-answer: median 0.086); on the labelled set 0.02/0.03/0.05/0.08
 * cited the expected file in 76/82/85/85 % of drafts with 6/7/7/7 wrong files cited.
 */
const COSINE_MARGIN = 0.05;
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
