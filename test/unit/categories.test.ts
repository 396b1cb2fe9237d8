/**
 * The category list and the rule without a model: every list has `general` (once, the operator's
 * own entry kept when it names it), and a mail is filed under the nearest category by meaning only
 * when it comes near enough to it; otherwise it fits none and is `general`. Vectors from a fixed
 * table here; the real embedder's behaviour on real questions is in test/eval/category-floor.test.ts.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { knownCategory, parseCategoryList, readCategoryList, UNCLASSIFIED, unknownCategories } from '../../src/drafting/categories';
import { CATEGORY_FIT_FLOOR, nearestCategory } from '../../src/drafting/category-match';
import { GENERAL_CATEGORY } from '../../src/drafting/drafting.contract';
import type { Embedder } from '../../src/retrieval/embedder.port';

test('every list ends in general, added once: the shipped list, an operator list without it, one that names it', () => {
  const shipped = readCategoryList().map((c) => c.name);
  assert.equal(shipped.at(-1), GENERAL_CATEGORY);
  assert.equal(shipped.filter((n) => n === GENERAL_CATEGORY).length, 1);
  const added = parseCategoryList('categories:\n  - name: shipping\n    description: Parcels.\n', 'test');
  assert.deepEqual(
    added.map((c) => [c.name, c.description, c.labels.en]),
    [
      ['shipping', 'Parcels.', undefined],
      [GENERAL_CATEGORY, 'Fits none of the others.', 'General'],
    ],
  );
  const own = parseCategoryList(
    `categories:\n  - name: ${GENERAL_CATEGORY}\n    description: Everything else we hear.\n  - name: shipping\n    description: Parcels.\n`,
    'test',
  );
  assert.deepEqual(
    own.map((c) => [c.name, c.description]),
    [
      [GENERAL_CATEGORY, 'Everything else we hear.'],
      ['shipping', 'Parcels.'],
    ],
  );
});

test('general is a known name for rules, policies and drafts, whether or not a list names it', () => {
  const list = [{ name: 'shipping', description: 'Parcels.', labels: {} }];
  assert.equal(knownCategory(list, 'General'), GENERAL_CATEGORY);
  assert.equal(knownCategory(list, 'invoice'), UNCLASSIFIED);
  assert.deepEqual(unknownCategories(list, [{ where: 'rule "r"', names: [GENERAL_CATEGORY, 'invoice'] }]), [
    `rule "r" names category "invoice", which is not in the category list (shipping, ${GENERAL_CATEGORY})`,
  ]);
});

/** An embedder whose vectors come from a table: each text a unit vector at its angle (a cosine is then the cosine of the angle between). */
function tableEmbedder(angles: Record<string, number>): Embedder & { asked: string[] } {
  const asked: string[] = [];
  return {
    model: `table-${Object.keys(angles).join('|')}`,
    asked,
    embed: (texts) => {
      asked.push(...texts);
      return Promise.resolve(texts.map((t) => [Math.cos(angles[t] ?? Math.PI / 2), Math.sin(angles[t] ?? Math.PI / 2)]));
    },
  };
}

const cosineAngle = (c: number) => Math.acos(c);

test('nearest by meaning above the floor; below it, general; general itself never competes', async () => {
  const list = parseCategoryList(
    `categories:\n  - name: shipping\n    description: Parcels.\n  - name: ${GENERAL_CATEGORY}\n    description: Anything else.\n`,
    'test',
  );
  const angles: Record<string, number> = {
    // shipping is known by its text, its one item; general's texts would win every question were it asked.
    'shipping. Parcels.': 0,
    Parcels: 0,
    'general. Anything else.': Math.PI,
    'Anything else': Math.PI,
    'where is my parcel': cosineAngle(CATEGORY_FIT_FLOOR + 0.1),
    'how do I reshape a data frame': cosineAngle(CATEGORY_FIT_FLOOR - 0.1),
    'just at the floor': cosineAngle(CATEGORY_FIT_FLOOR + 1e-9),
  };
  const embedder = tableEmbedder(angles);
  assert.equal(await nearestCategory(embedder, 'where is my parcel', list), 'shipping');
  assert.equal(await nearestCategory(embedder, 'how do I reshape a data frame', list), GENERAL_CATEGORY);
  assert.equal(await nearestCategory(embedder, 'just at the floor', list), 'shipping');
  assert.ok(!embedder.asked.some((t) => t.includes('Anything else')), 'general is not embedded');
  // Another floor, for a measurement: the same mail under 0.05 is near enough.
  assert.equal(await nearestCategory(embedder, 'how do I reshape a data frame', list, 0.05), 'shipping');
  // A list of general alone files everything there; nothing to tell without an embedder, a list or words.
  assert.equal(await nearestCategory(embedder, 'where is my parcel', [list[1]!]), GENERAL_CATEGORY);
  assert.equal(await nearestCategory(undefined, 'where is my parcel', list), UNCLASSIFIED);
  assert.equal(await nearestCategory(embedder, 'where is my parcel', []), UNCLASSIFIED);
  assert.equal(await nearestCategory(embedder, '  ', list), UNCLASSIFIED);
});

test('an embedder that fails: unclassified, not general (nothing was compared)', async () => {
  const failing: Embedder = { model: 'down', embed: () => Promise.reject(new Error('connection refused')) };
  const list = parseCategoryList('categories:\n  - name: shipping\n    description: Parcels.\n', 'test');
  assert.equal(await nearestCategory(failing, 'where is my parcel', list), UNCLASSIFIED);
});
