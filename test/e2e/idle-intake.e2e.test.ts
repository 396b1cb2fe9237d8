/**
 * Push intake (IMAP IDLE) end to end on real servers: Temporal dev server, MariaDB, Dovecot, an
 * SMTP listener and two workers; only the LLM is a test double. The poll interval is an hour, so
 * mail that reaches awaiting approval was taken because its watcher woke the poll, not because the
 * schedule fired. Mailbox `support` reaches Dovecot through a TCP relay the test can cut.
 */
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import { Client, Connection, WorkflowNotFoundError } from '@temporalio/client';
import type { ImapFlow } from 'imapflow';
import { status, formatStatus } from '../../src/operations/status.cli';
import { installSchedules, triggerPoll } from '../../src/operations/schedules';
import { installWatchers } from '../../src/mailboxes/watchers';
import { WATCHER_STATES } from '../../src/mailboxes/mailboxes.contract';
import { WORKFLOW_TYPES } from '../../src/platform/contract';
import { loadConfig, type Config } from '../../src/config';
import { imapEmailId } from '../../src/email/email-input';
import { watchWorkflowId } from '../../src/mailboxes/schedule-ids';
import { createEmailWorker, type RunningWorker } from '../../workers/email-worker';
import { BUSINESS_METRICS, startBusinessMetricsSampler } from '../../workers/business-metrics';
import { createMariaDbOperatingFigures } from '../../src/operations/operating-figures.mariadb';
import { createMariaDbWatcherHealth } from '../../src/mailboxes/watcher-health.mariadb';
import type { MetricMeter } from '@temporalio/common';
import { withImap } from '../support/imap-session';
import { writeRegistry } from '../support/mailbox-registry-file';
import { MAILBOX_PASSWORD, MAILBOX_USER, sampleEmail, startStack, type TestStack } from '../support/stack';
import { startTcpProxy } from '../support/tcp-proxy';
import { startWorkerProcess, type WorkerProcess } from '../support/services/worker-process';
import { waitFor } from '../support/wait';
import { workflowBundle } from '../support/workflow-bundle';

const BILLING_USER = 'billing@example.test';
const BROKEN_USER = 'broken@example.test';

let stack: TestStack;
let proxy: Awaited<ReturnType<typeof startTcpProxy>>;
let config: Config;
let env: Record<string, string>;
const workers: RunningWorker[] = [];
const runs: Array<Promise<void>> = [];
let connection: Connection;
let client: Client;
let workerProcess: WorkerProcess | undefined;

before(async () => {
  stack = await startStack({
    extraUsers: [
      { user: BILLING_USER, password: 'billing-secret' },
      { user: BROKEN_USER, password: 'the-real-one' },
    ],
  });
  proxy = await startTcpProxy({ host: stack.dovecot.host, port: stack.dovecot.port });
  // A folder must exist to be watched; what is in it before the first poll is history.
  await stack.dovecot.deliver(MAILBOX_USER, sampleEmail({ subject: 'Alte Eskalation' }), 'Escalations');
  const registry = path.join(stack.dir, 'mailboxes.yaml');
  writeRegistry(registry, [
    {
      id: 'support',
      user: MAILBOX_USER,
      passwordEnv: 'SUPPORT_IMAP_PASSWORD',
      folders: ['INBOX', 'Escalations'],
      from: 'Support <support@example.test>',
      imap: { host: '127.0.0.1', port: proxy.port },
      pollIntervalSeconds: 3600,
    },
    { id: 'billing', user: BILLING_USER, passwordEnv: 'BILLING_IMAP_PASSWORD', from: 'billing@example.test', enabled: false },
    { id: 'broken', user: BROKEN_USER, passwordEnv: 'BROKEN_IMAP_PASSWORD', from: 'broken@example.test', pollIntervalSeconds: 3600 },
  ]);
  env = {
    ...stack.env,
    MAILBOXES_FILE: registry,
    SUPPORT_IMAP_PASSWORD: MAILBOX_PASSWORD,
    BILLING_IMAP_PASSWORD: 'billing-secret',
    BROKEN_IMAP_PASSWORD: 'a-wrong-password',
  };
  config = loadConfig(env);
  assert.equal(config.imap.idle, true, 'IMAP_IDLE is on by default');
  const bundle = await workflowBundle();
  // Two workers of one installation: any of them may hold a watch, never both.
  for (let i = 0; i < 2; i++) {
    const w = await createEmailWorker(config, { workflowBundle: bundle });
    workers.push(w);
    runs.push(w.run());
  }
  connection = await Connection.connect({ address: config.temporal.address });
  client = new Client({ connection, namespace: 'default' });
  await installSchedules(client, config);
});

