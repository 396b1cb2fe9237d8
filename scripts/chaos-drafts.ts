/**
 * Chaos for the draft step: N emails on real servers are drafted while the worker process is
 * killed with SIGKILL every few seconds (a random 4–9 s after each start) and started again, as a
 * crash loop or a rolling deploy would. The model (the LLM double, reached through the real
 * client) takes `--latency` ms per draft, so kills land while drafts are being written. A draft
 * attempt that dies with its worker is run again and not counted against the model's two attempts
 * (docs/queue-model.md): every email must end with a draft, none in manual review.
 *
 *   npm run chaos:drafts -- [--emails N] [--latency MS] [--max-kills K]
 *
 * Prints the kills, the draft attempts lost with their workers (`queue_jobs.lost_attempts`, the
 * `attempt_lost` audit rows), the most one email lost, and the emails per status. Exit 1 when an
 * email waits for a person without a draft, or did not reach a waiting state.
 */
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { loadConfig } from '../src/config';
import { sampleEmail, startStack, type TestStack } from '../test/support/stack';
import { appendMessages, startImapEmail } from '../test/support/services/imap-intake';
import { startWorkerProcess, type WorkerProcess } from '../test/support/services/worker-process';
import { option } from './chaos/options';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function count(stack: TestStack, sql: string): Promise<number> {
  const [row] = (await stack.db.pool.query(sql)) as Array<{ n: number | null }>;
  return Number(row?.n ?? 0);
}

async function main(): Promise<void> {
  const emails = option('emails', 150);
  const latencyMs = option('latency', 1500);
  const maxKills = option('max-kills', 200);
  const started = Date.now();
  const say = (line: string) => console.log(`[${((Date.now() - started) / 1000).toFixed(0).padStart(4)} s] ${line}`);
  let stack: TestStack | undefined;
  let worker: WorkerProcess | undefined;
  let connection: Connection | undefined;
  try {
    stack = await startStack({ env: { TEMPORAL_TASK_QUEUE: 'email-rag', LLM_TIMEOUT_MS: '30000' } });
    const env = stack.env;
    const config = loadConfig(env);
    // Every draft request (retries included) waits `latency` ms before its answer.
    stack.llm.script(...Array.from({ length: emails * 10 }, () => ({ kind: 'delay' as const, ms: latencyMs })));
    const workerLog = path.join(stack.dir, 'worker.log');
    worker = await startWorkerProcess(env, workerLog);
    connection = await Connection.connect({ address: env.TEMPORAL_ADDRESS! });
    const client = new Client({ connection, namespace: env.TEMPORAL_NAMESPACE });
    say(`servers and worker up; ${emails} emails, the model answers after ${latencyMs} ms, a kill 4–9 s after each worker start`);

    const raws = Array.from({ length: emails }, (_, i) =>
      sampleEmail({
        from: `Kunde ${i} <kunde-${i}@customer.example>`,
        messageId: `<chaos-draft-${i}@customer.example>`,
        subject: `Anfrage ${i}`,
      }),
    );
    const appended = await appendMessages(config, raws);
    for (let i = 0; i < appended.length; i += 20)
      await Promise.all(appended.slice(i, i + 20).map((m) => startImapEmail(client, config, m)));

    const waiting = `SELECT COUNT(*) AS n FROM emails WHERE status IN ('awaiting_approval', 'manual_review')`;
    let kills = 0;
    const deadline = Date.now() + 30 * 60_000;
    while ((await count(stack, waiting)) < emails && Date.now() < deadline) {
      if (kills >= maxKills) {
        await sleep(1_000);
        continue;
      }
      await sleep(4_000 + Math.random() * 5_000);
      const inFlight = await count(stack, `SELECT COUNT(*) AS n FROM queue_jobs WHERE step = 'draft' AND status = 'processing'`);
      await worker.kill();
      kills += 1;
      say(`kill ${kills}: ${inFlight} draft attempt(s) in flight, ${await count(stack, waiting)}/${emails} waiting for a person`);
      worker = await startWorkerProcess(env, workerLog);
    }
    const drafted = await count(stack, `SELECT COUNT(*) AS n FROM emails WHERE status = 'awaiting_approval'`);
    const manual = await count(stack, `SELECT COUNT(*) AS n FROM emails WHERE status = 'manual_review'`);
    const lost = await count(stack, `SELECT SUM(lost_attempts) AS n FROM queue_jobs WHERE step = 'draft'`);
    const rowsWithLoss = await count(stack, `SELECT COUNT(*) AS n FROM queue_jobs WHERE step = 'draft' AND lost_attempts > 0`);
    const mostLost = await count(stack, `SELECT MAX(lost_attempts) AS n FROM queue_jobs WHERE step = 'draft'`);
    const lostRows = await count(stack, `SELECT COUNT(*) AS n FROM audit_log WHERE event_type = 'attempt_lost'`);
    const modelFailures = await count(stack, `SELECT COUNT(*) AS n FROM audit_log WHERE event_type IN ('retry_scheduled', 'job_dead')`);
    const byStatus = (await stack.db.pool.query('SELECT status, COUNT(*) AS n FROM emails GROUP BY status')) as Array<{
      status: string;
      n: number;
    }>;
    console.log(
      [
        '',
        `emails                                   ${emails}`,
        `worker kills (SIGKILL)                   ${kills}`,
        `with a draft, awaiting approval          ${drafted}`,
        `manual review (a person writes)          ${manual}`,
        `draft attempts lost with their worker    ${lost} on ${rowsWithLoss} emails (at most ${mostLost} on one), ${lostRows} attempt_lost audit rows`,
        `retries and dead jobs (own failures)     ${modelFailures}`,
        `emails per status                        ${byStatus.map((r) => `${r.status} ${r.n}`).join(', ')}`,
      ].join('\n'),
    );
    if (drafted !== emails) {
      console.error(`chaos: ${emails - drafted} of ${emails} emails ended without a draft`);
      process.exitCode = 1;
    }
  } finally {
    await worker?.kill().catch(() => undefined);
    await connection?.close();
    await stack?.stop();
  }
}

main().catch((err: unknown) => {
  console.error(`chaos failed: ${(err as Error).message}`);
  process.exit(1);
});
