/**
 * The schema a draft request sends: every list of ids bounded by, and limited to, the ids the
 * request holds. A small local model counted up invented ids in an unbounded list until its token
 * limit (docs/models.md); the schema now leaves it nothing to count.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildDraftMessages, CLAIM_LIMITS, draftJsonSchema } from '../../src/drafting/draft-prompt';
import { GENERAL_CATEGORY } from '../../src/drafting/drafting.contract';
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

test('no context and no open mail: every list of ids must stay empty; a category list becomes an enum ending in general', () => {
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
  // `general` for a mail that fits none of the others; no `unclassified` beside it, which would say the same.
  assert.deepEqual(s.properties.category, { type: 'string', enum: ['billing', 'shipping', GENERAL_CATEGORY] });
  // Still a strict-mode schema: every property required, nothing else allowed.
  assert.equal(s.additionalProperties, false);
  assert.deepEqual([...s.required].sort(), Object.keys(s.properties).sort());
});

test('general: listed once for the model, with what it means; a list that names it keeps its own', () => {
  const request = (categories: DraftRequest['categories']): DraftRequest => ({
    emailId: 'e-1',
    from: { name: 'Kim', address: 'kim@example.test' },
    subject: 'Question',
    text: 'How do I reshape a data frame in R?',
    context: [],
    categories,
  });
  const user = buildDraftMessages(request([{ name: 'billing', description: 'Invoices.' }]), false)[1]!.content;
  assert.match(user, new RegExp(`answer with the name of the one that fits, or ${GENERAL_CATEGORY} when none of the others does`));
  assert.match(user, new RegExp(`\\n- billing: Invoices\\.\\n- ${GENERAL_CATEGORY}: Fits none of the others\\.`));
  const own = [
    { name: GENERAL_CATEGORY, description: 'Everything else.' },
    { name: 'billing', description: 'Invoices.' },
  ];
  assert.deepEqual(draftJsonSchema({ context: [], categories: own }).properties.category, {
    type: 'string',
    enum: [GENERAL_CATEGORY, 'billing'],
  });
  const ownUser = buildDraftMessages(request(own), false)[1]!.content;
  assert.equal(ownUser.split(`- ${GENERAL_CATEGORY}:`).length, 2, 'general listed once');
  assert.match(ownUser, new RegExp(`- ${GENERAL_CATEGORY}: Everything else\\.`));
});