after(async () => {
  await workerProcess?.stop().catch(() => workerProcess?.kill());
  await Promise.all(workers.map((w) => w.shutdown()));
  await Promise.allSettled(runs);
  await connection?.close();
  await proxy?.stop();
  await stack?.stop();
});

const imap = <T>(fn: (c: ImapFlow) => Promise<T>): Promise<T> =>
  withImap({ host: stack.dovecot.host, port: stack.dovecot.port, user: MAILBOX_USER, password: MAILBOX_PASSWORD }, fn);

/** Appends a customer mail over IMAP (as a mail client would) and returns the email id it gets. */
async function append(folder: string, subject: string): Promise<string> {
  const r = await imap((c) => c.append(folder, sampleEmail({ subject })));
  assert.ok(r && r.uid, 'IMAP APPEND returned a UID');
  return imapEmailId(MAILBOX_USER, folder, Number(r.uidValidity), r.uid);
}

async function emailStatus(id: string): Promise<string | undefined> {
  const rows = (await stack.db.pool.query('SELECT status FROM emails WHERE id = ?', [id])) as Array<{ status: string }>;
  return rows[0]?.status;
}

const awaitingApproval = (id: string) =>
  waitFor(`${id} awaiting approval`, async () => (await emailStatus(id)) === 'awaiting_approval', 120_000);

async function watcherRow(
  mailboxId: string,
  folder: string,
): Promise<{ state: string; reconnects: number; last_error: string | null } | undefined> {
  const rows = (await stack.db.pool.query(
    'SELECT state, reconnects, last_error FROM mailbox_watchers WHERE mailbox_id = ? AND folder = ?',
    [mailboxId, folder],
  )) as Array<{ state: string; reconnects: number; last_error: string | null }>;
  return rows[0];
}

async function auditEvents(type: string): Promise<Array<{ message: string }>> {
  return (await stack.db.pool.query('SELECT message FROM audit_log WHERE event_type = ? ORDER BY id', [type])) as Array<{
    message: string;
  }>;
}

async function runningWatchers(): Promise<string[]> {
  const ids: string[] = [];
  for await (const w of client.workflow.list({ query: `WorkflowType = '${WORKFLOW_TYPES.mailboxWatch}' AND ExecutionStatus = 'Running'` }))
    ids.push(w.workflowId);
  return ids.sort();
}

test('one watcher per enabled mailbox however many installs race, none for a disabled one', async () => {
  const [a, b] = await Promise.all([installWatchers(client, config), installWatchers(client, config)]);
  const started = [...a, ...b].filter((r) => r.action === 'started').map((r) => r.id);
  assert.deepEqual([...new Set(started)].sort(), [watchWorkflowId('broken'), watchWorkflowId('support')].sort());
  const again = await installWatchers(client, config);
  assert.deepEqual(again.map((r) => r.action).sort(), ['running', 'running'], 'a second install starts nothing');
  await waitFor('two watcher workflows listed', async () => (await runningWatchers()).length === 2 || undefined, 30_000);
  assert.deepEqual(await runningWatchers(), [watchWorkflowId('broken'), watchWorkflowId('support')]);
  await assert.rejects(client.workflow.getHandle(watchWorkflowId('billing')).describe(), WorkflowNotFoundError);

  // Each folder of support is held by exactly one activity of the one watcher, on one of the two workers.
  for (const folder of ['INBOX', 'Escalations']) {
    await waitFor(`support/${folder} idle`, async () => (await watcherRow('support', folder))?.state === WATCHER_STATES.idle, 60_000);
  }
  const pending = (await client.workflow.getHandle(watchWorkflowId('support')).describe()).raw.pendingActivities ?? [];
  // INBOX, Escalations and the Sent folder, where a reply a person files is an answer beside the assistant.
  assert.equal(pending.length, 3, 'one watch activity per folder');
  // Connecting woke the poll: the folders are connected (their mail so far is history).
  await waitFor('support polled for the first time', async () => {
    const rows = (await stack.db.pool.query("SELECT COUNT(*) AS n FROM mailbox_polls WHERE mailbox_id = 'support'")) as Array<{
      n: number;
    }>;
    return Number(rows[0]?.n) === 2 || undefined;
  });

  // A refused login is visible and audited, and only that mailbox's watcher suffers.
  await waitFor('broken reconnecting', async () => (await watcherRow('broken', 'INBOX'))?.state === WATCHER_STATES.reconnecting, 60_000);
  assert.match((await watcherRow('broken', 'INBOX'))!.last_error ?? '', /^IMAP_AUTH: /);
  // The watcher records its state first, then the audit row: wait for the row as well.
  await waitFor(
    'the lost connection audited',
    async () => (await auditEvents('watcher_disconnected')).some((e) => /^broken\/INBOX: .*IMAP_AUTH/.test(e.message)) || undefined,
    30_000,
  );

  const text = formatStatus(await status(config));
  assert.match(text, /^ {6}push \(IDLE\): idle since \S+, \d+ wake-ups, 0 reconnects$/m);
  assert.match(text, /^ {6}push \(IDLE\): RECONNECTING since \S+; last error: IMAP_AUTH: /m);
  assert.match(text, /^ {2}billing \(disabled\): no emails\n {4}INBOX: never polled\n {6}push \(IDLE\): off$/m);
});

