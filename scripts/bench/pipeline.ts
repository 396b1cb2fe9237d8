import fs from 'node:fs';
import path from 'node:path';
import type { Client } from '@temporalio/client';
import { pollScheduleId, triggerPoll } from '../../src/operations/schedules';
import { DEFAULT_MAILBOX_ID } from '../../src/mailboxes/mailbox-registry';
import { sampleEmail, MAILBOX_USER, type TestStack } from '../../test/support/stack';
import { approveUpdate } from '../../src/email/email.workflow';
import { spawnManaged } from '../../test/support/services/child-process';
import { inParallel } from './twin';
import { rowKey } from './worker-spread';

const root = path.resolve(__dirname, '../..');

export type Source = 'imap' | 'ingest';

async function scalar(stack: TestStack, sql: string, args: unknown[] = []): Promise<number> {
  const rows = (await stack.db.pool.query(sql, args)) as Array<{ n: number }>;
  return Number(rows[0]?.n ?? 0);
}

export const countStatus = (stack: TestStack, status: string) =>
  scalar(stack, 'SELECT COUNT(*) AS n FROM emails WHERE status = ?', [status]);

/** One mail of the bench's load set: its own sender, a question about an invoice. */
export function benchMail(tag: string, i: number): string {
  return sampleEmail({
    // Different senders: each email is its own correspondent, as in a real inbox.
    from: `Kunde ${i} <kunde-${tag}-${i}@customer${i % 50}.example>`,
    subject: `Bench ${tag} ${i}: Frage zu Rechnung ${1000 + i}`,
    messageId: `<bench-${tag}-${i}@customer.example>`,
  });
}

/** Puts `n` messages where the source reads them: the IMAP inbox, or .eml files for `email-rag ingest`. */
export async function prepare(stack: TestStack, source: Source, n: number, tag: string): Promise<string | undefined> {
  if (source === 'imap') {
    await inParallel(
      Array.from({ length: n }, (_, i) => i),
      4,
      (i) => stack.dovecot.deliver(MAILBOX_USER, benchMail(tag, i)),
    );
    return undefined;
  }
  const dir = path.join(stack.dir, `ingest-${tag}`);
  fs.mkdirSync(dir, { recursive: true });
  for (let i = 0; i < n; i++) fs.writeFileSync(path.join(dir, `${String(i).padStart(6, '0')}.eml`), benchMail(tag, i));
  return dir;
}

/**
 * Starts the intake the way production does: the poll schedule (re-triggered whenever no poll
 * run is active and mail is left, as the schedule's next interval would) or `email-rag ingest`.
 */
