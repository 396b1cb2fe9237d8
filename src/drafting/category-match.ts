/**
 * The offline drafter's category: the one whose description is nearest in meaning to what the
 * customer wrote (the embedder's vectors), so rules and autonomy see the same names whether a
 * model wrote the draft or not. Without an embedder, or when it fails: UNCLASSIFIED.
 */
import { type Embedder, cosine } from '../retrieval';
import { UNCLASSIFIED, type Category } from './categories';

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

export async function nearestCategory(embedder: Embedder | undefined, question: string, categories: readonly Category[]): Promise<string> {
  if (!embedder || categories.length === 0 || !question.trim()) return UNCLASSIFIED;
  const pieces = categories.flatMap((c, i) => piecesOf(c).map((text) => ({ text, i })));
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
      if (score > best.score) best = { name: categories[pieces[k]!.i]!.name, score };
    });
    return best.name;
  } catch {
    return UNCLASSIFIED;
  }
}
