/**
 * Only a dead worker loses an attempt for free. On a real Temporal dev server and MariaDB, with the
 * product's queue interceptor in a real worker process: a worker killed with SIGKILL in the middle
 * of a step does not use up an attempt; a step that hangs on a live worker (its heartbeats keep
 * coming) uses up its attempts and ends as the step's ordinary failure, `dead`, after its budget.
 * The step's activity is a stand-in (test/support/hung-step/hung-step-worker.ts).
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import { startTemporalDevServer, type TemporalDevServer } from '../support/services/temporal-dev-server';
import { spawnManaged, type ManagedChild } from '../support/services/child-process';
import { createTestDatabase } from '../support/database';
import { waitFor } from '../support/wait';
import { hungStep, type HungStepInput } from '../support/hung-step/hung-step.workflow';
import { PROFILES } from '../../src/platform/activity-profiles.workflow';
import { FAILURE_TYPES } from '../../src/platform/contract';

let dir: string;
let temporal: TemporalDevServer;
let db: Awaited<ReturnType<typeof createTestDatabase>>;
let connection: Connection;
let client: Client;
let native: NativeConnection;
const children: ManagedChild[] = [];

function startActivityWorker(taskQueue: string, name: string): ManagedChild {
  const child = spawnManaged(process.execPath, ['--import', 'tsx', path.join(__dirname, '../support/hung-step/hung-step-worker.ts')], {
    logFile: path.join(dir, `${name}.log`),
    env: { ...process.env, TEMPORAL_ADDRESS: temporal.address, DATABASE_URL: db.url, TASK_QUEUE: taskQueue },
  });
  children.push(child);
  return child;
}

/** Runs the workflow to its end on an in-process workflow worker; the step runs in the worker processes. */
async function runHungStep(input: Omit<HungStepInput, 'taskQueue'>, taskQueue: string, during?: () => Promise<void>) {
  const wfQueue = `${taskQueue}-wf`;
  const worker = await Worker.create({
    connection: native,
    taskQueue: wfQueue,
    workflowsPath: require.resolve('../support/hung-step/hung-step.workflow'),
  });
  return worker.runUntil(async () => {
    const handle = await client.workflow.start(hungStep, {
      taskQueue: wfQueue,
      workflowId: input.emailId,
      args: [{ ...input, taskQueue }],
    });
    if (during) await during();
    return handle.result();
  });
}

async function rows<T>(sql: string, params: unknown[]): Promise<T[]> {
  return (await db.pool.query(sql, params)) as T[];
}

const auditOf = (emailId: string) =>
  rows<{ event_type: string; message: string }>(
    `SELECT event_type, message FROM audit_log WHERE email_id = ? AND event_type IN ('attempt_lost', 'retry_scheduled', 'job_dead') ORDER BY id`,
    [emailId],
  );

before(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'email-rag-hung-step-'));
  temporal = await startTemporalDevServer({ dataDir: path.join(dir, 'temporal'), headless: true });
  db = await createTestDatabase('hung');
  connection = await Connection.connect({ address: temporal.address });
  client = new Client({ connection });
  native = await NativeConnection.connect({ address: temporal.address });
});

after(async () => {
  for (const c of children) await c.terminate('SIGKILL', 1_000);
  await native?.close();
  await connection?.close();
  await temporal?.stop();
  await db?.drop();
  rmSync(dir, { recursive: true, force: true });
});

test('a worker killed with SIGKILL mid-step: the attempt is lost, not counted, and the step finishes on another worker', async () => {
  const taskQueue = `lost-${randomUUID()}`;
  const emailId = `email-lost-${randomUUID()}`;
  const first = startActivityWorker(taskQueue, 'killed');
  const outcome = await runHungStep(
    { emailId, mode: 'hang-first', startToCloseMs: 60_000, heartbeatTimeoutMs: 3_000 },
    taskQueue,
    async () => {
      await waitFor('the first attempt running', async () => {
        const [row] = await rows<{ status: string }>('SELECT status FROM queue_jobs WHERE workflow_id = ?', [emailId]);
        return row?.status === 'processing';
      });
      await first.terminate('SIGKILL');
      startActivityWorker(taskQueue, 'survivor');
    },
  );
  assert.deepEqual(outcome, { result: 'done on attempt 2' });
  const queue = await rows<{ status: string; attempt: number; lost_attempts: number }>(
    'SELECT status, attempt, lost_attempts FROM queue_jobs WHERE workflow_id = ?',
    [emailId],
  );
  assert.deepEqual(queue, [{ status: 'done', attempt: 2, lost_attempts: 1 }], 'the killed attempt is lost, not one of the 3');
  const audit = await auditOf(emailId);
  assert.deepEqual(
    audit.map((a) => a.event_type),
    ['attempt_lost'],
  );
  assert.match(audit[0]!.message, /poll: attempt 1 ended with the worker that ran it .*not counted against its 3 attempts/);
});

test('a step that hangs on a live worker uses up its attempts and ends dead after its budget, none of them lost', async () => {
  const taskQueue = `hung-${randomUUID()}`;
  const emailId = `email-hung-${randomUUID()}`;
  startActivityWorker(taskQueue, 'hung');
  // 4 s to close, heartbeats every 0.5 s: the worker gives each attempt up at 3.2 s.
  const outcome = await runHungStep({ emailId, mode: 'hang', startToCloseMs: 4_000, heartbeatTimeoutMs: 2_000 }, taskQueue);
  assert.deepEqual(outcome, { failure: { type: FAILURE_TYPES.stepTimedOut, nonRetryable: true } });
  const budget = PROFILES.poll.plan.maximumAttempts;
  const queue = await rows<{ status: string; attempt: number; lost_attempts: number; error_class: string; last_error: string }>(
    'SELECT status, attempt, lost_attempts, error_class, last_error FROM queue_jobs WHERE workflow_id = ?',
    [emailId],
  );
  assert.equal(queue.length, 1);
  assert.deepEqual(
    { ...queue[0], last_error: undefined },
    { status: 'dead', attempt: budget, lost_attempts: 0, error_class: 'transient', last_error: undefined },
  );
  assert.match(
    queue[0]!.last_error,
    /still running 3 s after the attempt started \(its start-to-close timeout is 4 s\): given up by its worker, which is alive/,
  );
  const audit = await auditOf(emailId);
  assert.deepEqual(
    audit.map((a) => a.event_type),
    [...Array<string>(budget - 1).fill('retry_scheduled'), 'job_dead'],
    'every attempt counted, none lost',
  );
  assert.match(
    audit.at(-1)!.message,
    new RegExp(`poll attempt ${budget} failed \\(${FAILURE_TYPES.stepTimedOut}\\).*no automatic retry left`),
  );
});
