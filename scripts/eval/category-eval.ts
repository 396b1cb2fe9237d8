/**
 * How often the drafter without a model files a mail under the right category: the labelled
 * retrieval set's 63 questions (test/eval/questions.yaml), each labelled through the knowledge file
 * that answers it with the categories of the shipped list that fit (a file can fit two: a warranty
 * question is `returns` or a `technical-problem`), against `nearestCategory` with the default
 * embedder, on the question as the draft step builds it (subject and the mail's own words).
 * `general` fits a question nothing answers; how many fell to it is printed beside.
 *
 *   node --import tsx scripts/eval/category-eval.ts [--list] [--floor X]   (X: another floor than CATEGORY_FIT_FLOOR)
 *
 * Uses EMBEDDING_BASE_URL (+ EMBEDDING_MODEL) when set, else starts the default embedder.
 */
import { CATEGORY_FIT_FLOOR, nearestCategory } from '../../src/drafting/category-match';
import { readCategoryList, type Category } from '../../src/drafting/categories';
import { GENERAL_CATEGORY } from '../../src/drafting/drafting.contract';
import { questionOf } from '../../src/drafting/reply-composer';
import { createOpenAiEmbedder } from '../../src/retrieval/embedder.openai';
import type { Embedder } from '../../src/retrieval/embedder.port';
import { LOCAL_EMBEDDING_MODEL } from '../../src/config';
import { startEmbedder } from '../../test/support/services/embedder';
import { loadLabelledSet } from './labelled-set';

/** The categories that fit the questions a knowledge file answers; `none`: questions nothing answers. */
export const CATEGORIES_OF_FILE: Record<string, readonly string[]> = {
  'billing-refunds.md': ['billing'],
  'returns.md': ['returns'],
  'data-protection.md': ['data-protection'],
  'warranty.md': ['returns', 'technical-problem'],
  'vouchers.md': ['billing', GENERAL_CATEGORY],
  'api-limits.md': ['technical-problem', 'product-question'],
  'payment-methods.md': ['billing'],
  'opening-hours.md': ['product-question', GENERAL_CATEGORY],
  'team-members.md': ['account-access'],
  'lieferung.md': ['delivery'],
  'passwort-und-anmeldung.md': ['account-access'],
  'rechnungen.md': ['billing'],
  'vertrag-kuendigen.md': ['contract'],
  'versand-ins-ausland.md': ['delivery'],
  'konto-loeschen.md': ['data-protection', 'account-access'],
  'stoerungen-und-status.md': ['technical-problem'],
  'adresse-aendern.md': ['delivery', 'account-access'],
  'tarif-wechseln.md': ['contract'],
  none: [GENERAL_CATEGORY, 'product-question'],
};

export interface CategoryFigures {
  questions: number;
  right: number;
  /** Filed under `general`: near none of the others. */
  general: number;
  byLanguage: Record<string, { questions: number; right: number }>;
  misses: Array<{ id: string; got: string; fits: readonly string[] }>;
}

export async function evaluateCategories(
  embedder: Embedder,
  categories: readonly Category[] = readCategoryList(),
  floor: number = CATEGORY_FIT_FLOOR,
): Promise<CategoryFigures> {
  const out: CategoryFigures = { questions: 0, right: 0, general: 0, byLanguage: {}, misses: [] };
  for (const q of loadLabelledSet().questions) {
    const file = q.expected === null ? 'none' : q.expected.split('/').pop()!;
    const fits = CATEGORIES_OF_FILE[file];
    if (!fits) throw new Error(`question ${q.id}: no categories for knowledge file ${file}`);
    const got = await nearestCategory(embedder, questionOf(q.subject, q.body), categories, floor);
    if (got === GENERAL_CATEGORY) out.general++;
    const lang = (out.byLanguage[q.lang] ??= { questions: 0, right: 0 });
    out.questions++;
    lang.questions++;
    if (fits.includes(got)) {
      out.right++;
      lang.right++;
    } else out.misses.push({ id: q.id, got, fits });
  }
  return out;
}

async function main(): Promise<void> {
  let stop = async (): Promise<void> => undefined;
  let baseUrl = process.env.EMBEDDING_BASE_URL?.trim() ?? '';
  let model = process.env.EMBEDDING_MODEL?.trim() || LOCAL_EMBEDDING_MODEL;
  if (!baseUrl) ({ baseUrl, model, stop } = await startEmbedder());
  try {
    const embedder = createOpenAiEmbedder({ baseUrl, apiKey: 'not-needed', model, timeoutMs: 60_000 });
    const at = process.argv.indexOf('--floor');
    const floor = at > 0 ? Number(process.argv[at + 1]) : CATEGORY_FIT_FLOOR;
    if (!Number.isFinite(floor)) throw new Error('--floor takes a number, e.g. --floor 0.18');
    const f = await evaluateCategories(embedder, readCategoryList(), floor);
    const pct = (r: number, n: number) => `${r}/${n} (${((100 * r) / Math.max(1, n)).toFixed(0)} %)`;
    console.log(
      `offline category (nearest by meaning, ${model}, ${GENERAL_CATEGORY} below ${floor}): ${pct(f.right, f.questions)} right, ${f.general} ${GENERAL_CATEGORY}`,
    );
    for (const [lang, x] of Object.entries(f.byLanguage)) console.log(`  ${lang}: ${pct(x.right, x.questions)}`);
    if (process.argv.includes('--list')) for (const m of f.misses) console.log(`  miss ${m.id}: ${m.got} (fits ${m.fits.join(' | ')})`);
  } finally {
    await stop();
  }
}

if (require.main === module) void main();
