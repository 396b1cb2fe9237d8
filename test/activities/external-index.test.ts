/**
 * The worker's index with Qdrant and ArangoDB configured: real Dovecot and MariaDB, and local
 * HTTP TEST DOUBLES of Qdrant, ArangoDB and the embeddings API (no such servers run here),
 * reached through the official clients exactly as in production.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { imapEmailId } from '../../lib/domain';
import { startArangoDouble, type ArangoDouble } from '../doubles/arango-double';
import { startEmbeddingsDouble, type EmbeddingsDouble } from '../doubles/embeddings-double';
import { startQdrantDouble, type QdrantDouble } from '../doubles/qdrant-double';
import { MAILBOX_USER, sampleEmail, startStack, type TestStack } from '../support/stack';
import { activityHarness } from './support';

let stack: TestStack;
let qdrant: QdrantDouble;
let arango: ArangoDouble;
let embeddings: EmbeddingsDouble;
let h: ReturnType<typeof activityHarness>;
let nextUid = 1;

before(async () => {
  qdrant = await startQdrantDouble();
  arango = await startArangoDouble({ username: 'root', password: 'pw' });
  embeddings = await startEmbeddingsDouble({ dims: 64 });
  stack = await startStack({
    temporal: false,
    env: {
      QDRANT_URL: qdrant.url,
      ARANGO_URL: arango.url,
      ARANGO_PASSWORD: 'pw',
      EMBEDDING_BASE_URL: embeddings.baseUrl,
      EMBEDDING_MODEL: 'bag-of-words-64',
    },
  });
  h = activityHarness(stack.config);
});
after(async () => {
  await h?.close();
  await stack?.stop();
  await Promise.all([qdrant?.stop(), arango?.stop(), embeddings?.stop()]);
});

async function indexed(raw: string): Promise<string> {
  await stack.dovecot.deliver(MAILBOX_USER, raw);
  const listing = await h.deps.activities.mailboxes.get('default').mailbox.listSince('INBOX', nextUid - 1, 10);
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
    // What the workflow records after the third attempt.
    await h.run(email, h.activities.recordStatus, {
      emailId: email,
      status: 'partially_indexed',
      reason: 'qdrant down',
      seq: 1,
      event: { eventType: 'index_degraded', errorClass: 'dependency', message: 'qdrant down' },
    });
    const draft = await h.run(email, h.activities.draftReply, { emailId: email, version: 1 });
    assert.equal(draft.needsHuman, false, 'drafting goes on with less context');
    const degraded = (await stack.db.pool.query(`SELECT message FROM audit_log WHERE email_id = ? AND event_type = 'retrieval_degraded'`, [
      email,
    ])) as Array<{ message: string }>;
    assert.match(degraded[0]?.message ?? '', /qdrant unavailable/);
  } finally {
    qdrant.down(false);
  }
  const before = qdrant.requests.length;
  const result = await h.run('reindex-sync', h.activities.reindexPartial, { limit: 10 });
  assert.equal(result.completed, 1);
  assert.ok(qdrant.requests.slice(before).some((r) => r.method === 'PUT' && r.path.includes('/points')));
});
