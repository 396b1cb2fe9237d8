/**
 * The draft store's save on real MariaDB: it answers with the row as stored after its upsert (one
 * statement, RETURNING), and a late retry of the draft step never overwrites a decided draft.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createMariaDbDraftStore } from '../../src/email/draft/draft-store.mariadb';
import type { NewDraft } from '../../src/email/email-stores.port';
import { createTestDatabase } from '../support/database';
import { sampleDraft } from '../support/draft-fixture';

let db: Awaited<ReturnType<typeof createTestDatabase>>;
before(async () => {
  db = await createTestDatabase('draftstore');
  await db.pool.query(
    "INSERT INTO emails (id, source, status, subject, text_body) VALUES ('e-1', 'file', 'awaiting_approval', 'Frage', 'Hallo')",
  );
});
after(async () => {
  await db?.drop();
});

const draft = (body: string, extra: Partial<NewDraft> = {}): NewDraft =>
  sampleDraft('e-1', 1, body, { flags: ['reply_to_differs'], answersEmailIds: ['e-0'], guidanceVersion: 'g-3', ...extra });

test('a saved draft comes back as stored, and as the store reads it', async () => {
  const store = createMariaDbDraftStore(db.pool);
  const saved = await store.save(draft('Erster Text.'));
  assert.deepEqual(saved, await store.get('e-1:draft:1'));
  assert.equal(saved.status, 'awaiting_approval');
  assert.equal(saved.body, 'Erster Text.');
  assert.deepEqual(saved.flags, ['reply_to_differs']);
  assert.deepEqual(saved.answersEmailIds, ['e-0']);
  assert.equal(saved.guidanceVersion, 'g-3');
  assert.ok(saved.createdAt instanceof Date);

  const again = await store.save(draft('Zweiter Text.', { confidence: 0.9 }));
  assert.equal(again.body, 'Zweiter Text.', 'an undecided draft is written again');
  assert.equal(again.confidence, 0.9);
  assert.deepEqual(again.createdAt, saved.createdAt);
});

test('a late retry of the draft step gets the decided draft back, unchanged', async () => {
  const store = createMariaDbDraftStore(db.pool);
  await store.approve('e-1:draft:1', 'alice', null, 0);
  const late = await store.save(draft('Verspäteter Text.'));
  assert.equal(late.status, 'approved');
  assert.equal(late.body, 'Zweiter Text.');
  assert.equal(late.approvedBody, 'Zweiter Text.');
  assert.equal(late.decidedBy, 'alice');
  assert.deepEqual(late, await store.get('e-1:draft:1'));
});
