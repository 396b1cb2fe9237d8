/**
 * Arrival → awaiting approval with push intake (IMAP IDLE) and with the poll schedule alone, on
 * the real stack with an in-process worker. With `besideReplay`, IDLE is timed a second time while
 * a replay of an archive drafts on the same worker (its own queue and slots, docs/replay.md): what
 * live mail meets while a team replays its history. Open loop: mails are appended over IMAP one at a
 * time with random gaps (2–6 s), whatever the pipeline is doing, as customers write; each is timed
 * from its APPEND to its status `awaiting_approval` (probed every 100 ms).
 */
import { Client, Connection } from '@temporalio/client';
import { installSchedules, triggerPoll } from '../../src/operations/schedules';
import { installWatchers } from '../../src/mailboxes/watchers';
import { loadConfig } from '../../src/config';
import { WATCHER_STATES } from '../../src/mailboxes/mailboxes.contract';
import { STATUS } from '../../src/email/email-status';
import { imapEmailId } from '../../src/email/email-input';
import { createEmailWorker } from '../../workers/email-worker';
import { withImap } from '../../test/support/imap-session';
import { MAILBOX_PASSWORD, MAILBOX_USER, sampleEmail, startStack, type TestStack } from '../../test/support/stack';
import { waitFor } from '../../test/support/wait';
import { replayRun } from '../../src/replay/replay.cli';
import { createTemporalReplayStarter } from '../../src/replay/replay-starter.temporal';
import { CliError } from '../../src/platform/cli-context';
import type { CliContext } from '../../src/platform/cli-command';

/** An archive to replay while live mail is timed: its path and the team's addresses. */
export interface ReplayBeside {
  archive: string;
  team: string[];
}
import { workflowBundle } from '../../test/support/workflow-bundle';

export interface LatencyFigures {
  mode: 'idle' | 'poll' | 'idle-during-replay';
  emails: number;
  p50Ms: number;
  p95Ms: number;
  maxMs: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;
}

async function statuses(stack: TestStack, ids: string[]): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  const rows = (await stack.db.pool.query(`SELECT id, status FROM emails WHERE id IN (${ids.map(() => '?').join(',')})`, ids)) as Array<{
    id: string;
    status: string;
  }>;
  return new Map(rows.map((r) => [r.id, r.status]));
}

/** Appends `n` mails with gaps and times each to awaiting approval. */
async function measure(
  stack: TestStack,
  mode: LatencyFigures['mode'],
  n: number,
  log: (l: string) => void,
): Promise<LatencyFigures & { samples: Array<{ at: number; ms: number }> }> {
  const appendedAt = new Map<string, number>();
  const took: number[] = [];
  const samples: Array<{ at: number; ms: number }> = [];
  let appending = true;
  const appender = (async () => {
    for (let i = 0; i < n; i++) {
      const raw = sampleEmail({
        subject: `Lieferung ${mode}-${i} verspätet`,
        body: `Hallo,\n\nmeine Bestellung ${mode}-${i} ist noch nicht da.\n\nGrüße`,
      });
      const r = await withImap(
        { host: stack.dovecot.host, port: stack.dovecot.port, user: MAILBOX_USER, password: MAILBOX_PASSWORD },
        async (c) => {
          const t = Date.now();
          const res = await c.append('INBOX', raw);
          return res ? { res, t } : undefined;
        },
      );
      if (!r || !r.res.uid) throw new Error('IMAP APPEND returned no UID');
      appendedAt.set(imapEmailId(MAILBOX_USER, 'INBOX', Number(r.res.uidValidity), r.res.uid), r.t);
      await sleep(2_000 + Math.random() * 4_000);
    }
    appending = false;
  })();
  const deadline = Date.now() + n * 6_000 + 600_000;
  while ((appending || appendedAt.size > 0) && Date.now() < deadline) {
    const now = await statuses(stack, [...appendedAt.keys()]);
    const seen = Date.now();
    for (const [id, t] of [...appendedAt]) {
      if (now.get(id) !== STATUS.awaitingApproval) continue;
      took.push(seen - t);
      samples.push({ at: t, ms: seen - t });
      appendedAt.delete(id);
      log(`bench: ${mode} ${took.length}/${n}: ${((seen - t) / 1000).toFixed(2)} s`);
    }
    await sleep(100);
  }
  await appender;
  if (took.length < n) throw new Error(`${n - took.length} mails did not reach awaiting approval in time (${mode})`);
  return { ...figuresOf(mode, took), samples };
}

/** The figures alone, as the report and --json give them. */
const withoutSamples = ({ mode, emails, p50Ms, p95Ms, maxMs }: LatencyFigures): LatencyFigures => ({ mode, emails, p50Ms, p95Ms, maxMs });

