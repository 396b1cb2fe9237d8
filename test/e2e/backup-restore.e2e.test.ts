/**
 * Backup and restore of a single-node install (docs/backup.md), on real servers: a Temporal dev
 * server persisting to a SQLite file, MariaDB, Dovecot, the SMTP listener and the worker, payloads
 * encrypted. Emails wait for approval; the intake is paused with `email-rag intake pause`;
 * `scripts/backup.sh` takes Temporal's snapshot, one email is approved and sent in the gap, then
 * the MariaDB dump and the files (the key file) are taken. Temporal, the database, the worker and
 * the key file are thrown away; `scripts/restore.sh` brings them back into a new dev server and a
 * new database. The waiting emails are approved there and each reply reaches the SMTP listener
 * exactly once — also the one sent in the gap, which the restored history still shows waiting.
 * Dovecot, the SMTP listener, the LLM double and the embedder stand for the world outside the
 * install and stay up.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import { promisify } from 'node:util';
import type { Client } from '@temporalio/client';
import { loadConfig, type Config } from '../../src/config';
import { approveUpdate, type EmailWorkflowResult } from '../../src/email/email.workflow';
import { installSchedules, pollScheduleId, triggerPoll } from '../../src/operations/schedules';
import { installWatchers } from '../../src/mailboxes/watchers';
import { DEFAULT_MAILBOX_ID } from '../../src/mailboxes/mailbox-registry';
import { connectTemporalClient } from '../../src/platform/temporal-connection';
import { createPool, type Pool } from '../../src/platform/pool.mariadb';
import { dropDatabase, migrate } from '../../src/platform/migrate.mariadb';
import { createEmailWorker, type RunningWorker } from '../../workers/email-worker';
import { currentDraftId } from '../support/decisions';
import { startTemporalDevServer, type TemporalDevServer } from '../support/services/temporal-dev-server';
import { MAILBOX_USER, sampleEmail, startStack, type TestStack } from '../support/stack';
import { waitFor } from '../support/wait';
import { workflowBundle } from '../support/workflow-bundle';

const run = promisify(execFile);
const root = path.resolve(__dirname, '../..');

/** One running install: Temporal, the product's database, a worker and a client. */
interface Install {
  env: Record<string, string>;
  config: Config;
  worker: RunningWorker;
  workerDone: Promise<void>;
  client: Client;
  close(): Promise<void>;
  pool: Pool;
}

let stack: TestStack;
let first: Install | undefined;
let restored: Install | undefined;
let restoredTemporal: TemporalDevServer | undefined;
let restoredDbUrl: string | undefined;

async function startInstall(env: Record<string, string>, pool: Pool): Promise<Install> {
  const config = loadConfig(env);
  const worker = await createEmailWorker(config, { workflowBundle: await workflowBundle() });
  const workerDone = worker.run();
  const { client, connection } = await connectTemporalClient(config);
  return { env, config, worker, workerDone, client, pool, close: () => connection.close() };
}

async function stopInstall(i: Install | undefined): Promise<void> {
  if (!i) return;
  await i.worker.shutdown();
  await i.workerDone.catch(() => undefined);
  await i.close();
}

const cli = (env: Record<string, string>, args: string[]) =>
  run(process.execPath, [path.join(root, 'bin/email-rag.js'), ...args], { env: { ...process.env, ...env }, cwd: root });

const script = (name: string, args: string[], env: Record<string, string>) =>
  run('bash', [path.join(root, 'scripts', name), ...args], { env: { ...process.env, ...env }, cwd: root });

async function emails(pool: Pool): Promise<Map<string, { id: string; status: string }>> {
  const rows = (await pool.query('SELECT id, message_id, status FROM emails')) as Array<{ id: string; message_id: string; status: string }>;
  return new Map(rows.map((r) => [r.message_id, { id: r.id, status: r.status }]));
}

/** Copies of the reply to this message at the SMTP listener (a reply quotes the original's Message-ID). */
const copiesFor = (messageId: string): number => stack.smtp.messages.filter((m) => m.raw.toString('utf8').includes(messageId)).length;

async function approve(i: Install, emailId: string): Promise<EmailWorkflowResult> {
  const handle = i.client.workflow.getHandle(emailId);
  await handle.executeUpdate(approveUpdate, { args: [{ draftId: await currentDraftId(i.client, emailId), by: 'olga' }] });
  return (await handle.result()) as EmailWorkflowResult;
}

const MAILS = ['<backup-a@customer.example>', '<backup-b@customer.example>', '<backup-c@customer.example>'];

before(async () => {
  stack = await startStack();
  // The payload key lives in a file the install reads its environment from: it is backed up with the rest.
  const conf = path.join(stack.dir, 'etc-email-rag');
  mkdirSync(conf, { recursive: true });
  writeFileSync(path.join(conf, 'email-rag.env'), `PAYLOAD_KEYS=k1:${randomBytes(32).toString('base64')}\nPAYLOAD_KEY_ID=k1\n`, {
    mode: 0o600,
  });
  first = await startInstall({ ...stack.env, ...readEnvFile(path.join(conf, 'email-rag.env')) }, stack.db.pool);
});

after(async () => {
  await stopInstall(restored);
  await restored?.pool.end().catch(() => undefined);
  await restoredTemporal?.stop();
  if (restoredDbUrl) await dropDatabase(restoredDbUrl).catch(() => undefined);
  await stopInstall(first);
  await stack?.stop();
});

function readEnvFile(file: string): Record<string, string> {
  return Object.fromEntries(
    readFileSync(file, 'utf8')
      .split('\n')
      .filter((l) => l.includes('='))
      .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
  );
}

