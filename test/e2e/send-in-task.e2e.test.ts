/**
 * What may happen while a reply is handed to the SMTP server, on the real stack: a signal that
 * arrives during the send (a colleague's late decision) is refused and audited while the person's
 * approval keeps its answer, and a worker killed in the middle of the hand-over leaves a send in
 * doubt that the next worker does not make again. Real Temporal dev server, worker process,
 * Dovecot, MariaDB; the SMTP server is a real listener whose answers the test switches
 * (test/support/services/switchable-smtp.ts).
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { Client, Connection } from '@temporalio/client';
import { installSchedules } from '../../src/operations/schedules';
import { approveSignal, approveUpdate, markSentUpdate, stateQuery } from '../../src/email/email.workflow';
import { SEND_STATUS, WAITING_KINDS } from '../../src/email/email-status';
import { EMAIL_AUDIT_EVENTS } from '../../src/email/email.contract';
import { PLATFORM_AUDIT_EVENTS } from '../../src/platform/contract';
import { currentDraftId } from '../support/decisions';
import { MAILBOX_USER, sampleEmail, startStack, type TestStack } from '../support/stack';
import { startSwitchableSmtp, type DataEvent, type SwitchableSmtp } from '../support/services/switchable-smtp';
import { waitFor } from '../support/wait';
import { pollOnce } from '../support/poll-runs';
import { startWorkerProcess, type WorkerProcess } from '../support/services/worker-process';

let stack: TestStack;
let smtp: SwitchableSmtp;
let client: Client;
let connection: Connection;
const workers: WorkerProcess[] = [];

/** The real worker process, as an operator runs it. */
async function startWorker(name: string): Promise<WorkerProcess> {
  const worker = await startWorkerProcess(stack.env, path.join(stack.dir, `${name}.log`));
  workers.push(worker);
  return worker;
}

async function stopWorkers(): Promise<void> {
  await Promise.all(workers.splice(0).map((w) => w.kill()));
}

async function rows<T>(sql: string, params: unknown[] = []): Promise<T[]> {
  return (await stack.db.pool.query(sql, params)) as T[];
}

/** A customer's mail taken in and drafted: its workflow id, once it waits for the decision. */
async function drafted(messageId: string, subject: string): Promise<string> {
  // A mailbox's first poll only sets where new mail begins.
  await pollOnce(client);
  await stack.dovecot.deliver(MAILBOX_USER, sampleEmail({ messageId, subject }));
  await pollOnce(client);
  const [row] = await waitFor('the email row', async () => {
    const r = await rows<{ id: string }>('SELECT id FROM emails WHERE message_id = ?', [messageId]);
    return r.length > 0 ? r : undefined;
  });
  await currentDraftId(client, row!.id, 120_000);
  return row!.id;
}

/** Status changes as the audit log has them, in order. */
async function statusTrail(emailId: string): Promise<string[]> {
  const r = await rows<{ message: string }>(
    `SELECT message FROM audit_log WHERE email_id = ? AND event_type = 'status_changed' ORDER BY id`,
    [emailId],
  );
  return r.map((s) => s.message.split(':')[0]!);
}

async function auditCount(emailId: string, eventType: string): Promise<number> {
  const r = await rows<{ n: number }>('SELECT COUNT(*) AS n FROM audit_log WHERE email_id = ? AND event_type = ?', [emailId, eventType]);
  return Number(r[0]?.n);
}

before(async () => {
  smtp = await startSwitchableSmtp();
  stack = await startStack({ env: { SMTP_PORT: String(smtp.port), SMTP_TIMEOUT_MS: '15000' } });
  connection = await Connection.connect({ address: stack.config.temporal.address });
  client = new Client({ connection });
  await installSchedules(client, stack.config);
});
after(async () => {
  await stopWorkers();
  await connection?.close();
  await stack?.stop();
  smtp?.releaseHeld();
  await smtp?.stop();
});

