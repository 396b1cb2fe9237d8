/**
 * The worker's index with Qdrant and ArangoDB configured: real Dovecot and MariaDB, and local
 * HTTP TEST DOUBLES of Qdrant, ArangoDB and the embeddings API (no such servers run here),
 * reached through the official clients exactly as in production.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { imapEmailId } from '../../src/email/email-input';
import { startExternalStoreDoubles, type ExternalStoreDoubles } from '../support/external-store-doubles';
import { MAILBOX_USER, sampleEmail, startStack, type TestStack } from '../support/stack';
import { activityHarness, draftAfterDegradedIndex } from './support';

let stack: TestStack;
let doubles: ExternalStoreDoubles;
let qdrant: ExternalStoreDoubles['qdrant'];
let arango: ExternalStoreDoubles['arango'];
let h: ReturnType<typeof activityHarness>;
let nextUid = 1;

before(async () => {
  doubles = await startExternalStoreDoubles();
  ({ qdrant, arango } = doubles);
  stack = await startStack({ temporal: false, env: doubles.env });
  h = activityHarness(stack.config);
});
after(async () => {
  await h?.close();
  await stack?.stop();
  await doubles?.stop();
});

async function indexed(raw: string): Promise<string> {
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

test('indexing writes full-text, Qdrant points and the graph; drafts draw on all three', async () => {
  const earlier = await indexed(
    sampleEmail({ subject: 'Lieferung 4711 verspätet', body: 'Die Lieferung 4711 ist verspätet, bitte prüfen.' }),
  );
  await h.run(earlier, h.activities.indexEmail, { emailId: earlier });
  const colleague = await indexed(
    sampleEmail({ from: 'Max Muster <max@customer.example>', subject: 'Rahmenvertrag', body: 'Frage zum Rahmenvertrag unserer Firma.' }),
  );
  await h.run(colleague, h.activities.indexEmail, { emailId: colleague });
  const now = await indexed(sampleEmail({ subject: 'Lieferung 4711 immer noch nicht da', body: 'Die Lieferung 4711 fehlt weiterhin.' }));
  await h.run(now, h.activities.indexEmail, { emailId: now });

  assert.ok(
    qdrant.requests.some((r) => r.method === 'PUT' && r.path.includes('/points')),
    'points upserted',
  );
  assert.ok(
    arango.requests.some((r) => r.path.includes('/_api/document/')),
    'graph written',
  );
  assert.deepEqual(qdrant.unhandled, []);
  assert.deepEqual(arango.unhandled, []);

  const draft = await h.run(now, h.activities.draftReply, { emailId: now, version: 1 });
  const stored = await h.deps.activities.drafts.get(draft.draftId);
  assert.ok(stored?.contextIds.includes(earlier), 'the similar earlier mail (Qdrant / full-text)');
  assert.ok(stored?.contextIds.includes(colleague), 'the same organisation (graph)');
});

test('Qdrant down: the full-text entry is written, the step fails as a dependency, and the re-index sync completes it later', async () => {
  const email = await indexed(sampleEmail({ subject: 'Qdrant weg', body: 'Testmail während eines Qdrant-Ausfalls.' }));
  qdrant.down(true);
  try {
    await assert.rejects(h.run(email, h.activities.indexEmail, { emailId: email }), { code: 'INDEX_DEGRADED', errorClass: 'dependency' });
    const passages = (await stack.db.pool.query('SELECT COUNT(*) AS n FROM passages WHERE email_id = ?', [email])) as Array<{ n: number }>;
    assert.ok(Number(passages[0]?.n) > 0, 'the embedded index has it');
    const draft = await draftAfterDegradedIndex(h, stack.db.pool, email, 'qdrant down');
    assert.equal(draft.needsHuman, false, 'drafting goes on with less context');
    assert.match(draft.degraded, /qdrant unavailable/);
  } finally {
    qdrant.down(false);
  }
  const before = qdrant.requests.length;
  const result = await h.run('reindex-sync', h.activities.reindexPartial, { limit: 10 });
  assert.equal(result.completed, 1);
  assert.ok(qdrant.requests.slice(before).some((r) => r.method === 'PUT' && r.path.includes('/points')));
});
