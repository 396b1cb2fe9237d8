/**
 * `email-rag schedules install` with a mailbox registry, on a real Temporal dev server: one poll
 * schedule per enabled mailbox, created, updated, left alone or removed as the registry changes.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import { Client, Connection, ScheduleOverlapPolicy } from '@temporalio/client';
import { POLL_SCHEDULE_PREFIX, pollScheduleId } from '../../src/operations/schedules';
import { WORKFLOW_TYPES } from '../../src/platform/contract';
import { startTemporalDevServer, type TemporalDevServer } from '../support/services/temporal-dev-server';
import { writeRegistry, type TestMailbox } from '../support/mailbox-registry-file';
import { waitFor } from '../support/wait';

let dir: string;
let temporal: TemporalDevServer;
let connection: Connection;
let client: Client;
let env: Record<string, string>;
const registry = () => path.join(dir, 'mailboxes.yaml');
const TASK_QUEUE = 'email-rag-schedules-test';

const support: TestMailbox = {
  id: 'support',
  user: 'support@example.test',
  passwordEnv: 'SUPPORT_IMAP_PASSWORD',
  from: 'Support <support@example.test>',
  folders: ['INBOX', 'Escalations'],
  pollIntervalSeconds: 60,
};
const billing: TestMailbox = {
  id: 'billing',
  user: 'billing@example.test',
  passwordEnv: 'BILLING_IMAP_PASSWORD',
  from: 'Billing <billing@example.test>',
  pollIntervalSeconds: 120,
};

before(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'email-rag-schedules-'));
  temporal = await startTemporalDevServer({ dataDir: path.join(dir, 'temporal'), headless: true });
  connection = await Connection.connect({ address: temporal.address });
  client = new Client({ connection });
  env = { TEMPORAL_ADDRESS: temporal.address, TEMPORAL_TASK_QUEUE: TASK_QUEUE, MAILBOXES_FILE: registry() };
});
after(async () => {
  await connection?.close();
  await temporal?.stop();
  rmSync(dir, { recursive: true, force: true });
});

function cli(args: string[], extra: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, ['bin/email-rag.js', ...args], { env: { ...process.env, ...env, ...extra } }, (err, stdout, stderr) =>
      resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

/** `schedule <id> <action>` lines of the install output, as a map. */
async function install(extra: Record<string, string> = {}): Promise<Map<string, string>> {
  const r = await cli(['schedules', 'install'], extra);
  assert.equal(r.code, 0, r.stderr);
  const actions = new Map<string, string>();
  for (const line of r.stdout.trim().split('\n')) {
    const m = /^schedule (\S+) (created|updated|unchanged|removed)$/.exec(line);
    assert.ok(m, `unexpected output line: ${line}`);
    actions.set(m[1]!, m[2]!);
  }
  return actions;
}

/** Poll schedule ids the namespace lists (the list is eventually consistent: callers wait on it). */
async function listedPollSchedules(): Promise<string[]> {
  const ids: string[] = [];
  for await (const s of client.schedule.list()) if (s.scheduleId.startsWith(POLL_SCHEDULE_PREFIX)) ids.push(s.scheduleId);
  return ids.sort();
}

async function pollScheduleCreate(id: string, taskQueue: string): Promise<void> {
  await client.schedule.create({
    scheduleId: id,
    spec: { intervals: [{ every: '60 seconds' }] },
    action: {
      type: 'startWorkflow',
      workflowType: WORKFLOW_TYPES.imapPoll,
      workflowId: 'poll-old',
      taskQueue,
      args: [{ mailbox: 'INBOX' }],
    },
    policies: { overlap: ScheduleOverlapPolicy.SKIP },
    state: { paused: true },
  });
}

