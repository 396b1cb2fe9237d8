/**
 * `email-rag ingest` over a directory with good, oversized and unreadable files, and
 * `email-rag answer`, against a real Temporal dev server, worker, MariaDB and the CLI binary.
 */
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import type { Client } from '@temporalio/client';
import type { EmailWorkflowInput } from '../../src/email/email-input';
import { rejectSignal, type EmailWorkflowResult } from '../../src/email/email.workflow';
import { largeEmail } from '../support/large-mail';
import { sampleEmail, type TestStack } from '../support/stack';
import { currentDraftId } from '../support/decisions';
import { waitFor } from '../support/wait';
import { useWorkerStack } from '../support/worker-stack';
import { runCli } from '../support/cli-run';

const LIMIT = 16 * 1024 * 1024;
let stack: TestStack;
let client: Client;

function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return runCli(stack.env, args);
}

async function emailRow(id: string) {
  const rows = (await stack.db.pool.query('SELECT status, status_reason, raw_size, subject FROM emails WHERE id = ?', [id])) as Array<{
    status: string;
    status_reason: string | null;
    raw_size: number;
    subject: string | null;
  }>;
  return rows[0];
}

useWorkerStack((s) => ({ stack, client } = s), { stack: { env: { MAX_MESSAGE_BYTES: String(LIMIT), LLM_TIMEOUT_MS: '30000' } } });

test('ingest goes on past a bad file: one line per file, a summary, exit 1; the oversized mail ends failed with its reason, no retry loop', async () => {
  const dir = path.join(stack.dir, 'import');
  mkdirSync(dir);
  writeFileSync(path.join(dir, 'a-customer.eml'), sampleEmail({ messageId: '<ingest-a@customer.example>', subject: 'Lieferung 8812' }));
  const tooLarge = largeEmail({ totalBytes: 20_000_000, subject: 'Fotos vom Schaden', messageId: '<ingest-huge@customer.example>' });
  writeFileSync(path.join(dir, 'b-huge.eml'), tooLarge.raw);
  // Unreadable as a file: a directory that happens to end in .eml.
  mkdirSync(path.join(dir, 'c-broken.eml'));
  const large = largeEmail({ totalBytes: 10_000_000, subject: 'Vertrag gescannt', messageId: '<ingest-large@customer.example>' });
  writeFileSync(path.join(dir, 'd-large.eml'), large.raw);

  const result = await cli(['ingest', dir]);
  assert.equal(result.code, 1, result.stderr);
  const lines = result.stdout.trim().split('\n');
  assert.equal(lines.length, 4, result.stdout);
  const [a, b, c, d] = lines.map((l) => l.split('\t'));
  assert.equal(a?.[1], 'started');
  assert.match(b?.[1] ?? '', new RegExp(`^too large: ${tooLarge.raw.length} bytes, above MAX_MESSAGE_BYTES \\(${LIMIT}\\)`));
  assert.equal(c?.[0], '-');
  assert.match(c?.[1] ?? '', /^failed: .*EISDIR/);
  assert.equal(d?.[1], 'started');
  assert.match(result.stderr, /4 file\(s\): 2 started, 0 already known, 1 too large, 1 failed/);
  assert.doesNotMatch(result.stderr, /\n\s+at /, 'no stack trace');

  const hugeId = b![0]!;
  const huge = (await client.workflow.getHandle(hugeId).result()) as EmailWorkflowResult;
  assert.equal(huge.status, 'failed');
  const row = await emailRow(hugeId);
  assert.equal(row?.status, 'failed');
  assert.equal(row?.status_reason, 'too_large');
  assert.equal(row?.raw_size, tooLarge.raw.length);
  assert.equal(row?.subject, 'Fotos vom Schaden');
  const jobs = (await stack.db.pool.query(`SELECT step, status, attempt FROM queue_jobs WHERE workflow_id = ? AND step = 'fetch'`, [
    hugeId,
  ])) as Array<{ status: string; attempt: number }>;
  assert.deepEqual(
    jobs.map((j) => [j.status, j.attempt]),
    [['dead', 1]],
    'one attempt, dead at once',
  );
  const audit = (await stack.db.pool.query(`SELECT COUNT(*) AS n FROM audit_log WHERE correlation_id = ? AND event_type = 'too_large'`, [
    hugeId,
  ])) as Array<{ n: number }>;
  assert.equal(Number(audit[0]?.n), 1);

  // The other files went through, the 10 MB one included.
  for (const id of [a![0]!, d![0]!]) {
    await waitFor(`${id} awaiting approval`, async () => (await emailRow(id))?.status === 'awaiting_approval', 120_000);
  }
  const [stored] = (await stack.db.pool.query('SELECT chunks FROM raw_messages WHERE email_id = ?', [d![0]])) as Array<{ chunks: number }>;
  assert.ok((stored?.chunks ?? 0) > 1, 'the 10 MB mail was stored in chunks');
  for (const id of [a![0]!, d![0]!])
    await client.workflow
      .getHandle(id)
      .signal(rejectSignal, { draftId: await currentDraftId(client, id), by: 'tester', reason: 'test done' });
});

