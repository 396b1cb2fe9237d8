/**
 * Retrieval quality of the embedded full-text index on the real MariaDB, on a small labelled set:
 * for each new question, is the earlier thread that answers it among the top 3 sources?
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createFullTextIndex } from '../../src/retrieval/fulltext-index.mariadb';
import { contextScope } from '../../src/retrieval/context-scope';
import type { DraftContextItem } from '../../src/drafting/drafter.port';
import type { ContextScope, VectorIndex } from '../../src/retrieval/vector-index.port';
import { createTestDatabase } from '../support/database';
import { QUESTIONS, THREADS } from './labelled-threads';

let db: Awaited<ReturnType<typeof createTestDatabase>>;
let index: VectorIndex;

before(async () => {
  db = await createTestDatabase('quality');
  index = createFullTextIndex(db.pool);
  for (const t of THREADS) {
    for (const [i, m] of t.messages.entries()) {
      await index.index({
        emailId: `${t.thread}-${i}`,
        threadId: t.thread,
        mailbox: 'INBOX',
        direction: i === 0 ? 'in' : 'out',
        // Our replies go from the support address to the customer.
        fromAddress: i === 0 ? 'kunde@example.com' : 'support@example.test',
        toAddresses: i === 0 ? ['support@example.test'] : ['kunde@example.com'],
        subject: m.subject,
        text: m.text,
        date: null,
      });
    }
  }
});
after(() => db?.drop());

/** Top-3 hit rate of the labelled questions asked by `fromAddress`, and every item retrieved. */
async function hitRate(fromAddress: string, scope?: Partial<ContextScope>) {
  let hits = 0;
  const misses: string[] = [];
  const all: DraftContextItem[] = [];
  for (const [i, q] of QUESTIONS.entries()) {
    const email = {
      emailId: `question-${i}`,
      threadId: `question-${i}`,
      mailbox: 'INBOX',
      direction: 'in' as const,
      fromAddress,
      subject: q.subject,
      text: q.text,
      date: null,
    };
    const items = await index.retrieve(email, 8, { ...contextScope(email), ...scope });
    all.push(...items);
    const top3 = [...new Set(items.map((it) => it.sourceId.replace(/-\d+$/, '')))].slice(0, 3);
    if (top3.includes(q.expected)) hits += 1;
    else misses.push(`${q.expected} (got ${top3.join(', ') || 'nothing'})`);
  }
  return { hits, rate: hits / QUESTIONS.length, misses, all };
}

// The labelled threads all belong to one customer. Under "whose data a draft may see" that
// customer's new question finds their own earlier threads in full; a new customer finds only
// our replies (masked) as reusable knowledge, never the first customer's own mail.
test('a returning customer: their own earlier thread is among the top 3 (figure printed)', async () => {
  const { hits, rate, misses } = await hitRate('kunde@example.com');
  console.log(
    `retrieval quality (MariaDB full-text, own threads): right thread in top 3 for ${hits}/${QUESTIONS.length} = ${(rate * 100).toFixed(0)} %`,
  );
  if (misses.length > 0) console.log(`misses: ${misses.join('; ')}`);
  assert.ok(rate >= 0.8, `top-3 hit rate ${rate} below 0.8; misses: ${misses.join('; ')}`);
});

test('a new customer: our masked replies answer most questions, the other customer’s mail never (figure printed)', async () => {
  const { hits, rate, misses, all } = await hitRate('neu@andere-firma.example');
  console.log(
    `retrieval quality (MariaDB full-text, masked replies to others): right thread in top 3 for ${hits}/${QUESTIONS.length} = ${(rate * 100).toFixed(0)} %`,
  );
  if (misses.length > 0) console.log(`misses: ${misses.join('; ')}`);
  assert.ok(rate >= 0.8, `top-3 hit rate ${rate} below 0.8; misses: ${misses.join('; ')}`);
  assert.ok(all.length > 0);
  assert.deepEqual([...new Set(all.map((i) => i.kind))], ['own_reply'], 'only our replies, nothing the customer wrote');
  assert.ok(
    all.every((i) => /-[1-9]\d*$/.test(i.sourceId)),
    'never message 0 of a thread (the customer’s inbound mail)',
  );

  const off = await hitRate('neu@andere-firma.example', { reuseReplies: 'off' });
  assert.deepEqual(off.all, [], 'CONTEXT_REUSE_REPLIES=off: nothing of the other customer at all');
});

test('retrieval never crosses mailboxes', async () => {
  const items = await index.retrieve(
    {
      emailId: 'other',
      threadId: 'other',
      mailbox: 'Other',
      direction: 'in',
      fromAddress: 'x@example.com',
      subject: QUESTIONS[0]!.subject,
      text: QUESTIONS[0]!.text,
      date: null,
    },
    8,
  );
  assert.deepEqual(items, []);
});

test('the sender’s and their organisation’s other threads come as sender context; public mail providers do not group', async () => {
  const base = { mailbox: 'INBOX', direction: 'in' as const, date: null };
  await index.index({
    ...base,
    emailId: 'org-1',
    threadId: 'org-t1',
    fromAddress: 'max@firma.example',
    subject: 'Rahmenvertrag',
    text: 'Frage zum Rahmenvertrag.',
  });
  await index.index({ ...base, emailId: 'free-1', threadId: 'free-t1', fromAddress: 'a@gmail.com', subject: 'Hallo', text: 'Eine Frage.' });
  const colleague = await index.retrieve(
    {
      ...base,
      emailId: 'org-2',
      threadId: 'org-t2',
      fromAddress: 'anna@firma.example',
      subject: 'Neues Thema',
      text: 'Etwas ganz anderes.',
    },
    8,
  );
  assert.ok(colleague.some((i) => i.kind === 'sender' && i.sourceId === 'org-1'));
  const stranger = await index.retrieve(
    { ...base, emailId: 'free-2', threadId: 'free-t2', fromAddress: 'b@gmail.com', subject: 'Neues Thema', text: 'Etwas ganz anderes.' },
    8,
  );
  assert.ok(!stranger.some((i) => i.kind === 'sender'));
});