test('a signal while the reply is handed over: the Update keeps its answer, the signal is refused and audited, the reply leaves once', async () => {
  await stopWorkers();
  await startWorker('worker-signal');
  const emailId = await drafted('<signal-during-send@customer.example>', 'Rechnung doppelt');
  const handle = client.workflow.getHandle(emailId);
  const draftId = await currentDraftId(client, emailId);
  // The SMTP server answers five seconds after the final dot: the send still runs when the signal comes.
  smtp.setLatency(5_000);
  const handedOver = new Promise<DataEvent>((resolve) => smtp.events.once('data-end', (m) => resolve(m)));
  const approving = handle.executeUpdate(approveUpdate, { args: [{ draftId, by: 'rita' }] });
  const mail = await handedOver;
  // A colleague's second approval, a moment late: refused by the rules, and audited.
  await handle.signal(approveSignal, { draftId, by: 'tom' });
  const answer = await approving;
  assert.equal(answer.status, 'approved');
  assert.equal((await handle.result()).status, 'sent');
  smtp.setLatency(0);

  assert.equal(smtp.copies.get(mail.messageId), 1, 'one copy handed over');
  const history = (await handle.fetchHistory()).events ?? [];
  assert.ok(!history.some((e) => e.workflowTaskFailedEventAttributes), 'no workflow task failed');
  assert.deepEqual((await statusTrail(emailId)).slice(-2), ['approved', 'sent'], 'every status change landed once');
  assert.equal(await auditCount(emailId, EMAIL_AUDIT_EVENTS.draftApproved), 1);
  assert.equal(await auditCount(emailId, EMAIL_AUDIT_EVENTS.decisionRefused), 1, "tom's late approval is audited once");
  const [send] = await rows<{ status: string; attempts: number }>('SELECT status, attempts FROM send_attempts WHERE email_id = ?', [
    emailId,
  ]);
  assert.deepEqual({ ...send }, { status: 'sent', attempts: 1 });
  const jobs = await rows<{ status: string; attempt: number }>(
    `SELECT status, attempt FROM queue_jobs WHERE workflow_id = ? AND step = 'send'`,
    [emailId],
  );
  assert.deepEqual(
    jobs.map((j) => `${j.status}:${j.attempt}`),
    ['done:1'],
  );
});

test('a worker killed with SIGKILL in the hand-over: the next worker finds the send in doubt and sends nothing again', async () => {
  await stopWorkers();
  const first = await startWorker('worker-kill-1');
  const emailId = await drafted('<kill-during-send@customer.example>', 'Lieferung fehlt');
  const handle = client.workflow.getHandle(emailId);
  const draftId = await currentDraftId(client, emailId);
  // The server keeps the message after its final dot and never answers: the sender dies in the hand-over.
  let held = false;
  smtp.addRule(() => (held ? 'done' : ((held = true), { kind: 'hold' })));
  const handedOver = new Promise<DataEvent>((resolve) => smtp.events.once('data-end', (m) => resolve(m)));
  const approving = handle.executeUpdate(approveUpdate, { args: [{ draftId, by: 'rita' }] });
  const mail = await handedOver;
  await first.kill();
  await startWorker('worker-kill-2');

  assert.equal((await approving).status, 'approved');
  // The attempt ends with its worker; after the heartbeat timeout the next worker's attempt finds the send in doubt.
  await waitFor(
    'the send in doubt',
    async () =>
      (await rows<{ status: string }>('SELECT status FROM send_attempts WHERE email_id = ?', [emailId]))[0]?.status === SEND_STATUS.inDoubt,
    120_000,
  );
  assert.equal(smtp.copies.get(mail.messageId), 1, 'one copy handed over, none sent again');
  assert.equal(await auditCount(emailId, PLATFORM_AUDIT_EVENTS.attemptLost), 1, 'the attempt lost with its worker is told, not counted');
  await waitFor('the run waits for a person', async () => (await handle.query(stateQuery)).waitingFor?.kind === WAITING_KINDS.sendInDoubt);
  // A person checked the customer's mailbox: the reply arrived.
  const marked = await handle.executeUpdate(markSentUpdate, { args: [{ draftId, by: 'rita', note: 'customer confirmed by phone' }] });
  assert.equal(marked.status, 'sent');
  assert.equal((await handle.result()).status, 'sent');
  assert.equal(smtp.copies.get(mail.messageId), 1);
  assert.equal(await auditCount(emailId, EMAIL_AUDIT_EVENTS.draftApproved), 1);
  const trail = await statusTrail(emailId);
  assert.equal(trail.filter((s) => s === 'sent').length, 1, 'sent recorded once');
  smtp.releaseHeld();
});
