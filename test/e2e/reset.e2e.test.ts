/**
 * Operators reset workflows from the Web UI or `temporal workflow reset`. Through the real CLI, on
 * the real dev server with the real worker, MariaDB, Dovecot and SMTP listener: a reset never sends
 * a reply twice, a sent email stays sent, and a waiting email gets a new draft that must be
 * approved by its own id.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { test } from 'node:test';
import { promisify } from 'node:util';
import type { Client } from '@temporalio/client';
import { temporalCliPath } from '../support/services/tool-paths';
import { approveUpdate, stateQuery, type EmailWorkflowResult } from '../../src/email/email.workflow';
import { currentDraftId } from '../support/decisions';
import { sampleEmail, type TestStack } from '../support/stack';
import { waitFor } from '../support/wait';
import { useWorkerStack } from '../support/worker-stack';

const run = promisify(execFile);
let stack: TestStack;
let client: Client;

useWorkerStack((s) => ({ stack, client } = s));

const cli = (args: string[]) => run(process.execPath, ['bin/email-rag.js', ...args], { env: { ...process.env, ...stack.env } });

async function status(id: string): Promise<string | undefined> {
  const rows = (await stack.db.pool.query('SELECT status FROM emails WHERE id = ?', [id])) as Array<{ status: string }>;
  return rows[0]?.status;
}

async function ingest(name: string, subject: string): Promise<string> {
  const file = `${stack.dir}/${name}.eml`;
  writeFileSync(file, sampleEmail({ subject, messageId: `<${name}@customer.example>` }));
  const [id] = (await cli(['ingest', file])).stdout.trim().split('\t');
  await waitFor(`${id} awaiting approval`, async () => (await status(id!)) === 'awaiting_approval', 90_000);
  return id!;
}

async function reset(id: string, type: 'FirstWorkflowTask' | 'LastWorkflowTask'): Promise<void> {
  await run(temporalCliPath(), [
    'workflow',
    'reset',
    '--address',
    stack.config.temporal.address,
    '--namespace',
    'default',
    '--workflow-id',
    id,
    '--type',
    type,
    '--reason',
    'operator test',
    '--yes',
  ]);
}

/** Copies the SMTP listener received with this email's reply Message-ID (replies reference the original). */
function copiesFor(originalMessageId: string): number {
  return stack.smtp.messages.filter((m) => m.raw.toString('utf8').includes(originalMessageId)).length;
}

test('resetting a sent email (first and last workflow task) sends nothing again and it stays sent', async () => {
  const id = await ingest('reset-sent', 'Rechnung doppelt');
  await client.workflow.getHandle(id).executeUpdate(approveUpdate, { args: [{ draftId: await currentDraftId(client, id), by: 'ops' }] });
  assert.equal(((await client.workflow.getHandle(id).result()) as EmailWorkflowResult).status, 'sent');
  await stack.smtp.waitForMessages(1, 30_000);
  assert.equal(copiesFor('<reset-sent@customer.example>'), 1);

  for (const type of ['FirstWorkflowTask', 'LastWorkflowTask'] as const) {
    await reset(id, type);
    const result = (await client.workflow.getHandle(id).result()) as EmailWorkflowResult;
    assert.equal(result.status, 'sent', `after a reset to ${type} the run ends as sent`);
    assert.equal(await status(id), 'sent');
  }
  await new Promise((r) => setTimeout(r, 1_000));
  assert.equal(copiesFor('<reset-sent@customer.example>'), 1, 'still exactly one copy at the SMTP listener');
  const drafts = (await stack.db.pool.query('SELECT COUNT(*) AS n FROM drafts WHERE email_id = ?', [id])) as Array<{ n: number }>;
  assert.equal(Number(drafts[0]?.n), 1, 'no new draft was written for a sent email');
  // The intake runs in a run's first workflow task (`intake-in-workflow-task-v8`): the first reset
  // runs it again, and so does the second, since the reset run ended in that one task (it found
  // the reply sent at once). Each run has rows of its own, all done; the message is stored once.
  const rows = (await stack.db.pool.query(`SELECT run_id, status FROM queue_jobs WHERE workflow_id = ? AND step = 'fetch'`, [
    id,
  ])) as Array<{ run_id: string; status: string }>;
  assert.equal(new Set(rows.map((r) => r.run_id)).size, 3, 'each run that took the email in has queue rows of its own');
  assert.ok(
    rows.every((r) => r.status === 'done'),
    JSON.stringify(rows),
  );
  const raw = (await stack.db.pool.query('SELECT COUNT(*) AS n FROM raw_messages WHERE email_id = ?', [id])) as Array<{ n: number }>;
  assert.equal(Number(raw[0]?.n), 1);
  const already = (await stack.db.pool.query(
    `SELECT COUNT(*) AS n FROM audit_log WHERE correlation_id = ? AND event_type = 'already_sent'`,
    [id],
  )) as Array<{ n: number }>;
  assert.ok(Number(already[0]?.n) >= 1, 'the audit log says why the reset run ended');
});

test('resetting a waiting email re-drafts: the old draft id is refused, the new one is approved and sent once', async () => {
  const id = await ingest('reset-waiting', 'Lieferung verspätet');
  const before = await currentDraftId(client, id);
  await reset(id, 'FirstWorkflowTask');
  const after = await waitFor(
    'a new draft after the reset',
    async () => {
      const s = await client.workflow.getHandle(id).query(stateQuery);
      return s.waitingFor && 'draftId' in s.waitingFor && s.waitingFor.draftId !== before ? s.waitingFor.draftId : undefined;
    },
    90_000,
  );
  assert.match(after, /:draft:2$/, 'draft versions go on across runs');
  const stale = await cli(['approve', id, '--draft', before, '--by', 'ops']).catch((e: { code: number; stderr: string }) => e);
  assert.equal((stale as { code: number }).code, 5);
  assert.match((stale as { stderr: string }).stderr, /not the current one/);
  await cli(['approve', id, '--draft', after, '--by', 'ops']);
  assert.equal(((await client.workflow.getHandle(id).result()) as EmailWorkflowResult).status, 'sent');
  await new Promise((r) => setTimeout(r, 1_000));
  assert.equal(copiesFor('<reset-waiting@customer.example>'), 1);
});
