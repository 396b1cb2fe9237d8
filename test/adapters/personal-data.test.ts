/**
 * Masking by what is known: the store's view of the person one of our replies went to (their
 * thread's names, addresses, numbers and signature lines) masks that reply when the composite
 * index hands it to a draft for someone else.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createMariaDbMessageStore } from '../../src/email/message-store.mariadb';
import { createMariaDbPersonalData } from '../../src/retrieval/personal-data.mariadb';
import { createCompositeIndex } from '../../src/retrieval/composite-index';
import type { VectorIndex } from '../../src/retrieval/vector-index.port';
import { createTestDatabase } from '../support/database';

let db: Awaited<ReturnType<typeof createTestDatabase>>;

before(async () => {
  db = await createTestDatabase('personaldata');
  await db.pool.query(
    `INSERT INTO emails (id, source, status, thread_id, from_address, from_name, reply_to_address, text_body, created_at) VALUES
      ('e-1', 'file', 'sent', 't-1', 'jana.kowalski@web.example', 'Jana Kowalski', 'buchhaltung@kowalski.example',
       'Guten Tag,\\nKundennummer 558201.\\n\\nViele Grüße\\nJana Kowalski\\nLindenallee 7, 50968 Köln\\nTel. 0221 4477120', NOW(3) - INTERVAL 1 DAY),
      ('e-2', 'file', 'sent', 't-1', 'piotr@web.example', 'Piotr Kowalski', NULL, 'Hallo, ich bin ihr Mann.', NOW(3)),
      ('e-3', 'file', 'sent', 't-other', 'someone@else.example', 'Else Someone', NULL, 'Nothing to do with it.', NOW(3))`,
  );
});
after(async () => db?.drop());

test('what is known of a reply’s recipient: their thread’s names, addresses, numbers and signature lines', async () => {
  const known = (await createMariaDbPersonalData(db.pool).knownFor(['e-1:draft:2:sent', 'missing'])).get('e-1:draft:2:sent')!;
  assert.ok(known.names.includes('Jana Kowalski') && known.names.includes('Piotr Kowalski'));
  assert.ok(known.emails.includes('buchhaltung@kowalski.example'));
  assert.ok(known.numbers.some((n) => n.includes('558201')));
  assert.ok(known.lines.includes('Lindenallee 7, 50968 Köln'));
  assert.ok(!known.names.includes('Else Someone'), 'another thread is not hers');
  const none = (await createMariaDbPersonalData(db.pool).knownFor(['missing'])).get('missing')!;
  assert.deepEqual(none, { names: [], emails: [], numbers: [], lines: [] });
});

test('several sources in one look-up: each gets its own thread’s data, however many map to one email', async () => {
  const known = await createMariaDbPersonalData(db.pool).knownFor(['e-1:draft:2:sent', 'e-3', 'e-1:draft:3:sent', 'missing']);
  assert.deepEqual([...known.keys()], ['e-1:draft:2:sent', 'e-3', 'e-1:draft:3:sent', 'missing']);
  assert.deepEqual(known.get('e-1:draft:3:sent'), known.get('e-1:draft:2:sent'));
  assert.ok(known.get('e-3')!.names.includes('Else Someone'));
  assert.ok(!known.get('e-3')!.names.includes('Jana Kowalski'), 'her thread is not his');
  assert.ok(!known.get('e-1:draft:2:sent')!.names.includes('Else Someone'));
  assert.deepEqual(known.get('missing'), { names: [], emails: [], numbers: [], lines: [] });
  assert.equal((await createMariaDbPersonalData(db.pool).knownFor([])).size, 0);
});

test('the composite index masks our reply to her by what is known before a draft for someone else sees it', async () => {
  const reply = 'Liebe Jana, Piotr hat angerufen: 558201 ist erstattet, Post geht an die Lindenallee 7. Rückruf unter 0221 / 447 7120.';
  const primary: VectorIndex = {
    name: 'stub',
    index: () => Promise.resolve(),
    retrieve: () => Promise.resolve([{ sourceId: 'e-1:draft:2:sent', kind: 'own_reply', text: reply, title: 'Re: Jana' }]),
  };
  const index = createCompositeIndex({
    primary,
    messages: createMariaDbMessageStore(db.pool),
    personalData: createMariaDbPersonalData(db.pool),
    onDegraded: () => Promise.resolve(),
  });
  const [item] = await index.retrieve(
    {
      emailId: 'x',
      threadId: 'tx',
      mailbox: 'INBOX',
      direction: 'in',
      fromAddress: 'other@customer.example',
      subject: 's',
      text: 't',
      date: null,
    },
    5,
  );
  assert.doesNotMatch(item!.text, /Jana|Piotr|558201|Lindenallee|447/);
  assert.equal(item!.title, 'Re: [name]');
});
