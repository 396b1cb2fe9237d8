/**
 * Chaos for the send path: N emails on real servers are drafted and approved, and the worker
 * process is killed with SIGKILL K times while replies are in the SMTP hand-over, then started
 * again. Prints how many copies the SMTP server received, duplicates per Message-ID, and the sends
 * left in doubt (waiting for a person), per kill.
 *
 *   node --import tsx scripts/chaos-sends.ts [--emails N] [--kills K] [--latency MS]
 *
 * Exit 1 when a reply arrived twice or an email ended neither sent nor in doubt.
 */
import * as path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { loadConfig } from '../lib/config';
import { sampleEmail, startStack, type TestStack } from '../test/support/stack';
import { waitFor } from '../test/support/wait';
import { approveSignal } from '../workflows/email-workflow';
import { readSends } from './chaos/send-ledger-view';
import { appendMessages, startImapEmail } from './services/imap-intake';
import { startSwitchableSmtp, type SwitchableSmtp } from './services/switchable-smtp';
import { startWorkerProcess, type WorkerProcess } from './services/worker-process';

interface Kill {
  n: number;
  moment: 'data-start' | 'data-end';
  /** SMTP transactions between DATA and their answer when the worker died. */
  inFlight: number;
  /** Rows this kill left mid-send (not counted for an earlier kill): the candidates for "in doubt". */
  sendingAtKill: Set<string>;
}

function option(name: string, fallback: number): number {
  const at = process.argv.indexOf(`--${name}`);
  if (at < 0) return fallback;
  const value = Number(process.argv[at + 1]);
  if (!Number.isInteger(value) || value < 0) throw new Error(`--${name} needs a whole number, got ${process.argv[at + 1]}`);
  return value;
}

async function inBatches<T>(items: T[], size: number, fn: (item: T) => Promise<unknown>): Promise<void> {
  for (let i = 0; i < items.length; i += size) await Promise.all(items.slice(i, i + size).map(fn));
}