test('mail appended to a watched folder reaches awaiting approval without the schedule firing', async () => {
  const first = await append('INBOX', 'Rechnung 2024-117 doppelt abgebucht');
  await awaitingApproval(first);
  // A burst while a poll run is under way: the run queued after it takes the rest.
  const burst = [];
  for (let i = 0; i < 3; i++) burst.push(await append('INBOX', `Lieferung ${i} verspätet`));
  burst.push(await append('Escalations', 'Dringend: Zugang gesperrt'));
  for (const id of burst) await awaitingApproval(id);
  const { info } = await client.schedule.getHandle('imap-poll-support').describe();
  assert.ok(info.recentActions.length >= 2, 'the poll runs were the watcher’s triggers');
});

test('a cut connection: the watcher reconnects with backoff and the next mail is taken', async () => {
  const before = (await watcherRow('support', 'INBOX'))!.reconnects;
  proxy.cut();
  await waitFor(
    'support/INBOX reconnecting',
    async () => (await watcherRow('support', 'INBOX'))?.state === WATCHER_STATES.reconnecting,
    60_000,
  );
  assert.match(formatStatus(await status(config)), /push \(IDLE\): RECONNECTING since \S+; last error: IMAP_UNAVAILABLE: /);
  proxy.restore();
  await waitFor(
    'support/INBOX idle again',
    async () => {
      const row = await watcherRow('support', 'INBOX');
      return (row?.state === WATCHER_STATES.idle && row.reconnects > before) || undefined;
    },
    90_000,
  );
  // The row says idle once the watcher is back; its audit row follows a moment later.
  await waitFor('the watcher_reconnected audit row', async () =>
    (await auditEvents('watcher_reconnected')).some((e) => e.message.startsWith('support/INBOX: ')),
  );
  const id = await append('INBOX', 'Nach dem Neustart: Passwort zurücksetzen');
  await awaitingApproval(id);
});

/** A recording MetricMeter (test double of the SDK's Prometheus meter): the last value per metric and label set. */
function recordingMeter() {
  const values = new Map<string, number>();
  const key = (name: string, tags: Record<string, unknown> = {}) => `${name}${JSON.stringify(Object.entries(tags).sort())}`;
  const meter = {
    createGauge: (name: string) => ({ set: (v: number, tags?: Record<string, unknown>) => values.set(key(name, tags), v) }),
    createCounter: (name: string) => ({
      add: (v: number, tags?: Record<string, unknown>) => values.set(key(name, tags), (values.get(key(name, tags)) ?? 0) + v),
    }),
    createHistogram: () => ({ record: () => undefined }),
    withTags: () => meter,
  };
  return { meter: meter as unknown as MetricMeter, value: (name: string, tags: Record<string, string>) => values.get(key(name, tags)) };
}

test('metrics: folders per watcher state and reconnects per mailbox', async () => {
  const { meter, value } = recordingMeter();
  const mailboxes = config.mailboxes.filter((m) => m.enabled).map((m) => ({ id: m.id, folders: m.imap.folders }));
  const sampler = startBusinessMetricsSampler(createMariaDbOperatingFigures(stack.db.pool), meter, 200, {
    mailboxes,
    watchers: { on: true, list: () => createMariaDbWatcherHealth(stack.db.pool).list() },
  });
  try {
    const m = BUSINESS_METRICS;
    await waitFor('the watcher gauge', async () => value(m.idleWatchers, { mailbox: 'support', state: 'idle' }) === 2 || undefined, 30_000);
    assert.equal(value(m.idleWatchers, { mailbox: 'support', state: 'reconnecting' }), 0);
    assert.equal(value(m.idleWatchers, { mailbox: 'broken', state: 'reconnecting' }), 1);
    assert.equal(value(m.idleReconnects, { mailbox: 'support' }), 0, 'counted from the sampler’s start');
    // The refused login is retried every 30 s: each attempt counts.
    await waitFor(
      'a reconnect of broken counted',
      async () => (value(m.idleReconnects, { mailbox: 'broken' }) ?? 0) > 0 || undefined,
      90_000,
    );
  } finally {
    await sampler.stop();
  }
});