function figuresOf(mode: LatencyFigures['mode'], took: number[]): LatencyFigures {
  const sorted = [...took].sort((a, b) => a - b);
  return { mode, emails: took.length, p50Ms: percentile(sorted, 50), p95Ms: percentile(sorted, 95), maxMs: sorted[sorted.length - 1]! };
}

/** How many of the run's pairs have a result, and when the newest was written (ms since the epoch). */
async function replayResults(stack: TestStack, runId: string): Promise<{ n: number; lastAt: number }> {
  const [row] = (await stack.db.pool.query('SELECT COUNT(*) AS n, MAX(created_at) AS last FROM replay_results WHERE run_id = ?', [
    runId,
  ])) as Array<{ n: number | bigint; last: Date | null }>;
  return { n: Number(row?.n ?? 0), lastAt: row?.last ? row.last.getTime() : 0 };
}

/**
 * Starts the replay as `email-rag replay run` does and times `n` live mails during it. Only the
 * mails that arrived while the replay was still drafting count (a short replay may end first);
 * the log says how far the replay got meanwhile.
 */
async function measureBesideReplay(
  stack: TestStack,
  client: Client,
  beside: ReplayBeside,
  n: number,
  log: (l: string) => void,
): Promise<LatencyFigures> {
  const ctx: CliContext = {
    config: () => stack.config,
    temporal: () => Promise.resolve(client),
    usageError: (message) => new CliError(message, 2),
    one: (positionals) => positionals[0] ?? '',
  };
  const t0 = Date.now();
  const run = await replayRun(ctx, beside.archive, { team: beside.team, wait: false, by: 'bench' });
  log(`bench: replay ${run.runId} started: ${run.pairs} pairs`);
  const timed = await measure(stack, 'idle-during-replay', n, log);
  const { n: done, lastAt } = await replayResults(stack, run.runId);
  const finished = done >= run.pairs;
  // A mail counts when the replay drafted on after it arrived.
  const during = timed.samples.filter((x) => !finished || x.at < lastAt).map((x) => x.ms);
  log(
    `bench: the replay drafted ${done} of ${run.pairs} pairs in ${(((finished ? lastAt : Date.now()) - t0) / 1000).toFixed(0)} s ` +
      `(${(done / (((finished ? lastAt : Date.now()) - t0) / 1000)).toFixed(2)} pairs/s); ${during.length} of ${n} live mails arrived while it drafted`,
  );
  if (during.length === 0) throw new Error('no live mail arrived while the replay drafted: the figures would not say anything');
  await createTemporalReplayStarter(client, stack.config.temporal.taskQueue)
    .stop(run.runId, 'latency bench done')
    .catch(() => undefined);
  return figuresOf('idle-during-replay', during);
}

/**
 * Both runs on one stack: first with the watchers, then (with `besideReplay`) with the watchers
 * during a replay, then with them stopped (schedule only).
 */
export async function runLatencyBench(
  n: number,
  pollIntervalSeconds: number,
  log: (l: string) => void,
  besideReplay?: ReplayBeside,
): Promise<LatencyFigures[]> {
  const stack = await startStack({ env: { IMAP_POLL_INTERVAL_SECONDS: String(pollIntervalSeconds) }, keepTraffic: false });
  const worker = await createEmailWorker(stack.config, { workflowBundle: await workflowBundle() });
  const running = worker.run();
  const client = new Client({ connection: await Connection.connect({ address: stack.config.temporal.address }) });
  try {
    await installSchedules(client, stack.config);
    await installWatchers(client, stack.config);
    await triggerPoll(client, stack.config);
    await waitFor(
      'mailbox connected',
      async () => ((await stack.db.pool.query('SELECT 1 FROM mailbox_watermarks')) as unknown[]).length > 0,
    );
    await waitFor(
      'watcher idle',
      async () =>
        ((await stack.db.pool.query('SELECT 1 FROM mailbox_watchers WHERE state = ?', [WATCHER_STATES.idle])) as unknown[]).length > 0,
    );
    const idle = withoutSamples(await measure(stack, 'idle', n, log));
    const duringReplay = besideReplay ? [await measureBesideReplay(stack, client, besideReplay, n, log)] : [];
    await installWatchers(client, loadConfig({ ...stack.env, IMAP_IDLE: 'off' }));
    await waitFor(
      'watcher stopped',
      async () =>
        ((await stack.db.pool.query('SELECT 1 FROM mailbox_watchers WHERE state = ?', [WATCHER_STATES.stopped])) as unknown[]).length > 0,
    );
    const poll = withoutSamples(await measure(stack, 'poll', n, log));
    return [idle, ...duringReplay, poll];
  } finally {
    await worker.shutdown();
    await running.catch(() => undefined);
    await client.connection.close();
    await stack.stop();
  }
}
