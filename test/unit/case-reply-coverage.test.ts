/**
 * One reply for several mails of a case answers each of them, or does not claim to: the offline
 * drafter answers another open mail of the case only with a passage found for that mail's own
 * question, and says which mails it answered (`answersEmailIds`); the LLM drafter's answer lists
 * them too, limited to mails the context offered as open in the case.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createOfflineDrafter } from '../../src/drafting/drafter.offline';
import { buildDraftMessages, parseDraftJson } from '../../src/drafting/draft-prompt';
import type { DraftContextItem, DraftRequest } from '../../src/drafting/drafter.port';

const drafter = createOfflineDrafter();

const lead: Omit<DraftRequest, 'context'> = {
  emailId: 'lead-1',
  from: { name: 'Daniel Carter', address: 'daniel@northwind.example' },
  subject: 'Order 48213 still not delivered',
  text: 'Hi, the tracking link has said "label created" for over a week. Where is the parcel?',
};

const caseMail: DraftContextItem = {
  sourceId: 'other-2',
  kind: 'sender',
  title: 'New delivery address',
  text: 'Our shipping desk has moved. From now on please deliver everything to our new address. Could you confirm the address on our account is updated?',
  openInCase: true,
};

const delivery: DraftContextItem = {
  sourceId: 'knowledge:faq/delivery.md#1',
  kind: 'knowledge',
  title: 'faq/delivery.md',
  text: 'If tracking has shown only "label created" for more than 3 business days, the carrier has not scanned the parcel yet. We then open a trace request with the carrier.',
  match: { fused: 1 / 61, cosine: 0.62, vectorRank: 1 },
};

const address: DraftContextItem = {
  sourceId: 'knowledge:faq/delivery.md#3',
  kind: 'knowledge',
  title: 'faq/delivery.md',
  text: 'You can change the delivery address of your account at any time under Settings, or ask us and we update it for you; we confirm every change by email.',
  match: { fused: 1 / 61, cosine: 0.58, vectorRank: 1 },
  forEmailId: 'other-2',
};

/** Found for the other mail too, close in meaning, but about something else: it shares none of its words. */
const times: DraftContextItem = {
  sourceId: 'knowledge:faq/delivery.md#1',
  kind: 'knowledge',
  title: 'faq/delivery.md',
  text: 'Standard parcels take 3 to 5 business days, express parcels 1 to 2 business days.',
  match: { fused: 1 / 61, cosine: 0.6, vectorRank: 1 },
  forEmailId: 'other-2',
};

test('offline: another open mail of the case is answered with a passage found for its own question, and named as answered', async () => {
  const draft = await drafter.draft({ ...lead, context: [caseMail, delivery, times, address] });
  assert.deepEqual(draft.answersEmailIds, ['other-2']);
  assert.match(draft.body, /About your other message "New delivery address":\n.*change the delivery address/);
  assert.match(draft.body, /label created/);
  assert.ok(draft.usedSourceIds.includes('knowledge:faq/delivery.md#3'));
  assert.doesNotMatch(draft.body, /taken the earlier correspondence/, 'an open mail is never "taken into account"');
});

test('offline: without a passage that answers it, the other mail is not claimed and waits for its own reply', async () => {
  const draft = await drafter.draft({ ...lead, context: [caseMail, delivery, times] });
  assert.deepEqual(draft.answersEmailIds, []);
  assert.doesNotMatch(draft.body, /other message|other-2/);
});

test('offline: a passage found for the other mail never answers the lead', async () => {
  const draft = await drafter.draft({ ...lead, subject: 'Question', text: 'Where is my parcel?', context: [address] });
  assert.doesNotMatch(draft.body, /change the delivery address/);
});

test('LLM prompt marks the open mails of the case; the answer lists the ones it answers', () => {
  const [, user] = buildDraftMessages({ ...lead, context: [caseMail, delivery] }, false);
  assert.match(user!.content, /<item id="other-2" kind="sender" open_in_case="true"/);
  assert.doesNotMatch(user!.content, /<item id="knowledge:faq\/delivery.md#1"[^>]*open_in_case/);
  const json = parseDraftJson(
    JSON.stringify({
      subject: 'Re',
      body: 'Hello',
      language: 'en',
      category: 'x',
      confidence: 0.5,
      used_source_ids: [],
      answered_case_mails: ['other-2', 7],
    }),
  );
  assert.deepEqual(json?.answered_case_mails, ['other-2']);
  assert.deepEqual(parseDraftJson(JSON.stringify({ subject: 'Re', body: 'Hello' }))?.answered_case_mails, []);
});