export async function intake(
  stack: TestStack,
  client: Client,
  source: Source,
  dir: string | undefined,
  until: () => Promise<boolean>,
  timeoutMs: number,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  if (source === 'ingest') {
    const cli = spawnManaged(process.execPath, [path.join(root, 'bin/email-rag.js'), 'ingest', dir as string], {
      logFile: path.join(stack.dir, 'ingest.log'),
      env: { ...process.env, ...stack.env },
      cwd: root,
    });
    const code = await cli.exited;
    if (code !== 0) throw new Error(`email-rag ingest exited ${code}: ${cli.logTail(10)}`);
  } else {
    await triggerPoll(client, stack.config);
  }
  let lastTrigger = Date.now();
  while (!(await until())) {
    if (Date.now() > deadline) throw new Error(`intake did not finish within ${timeoutMs} ms`);
    if (source === 'imap' && Date.now() - lastTrigger > 5_000) {
      const running = (await client.schedule.getHandle(pollScheduleId(DEFAULT_MAILBOX_ID)).describe()).info.runningActions.length;
      if (running === 0) await triggerPoll(client, stack.config);
      lastTrigger = Date.now();
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Per email: trigger → awaiting_approval, and its first fetch → awaiting_approval (the pipeline alone). */
export async function latencies(stack: TestStack, t0: number, tag: string): Promise<{ fromTrigger: number[]; fromFetch: number[] }> {
  const rows = (await stack.db.pool.query(
    `SELECT e.updated_at AS done, (SELECT MIN(q.started_at) FROM queue_jobs q WHERE q.workflow_id = e.id AND q.step = 'fetch') AS fetched
       FROM emails e WHERE e.status = 'awaiting_approval' AND e.subject LIKE ?`,
    [`Bench ${tag} %`],
  )) as Array<{ done: Date; fetched: Date | null }>;
  return {
    fromTrigger: rows.map((r) => r.done.getTime() - t0),
    fromFetch: rows.filter((r) => r.fetched).map((r) => r.done.getTime() - (r.fetched as Date).getTime()),
  };
}

/** Ids of the emails whose subject starts with `Bench <tag> `, in the order they were stored. */
export async function batchEmailIds(stack: TestStack, tag: string): Promise<string[]> {
  const rows = (await stack.db.pool.query('SELECT id FROM emails WHERE subject LIKE ? ORDER BY created_at, id', [
    `Bench ${tag} %`,
  ])) as Array<{
    id: string;
  }>;
  return rows.map((r) => r.id);
}

/**
 * Approves every waiting draft with the `approve` Update naming its draft id; returns how many.
 * Only the ids are loaded; a workflow handle exists only while its Update is in flight (at most
 * `concurrency` at once), so 10,000 waiting emails hold 10,000 id pairs, no handles or promises.
 */
export async function approveAll(stack: TestStack, client: Client, concurrency: number): Promise<number> {
  const waiting = (await stack.db.pool.query(
    `SELECT e.id, d.id AS draft_id FROM emails e JOIN drafts d ON d.email_id = e.id AND d.status = 'awaiting_approval'
      WHERE e.status = 'awaiting_approval'`,
  )) as Array<{ id: string; draft_id: string }>;
  await inParallel(waiting, concurrency, async (w) => {
    await client.workflow.getHandle(w.id).executeUpdate(approveUpdate, { args: [{ draftId: String(w.draft_id), by: 'bench' }] });
  });
  return waiting.length;
}

export const sendsDone = (stack: TestStack) =>
  scalar(stack, `SELECT COUNT(*) AS n FROM queue_jobs WHERE step = 'send' AND status = 'done'`);

/** Messages the SMTP listener received, and how many of them repeat a Message-ID seen before. */
export function smtpCopies(stack: TestStack): { received: number; duplicates: number } {
  return stack.smtp.counts();
}

export interface StepRow {
  step: string;
  /** workflow id / run id / activity id: the row's activity (see worker-spread). */
  key: string;
  started: number;
  finished: number;
}

/** Queue rows (one per activity attempt that finished) with their running window. */
export async function stepRows(stack: TestStack, steps: string[]): Promise<StepRow[]> {
  const rows = (await stack.db.pool.query(
    `SELECT step, workflow_id, run_id, activity_id, started_at, finished_at FROM queue_jobs
      WHERE step IN (?) AND started_at IS NOT NULL AND finished_at IS NOT NULL`,
    [steps],
  )) as Array<{ step: string; workflow_id: string; run_id: string; activity_id: string; started_at: Date; finished_at: Date }>;
  return rows.map((r) => ({
    step: r.step,
    key: rowKey(r.workflow_id, r.run_id, r.activity_id),
    started: r.started_at.getTime(),
    finished: r.finished_at.getTime(),
  }));
}

/** Runtime (ms) of each finished step's queue rows, for the emails whose subject starts with `Bench <tag> `. */
export async function stepRuntimes(stack: TestStack, tag: string): Promise<Record<string, number[]>> {
  const rows = (await stack.db.pool.query(
    `SELECT q.step, q.runtime_ms FROM queue_jobs q JOIN emails e ON e.id = q.workflow_id
      WHERE q.status = 'done' AND q.runtime_ms IS NOT NULL AND e.subject LIKE ?`,
    [`Bench ${tag} %`],
  )) as Array<{ step: string; runtime_ms: number }>;
  const out: Record<string, number[]> = {};
  for (const r of rows) (out[r.step] ??= []).push(Number(r.runtime_ms));
  return out;
}

/** The audit message of the first activity that gave up (no retry left), if any: the run cannot finish then. */
export async function firstDeadJob(stack: TestStack): Promise<string | undefined> {
  const rows = (await stack.db.pool.query(`SELECT message FROM audit_log WHERE event_type = 'job_dead' ORDER BY id LIMIT 1`)) as Array<{
    message: string;
  }>;
  return rows[0]?.message;
}

/**
 * Arrival → awaiting approval of single mails while the drain runs: every 1–3 s one mail is put
 * into the inbox (IMAP IDLE tells the worker) and timed until its status is `awaiting_approval`,
 * as a customer writing during a busy hour would be. Returns the times (ms) of the probes that
 * arrived before `busy()` turned false and reached a person.
 */
export async function probeArrivals(stack: TestStack, tag: string, busy: () => boolean): Promise<number[]> {
  const times: number[] = [];
  const timed: Array<Promise<void>> = [];
  for (let i = 0; busy(); i++) {
    const raw = benchMail(`${tag}-probe`, i);
    const subject = `Bench ${tag}-probe ${i}: %`;
    const t0 = Date.now();
    await stack.dovecot.deliver(MAILBOX_USER, raw);
    timed.push(
      (async () => {
        for (let waited = 0; waited < 120_000; waited += 100) {
          const n = await scalar(stack, `SELECT COUNT(*) AS n FROM emails WHERE subject LIKE ? AND status = 'awaiting_approval'`, [
            subject,
          ]);
          if (n > 0) return void times.push(Date.now() - t0);
          await new Promise((r) => setTimeout(r, 100));
        }
        times.push(Number.POSITIVE_INFINITY); // not with a person after two minutes: shown, not hidden
      })(),
    );
    await new Promise((r) => setTimeout(r, 1_000 + Math.random() * 2_000));
  }
  await Promise.all(timed);
  if (process.env.BENCH_PROBE_DETAIL) await printSlowestProbe(stack, tag);
  return times.sort((a, b) => a - b);
}

/** BENCH_PROBE_DETAIL=1: where the slowest probe's time went, from its email row and queue rows. */
async function printSlowestProbe(stack: TestStack, tag: string): Promise<void> {
  const [slow] = (await stack.db.pool.query(
    `SELECT e.id, e.created_at, TIMESTAMPDIFF(MICROSECOND, e.created_at, MAX(a.created_at)) / 1000 AS ms
       FROM emails e JOIN audit_log a ON a.email_id = e.id
      WHERE e.subject LIKE ? GROUP BY e.id, e.created_at ORDER BY ms DESC LIMIT 1`,
    [`Bench ${tag}-probe %`],
  )) as Array<{ id: string; created_at: Date; ms: number }>;
  if (!slow) return;
  const at = (d: Date | null) => (d ? `+${d.getTime() - slow.created_at.getTime()} ms` : '-');
  const jobs = (await stack.db.pool.query(
    'SELECT step, created_at, started_at, finished_at, attempt FROM queue_jobs WHERE email_id = ? ORDER BY id',
    [slow.id],
  )) as Array<{ step: string; created_at: Date; started_at: Date | null; finished_at: Date | null; attempt: number }>;
  const audit = (await stack.db.pool.query('SELECT event_type, message, created_at FROM audit_log WHERE email_id = ? ORDER BY id', [
    slow.id,
  ])) as Array<{ event_type: string; message: string; created_at: Date }>;
  console.log(`slowest probe ${slow.id}: stored, then`);
  for (const j of jobs)
    console.log(
      `  step ${j.step}: queued ${at(j.created_at)}, started ${at(j.started_at)}, done ${at(j.finished_at)}, attempt ${j.attempt}`,
    );
  for (const a of audit) console.log(`  audit ${a.event_type} ${at(a.created_at)}: ${a.message.slice(0, 100)}`);
}
