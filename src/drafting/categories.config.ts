/**
 * The categories section of the configuration (src/config.ts assembles the sections):
 * CATEGORIES_FILE, the installation's category list (src/drafting/categories.ts); unset: the list
 * shipped with the product.
 */
import { envValues, type Env } from '../platform/env-values';
import { errorMessage } from '../platform/errors';
import { readCategoryList, unknownCategories, type Category } from './categories';

export interface CategoriesConfig {
  /** What a draft is filed under; routing rules and the autonomy policy name only these. */
  categories: Category[];
}

export function readCategoriesConfig(env: Env, problems: string[]): CategoriesConfig {
  const file = envValues(env, problems).optional('CATEGORIES_FILE');
  try {
    return { categories: readCategoryList(file) };
  } catch (err) {
    problems.push(`CATEGORIES_FILE: ${errorMessage(err)}`);
    return { categories: [] };
  }
}

/** Problems for every category a routing rule or the autonomy policy names that the list lacks. */
export function categoryReferenceProblems(
  categories: readonly Category[],
  refs: { routing?: Array<{ name: string; category?: string[] }>; autonomy?: Array<{ mailboxId: string; categories: string[] }> },
): string[] {
  if (categories.length === 0) return [];
  return unknownCategories(categories, [
    ...(refs.routing ?? []).map((r) => ({ where: `ROUTING_FILE rule "${r.name}"`, names: r.category ?? [] })),
    ...(refs.autonomy ?? []).map((m) => ({ where: `AUTONOMY_FILE mailbox "${m.mailboxId}"`, names: m.categories })),
  ]);
}

// This feature's section of the whole configuration (src/platform/config.ts).
declare module '../platform/config' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- merged into the whole configuration
  interface Config extends CategoriesConfig {}
}
