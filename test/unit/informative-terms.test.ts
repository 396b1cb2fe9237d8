/**
 * The words a mail is searched with in the knowledge folder's full text (informative-terms.ts):
 * all of them in a small folder, the rarest within the row budget in a large one, never none.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  estimatedFrequency,
  fullTextWords,
  informativeQuery,
  MATCH_ROW_BUDGET,
  type DocumentFrequencies,
} from '../../src/retrieval/informative-terms';

const folder = (passages: number, sampled: number, holding: Record<string, number>): DocumentFrequencies => ({
  passages,
  sampled,
  holding: new Map(Object.entries(holding)),
});

test('the words as the full-text index sees them: lower case, three characters or more, each once', () => {
  assert.deepEqual(
    [...fullTextWords('Ist die Rückgabe am 3.5. ab 10 Uhr möglich? Rückgabe!')],
    ['ist', 'die', 'rückgabe', 'uhr', 'möglich'],
  );
});

test('a small folder: every word of the mail fits the budget and is searched', () => {
  const df = folder(300, 300, { ich: 250, rückgabe: 12, frist: 9, die: 280 });
  assert.equal(informativeQuery('Ich frage die Rückgabe Frist', df), 'ich frage die rückgabe frist');
});

test('a large folder: the words most passages share are left out, the rarest kept, in the mail’s order', () => {
  const df = folder(50_000, 2_000, { the: 1_900, and: 1_800, please: 400, refund: 20, invoice: 12 });
  const query = informativeQuery('Please refund the invoice and the parcel', df);
  // parcel: not in the sample (about 12 passages), invoice 300, refund 500; please (10,000) would pass the budget.
  assert.equal(query, 'refund invoice parcel');
  const reach = query.split(' ').reduce((sum, w) => sum + estimatedFrequency(df, w), 0);
  assert.ok(reach <= MATCH_ROW_BUDGET, `reach ${reach}`);
});

test('a mail of common words only: its rarest word is still searched', () => {
  const df = folder(50_000, 2_000, { the: 1_900, and: 1_800, account: 600 });
  assert.equal(informativeQuery('the account and the', df), 'account');
  assert.equal(informativeQuery('?! 42', df), '');
});