test('email-rag answer pulls an ignored email back: audit row with the actor, the same workflow id runs again', async () => {
  const missing = await cli(['answer', 'email-file-nope', '--by', 'carol']);
  assert.equal(missing.code, 2);
  assert.match(missing.stderr, /^email-rag: no email email-file-nope/);
  assert.equal((await cli(['answer', 'email-file-nope'])).code, 2, 'who asked must be named');

  const file = path.join(stack.dir, 'ooo.eml');
  writeFileSync(file, readFileSync(path.join(__dirname, '../fixtures/triage/ooo-de.eml')));
  const [emailId] = (await cli(['ingest', file])).stdout.trim().split('\t');
  assert.ok(emailId);
  const handle = client.workflow.getHandle(emailId);
  const firstRun = (await handle.describe()).runId;
  await waitFor('the first run to settle', async () => {
    const s = (await emailRow(emailId))?.status;
    return s === 'ignored' || s === 'awaiting_approval' || s === 'manual_review';
  });
  assert.equal((await emailRow(emailId))!.status, 'ignored', 'an out-of-office reply gets no draft');
  assert.deepEqual(await handle.result(), { status: 'ignored' });
  const drafted = (await stack.db.pool.query('SELECT COUNT(*) AS n FROM drafts WHERE email_id = ?', [emailId])) as Array<{ n: number }>;
  assert.equal(Number(drafted[0]?.n), 0);
  const row = (await stack.db.pool.query('SELECT triage_class FROM emails WHERE id = ?', [emailId])) as Array<{ triage_class: string }>;
  assert.equal(row[0]?.triage_class, 'auto_reply');

  const answered = await cli(['answer', emailId, '--by', 'carol']);
  assert.equal(answered.code, 0, answered.stderr);
  assert.match(answered.stdout, /back in the pipeline for a reply, requested by carol \(was ignored: auto_reply: Auto-Submitted/);
  const second = await handle.describe();
  assert.notEqual(second.runId, firstRun, 'a new run under the same workflow id');
  const history = await client.workflow.getHandle(emailId, second.runId).fetchHistory();
  const data = history.events?.[0]?.workflowExecutionStartedEventAttributes?.input?.payloads?.[0]?.data;
  const input = JSON.parse(Buffer.from(data!).toString('utf8')) as EmailWorkflowInput;
  // The run names the mailbox the email came to, so its reply goes out with that mailbox's identity.
  assert.deepEqual(input, {
    emailId,
    source: { kind: 'stored', mailboxId: 'default' },
    priority: 'normal',
    answerRequestedBy: 'carol',
    maxDrafts: 6,
    // The draft step's time limit follows the model's (LLM_TIMEOUT_MS), set where a run starts.
    llmTimeoutMs: stack.config.llm.timeoutMs,
  });
  const audit = (await stack.db.pool.query(
    `SELECT actor, message FROM audit_log WHERE correlation_id = ? AND event_type = 'triage_overridden'`,
    [emailId],
  )) as Array<{ actor: string; message: string }>;
  assert.equal(audit.length, 1);
  assert.equal(audit[0]?.actor, 'carol');
  await waitFor('the new run to wait for a person', async () => (await emailRow(emailId))?.status === 'awaiting_approval', 120_000);
  await handle.signal(rejectSignal, { draftId: await currentDraftId(client, emailId), by: 'tester', reason: 'test done' });
});