async function pollNow(i: Install): Promise<void> {
  const schedule = i.client.schedule.getHandle(pollScheduleId(DEFAULT_MAILBOX_ID));
  const known = new Set((await schedule.describe()).info.recentActions.map((a) => a.action.workflow.workflowId));
  await triggerPoll(i.client, i.config);
  const id = await waitFor('poll run', async () =>
    (await schedule.describe()).info.recentActions.map((a) => a.action.workflow.workflowId).find((w) => !known.has(w)),
  );
  await i.client.workflow.getHandle(id).result();
}

test('backup with the intake paused, Temporal first and MariaDB after; restored into a new stack every waiting email is sent exactly once', async () => {
  const install = first!;
  const backupDir = path.join(stack.dir, 'backup');
  const temporalDb = path.join(stack.dir, 'temporal', 'temporal.db');
  const conf = path.join(stack.dir, 'etc-email-rag');

  await installSchedules(install.client, install.config);
  await installWatchers(install.client, install.config);
  // The first poll connects the mailbox: mail already there counts as its history and gets no reply.
  await pollNow(install);
  for (const [n, messageId] of MAILS.entries())
    await stack.dovecot.deliver(MAILBOX_USER, sampleEmail({ messageId, subject: `Rechnung ${n + 1} doppelt abgebucht` }));
  await pollNow(install);
  const waiting = await waitFor(
    'three emails awaiting approval',
    async () => {
      const e = await emails(install.pool);
      return MAILS.every((m) => e.get(m)?.status === 'awaiting_approval') ? e : undefined;
    },
    180_000,
    500,
  );
  const ids = MAILS.map((m) => waiting.get(m)!.id);
  for (const id of ids) await currentDraftId(install.client, id, 60_000);

  // 1. Nothing new enters the pipeline: schedules paused, IDLE watcher ended, no poll running.
  const paused = await cli(install.env, ['intake', 'pause', '--by', 'ops', '--wait-seconds', '120']);
  assert.match(paused.stdout, /schedules paused: .*imap-poll-default/);
  assert.match(paused.stdout, /IDLE watchers stopped: watch-default/);
  assert.match(paused.stdout, /intake paused: no poll run is running/);

  // 2. Temporal's snapshot, online (the dev server and the worker keep running).
  await script('backup.sh', [backupDir, 'temporal'], { TEMPORAL_DB: temporalDb });
  // 3. In the gap the first email is approved and sent: the snapshot still shows it waiting.
  assert.equal((await approve(install, ids[0]!)).status, 'sent');
  await stack.smtp.waitForMessages(1, 60_000);
  // 4. MariaDB after Temporal, then the files (the payload key).
  await script('backup.sh', [backupDir, 'mariadb', 'files'], { DATABASE_URL: stack.db.url, BACKUP_FILES: conf });
  assert.equal(statSync(backupDir).mode & 0o777, 0o700, 'the backup folder is readable by its owner only');

  // Everything of the install is gone: worker, Temporal, the database, the key file.
  await stopInstall(install);
  first = undefined;
  await stack.temporal!.stop();
  await stack.db.drop();
  rmSync(conf, { recursive: true });

  // Restore into a new dev server's file, a new database, the files back in place.
  const newTemporalDir = path.join(stack.dir, 'temporal-restored');
  restoredDbUrl = stack.db.url.replace(/\/([^/]+)$/, '/$1_restored');
  await script('restore.sh', [backupDir], { TEMPORAL_DB: path.join(newTemporalDir, 'temporal.db'), DATABASE_URL: restoredDbUrl });
  assert.equal(statSync(path.join(conf, 'email-rag.env')).mode & 0o777, 0o600, 'the key file comes back readable by its owner only');
  assert.deepEqual((await migrate(restoredDbUrl)).applied, [], 'the dump holds every migration');
  restoredTemporal = await startTemporalDevServer({ dataDir: newTemporalDir, headless: true });
  const env = {
    ...stack.env,
    ...readEnvFile(path.join(conf, 'email-rag.env')),
    TEMPORAL_ADDRESS: restoredTemporal.address,
    DATABASE_URL: restoredDbUrl,
  };
  restored = await startInstall(env, createPool(restoredDbUrl, 2));

  // MariaDB knows the gap's send; the restored history does not.
  const before = await emails(restored.pool);
  assert.deepEqual(
    MAILS.map((m) => before.get(m)?.status),
    ['sent', 'awaiting_approval', 'awaiting_approval'],
  );
  const resumed = await cli(env, ['intake', 'resume']);
  assert.match(resumed.stdout, /schedules resumed: .*imap-poll-default/);
  assert.equal((await restored.client.schedule.getHandle(pollScheduleId(DEFAULT_MAILBOX_ID)).describe()).state.paused, false);

  // Every waiting email is still approvable; the one sent in the gap ends sent without a second copy.
  for (const id of ids) assert.equal((await approve(restored, id)).status, 'sent', id);
  await stack.smtp.waitForMessages(3, 60_000);
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  assert.deepEqual(
    MAILS.map((m) => copiesFor(m)),
    [1, 1, 1],
    'each reply reached the SMTP listener exactly once',
  );
  const { received, duplicates } = stack.smtp.counts();
  assert.deepEqual({ received, duplicates }, { received: 3, duplicates: 0 });
  const audit = (await restored.pool.query(`SELECT COUNT(*) AS n FROM audit_log WHERE email_id = ? AND event_type = 'already_sent'`, [
    ids[0],
  ])) as Array<{ n: number }>;
  assert.equal(Number(audit[0]?.n), 1, 'the gap email ended as already sent, recorded in the audit log');
});
