/**
 * `email-rag replay run|status|report|list|delete` as an operator runs them (the real CLI process,
 * real MariaDB, a Temporal dev server, the real embedder), the run drafted by workers with the
 * replay's real activities (the offline drafter, the fixture's knowledge folder), and the review
 * inbox's replay page: an operator sees the runs and a run's report, a reviewer is refused.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { NativeConnection, Worker } from '@temporalio/worker';
import { loadConfig } from '../../src/config';
import { createMariaDbInboxUsers } from '../../src/review-inbox/inbox-users.mariadb';
import { REPLAY_QUEUE_SUFFIX } from '../../src/replay/replay.contract';
import type { ReplayReport } from '../../src/replay/replay-report';
import { createTestDatabase } from '../support/database';
import { inboxOnDatabase } from '../support/inbox-app';
import { startEmbedder, type EmbedderServer } from '../support/services/embedder';
import { startTemporalDevServer, type TemporalDevServer } from '../support/services/temporal-dev-server';
import { countingDrafter, REPLAY_FIXTURE, replayActivities, replayDeps } from '../support/replay-harness';
import { workflowBundle } from '../support/workflow-bundle';

const TASK_QUEUE = 'replay-cli';
let dir: string;
let db: Awaited<ReturnType<typeof createTestDatabase>>;
let embedder: EmbedderServer;
let temporal: TemporalDevServer;
let app: FastifyInstance;
let stopWorkers: () => Promise<void>;
let env: Record<string, string>;

before(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'email-rag-replay-cli-'));
  db = await createTestDatabase('replaycli');
  embedder = await startEmbedder();
  temporal = await startTemporalDevServer({ dataDir: path.join(dir, 'temporal'), headless: true });
  env = {
    DATABASE_URL: db.url,
    TEMPORAL_ADDRESS: temporal.address,
    TEMPORAL_TASK_QUEUE: TASK_QUEUE,
    SMTP_FROM: 'Support Team <support@example.test>',
    REPLAY_PAUSE_MS: '0',
    ...embedder.env,
  };
  const activities = replayActivities(replayDeps(db.pool, embedder, countingDrafter()));
  const native = await NativeConnection.connect({ address: temporal.address });
  const main = await Worker.create({ connection: native, taskQueue: TASK_QUEUE, workflowBundle: await workflowBundle(), activities });
  const drafting = await Worker.create({ connection: native, taskQueue: `${TASK_QUEUE}${REPLAY_QUEUE_SUFFIX}`, activities });
  const running = Promise.all([main.run(), drafting.run()]);
  stopWorkers = async () => {
    main.shutdown();
    drafting.shutdown();
    await running;
    await native.close();
  };
  const users = createMariaDbInboxUsers(db.pool);
  await users.upsert('otto', 'x', 'operator');
  await users.upsert('rita', 'x', 'reviewer');
  app = await inboxOnDatabase(loadConfig({ DATABASE_URL: db.url, INBOX_AUTH: 'header' }, { imap: false }), db.pool);
});
after(async () => {
  await app?.close();
  await stopWorkers?.();
  await temporal?.stop();
  await embedder?.stop();
  await db?.drop();
  rmSync(dir, { recursive: true, force: true });
});

function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['bin/email-rag.js', ...args], { env: { ...process.env, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('close', (code) => resolve({ code: code ?? 1, stdout, stderr }));
  });
}

const as = (user: string) => ({ 'x-forwarded-user': user, 'accept-language': 'en' });

test('replay run --wait, status, report, the inbox page, list and delete', async () => {
  const run = await cli([
    'replay',
    'run',
    path.join(REPLAY_FIXTURE, 'support.mbox'),
    '--team',
    'anna@example.test',
    '--wait',
    '--by',
    'otto',
  ]);
  assert.equal(run.code, 0, run.stderr);
  const runId =
    /^replay (\S+): 8 pairs of customer mail and sent reply \(23 messages read, 0 left out; 14 customer mails, 6 without a team reply\)$/m.exec(
      run.stdout,
    )?.[1];
  assert.ok(runId, run.stdout);
  assert.match(run.stdout, /^finished: 8 done, 0 failed$/m);

  const status = await cli(['replay', 'status', runId]);
  assert.match(status.stdout, new RegExp(`^${runId}  finished  mailbox default  8/8 done, 0 failed  \\(support\\.mbox, by otto, `, 'm'));

  const report = await cli(['replay', 'report', runId, '--json']);
  assert.equal(report.code, 0, report.stderr);
  const r = JSON.parse(report.stdout) as ReplayReport;
  assert.equal(r.total.measured, 8);
  assert.equal(r.countsTowardAutonomy, false);
  assert.deepEqual(r.byLanguage.map((g) => g.group).sort(), ['de', 'en']);
  assert.ok(r.total.similarity && r.total.similarity.lower !== null && r.total.similarity.lower <= r.total.similarity.mean);
  // The non-answer's floor on the same pairs, in every group: below what the drafts reach.
  const floor = r.total.nonAnswerFloor;
  assert.ok(floor && floor.n === r.total.similarity.n && floor.lower !== null, JSON.stringify(floor));
  assert.ok(floor.mean > 0 && floor.mean < r.total.similarity.mean, `floor ${floor.mean}, drafts ${r.total.similarity.mean}`);
  for (const g of [...r.byMailbox, ...r.byCategory, ...r.byLanguage]) assert.ok(g.nonAnswerFloor, `${g.group} has a floor`);
  const text = await cli(['replay', 'report', runId]);
  assert.match(text.stdout, /not live figures, and not counted toward autonomy/);
  assert.match(text.stdout, /^total\s+pairs\s+similarity \[95 %\]\s+non-answer floor \[95 %\]/m);
  assert.match(text.stdout, new RegExp(`^all\\s+8\\s+\\S+ \\[\\S+\\]\\s+${floor.mean.toFixed(3)} \\[`, 'm'));

  const page = await app.inject({ url: `/replay?run=${runId}`, headers: as('otto') });
  assert.equal(page.statusCode, 200, page.body);
  assert.match(page.body, /<a href="\/replay" id="nav-replay">Replay<\/a>/);
  assert.match(page.body, new RegExp(`<tr data-run="${runId}">.*<td>8 / 8</td>`));
  assert.match(page.body, /<table id="replay-total">/);
  assert.match(page.body, /<th scope="col">Non-answer floor \[95 %\]<\/th>/);
  assert.match(page.body, new RegExp(`<td class="floor">${floor.mean.toFixed(3)} \\[`));
  const reviewer = await app.inject({ url: '/replay', headers: as('rita') });
  assert.equal(reviewer.statusCode, 403);

  const list = await cli(['replay', 'list']);
  assert.match(list.stdout, new RegExp(`^${runId}  finished`, 'm'));
  const deleted = await cli(['replay', 'delete', runId, '--by', 'otto']);
  assert.equal(deleted.code, 0, deleted.stderr);
  assert.match(deleted.stdout, /deleted: 8 pairs, 8 results, \d+ messages \(by otto\)/);
  const audit = (await db.pool.query('SELECT event_type, actor FROM audit_log WHERE correlation_id = ? ORDER BY id', [
    `replay-${runId}`,
  ])) as Array<{
    event_type: string;
    actor: string;
  }>;
  assert.deepEqual(
    audit.map((a) => `${a.event_type}:${a.actor}`),
    ['replay_started:otto', 'replay_deleted:otto'],
  );
  const gone = await cli(['replay', 'status', runId]);
  assert.equal(gone.code, 1);
});