test('IMAP_IDLE=off: the watchers stop and the schedule alone takes mail', async () => {
  const off = loadConfig({ ...env, IMAP_IDLE: 'off' });
  const stopped = await installWatchers(client, off);
  assert.deepEqual(stopped.map((r) => `${r.id} ${r.action}`).sort(), [
    `${watchWorkflowId('broken')} stopped`,
    `${watchWorkflowId('support')} stopped`,
  ]);
  await waitFor('support/INBOX stopped', async () => (await watcherRow('support', 'INBOX'))?.state === WATCHER_STATES.stopped, 60_000);
  assert.match(formatStatus(await status(off)), /^ {4}INBOX: last success \S+\n {6}push \(IDLE\): off$/m);
  assert.deepEqual(await installWatchers(client, off), [], 'nothing left to stop');

  const id = await append('INBOX', 'Vertrag kündigen');
  await triggerPoll(client, off, 'support');
  await awaitingApproval(id);
});

test('a watcher started for a disabled mailbox ends at once, audited', async () => {
  const handle = await client.workflow.start(WORKFLOW_TYPES.mailboxWatch, {
    taskQueue: config.temporal.taskQueue,
    workflowId: watchWorkflowId('billing'),
    args: [{ mailboxId: 'billing' }],
  });
  assert.deepEqual(await handle.result(), { mailboxId: 'billing', stopped: 'disabled' });
  assert.ok((await auditEvents('watcher_stopped')).some((e) => e.message.startsWith('billing: no IDLE watcher (mailbox disabled)')));
});

test('new mail noticed without a poll schedule to wake: audited, the watcher stays connected', async () => {
  await client.schedule.getHandle('imap-poll-support').delete();
  try {
    await installWatchers(client, config);
    await waitFor(
      'the failed wake-up audited',
      async () =>
        (await auditEvents('watcher_wake_failed')).some((e) => /^support\/\w+: .*POLL_SCHEDULE_MISSING/.test(e.message)) || undefined,
      60_000,
    );
    await waitFor('support/INBOX idle', async () => (await watcherRow('support', 'INBOX'))?.state === WATCHER_STATES.idle, 60_000);
  } finally {
    await installSchedules(client, config);
  }
  // With the schedule back, the next notice brings the mail in.
  await awaitingApproval(await append('INBOX', 'Rückruf erbeten'));
});

test('a cancelled watcher stops for good instead of starting its next session; an install starts it again', async () => {
  const handle = client.workflow.getHandle(watchWorkflowId('support'));
  await handle.cancel();
  assert.deepEqual(await handle.result(), { mailboxId: 'support', stopped: 'cancelled' });
  assert.equal((await handle.describe()).status.name, 'COMPLETED');
  await installWatchers(client, config);
  await waitFor('support/INBOX idle again', async () => (await watcherRow('support', 'INBOX'))?.state === WATCHER_STATES.idle, 60_000);
  await awaitingApproval(await append('INBOX', 'Nach dem Abbruch'));
});

test('the workers holding the watch stop: another worker process takes it over and the next mail is taken', async () => {
  workerProcess = await startWorkerProcess(env, path.join(stack.dir, 'worker-3.log'));
  const before = (await watcherRow('support', 'INBOX'))!.reconnects;
  // Both in-process workers stop; their watch activities hand the watch on instead of ending it.
  await Promise.all(workers.map((w) => w.shutdown()));
  await waitFor(
    'support/INBOX idle on the worker process',
    async () => {
      const row = await watcherRow('support', 'INBOX');
      return (row?.state === WATCHER_STATES.idle && row.reconnects > before) || undefined;
    },
    90_000,
  );
  assert.deepEqual(await runningWatchers(), [watchWorkflowId('broken'), watchWorkflowId('support')], 'still one watcher per mailbox');
  await awaitingApproval(await append('INBOX', 'Nach dem Wechsel des Workers: Rechnung fehlt'));
});
