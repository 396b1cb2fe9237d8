/**
 * The replay's activities on real MariaDB and the real embedder, with the fixture archive: each
 * pair drafted as of its day (a knowledge file dated after the mail is not used, nor is later
 * correspondence), nothing entering the live tables, and the replay's rows covered by the
 * subject export, erasure, retention and `replay delete`.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { ApplicationFailure } from '@temporalio/activity';
import type { Drafter } from '../../src/drafting/drafter.port';
import { httpFailureType } from '../../src/platform/contract';
import { PermanentError } from '../../src/platform/errors';
import { createMariaDbPrivacyStore } from '../../src/privacy/privacy-store.mariadb';
import { readSubjectExport } from '../../src/privacy/privacy-export.mariadb';
import { createMariaDbRetentionStore } from '../../src/privacy/retention-store.mariadb';
import { createRetentionActivities } from '../../src/privacy/retention.activities';
import { RETENTION_DEFAULTS } from '../../src/privacy/privacy.config';
import { createMariaDbAuditLog } from '../../src/platform/audit-log.mariadb';
import { shortHash } from '../../src/replay/replay-pairing';
import { REPLAY_RESULT_STATE } from '../../src/replay/replay.contract';
import { createTestDatabase } from '../support/database';
import { startEmbedder, type EmbedderServer } from '../support/services/embedder';
import { countingDrafter, prepareFixtureRun, replayActivities, replayDeps } from '../support/replay-harness';

let db: Awaited<ReturnType<typeof createTestDatabase>>;
let embedder: EmbedderServer;

before(async () => {
  db = await createTestDatabase('replay');
  embedder = await startEmbedder();
});
after(async () => {
  await embedder?.stop();
  await db?.drop();
});

const key = (messageId: string) => shortHash(`<${messageId}>`);
const count = async (sql: string, params: unknown[] = []) =>
  Number(((await db.pool.query(sql, params)) as Array<{ n: number | bigint }>)[0]!.n);

async function replayAll(runId: string, acts: ReturnType<typeof replayActivities>) {
  for (;;) {
    const { pairIds } = await acts.replayPending({ runId, limit: 3 });
    if (pairIds.length === 0) break;
    for (const pairId of pairIds) await acts.replayPair({ runId, pairId });
  }
  return acts.finishReplay({ runId });
}

test('each pair drafted as of its day: no knowledge dated later, no later correspondence; nothing in the live tables', async () => {
  const prepared = await prepareFixtureRun(db.pool);
  assert.equal(prepared.pairs, 8);
  const drafter = countingDrafter();
  const deps = replayDeps(db.pool, embedder, drafter);
  const acts = replayActivities(deps);
  const run = await replayAll(prepared.runId, acts);
  assert.deepEqual([run?.done, run?.failed, run?.total], [8, 0, 8]);
  assert.ok(
    [...drafter.drafts.values()].every((n) => n === 1),
    'one draft per pair',
  );

  const contextOf = async (messageId: string) => {
    const rows = (await db.pool.query('SELECT context_ids, draft_body, state FROM replay_results WHERE run_id = ? AND pair_id = ?', [
      prepared.runId,
      key(messageId),
    ])) as Array<{ context_ids: string; draft_body: string; state: string }>;
    assert.equal(rows[0]?.state, REPLAY_RESULT_STATE.measured, messageId);
    return { ids: JSON.parse(rows[0]!.context_ids) as string[], body: rows[0]!.draft_body };
  };
  // April: the shipping file is dated June; the June question may use it.
  const april = await contextOf('t6c@client.example');
  assert.ok(!april.ids.some((id) => id.startsWith('knowledge:shipping.md')), april.ids.join(', '));
  const june = await contextOf('t11c@client.example');
  assert.ok(
    june.ids.some((id) => id.startsWith('knowledge:shipping.md')),
    june.ids.join(', '),
  );
  // The undated file (no valid_from line, never in the ledger) is used by no mail.
  const all = (await db.pool.query('SELECT context_ids FROM replay_results WHERE run_id = ?', [prepared.runId])) as Array<{
    context_ids: string;
  }>;
  assert.ok(!all.some((r) => r.context_ids.includes('undated.md')));
  // The April delivery question: Erika's March thread is history, her May mail is not.
  const pair = await deps.store.loadPair(prepared.runId, key('t5c@kunde.example'));
  assert.deepEqual(
    pair?.history.map((h) => h.key),
    [key('t2c@kunde.example'), key('t2r@example.test')],
  );
  const delivery = await contextOf('t5c@kunde.example');
  assert.ok(!delivery.ids.some((id) => id.includes(key('t5f@kunde.example'))));
  const request = drafter.requests.find((r) => r.emailId.endsWith(key('t5c@kunde.example')))!;
  assert.ok(!JSON.stringify(request).includes('ZITRONENFALTER'), 'later correspondence reached the draft');
  // Replays never touch the live pipeline's tables.
  for (const table of ['emails', 'drafts', 'queue_jobs', 'passages', 'raw_messages', 'send_attempts']) {
    assert.equal(await count(`SELECT COUNT(*) AS n FROM ${table}`), 0, table);
  }
  // A second call for a finished pair drafts nothing.
  const again = await acts.replayPair({ runId: prepared.runId, pairId: key('t1c@client.example') });
  assert.deepEqual(again, { skipped: true, outcome: null });
  assert.equal(drafter.drafts.get(`replay:${prepared.runId}:${key('t1c@client.example')}`), 1);
});

test('privacy: the export holds a correspondent’s replay rows, the erasure removes them and leaves the others', async () => {
  const prepared = await prepareFixtureRun(db.pool);
  await replayAll(prepared.runId, replayActivities(replayDeps(db.pool, embedder, countingDrafter())));
  const address = 'erika@kunde.example';
  const store = createMariaDbPrivacyStore(db.pool);
  const ids = await store.find(address);
  assert.ok(ids.names.includes('Erika Mustermann'));
  const exported = await readSubjectExport(db.pool, address, ids);
  assert.ok(exported.replayMessages.length >= 4 && exported.replayPairs.length >= 2 && exported.replayResults.length >= 2);
  const others = await count('SELECT COUNT(*) AS n FROM replay_results WHERE correspondent <> ?', [address]);
  const counts = await store.erase(address, 'hash-of-erika', ids);
  assert.ok(counts.replay_results! >= 2 && counts.replay_messages! >= 4);
  for (const table of ['replay_results', 'replay_pairs', 'replay_messages']) {
    assert.equal(await count(`SELECT COUNT(*) AS n FROM ${table} WHERE correspondent = ?`, [address]), 0, table);
  }
  assert.equal(await count('SELECT COUNT(*) AS n FROM replay_messages WHERE body LIKE ? OR subject LIKE ?', ['%Erika%', '%Erika%']), 0);
  assert.equal(await count('SELECT COUNT(*) AS n FROM replay_results WHERE correspondent <> ?', [address]), others);
});

test('retention purges replay rows with the bodies of emails; replay delete removes a run as one', async () => {
  const kept = await prepareFixtureRun(db.pool, { limit: 2 });
  await replayAll(kept.runId, replayActivities(replayDeps(db.pool, embedder, countingDrafter())));
  const old = await prepareFixtureRun(db.pool, { limit: 2 });
  await db.pool.query('UPDATE replay_runs SET created_at = NOW() - INTERVAL 400 DAY WHERE id = ?', [old.runId]);
  const retention = createRetentionActivities({
    store: createMariaDbRetentionStore(db.pool),
    settings: { ...RETENTION_DEFAULTS, bodiesDays: 365 },
    index: {},
    audit: createMariaDbAuditLog(db.pool),
    pauseMs: 0,
  });
  const purged = await retention.purgeExpired({ batchSize: 5, dryRun: false, budgetMs: 60_000 });
  assert.equal(purged.purged.replay, old.stored);
  assert.equal(await count('SELECT COUNT(*) AS n FROM replay_messages WHERE run_id = ?', [old.runId]), 0);
  assert.equal(await count('SELECT COUNT(*) AS n FROM replay_pairs WHERE run_id = ?', [old.runId]), 0);
  assert.equal(await count('SELECT COUNT(*) AS n FROM replay_messages WHERE run_id = ?', [kept.runId]), kept.stored);

  const store = replayDeps(db.pool, embedder, countingDrafter()).store;
  const gone = await store.deleteRun(kept.runId);
  assert.deepEqual(gone, { messages: kept.stored, pairs: 2, results: 2 });
  for (const table of ['replay_results', 'replay_pairs', 'replay_messages']) {
    assert.equal(await count(`SELECT COUNT(*) AS n FROM ${table} WHERE run_id = ?`, [kept.runId]), 0, table);
  }
  assert.equal(await store.run(kept.runId), null);
  assert.equal(await store.deleteRun(kept.runId), null);
});

test('a pair the model refuses for good (a permanent LLM failure) fails at once: not retried, the error named', async () => {
  const prepared = await prepareFixtureRun(db.pool);
  const refusing: Drafter = {
    name: 'openai',
    draft: async () => {
      throw new PermanentError('llm answered HTTP 400: the request exceeds the available context size', httpFailureType('llm', 400));
    },
  };
  const acts = replayActivities(replayDeps(db.pool, embedder, refusing));
  const { pairIds } = await acts.replayPending({ runId: prepared.runId, limit: 1 });
  const err = await acts.replayPair({ runId: prepared.runId, pairId: pairIds[0]! }).then(
    () => undefined,
    (e: unknown) => e,
  );
  assert.ok(err instanceof ApplicationFailure, String(err));
  assert.equal(err.nonRetryable, true);
  assert.equal(err.type, 'LLM_HTTP_400');
  assert.match(err.message, /exceeds the available context size/);
});
