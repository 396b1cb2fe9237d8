/**
 * Pipeline benchmark on the real stack (Temporal dev server, MariaDB, Dovecot, SMTP listener;
 * the LLM is the local test double, so figures measure the pipeline, not a model):
 *   npm run bench                 (BENCH_EMAILS=40 by default)
 * Prints latency of one email alone, batch throughput, per-step runtimes and their ratios.
 */
import type { Client } from '@temporalio/client';
import { connectTemporalClient } from '../adapters/temporal-connection';
import { installSchedules, triggerPoll } from '../cli/schedules';
import { MAILBOX_USER, sampleEmail, startStack, type TestStack } from '../test/support/stack';
import { waitFor } from '../test/support/wait';
import { workflowBundle } from '../test/support/workflow-bundle';
import { createEmailWorker } from '../workers/email-worker';
import { approveSignal } from '../workflows/email-workflow';

const N = Number(process.env.BENCH_EMAILS ?? 40);

function pct(values: number[], p: number): number {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? 0;
}

async function count(stack: TestStack, status: string): Promise<number> {
  const rows = (await stack.db.pool.query('SELECT COUNT(*) AS n FROM emails WHERE status = ?', [status])) as Array<{ n: number }>;
  return Number(rows[0]?.n ?? 0);
}

async function deliverAndDraft(stack: TestStack, client: Client, n: number, tag: string): Promise<number> {
  const before = await count(stack, 'awaiting_approval');
  for (let i = 0; i < n; i++) {
    await stack.dovecot.deliver(
      MAILBOX_USER,
      sampleEmail({ subject: `Bench ${tag} ${i}: Frage zu Rechnung ${1000 + i}`, messageId: `<bench-${tag}-${i}@customer.example>` }),
    );
  }
  const t0 = Date.now();
  await triggerPoll(client, stack.config);
  await waitFor(`${n} drafts`, async () => (await count(stack, 'awaiting_approval')) >= before + n, 600_000, 100);
  return Date.now() - t0;
}

async function main(): Promise<void> {
  console.log(`bench: starting the real stack (LLM = local double, ${N} emails in the batch)`);
  const stack = await startStack();
  const worker = await createEmailWorker(stack.config, { workflowBundle: await workflowBundle() });
  const running = worker.run();
  const { client, connection } = await connectTemporalClient(stack.config);
  try {
    await installSchedules(client, stack.config);
    await triggerPoll(client, stack.config);
    await waitFor(
      'mailbox connected',
      async () => ((await stack.db.pool.query('SELECT 1 FROM mailbox_watermarks')) as unknown[]).length > 0,
    );

    const single = await deliverAndDraft(stack, client, 1, 'single');
    const batch = await deliverAndDraft(stack, client, N, 'batch');

    const waiting = (await stack.db.pool.query(
      `SELECT e.id, d.id AS draft_id FROM emails e JOIN drafts d ON d.email_id = e.id AND d.status = 'awaiting_approval'
       WHERE e.status = 'awaiting_approval'`,
    )) as Array<{ id: string; draft_id: string }>;
    const s0 = Date.now();
    await Promise.all(waiting.map((w) => client.workflow.getHandle(w.id).signal(approveSignal, { draftId: w.draft_id, by: 'bench' })));
    // The send step ends after the Sent-folder copy, so wait for the steps, not just the status.
    await waitFor(
      'all send steps finished',
      async () => {
        const rows = (await stack.db.pool.query(`SELECT COUNT(*) AS n FROM queue_jobs WHERE step = 'send' AND status = 'done'`)) as Array<{
          n: number;
        }>;
        return Number(rows[0]?.n) >= waiting.length;
      },
      600_000,
      100,
    );
    const sendMs = Date.now() - s0;

    const trouble = (await stack.db.pool.query(
      `SELECT event_type, COUNT(*) AS n FROM audit_log WHERE event_type NOT IN ('status_changed', 'draft_approved', 'mailbox_connected') GROUP BY event_type`,
    )) as Array<{ event_type: string; n: number }>;
    const steps = (await stack.db.pool.query(
      `SELECT step, runtime_ms FROM queue_jobs WHERE status = 'done' AND step <> 'poll' AND runtime_ms IS NOT NULL`,
    )) as Array<{ step: string; runtime_ms: number }>;
    const byStep = new Map<string, number[]>();
    for (const r of steps) byStep.set(r.step, [...(byStep.get(r.step) ?? []), r.runtime_ms]);
    const singleWork = (await stack.db.pool.query(
      `SELECT COALESCE(SUM(q.runtime_ms), 0) AS ms FROM queue_jobs q JOIN emails e ON e.id = q.workflow_id
       WHERE e.subject LIKE 'Bench single%' AND q.step IN ('fetch', 'parse', 'index', 'draft')`,
    )) as Array<{ ms: number }>;
    const perEmailWork = Number(singleWork[0]?.ms ?? 0);

    console.log('\nfigure                                   value');
    console.log(`one email, poll -> awaiting_approval    ${single} ms`);
    console.log(`${N} emails, poll -> all awaiting         ${batch} ms  (${((N * 1000) / batch).toFixed(1)} emails/s)`);
    console.log(
      `${waiting.length} approvals -> all sent              ${sendMs} ms  (${((waiting.length * 1000) / sendMs).toFixed(1)} sends/s)`,
    );
    console.log('\nstep     runs  p50 ms  p95 ms  max ms');
    for (const [step, v] of [...byStep.entries()]) {
      console.log(
        `${step.padEnd(8)} ${String(v.length).padStart(4)}  ${String(pct(v, 50)).padStart(6)}  ${String(pct(v, 95)).padStart(6)}  ${String(Math.max(...v)).padStart(6)}`,
      );
    }
    console.log(`\nretries, fallbacks and errors in the audit log: ${trouble.map((t) => `${t.event_type}=${t.n}`).join(' ') || 'none'}`);
    console.log('\nratios');
    console.log(`batch time per email / single-email latency   ${(batch / N / single).toFixed(2)}  (below 1: concurrency pays)`);
    console.log(
      `single-email latency / its own step runtimes   ${(single / Math.max(1, perEmailWork)).toFixed(2)}  (${single} ms vs ${perEmailWork} ms; the rest is poll and orchestration)`,
    );
  } finally {
    await worker.shutdown();
    await running.catch(() => undefined);
    await connection.close();
    await stack.stop();
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(`bench failed: ${(err as Error).message}`);
    process.exit(1);
  },
);
