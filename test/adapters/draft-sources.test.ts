/** What the reviewer sees when opening a draft's source: the text the model was given, masked where it was masked. */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { readDraftSource } from '../../src/drafting/draft-sources.mariadb';
import { createTestDatabase } from '../support/database';

let db: Awaited<ReturnType<typeof createTestDatabase>>;
const REPLY =
  'Hallo Frau Weber, Ihre Erstattung auf DE89370400440532013000 ist unterwegs. Rückfragen an weber@kundin.example oder +49 170 1234567.';

before(async () => {
  db = await createTestDatabase('sources');
  await db.pool.query(
    `INSERT INTO passages (email_id, idx, account, mailbox, thread_id, direction, from_address, correspondent, title, text)
     VALUES ('reply-to-weber', 0, 'acc', 'INBOX', 't1', 'out', 'support@example.test', 'weber@kundin.example', 'Re: Erstattung', ?),
            ('faq/refunds.md', 0, '', '', 'k', 'knowledge', '', '', 'Refunds', 'Refunds take 5 days.')`,
    [REPLY],
  );
});
after(async () => {
  await db?.drop();
});

test('our reply to another customer opens masked; to the same customer as it was', async () => {
  const other = await readDraftSource(db.pool, 'reply-to-weber', 'someone@else.example');
  assert.equal(other?.kind, 'own_reply_masked');
  for (const secret of ['DE89370400440532013000', 'weber@kundin.example', '1234567']) assert.ok(!other!.text.includes(secret), secret);
  const same = await readDraftSource(db.pool, 'reply-to-weber', 'Weber@Kundin.example');
  assert.equal(same?.text, REPLY);
});

test('a knowledge passage opens by its source id; an unknown id is null', async () => {
  assert.deepEqual(await readDraftSource(db.pool, 'faq/refunds.md#1', 'x@y.example'), {
    id: 'faq/refunds.md#1',
    kind: 'knowledge',
    title: 'Refunds',
    text: 'Refunds take 5 days.',
  });
  assert.equal(await readDraftSource(db.pool, 'nothing-here', 'x@y.example'), null);
});
