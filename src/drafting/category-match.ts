/**
 * The offline drafter's category: the one whose description is nearest in meaning to what the
 * customer wrote (the embedder's vectors), so rules and autonomy see the same names whether a
 * model wrote the draft or not. A mail that comes near none of them is `general`. Without an
 * embedder, or when it fails: UNCLASSIFIED.
 */
import { type Embedder, cosine } from '../retrieval';
import { UNCLASSIFIED, type Category } from './categories';
import { GENERAL_CATEGORY } from './drafting.contract';

/**
 * The cosine a mail must reach against one thing a category is known by to be filed there; below
 * it the mail fits none of the list and is `general`. The nearest of a list is always some
 * category, however foreign the mail: a replay of R-help (a public list of questions about the R
 * language; 366 questions answered by its six most frequent answerers, 2023–24) against the
 * shipped shop categories put 214 of them under `data-protection` (the nearest item was "Personal
 * data"), at a best cosine of median 0.16 (90th percentile 0.22); the labelled set's 55 answerable
 * shop questions reach median 0.24. 0.20 is where the two kinds of error are about equal (12 of
 * the 55 fall to `general`, half of them filed under a wrong category before; 64 of the 366 stay in a
 * shop category) and the median cosine of two questions on different topics in the labelled set
 * (docs/configuration.md#similarity-thresholds): a mail no nearer to a category than unrelated
 * questions are to each other fits none. The labelled set's fit rises from 45 to 46 of 63
 * (scripts/eval/category-eval.ts). Measured with the default embedder (USE multilingual v3);
 * another model scores on its own scale.
 *
 * A floor on the best, not a margin over the second: a close second is a mail between two shop
 * categories (a warranty question is `returns` or a `technical-problem`), not one that fits
 * neither, and the margin told the shop's questions from R-help's far worse than the best cosine
 * did (a pair of one from each ordered right 70 % of the time, against 89 %).
 */
export const CATEGORY_FIT_FLOOR = 0.2;

/** The descriptions' vectors once per process (per model and list): they never change while it runs. */
const described = new Map<string, Promise<number[][]>>();

/** The text a category is known by: its name, labels and description. */
const textOf = (c: Category): string => [c.name.replace(/-/g, ' '), ...Object.values(c.labels), c.description].join('. ');

/**
 * Each thing a category is known by on its own: the whole text, each label and each item its
 * description lists ("Invoices, payments, direct debits, …"). A mail about one of them is near
 * that one item; the average of a long list is near none in particular.
 */
const piecesOf = (c: Category): string[] => [
  textOf(c),
  ...Object.values(c.labels),
  ...c.description
    .replace(/\.$/, '')
    .split(/,|;| and | or /)
    .map((p) => p.trim())
    .filter((p) => p.length >= 3),
];

/**
 * The category of a mail: the nearest of the list by meaning, `general` when even that one stays
 * below `floor` (CATEGORY_FIT_FLOOR unless a measurement asks for another). `general` itself never
 * competes: "fits none of the others" is not a topic a mail can be near, so it is what is left
 * when nothing fits, whatever description a list gives it.
 */
export async function nearestCategory(
  embedder: Embedder | undefined,
  question: string,
  categories: readonly Category[],
  floor: number = CATEGORY_FIT_FLOOR,
): Promise<string> {
  if (!embedder || categories.length === 0 || !question.trim()) return UNCLASSIFIED;
  const topics = categories.filter((c) => c.name !== GENERAL_CATEGORY);
  if (topics.length === 0) return GENERAL_CATEGORY;
  const pieces = topics.flatMap((c, i) => piecesOf(c).map((text) => ({ text, i })));
  const key = JSON.stringify([embedder.model, pieces.map((p) => p.text)]);
  let vectors = described.get(key);
  if (!vectors) {
    vectors = embedder.embed(
      pieces.map((p) => p.text),
      'passage',
    );
    // A failed attempt (embedder down) must not stick: the next draft tries again.
    vectors.catch(() => described.delete(key));
    described.set(key, vectors);
  }
  try {
    const [refs, [q]] = await Promise.all([vectors, embedder.embed([question.slice(0, 2_000)], 'query')]);
    let best = { name: UNCLASSIFIED, score: -Infinity };
    refs.forEach((v, k) => {
      const score = cosine(q!, v);
      if (score > best.score) best = { name: topics[pieces[k]!.i]!.name, score };
    });
    return best.score < floor ? GENERAL_CATEGORY : best.name;
  } catch {
    return UNCLASSIFIED;
  }
}