async function main(): Promise<void> {
  const emails = option('emails', 200);
  const plannedKills = option('kills', 8);
  const latencyMs = option('latency', 300);
  const started = Date.now();
  const say = (line: string) => console.log(`[${((Date.now() - started) / 1000).toFixed(0).padStart(4)} s] ${line}`);

  let smtp: SwitchableSmtp | undefined;
  let stack: TestStack | undefined;
  let worker: WorkerProcess | undefined;
  let connection: Connection | undefined;
  try {
    smtp = await startSwitchableSmtp();
    // The answer to DATA comes this long after the final dot: the window a kill can land in.
    smtp.setLatency(latencyMs);
    stack = await startStack({
      env: { SMTP_HOST: smtp.host, SMTP_PORT: String(smtp.port), TEMPORAL_TASK_QUEUE: 'email-rag', LLM_TIMEOUT_MS: '30000' },
    });
    const env = stack.env;
    const config = loadConfig(env);
    const workerLog = path.join(stack.dir, 'worker.log');
    worker = await startWorkerProcess(env, workerLog);
    connection = await Connection.connect({ address: env.TEMPORAL_ADDRESS! });
    const client = new Client({ connection, namespace: env.TEMPORAL_NAMESPACE });
    const pool = stack.db.pool;
    say(`servers and worker up; ${emails} emails, ${plannedKills} kills, SMTP answers ${latencyMs} ms after the final dot`);

    const raws = Array.from({ length: emails }, (_, i) =>
      sampleEmail({
        from: `Kunde ${i} <kunde-${i}@customer.example>`,
        messageId: `<chaos-${i}@customer.example>`,
        subject: `Anfrage ${i}`,
      }),
    );
    const appended = await appendMessages(config, raws);
    const ids: string[] = [];
    await inBatches(appended, 20, async (m) => void ids.push(await startImapEmail(client, config, m)));
    let shown = -1;
    await waitFor(
      'every email drafted',
      async () => {
        const [row] = (await pool.query(
          `SELECT COUNT(*) AS n FROM emails WHERE status IN ('awaiting_approval', 'manual_review')`,
        )) as Array<{
          n: number;
        }>;
        const n = Number(row?.n ?? 0);
        if (n !== shown && (n === emails || n - shown >= Math.max(1, Math.floor(emails / 10)))) say(`${(shown = n)}/${emails} drafted`);
        return n === emails;
      },
      30 * 60_000,
      1_000,
    );

    // Kill plan: after every N/(K+1) copies, at the next DATA start (nothing handed over yet) or
    // the next final dot (handed over, answer pending), alternately.
    const step = Math.max(1, Math.floor(emails / (plannedKills + 1)));
    const kills: Kill[] = [];
    let inFlight = 0;
    let dataStarts = 0;
    let killing: Promise<void> | undefined;
    const killNow = (moment: Kill['moment']): void => {
      const kill: Kill = { n: kills.length + 1, moment, inFlight, sendingAtKill: new Set() };
      kills.push(kill);
      killing = (async () => {
        await worker!.kill();
        const rows = (await pool.query(`SELECT draft_id FROM send_attempts WHERE status IN ('sending', 'in_doubt')`)) as Array<{
          draft_id: string;
        }>;
        // Rows an earlier kill left mid-send stay so until their retry: they belong to that kill.
        for (const r of rows) if (!kills.some((k) => k.sendingAtKill.has(r.draft_id))) kill.sendingAtKill.add(r.draft_id);
        say(`kill ${kill.n} at ${moment}: ${kill.inFlight} SMTP transaction(s) in flight, ${kill.sendingAtKill.size} row(s) left mid-send`);
        worker = await startWorkerProcess(env, workerLog);
        inFlight = 0;
        killing = undefined;
      })();
    };
    const due = (): Kill['moment'] | undefined =>
      !killing && kills.length < plannedKills && smtp!.received() >= (kills.length + 1) * step
        ? kills.length % 2 === 0
          ? 'data-end'
          : 'data-start'
        : undefined;
    smtp.events.on('data-start', () => {
      dataStarts += 1;
      inFlight += 1;
      if (due() === 'data-start') killNow('data-start');
    });
    smtp.events.on('data-end', () => {
      if (due() === 'data-end') killNow('data-end');
      setTimeout(() => (inFlight = Math.max(0, inFlight - 1)), latencyMs);
    });

    await inBatches(ids, 20, (id) => client.workflow.getHandle(id).signal(approveSignal, { by: 'chaos' }));
    say(`all ${emails} approved`);

    // Settled: every email sent or waiting in doubt, and no kill or restart under way.
    const outcome = await waitFor(
      'every send sent or in doubt',
      async () => {
        if (killing) return undefined;
        const view = await readSends(pool, client);
        const sent = view.rows.filter((r) => r.status === 'sent').length;
        return sent + view.inDoubt.size >= emails ? view : undefined;
      },
      30 * 60_000,
      2_000,
    ).catch(async (err: unknown) => {
      say(`not settled: ${(err as Error).message}`);
      return readSends(pool, client);
    });

    const copies = smtp.copies;
    const duplicates = [...copies].filter(([, n]) => n > 1);
    const sentRows = outcome.rows.filter((r) => r.status === 'sent');
    const byDraft = new Map(outcome.rows.map((r) => [r.draftId, r]));
    const delivered = (draftId: string) => (copies.get(byDraft.get(draftId)?.messageId ?? '') ?? 0) > 0;
    const doubtful = [...outcome.inDoubt];
    const lost = emails - sentRows.length - doubtful.length;
    console.log('');
    console.log(`emails:                 ${emails}`);
    console.log(
      `kills:                  ${kills.length} of ${plannedKills} planned (${kills.filter((k) => k.moment === 'data-end').length} after the final dot, ${kills.filter((k) => k.moment === 'data-start').length} at DATA start)`,
    );
    console.log(`sends:                  ${dataStarts} SMTP DATA started, ${sentRows.length} send_attempts rows sent`);
    console.log(`copies received:        ${smtp.received()} (${copies.size} distinct Message-IDs)`);
    console.log(
      `duplicates:             ${duplicates.length}${
        duplicates.length
          ? ` (${duplicates
              .slice(0, 5)
              .map(([id, n]) => `${id} x${n}`)
              .join(', ')})`
          : ''
      }`,
    );
    console.log(
      `in doubt:               ${doubtful.length} (${doubtful.filter(delivered).length} of them did reach the SMTP server, ${doubtful.filter((d) => !delivered(d)).length} did not)`,
    );
    console.log(`neither sent nor doubt: ${lost}`);
    for (const k of kills) {
      const mine = doubtful.filter((d) => k.sendingAtKill.has(d));
      console.log(
        `  kill ${k.n} (${k.moment}): ${k.inFlight} in flight, ${k.sendingAtKill.size} mid-send rows, ${mine.length} in doubt (${mine.filter(delivered).length} delivered)`,
      );
    }
    if (duplicates.length > 0 || lost > 0) process.exitCode = 1;
  } finally {
    await worker?.kill().catch(() => undefined);
    await connection?.close().catch(() => undefined);
    await smtp?.stop().catch(() => undefined);
    await stack?.stop().catch(() => undefined);
  }
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? (err.stack ?? err.message) : String(err));
  process.exitCode = 1;
});
