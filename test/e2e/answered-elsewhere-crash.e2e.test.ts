/**
 * A worker killed (SIGKILL) while it reads a person's reply from the Sent folder: the folder's
 * watermark has not moved past the reply, so the poll's next attempt, on a new worker, reads it
 * again — the waiting mail stands down once, and nothing reaches the SMTP listener. Real servers
 * (Temporal dev server, MariaDB, Dovecot, SMTP listener), the real worker process.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Client, Connection } from '@temporalio/client';
import { installSchedules } from '../../src/operations/schedules';
import { triggerPollRun } from '../support/poll-runs';
import { startWorkerProcess, type WorkerProcess } from '../support/services/worker-process';
import { MAILBOX_USER, sampleEmail, startStack, type TestStack } from '../support/stack';
import { waitFor } from '../support/wait';

let stack: TestStack;
let client: Client;
let connection: Connection;
const workers: WorkerProcess[] = [];

async function startWorker(name: string): Promise<WorkerProcess> {
  const w = await startWorkerProcess(stack.env, `${stack.dir}/${name}.log`);
  workers.push(w);
  return w;
}

async function rows<T>(sql: string, params: unknown[] = []): Promise<T[]> {
  return (await stack.db.pool.query(sql, params)) as T[];
}

before(async () => {
  // IDLE off: only the polls this test triggers read the Sent folder.
  stack = await startStack({ env: { IMAP_IDLE: 'off' } });
  connection = await Connection.connect({ address: stack.config.temporal.address });
  client = new Client({ connection });
  await installSchedules(client, stack.config);
});
after(async () => {
  for (const w of workers) await w.kill().catch(() => undefined);
  await connection?.close();
  await stack?.stop();
});

test('a worker killed while it reads the reply in Sent: the next attempt reads it again, the mail stands down once, nothing is sent', async () => {
  const first = await startWorker('worker-1');
  await client.workflow.getHandle(await triggerPollRun(client)).result(); // connects the inbox and Sent
  await stack.dovecot.deliver(MAILBOX_USER, sampleEmail({ messageId: '<crash-sent@customer.example>', subject: 'Gutschrift' }));
  await client.workflow.getHandle(await triggerPollRun(client)).result();
  const [mail] = await waitFor(
    'awaiting approval',
    async () => {
      const r = await rows<{ id: string }>(
        `SELECT id FROM emails WHERE message_id = '<crash-sent@customer.example>' AND status = 'awaiting_approval'`,
      );
      return r.length > 0 ? r : undefined;
    },
    120_000,
  );
  const reply = [
    `From: Support <${MAILBOX_USER}>`,
    'To: erika@customer.example',
    'Subject: Re: Gutschrift',
    'Message-ID: <anna-crash@example.test>',
    'In-Reply-To: <crash-sent@customer.example>',
    `Date: ${new Date().toUTCString()}`,
    '',
    'Erledigt.',
    '',
  ].join('\r\n');
  await stack.dovecot.deliver(MAILBOX_USER, reply, 'Sent');
  // Holds the scan where it stores the reply: the worker dies with the reply read but not recorded.
  const lock = await stack.db.pool.getConnection();
  try {
    await lock.query('LOCK TABLES outside_replies WRITE');
    const run = await triggerPollRun(client);
    await waitFor(
      'the scan waits on the table',
      async () => {
        const r = await rows<{ n: bigint }>(
          `SELECT COUNT(*) AS n FROM information_schema.PROCESSLIST WHERE INFO LIKE 'INSERT INTO outside_replies%'`,
        );
        return Number(r[0]?.n) > 0 || undefined;
      },
      60_000,
    );
    await first.kill();
    await lock.query('UNLOCK TABLES');
    await startWorker('worker-2');
    await client.workflow.getHandle(run).result();
  } finally {
    await lock.query('UNLOCK TABLES').catch(() => undefined);
    await lock.release();
  }
  const result = (await client.workflow.getHandle(mail!.id).result()) as { status: string };
  assert.equal(result.status, 'answered_elsewhere');
  const ties = await rows<{ n: bigint }>('SELECT COUNT(*) AS n FROM outside_answers WHERE email_id = ?', [mail!.id]);
  assert.equal(Number(ties[0]!.n), 1);
  const closed = await rows<{ n: bigint }>(`SELECT COUNT(*) AS n FROM audit_log WHERE email_id = ? AND event_type = 'answered_elsewhere'`, [
    mail!.id,
  ]);
  assert.equal(Number(closed[0]!.n), 1, 'it stood down once');
  assert.equal(stack.smtp.messages.length, 0, 'no reply reached the SMTP listener');
});