test('one poll schedule per enabled mailbox; install follows the registry and says what it did', { timeout: 300_000 }, async () => {
  // What the single-account installation left behind, and another installation's schedule in the same namespace.
  const legacy = 'imap-poll-support@example.test-INBOX';
  await pollScheduleCreate(legacy, TASK_QUEUE);
  await pollScheduleCreate('imap-poll-elsewhere', 'another-installation');
  await waitFor('the old schedules listed', async () => (await listedPollSchedules()).includes(legacy));

  writeRegistry(registry(), [support, billing]);
  const first = await install();
  assert.equal(first.get(pollScheduleId('support')), 'created');
  assert.equal(first.get(pollScheduleId('billing')), 'created');
  assert.equal(first.get('cleanup-stuck-jobs'), 'created');
  assert.equal(first.get(legacy), 'removed', 'the single-account schedule id is replaced');
  assert.equal(first.has('imap-poll-elsewhere'), false, 'another task queue is not ours to remove');

  const d = await client.schedule.getHandle(pollScheduleId('support')).describe();
  assert.deepEqual(d.action.args, [{ mailboxId: 'support' }]);
  assert.equal(d.action.workflowId, 'poll-support');
  assert.equal(d.action.taskQueue, TASK_QUEUE);
  assert.equal(d.spec.intervals?.[0]?.every, 60_000);
  assert.match(d.state.note ?? '', /support.*INBOX, Escalations/);
  assert.equal((await client.schedule.getHandle(pollScheduleId('billing')).describe()).spec.intervals?.[0]?.every, 120_000);
  await client.schedule.getHandle('imap-poll-elsewhere').describe(); // still there

  // billing leaves the registry.
  await waitFor('billing listed', async () => (await listedPollSchedules()).includes(pollScheduleId('billing')));
  writeRegistry(registry(), [support]);
  const second = await install();
  assert.equal(second.get(pollScheduleId('billing')), 'removed');
  assert.equal(second.get(pollScheduleId('support')), 'unchanged');
  await assert.rejects(client.schedule.getHandle(pollScheduleId('billing')).describe());
  await waitFor('billing gone from the list', async () => !(await listedPollSchedules()).includes(pollScheduleId('billing')));
  assert.deepEqual(await listedPollSchedules(), ['imap-poll-elsewhere', pollScheduleId('support')]);

  // Nothing changed: nothing to do.
  const third = await install();
  assert.deepEqual([...third.values()].sort(), ['unchanged', 'unchanged', 'unchanged', 'unchanged', 'unchanged']);

  // A new interval is an update of the same schedule, paused state kept.
  await client.schedule.getHandle(pollScheduleId('support')).pause('maintenance');
  writeRegistry(registry(), [{ ...support, pollIntervalSeconds: 300 }]);
  const fourth = await install();
  assert.equal(fourth.get(pollScheduleId('support')), 'updated');
  assert.equal(fourth.get('reindex-sync'), 'unchanged');
  const updated = await client.schedule.getHandle(pollScheduleId('support')).describe();
  assert.equal(updated.spec.intervals?.[0]?.every, 300_000);
  assert.equal(updated.state.paused, true, 'an operator pause survives the update');

  // Disabling support and adding billing back: support's schedule goes, billing's comes.
  await waitFor('support listed', async () => (await listedPollSchedules()).includes(pollScheduleId('support')));
  writeRegistry(registry(), [{ ...support, pollIntervalSeconds: 300, enabled: false }, billing]);
  const fifth = await install();
  assert.equal(fifth.get(pollScheduleId('support')), 'removed');
  assert.equal(fifth.get(pollScheduleId('billing')), 'created');
});

test('email-rag poll runs one mailbox or every enabled one, and refuses unknown or disabled ids', { timeout: 120_000 }, async () => {
  // The test before left billing's schedule at 120 s: a run it started on a two-minute boundary
  // (no worker here, so it never ends) would be the poll "in progress" below. Start from none.
  const left = client.schedule.getHandle(pollScheduleId('billing'));
  const leftRuns = (await left.describe().catch(() => undefined))?.info.runningActions ?? [];
  for (const a of leftRuns) await client.workflow.getHandle(a.workflow.workflowId).terminate('left by the test before');
  await left.delete().catch(() => undefined);
  // A day's interval: the schedule's own run (at midnight UTC) never falls into this test, however slow the machine.
  writeRegistry(registry(), [
    { ...support, enabled: false },
    { ...billing, pollIntervalSeconds: 86_400 },
  ]);
  await install();
  const before = (await client.schedule.getHandle(pollScheduleId('billing')).describe()).info.numActionsTaken;
  const all = await cli(['poll']);
  assert.equal(all.code, 0, all.stderr);
  assert.match(all.stdout, /poll triggered: billing$/m);
  const schedule = client.schedule.getHandle(pollScheduleId('billing'));
  await waitFor('the run of the billing schedule', async () => (await schedule.describe()).info.runningActions.length === 1);
  // No worker runs it here, so it stays in progress: a second request waits behind it, never beside it.
  const one = await cli(['poll', '--mailbox', 'billing']);
  assert.equal(one.code, 0, one.stderr);
  const running = (await schedule.describe()).info.runningActions.map((a) => a.workflow.workflowId);
  assert.match(one.stdout, new RegExp(`^poll of billing queued: it runs when the poll in progress \\(${running[0]}\\) ends$`, 'm'));
  await new Promise((r) => setTimeout(r, 1_500));
  const info = (await schedule.describe()).info;
  assert.equal(info.numActionsTaken, before + 1, 'the queued run has not started beside the first');
  assert.equal(info.runningActions.length, 1);
  const unknown = await cli(['poll', '--mailbox', 'nope']);
  assert.equal(unknown.code, 2);
  assert.match(unknown.stderr, /no mailbox "nope".*known: support, billing/);
  const disabled = await cli(['poll', '--mailbox', 'support']);
  assert.equal(disabled.code, 2);
  assert.match(disabled.stderr, /disabled/);
});

test('mailboxes disable edits the registry file in place, and the next install removes the schedule', { timeout: 120_000 }, async () => {
  writeRegistry(registry(), [support, billing]);
  await install();
  await waitFor('billing listed', async () => (await listedPollSchedules()).includes(pollScheduleId('billing')));
  const off = await cli(['mailboxes', 'disable', 'billing']);
  assert.equal(off.code, 0, off.stderr);
  assert.match(off.stdout, /mailbox billing disabled in .*mailboxes\.yaml; run `email-rag schedules install` to remove its poll schedule/);
  const text = readFileSync(registry(), 'utf8');
  assert.match(text, /^# mailboxes of this installation$/m, 'the comment survives');
  assert.match(text, /^ {2}- id: billing\n {4}enabled: false$/m);
  assert.equal((await install()).get(pollScheduleId('billing')), 'removed');
  const last = await cli(['mailboxes', 'disable', 'support']);
  assert.equal(last.code, 2);
  assert.match(last.stderr, /"support" is the only enabled mailbox/);
  const on = await cli(['mailboxes', 'enable', 'billing']);
  assert.equal(on.code, 0, on.stderr);
  assert.equal((await install()).get(pollScheduleId('billing')), 'created');
});
