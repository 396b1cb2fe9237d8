/**
 * The poll activity on a real Dovecot, MariaDB and Temporal dev server (no worker runs, so the
 * started workflows simply wait in their task queue and can be inspected).
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Client, Connection } from '@temporalio/client';
import { loadConfig } from '../../src/config';
import type { EmailWorkflowInput } from '../../src/email/email-input';
import { MAILBOX_USER, sampleEmail, startStack, type TestStack } from '../support/stack';
import { activityHarness } from './support';

let stack: TestStack;
let h: ReturnType<typeof activityHarness>;
let client: Client;
let connection: Connection;

before(async () => {
  stack = await startStack({ env: { IMAP_IMPORT_HISTORY: 'true' } });
  h = activityHarness(stack.config);
  connection = await Connection.connect({ address: stack.config.temporal.address });
  client = new Client({ connection });
});
after(async () => {
  await h?.close();
  await connection?.close();
  await stack?.stop();
});

async function startInput(workflowId: string): Promise<EmailWorkflowInput> {
  const history = await client.workflow.getHandle(workflowId).fetchHistory();
  const payload = history.events?.[0]?.workflowExecutionStartedEventAttributes?.input?.payloads?.[0]?.data;
  return JSON.parse(Buffer.from(payload ?? []).toString('utf8')) as EmailWorkflowInput;
}

const poll = (id: string) => h.run(id, h.activities.pollMailbox, {});

test('with IMAP_IMPORT_HISTORY, existing mail is imported as history (never answered); new mail is answered', async () => {
  await stack.dovecot.deliver(MAILBOX_USER, sampleEmail({ subject: 'old 1' }));
  await stack.dovecot.deliver(MAILBOX_USER, sampleEmail({ subject: 'old 2' }));
  const first = await poll('poll-1');
  assert.equal(first.started.length, 2);
  for (const id of first.started) assert.equal((await startInput(id)).historyOnly, true, id);

  await stack.dovecot.deliver(MAILBOX_USER, sampleEmail({ subject: 'new' }));
  const second = await poll('poll-2');
  assert.equal(second.started.length, 1);
  assert.equal((await startInput(second.started[0]!)).historyOnly, false);
  const audit = (await stack.db.pool.query(`SELECT message FROM audit_log WHERE event_type = 'mailbox_connected'`)) as Array<{
    message: string;
  }>;
  assert.equal(audit.length, 1);
  assert.match(audit[0]!.message, /imported as history/);
});

test('overlapping polls and a lost watermark write never start a message twice', async () => {
  await stack.dovecot.deliver(MAILBOX_USER, sampleEmail({ subject: 'race' }));
  const [a, b] = await Promise.all([poll('poll-a'), poll('poll-b')]);
  const started = [...a.started, ...b.started];
  assert.equal(started.length, 1, JSON.stringify({ a, b }));

  // Rewind the watermark as if its write had been lost: everything is found again, nothing restarts.
  await stack.db.pool.query('UPDATE mailbox_watermarks SET last_uid = 0');
  const replay = await poll('poll-c');
  assert.deepEqual(replay.started, []);
  assert.equal(replay.existing.length, 4);
});

test('without IMAP_IMPORT_HISTORY a newly connected mailbox starts nothing for its existing mail', async () => {
  const fresh = activityHarness(loadConfig({ ...stack.env, IMAP_IMPORT_HISTORY: 'false', IMAP_FOLDER: 'Archive' }));
  try {
    await stack.dovecot.deliver(MAILBOX_USER, sampleEmail({ subject: 'archived' }), 'Archive');
    const first = await fresh.run('poll-archive-1', fresh.activities.pollMailbox, {});
    assert.deepEqual(first.started, []);
    await stack.dovecot.deliver(MAILBOX_USER, sampleEmail({ subject: 'arrives later' }), 'Archive');
    const second = await fresh.run('poll-archive-2', fresh.activities.pollMailbox, {});
    assert.equal(second.started.length, 1);
    assert.match(second.started[0]!, /-Archive-/);
  } finally {
    await fresh.close();
  }
});

test('priority is decided at intake from headers and rules; backpressure takes fewer while the backlog is full', async () => {
  const limited = activityHarness(
    loadConfig({
      ...stack.env,
      IMAP_FOLDER: 'Priority',
      BACKLOG_LIMIT: '3',
      PRIORITY_RULES: 'critical:keyword=ausfall;low:keyword=newsletter',
    }),
  );
  try {
    await assert.rejects(limited.run('poll-prio-x', limited.activities.pollMailbox, {}), { code: 'IMAP_NO_MAILBOX' });
    await stack.dovecot.deliver(MAILBOX_USER, sampleEmail({ subject: 'was there before' }), 'Priority');
    await limited.run('poll-prio-0', limited.activities.pollMailbox, {}); // connect the folder
    await stack.dovecot.deliver(MAILBOX_USER, sampleEmail({ subject: 'Totaler Ausfall im Lager' }), 'Priority');
    await stack.dovecot.deliver(MAILBOX_USER, sampleEmail({ subject: 'Frage', extra: ['X-Priority: 1 (Highest)'] }), 'Priority');
    await stack.dovecot.deliver(MAILBOX_USER, sampleEmail({ subject: 'Unser Newsletter' }), 'Priority');
    await stack.dovecot.deliver(MAILBOX_USER, sampleEmail({ subject: 'Später' }), 'Priority');
    // Two emails in intake already: room for one more. An approved reply waiting for SMTP and a
    // draft waiting for a person are not intake: they take no room.
    for (const [id, status] of [
      ['busy-1', 'parsed'],
      ['busy-2', 'drafted'],
      ['replying-1', 'approved'],
      ['waiting-1', 'awaiting_approval'],
    ]) {
      await stack.db.pool.query(`INSERT INTO emails (id, source, status) VALUES (?, 'file', ?)`, [id, status]);
    }
    const first = await limited.run('poll-prio-1', limited.activities.pollMailbox, {});
    assert.equal(first.started.length, 1);
    assert.equal((await startInput(first.started[0]!)).priority, 'critical');
    const bp = (await stack.db.pool.query(`SELECT message FROM audit_log WHERE event_type = 'backpressure'`)) as Array<{ message: string }>;
    assert.match(bp[0]?.message ?? '', /taking 1 of 4/);
    // The workflow learns that mail waits for the backlog, and how long it may wait for room.
    assert.equal(first.cutByBacklog, true);
    assert.equal(first.pollIntervalSeconds, stack.config.imap.pollIntervalSeconds);
    assert.ok(!first.more);

    await stack.db.pool.query(`UPDATE emails SET status = 'sent' WHERE id IN ('busy-1', 'busy-2')`);
    const second = await limited.run('poll-prio-2', limited.activities.pollMailbox, {});
    const priorities = await Promise.all(second.started.map(async (id) => (await startInput(id)).priority));
    assert.deepEqual(priorities, ['high', 'low', 'normal'], 'the rest, in arrival order, once there is room');
    assert.equal(second.cutByBacklog, undefined, 'nothing left waiting for the backlog');
  } finally {
    await limited.close();
  }
});

test('the resend schedule nudges approved emails whose send round failed, and only those', async () => {
  const waiting = 'email-resend-waiting';
  await client.workflow.start('EmailWorkflow', {
    taskQueue: `${stack.config.temporal.taskQueue}-idle`,
    workflowId: waiting,
    args: [{ emailId: waiting, source: { kind: 'stored' } }],
  });
  for (const [id, emailStatus, sendStatus, minutesAgo] of [
    [waiting, 'approved', 'failed', 30],
    ['email-resend-fresh', 'approved', 'failed', 1],
    ['email-resend-sent', 'sent', 'sent', 30],
  ] as const) {
    await stack.db.pool.query(`INSERT INTO emails (id, source, status) VALUES (?, 'file', ?)`, [id, emailStatus]);
    await stack.db.pool.query(
      `INSERT INTO send_attempts (draft_id, email_id, message_id, status, attempts, updated_at)
       VALUES (?, ?, '<x@y>', ?, 3, CURRENT_TIMESTAMP(3) - INTERVAL ? MINUTE)`,
      [`${id}:draft:1`, id, sendStatus, minutesAgo],
    );
  }
  const result = await h.run('resend-run', h.activities.resendApproved, { olderThanSeconds: 600 });
  assert.deepEqual(result, { nudged: 1, gone: 0 });
  const history = await client.workflow.getHandle(waiting).fetchHistory();
  const signals = history.events?.filter((e) => e.workflowExecutionSignaledEventAttributes?.signalName === 'resend') ?? [];
  assert.equal(signals.length, 1);
  await client.workflow.getHandle(waiting).terminate('test done');
});
