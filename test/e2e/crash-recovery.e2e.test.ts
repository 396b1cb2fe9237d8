/**
 * Failures of the real processes: a worker killed with SIGKILL in the middle of an activity, and
 * MariaDB going away during processing (a cuttable TCP link in front of the real server). Every
 * email must end in a final or waiting state, none lost, no reply sent twice.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { after, before, test } from 'node:test';
import { Client, Connection } from '@temporalio/client';
import { installSchedules, pollScheduleId, triggerPoll } from '../../src/operations/schedules';
import { DEFAULT_MAILBOX_ID } from '../../src/mailboxes/mailbox-registry';
import { approveSignal } from '../../src/email/email.workflow';
import { currentDraftId } from '../support/decisions';
import { MAILBOX_USER, sampleEmail, startStack, type TestStack } from '../support/stack';
import { startTcpProxy } from '../support/tcp-proxy';
import { waitFor } from '../support/wait';

let stack: TestStack;
let client: Client;
let connection: Connection;
const workers: ChildProcess[] = [];

/** The real worker process, as an operator runs it. */
function startWorker(env: Record<string, string>, name: string): ChildProcess {
  const child = spawn(process.execPath, ['bin/email-rag.js', 'worker'], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const log = createWriteStream(`${stack.dir}/${name}.log`);
  child.stdout?.pipe(log);
  child.stderr?.pipe(log);
  workers.push(child);
  return child;
}

async function rows<T>(sql: string, params: unknown[] = []): Promise<T[]> {
  return (await stack.db.pool.query(sql, params)) as T[];
}

/** Waits until MariaDB shows the email in `status` (what an operator's SQL would see). */
async function reaches(emailId: string, status: string, what: string): Promise<void> {
  await waitFor(
    what,
    async () => (await rows<{ status: string }>('SELECT status FROM emails WHERE id = ?', [emailId]))[0]?.status === status,
    180_000,
    500,
  );
}

async function pollNow(): Promise<void> {
  const schedule = client.schedule.getHandle(pollScheduleId(DEFAULT_MAILBOX_ID));
  const known = new Set((await schedule.describe()).info.recentActions.map((a) => a.action.workflow.workflowId));
  await triggerPoll(client, stack.config);
  const id = await waitFor('poll run', async () =>
    (await schedule.describe()).info.recentActions.map((a) => a.action.workflow.workflowId).find((w) => !known.has(w)),
  );
  await client.workflow.getHandle(id).result();
}

before(async () => {
  stack = await startStack();
  connection = await Connection.connect({ address: stack.config.temporal.address });
  client = new Client({ connection });
  await installSchedules(client, stack.config);
});
after(async () => {
  for (const w of workers) if (w.exitCode === null && w.signalCode === null) w.kill('SIGKILL');
  await connection?.close();
  await stack?.stop();
});

test("workers killed with SIGKILL twice while drafting: the attempts lost with them are not the model's, the mail gets its draft, one reply is sent", async () => {
  const first = startWorker(stack.env, 'worker-1');
  await pollNow(); // connects the mailbox
  // The first two draft requests hang, so a draft attempt is in flight each time a worker dies.
  stack.llm.script({ kind: 'delay', ms: 120_000, for: 'email_draft' }, { kind: 'delay', ms: 120_000, for: 'email_draft' });
  let llmRequests = stack.llm.requestCount();
  await stack.dovecot.deliver(MAILBOX_USER, sampleEmail({ messageId: '<crash-1@customer.example>' }));
  await pollNow();
  const [job] = await waitFor('draft in flight', async () => {
    const r = await rows<{ workflow_id: string }>(`SELECT workflow_id FROM queue_jobs WHERE step = 'draft' AND status = 'processing'`);
    return r.length > 0 ? r : undefined;
  });
  const emailId = job!.workflow_id;
  // The draft step retrieves (and embeds) before it asks the model: each kill must come while the
  // model's answer is awaited, so that the hanging request is the one that dies with the worker.
  let victim = first;
  for (const name of ['worker-2', 'worker-3']) {
    const asked = llmRequests;
    await waitFor('the draft request at the model', async () => stack.llm.requestCount() > asked, 120_000);
    llmRequests = stack.llm.requestCount();
    victim.kill('SIGKILL');
    await new Promise((r) => victim.once('exit', r));
    // Heartbeats stop with the process: the attempt times out after 20 s and runs again at once.
    victim = startWorker(stack.env, name);
  }
  await reaches(emailId, 'awaiting_approval', 'awaiting approval after two crashes');
  await client.workflow.getHandle(emailId).signal(approveSignal, { draftId: await currentDraftId(client, emailId), by: 'ops' });
  await client.workflow.getHandle(emailId).result();
  const draft = await rows<{ status: string; attempt: number; lost_attempts: number }>(
    `SELECT status, attempt, lost_attempts FROM queue_jobs WHERE workflow_id = ? AND step = 'draft'`,
    [emailId],
  );
  // Three attempts where the model's budget is two: the two lost ones did not count.
  assert.deepEqual(draft, [{ status: 'done', attempt: 3, lost_attempts: 2 }]);
  const audit = await rows<{ event_type: string; message: string }>(
    `SELECT event_type, message FROM audit_log WHERE email_id = ? AND event_type IN ('attempt_lost', 'retry_scheduled', 'job_dead') ORDER BY id`,
    [emailId],
  );
  assert.deepEqual(
    audit.map((a) => a.event_type),
    ['attempt_lost', 'attempt_lost'],
  );
  assert.match(
    audit[0]!.message,
    /draft: attempt 1 ended with the worker that ran it .*run again as attempt 2, not counted against its 2 attempts/,
  );
  const statuses = await rows<{ message: string }>(`SELECT message FROM audit_log WHERE email_id = ? AND event_type = 'status_changed'`, [
    emailId,
  ]);
  assert.ok(!statuses.some((s) => s.message.startsWith('manual_review')), 'no person was asked to write the reply');
  await stack.smtp.waitForMessages(1, 30_000);
  await new Promise((r) => setTimeout(r, 1000));
  assert.equal(stack.smtp.messages.length, 1, 'exactly one reply');
});

test('a worker killed with SIGKILL during the intake (a local activity in the workflow task): a new worker takes the email in once', async () => {
  for (const w of workers) if (w.exitCode === null && w.signalCode === null) w.kill('SIGKILL');
  const first = startWorker(stack.env, 'worker-intake-1');
  // Holds the intake inside its fetch step: the raw message cannot be stored while the table is locked.
  const lock = await stack.db.pool.getConnection();
  try {
    await lock.query('LOCK TABLES raw_messages WRITE');
    await stack.dovecot.deliver(
      MAILBOX_USER,
      sampleEmail({ messageId: '<crash-intake@customer.example>', subject: 'Absturz beim Abholen' }),
    );
    await pollNow();
    const [job] = await waitFor('intake in flight', async () => {
      const r = await rows<{ workflow_id: string }>(
        `SELECT workflow_id FROM queue_jobs WHERE step = 'fetch' AND status = 'processing' AND activity_id = 'local:ingestEmail'`,
      );
      return r.length > 0 ? r : undefined;
    });
    first.kill('SIGKILL');
    await new Promise((r) => first.once('exit', r));
    await lock.query('UNLOCK TABLES');
    startWorker(stack.env, 'worker-intake-2');
    const emailId = job!.workflow_id;
    // The dead worker's workflow task times out; the next task runs the intake again from the start.
    await reaches(emailId, 'awaiting_approval', 'awaiting approval after the crash');
    const statuses = await rows<{ message: string }>(
      `SELECT message FROM audit_log WHERE email_id = ? AND event_type = 'status_changed' ORDER BY id`,
      [emailId],
    );
    assert.deepEqual(
      statuses.map((s) => s.message.split(':')[0]),
      ['fetched', 'parsed', 'indexed', 'drafted', 'awaiting_approval'],
      'every status change landed once',
    );
    const steps = await rows<{ step: string; status: string; attempt: number }>(
      `SELECT step, status, attempt FROM queue_jobs WHERE workflow_id = ? AND step IN ('fetch', 'parse', 'index') ORDER BY id`,
      [emailId],
    );
    // The interrupted attempt ran again under the same rows: a crash is not a failed attempt.
    assert.deepEqual(
      steps.map((j) => `${j.step}:${j.status}:${j.attempt}`),
      ['fetch:done:1', 'parse:done:1', 'index:done:1'],
    );
    const raw = await rows<{ n: number }>('SELECT COUNT(*) AS n FROM raw_messages WHERE email_id = ?', [emailId]);
    assert.equal(Number(raw[0]?.n), 1, 'the raw message stored once');
    const history = await client.workflow.getHandle(emailId).fetchHistory();
    assert.ok(
      history.events?.some((e) => e.workflowTaskTimedOutEventAttributes),
      "the dead worker's workflow task timed out and was taken by the next one",
    );
  } finally {
    await lock.query('UNLOCK TABLES').catch(() => undefined);
    await lock.release();
  }
});

test('MariaDB unreachable during processing: writes wait and land, nothing is lost', async () => {
  for (const w of workers) if (w.exitCode === null && w.signalCode === null) w.kill('SIGTERM');
  const db = new URL(stack.env.DATABASE_URL!);
  const proxy = await startTcpProxy({ host: db.hostname, port: Number(db.port || 3306) });
  try {
    const viaProxy = new URL(db);
    viaProxy.port = String(proxy.port);
    startWorker({ ...stack.env, DATABASE_URL: viaProxy.toString() }, 'worker-db');
    stack.llm.script({ kind: 'delay', ms: 3_000, for: 'email_draft' });
    const before = stack.smtp.messages.length;
    await stack.dovecot.deliver(MAILBOX_USER, sampleEmail({ messageId: '<db-outage@customer.example>', subject: 'Datenbank weg' }));
    await pollNow();
    const emailId = await waitFor('the new email', async () => {
      const r = await rows<{ id: string }>(`SELECT id FROM emails WHERE subject = 'Datenbank weg'`);
      return r[0]?.id;
    });
    // Cut the database while the draft request is in flight, for longer than one quick retry:
    // once the model has the request, not when the row appears (the index step may still write).
    await waitFor('the draft request at the model', async () =>
      stack.llm.requests.some(
        (r) =>
          r.body.response_format?.json_schema?.name === 'email_draft' &&
          (r.body.messages ?? []).some((m) => m.content.includes('Datenbank weg')),
      ),
    );
    proxy.cut();
    await new Promise((r) => setTimeout(r, 8_000));
    proxy.restore();
    await reaches(emailId, 'awaiting_approval', 'awaiting approval after the outage');
    // The draft step may have written its status before a later write of the same attempt met the
    // outage: that attempt fails and the next one comes after the step's first retry delay (30 s),
    // only then does the workflow take the draft in. What is tested is that nothing is lost.
    const draftId = await currentDraftId(client, emailId, 180_000);
    await client.workflow.getHandle(emailId).signal(approveSignal, { draftId, by: 'ops' });
    assert.equal(((await client.workflow.getHandle(emailId).result()) as { status: string }).status, 'sent');
    const statuses = await rows<{ message: string }>(
      `SELECT message FROM audit_log WHERE email_id = ? AND event_type = 'status_changed' ORDER BY id`,
      [emailId],
    );
    assert.deepEqual(
      statuses.map((s) => s.message.split(':')[0]),
      ['fetched', 'parsed', 'indexed', 'drafted', 'awaiting_approval', 'approved', 'sent'],
      'every status change landed once',
    );
    const jobs = await rows<{ step: string; status: string }>('SELECT step, status FROM queue_jobs WHERE workflow_id = ? ORDER BY id', [
      emailId,
    ]);
    assert.ok(
      jobs.every((j) => j.status === 'done'),
      JSON.stringify(jobs),
    );
    await stack.smtp.waitForMessages(before + 1, 30_000);
    assert.equal(stack.smtp.messages.length, before + 1);
  } finally {
    await proxy.stop();
  }
});

test('SIGTERM: the worker stops polling, finishes the activity in flight and exits cleanly', async () => {
  for (const w of workers) if (w.exitCode === null && w.signalCode === null) w.kill('SIGKILL');
  const env = { ...stack.env, WORKER_SHUTDOWN_GRACE_MS: '20000' };
  const worker = startWorker(env, 'worker-term');
  stack.llm.script({ kind: 'delay', ms: 4_000, for: 'email_draft' });
  await stack.dovecot.deliver(MAILBOX_USER, sampleEmail({ messageId: '<sigterm@customer.example>', subject: 'Während des Deployments' }));
  await pollNow();
  const [job] = await waitFor('draft in flight', async () => {
    const r = await rows<{ workflow_id: string }>(
      `SELECT q.workflow_id FROM queue_jobs q JOIN emails e ON e.id = q.workflow_id
       WHERE q.step = 'draft' AND q.status = 'processing' AND e.subject = 'Während des Deployments'`,
    );
    return r.length > 0 ? r : undefined;
  });
  const exited = new Promise<number | null>((resolve) => worker.once('exit', (code) => resolve(code)));
  worker.kill('SIGTERM');
  assert.equal(await exited, 0, 'a clean exit');
  const draft = await rows<{ status: string; attempt: number }>(
    `SELECT status, attempt FROM queue_jobs WHERE workflow_id = ? AND step = 'draft'`,
    [job!.workflow_id],
  );
  assert.deepEqual(draft, [{ status: 'done', attempt: 1 }], 'the in-flight draft finished during the grace period');
  const log = (await import('node:fs')).readFileSync(`${stack.dir}/worker-term.log`, 'utf8');
  assert.match(log, /"message":"stopping: no new tasks, finishing in-flight work"/);
  assert.match(log, /"message":"worker stopped"/);
});
