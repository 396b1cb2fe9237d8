/**
 * The installation's category list: what a draft is filed under. Routing rules and the autonomy
 * policy match exact category names, so the names come from one list — the model must pick one
 * (a JSON-schema enum), the offline drafter takes the nearest by meaning, and a rule or policy
 * naming a category the list lacks is refused when the configuration is read. Every list ends in
 * `general` (GENERAL_CATEGORY) unless it names it itself: a mail that fits none of the others goes
 * there rather than to the least bad of them.
 */
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { errorMessage } from '../platform/errors';
import { GENERAL_CATEGORY } from './drafting.contract';

export interface Category {
  /** Lower-case letters, digits and `-`: what drafts.category, rules and policies hold. */
  name: string;
  /** What belongs here, in one sentence the model and the embedder read. */
  description: string;
  /** How people call it, per language (the inbox shows these). */
  labels: Partial<Record<'de' | 'en', string>>;
}

/**
 * A draft whose category could not be worked out (no embedder, no list, a model's answer off the
 * list), or one written before a list existed: never named in the list itself. A mail compared
 * with the list that fits none of it is `general` (GENERAL_CATEGORY), not this.
 */
export const UNCLASSIFIED = 'unclassified';

/**
 * `general` as a list gets it when it does not name it: its description is what the model reads
 * beside the others' (the embedder never matches it: src/drafting/category-match.ts).
 */
const GENERAL_ENTRY: Category = {
  name: GENERAL_CATEGORY,
  description: 'Fits none of the others.',
  labels: { de: 'Allgemein', en: 'General' },
};

/** The list with `general` last, unless it names it already (then its own entry is kept, once). */
export function withGeneral<T extends Pick<Category, 'name' | 'description'>>(list: readonly T[]): Array<T | Category> {
  return list.some((c) => c.name === GENERAL_CATEGORY) ? [...list] : [...list, GENERAL_ENTRY];
}

/** The list shipped with the product (built output: copied beside this file by scripts/build.ts). */
export const SHIPPED_CATEGORIES_FILE = path.resolve(__dirname, 'data', 'categories.yaml');

const NAME = /^[a-z0-9][a-z0-9_-]{0,62}$/;
const FIELDS = new Set(['name', 'description', 'labels']);

/** Parses a category file; throws an Error naming `source` and every problem found. */
export function parseCategoryList(text: string, source: string): Category[] {
  let doc: unknown;
  try {
    doc = parseYaml(text);
  } catch (err) {
    throw new Error(`${source}: not valid YAML: ${errorMessage(err)}`);
  }
  const raw = (doc as { categories?: unknown } | null)?.categories;
  if (!Array.isArray(raw) || raw.length === 0) throw new Error(`${source}: expected \`categories:\` with at least one entry`);
  const problems: string[] = [];
  const list: Category[] = [];
  for (const [i, entry] of raw.entries()) {
    const e = (entry ?? {}) as { name?: unknown; description?: unknown; labels?: unknown };
    for (const key of Object.keys(e)) if (!FIELDS.has(key)) problems.push(`categories[${i}]: unknown field "${key}"`);
    const name = typeof e.name === 'string' ? e.name.trim() : '';
    if (!NAME.test(name))
      problems.push(`categories[${i}]: name must be lower-case letters, digits, '-' and '_', got ${JSON.stringify(e.name)}`);
    else if (name === UNCLASSIFIED) problems.push(`categories[${i}]: "${UNCLASSIFIED}" is kept for drafts no category fits`);
    else if (list.some((c) => c.name === name)) problems.push(`categories[${i}]: "${name}" is listed twice`);
    const description = typeof e.description === 'string' ? e.description.trim() : '';
    if (!description) problems.push(`categories[${i}]: a description is required (the model and the embedder read it)`);
    const labels: Category['labels'] = {};
    if (e.labels !== undefined) {
      if (typeof e.labels !== 'object' || e.labels === null)
        problems.push(`categories[${i}].labels must be a mapping of language to label`);
      else
        for (const [lang, label] of Object.entries(e.labels as Record<string, unknown>)) {
          if ((lang === 'de' || lang === 'en') && typeof label === 'string' && label.trim()) labels[lang] = label.trim();
          else problems.push(`categories[${i}].labels.${lang}: a label in de or en`);
        }
    }
    list.push({ name, description, labels });
  }
  if (problems.length > 0) throw new Error(`${source}: ${problems.join('; ')}`);
  return withGeneral(list);
}

/** The operator's list (CATEGORIES_FILE) when given, else the shipped one. */
export function readCategoryList(file?: string): Category[] {
  const source = file ?? SHIPPED_CATEGORIES_FILE;
  let text: string;
  try {
    text = readFileSync(source, 'utf8');
  } catch (err) {
    throw new Error(`${source}: cannot be read: ${errorMessage(err)}`);
  }
  return parseCategoryList(text, source);
}

/** A model's or a person's category as one of the list (`general` included), or UNCLASSIFIED. */
export function knownCategory(list: readonly Category[], value: string | null | undefined): string {
  const v = (value ?? '').trim().toLowerCase();
  return withGeneral(list).some((c) => c.name === v) ? v : UNCLASSIFIED;
}

/**
 * Category names a rule or policy uses that the list lacks, each with where it stands; the caller
 * adds them to the configuration's problems. Compared without case, as routing compares.
 */
export function unknownCategories(list: readonly Category[], used: Array<{ where: string; names: readonly string[] }>): string[] {
  const names = withGeneral(list).map((c) => c.name);
  const known = new Set([...names, UNCLASSIFIED]);
  return used.flatMap((u) =>
    u.names
      .filter((n) => !known.has(n.toLowerCase()))
      .map((n) => `${u.where} names category "${n}", which is not in the category list (${names.join(', ')})`),
  );
}
