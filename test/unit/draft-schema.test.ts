/**
 * The schema a draft request sends: every list of ids bounded by, and limited to, the ids the
 * request holds. A small local model counted up invented ids in an unbounded list until its token
 * limit (docs/models.md); the schema now leaves it nothing to count.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CLAIM_LIMITS, draftJsonSchema } from '../../src/drafting/draft-prompt';
import type { DraftRequest } from '../../src/drafting/drafter.port';

const item = (sourceId: string, openInCase = false): DraftRequest['context'][number] => ({
  sourceId,
  kind: openInCase ? 'thread' : 'knowledge',
  text: 'text',
  ...(openInCase ? { openInCase: true } : {}),
});

test('ids: the context ids as an enum, each list at most as long as there are ids; the open mails of the case for answered_case_mails', () => {
  const s = draftJsonSchema({
    context: [item('knowledge:billing.md#0'), item('knowledge:billing.md#0'), item('knowledge:refunds.md#2'), item('email:e-7', true)],
  });
  const ids = ['knowledge:billing.md#0', 'knowledge:refunds.md#2', 'email:e-7'];
  assert.deepEqual(s.properties.used_source_ids, { type: 'array', maxItems: 3, items: { type: 'string', enum: ids } });
  assert.deepEqual(s.properties.answered_case_mails, { type: 'array', maxItems: 1, items: { type: 'string', enum: ['email:e-7'] } });
  const claimIds = s.properties.claims.items.properties.source_ids;
  assert.deepEqual(claimIds, { type: 'array', maxItems: CLAIM_LIMITS.sourceIds, items: { type: 'string', enum: ids } });
  assert.equal(s.properties.claims.maxItems, CLAIM_LIMITS.claims);
  // Without a category list the category stays free text.
  assert.deepEqual(s.properties.category, { type: 'string', description: 'one of the categories listed in the request' });
});

test('no context and no open mail: every list of ids must stay empty; a category list becomes an enum with unclassified', () => {
  const s = draftJsonSchema({
    context: [],
    categories: [
      { name: 'billing', description: 'invoices' },
      { name: 'shipping', description: 'deliveries' },
    ],
  });
  assert.equal(s.properties.used_source_ids.maxItems, 0);
  assert.equal(s.properties.answered_case_mails.maxItems, 0);
  assert.equal(s.properties.claims.items.properties.source_ids.maxItems, 0);
  assert.deepEqual(s.properties.category, { type: 'string', enum: ['billing', 'shipping', 'unclassified'] });
  // Still a strict-mode schema: every property required, nothing else allowed.
  assert.equal(s.additionalProperties, false);
  assert.deepEqual([...s.required].sort(), Object.keys(s.properties).sort());
});
