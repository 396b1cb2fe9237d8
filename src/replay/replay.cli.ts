/**
 * `email-rag replay run|status|report|delete|list`: replay a team's own history before switching
 * the assistant on (docs/replay.md). Nothing of a replay is sent or enters the live queue.
 */
import { createMariaDbAuditLog } from '../platform/audit-log.mariadb';
import type { Config } from '../platform/config';
import { chooseMailbox } from '../mailboxes';
import { CliError, connectDatabase } from '../platform/cli-context';
import { byOrActor, groupUsage, JSON_OPTION, text, type CliArgs, type CliCommand, type CliContext } from '../platform/cli-command';
import { buildEmbedder } from '../retrieval/index.adapters';
import { prepareReplay, type PreparedRun } from './replay-run';
import { buildReplayReport, evidenceOptions, type ReplayReport } from './replay-report';
import { formatReplayReport, formatRun } from './replay-format';
import { createMariaDbReplayStore } from './replay-store.mariadb';
import { createTemporalReplayStarter } from './replay-starter.temporal';
import type { ReplayRunView } from './replay-store.port';
import type { ReplayProgress } from './replay.workflow';
import { REPLAY_AUDIT_EVENTS } from './replay.contract';

async function withStore<T>(
  config: Config,
  fn: (store: ReturnType<typeof createMariaDbReplayStore>, pool: Awaited<ReturnType<typeof connectDatabase>>) => Promise<T>,
): Promise<T> {
  const pool = await connectDatabase(config);
  try {
    return await fn(createMariaDbReplayStore(pool), pool);
  } finally {
    await pool.end();
  }
}

export interface ReplayRunResult extends PreparedRun {
  /** The workflow's last progress, with --wait. */
  finished?: ReplayProgress;
}

export async function replayRun(
  ctx: CliContext,
  archive: string,
  opts: { mailboxId?: string; team: string[]; limit?: number; wait: boolean; by: string },
): Promise<ReplayRunResult> {
  const config = ctx.config();
  const choice = chooseMailbox(config.mailboxes, opts.mailboxId);
  if ('problem' in choice) throw new CliError(choice.problem, 2);
  const { mailbox } = choice;
  const client = await ctx.temporal();
  const prepared = await withStore(config, (store, pool) =>
    prepareReplay(
      { store, audit: createMariaDbAuditLog(pool) },
      {
        archive,
        mailboxId: mailbox.id,
        team: [mailbox.smtp.from.address, ...opts.team],
        ...(opts.limit !== undefined ? { limit: opts.limit } : {}),
        maxBytes: config.imap.maxMessageBytes,
        by: opts.by,
      },
    ),
  );
  const starter = createTemporalReplayStarter(client, config.temporal.taskQueue);
  const { replay } = config;
  await starter.start({
    runId: prepared.runId,
    total: prepared.pairs,
    batchSize: replay.batchSize,
    inFlight: replay.concurrency,
    pauseMs: replay.pauseMs,
    pairsPerRun: replay.pairsPerRun,
    llmTimeoutMs: config.llm.timeoutMs,
  });
  return opts.wait ? { ...prepared, finished: await starter.result(prepared.runId) } : prepared;
}

export async function replayStatus(ctx: CliContext, runId: string): Promise<ReplayRunView & { workflow: ReplayProgress | null }> {
  const run = await withStore(ctx.config(), (store) => store.run(runId));
  if (!run) throw new CliError(`no replay run ${runId} (email-rag replay list shows the runs)`, 1);
  // The rows are the truth; the workflow's query says whether it still runs.
  const workflow = await ctx
    .temporal()
    .then((client) => createTemporalReplayStarter(client, ctx.config().temporal.taskQueue).progress(runId))
    .catch(() => null);
  return { ...run, workflow };
}

export async function replayReport(config: Config, runId: string): Promise<ReplayReport> {
  return withStore(config, async (store) => {
    const run = await store.run(runId);
    if (!run) throw new CliError(`no replay run ${runId} (email-rag replay list shows the runs)`, 1);
    const rows = await store.reportRows(runId);
    // Grouping the gaps needs the embedder; without it they come back ungrouped with the reason.
    const embedding = await buildEmbedder(config).catch(() => null);
    try {
      return await buildReplayReport(run, rows, evidenceOptions(config, embedding?.embedder ?? null));
    } finally {
      await embedding?.stop();
    }
  });
}

/** Stops the run's workflow if it still runs, then deletes its rows as one, audited. */
export async function replayDelete(ctx: CliContext, runId: string, by: string): Promise<string> {
  const config = ctx.config();
  const client = await ctx.temporal();
  await createTemporalReplayStarter(client, config.temporal.taskQueue).stop(runId, `replay ${runId} deleted by ${by}`);
  return withStore(config, async (store, pool) => {
    const gone = await store.deleteRun(runId);
    if (!gone) throw new CliError(`no replay run ${runId}`, 1);
    await createMariaDbAuditLog(pool).record({
      emailId: null,
      correlationId: `replay-${runId}`,
      eventType: REPLAY_AUDIT_EVENTS.deleted,
      actor: by,
      message: `replay ${runId} deleted: ${gone.pairs} pairs, ${gone.results} results, ${gone.messages} messages`,
      details: gone,
      eventKey: `replay-${runId}:${REPLAY_AUDIT_EVENTS.deleted}`,
    });
    return `replay ${runId} deleted: ${gone.pairs} pairs, ${gone.results} results, ${gone.messages} messages (by ${by})`;
  });
}

function limitOf(values: CliArgs['values']): number | undefined {
  const raw = text(values, 'limit');
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1) throw new CliError(`--limit ${raw}: give a whole number above 0`, 2);
  return n;
}

const teamOf = (values: CliArgs['values']): string[] =>
  Array.isArray(values.team) ? values.team.filter((t): t is string => typeof t === 'string') : [];

export const replayCommands: CliCommand[] = [
  {
    name: 'replay run',
    usage: `replay run <archive> [--mailbox ID] [--team ADDRESS]… [--limit N] [--wait] [--json]
                                        draft the archive's answered customer mails (mbox, Maildir, .eml) as the
                                        product would have on their day and measure them against the replies sent;
                                        nothing is sent, nothing enters the live queue (docs/replay.md)`,
    options: {
      ...JSON_OPTION,
      mailbox: { type: 'string' },
      team: { type: 'string', multiple: true },
      limit: { type: 'string' },
      wait: { type: 'boolean', default: false },
      by: { type: 'string' },
    },
    run: (ctx, { positionals, values }) => {
      const mailboxId = text(values, 'mailbox');
      const limit = limitOf(values);
      return replayRun(ctx, ctx.one(positionals, 'archive (file or directory)'), {
        ...(mailboxId !== undefined ? { mailboxId } : {}),
        team: teamOf(values),
        ...(limit !== undefined ? { limit } : {}),
        wait: values.wait === true,
        by: byOrActor(values),
      });
    },
    format: (r) => {
      const p = r as ReplayRunResult;
      const lines = [
        `replay ${p.runId}: ${p.pairs} pairs of customer mail and sent reply (${p.read} messages read, ${p.skipped} left out; ` +
          `${p.customerMails} customer mails, ${p.unanswered} without a team reply)`,
      ];
      if (p.finished) lines.push(`finished: ${p.finished.done} done, ${p.finished.failed} failed`);
      else lines.push(`progress: email-rag replay status ${p.runId}; figures: email-rag replay report ${p.runId}`);
      return lines.join('\n');
    },
  },
  {
    name: 'replay status',
    usage: 'replay status <run id> [--json]        where a replay run stands: done, failed, total',
    options: JSON_OPTION,
    run: (ctx, { positionals }) => replayStatus(ctx, ctx.one(positionals, 'run id')),
    format: (r) => formatRun(r as Awaited<ReturnType<typeof replayStatus>>),
  },
  {
    name: 'replay report',
    usage: `replay report <run id> [--json]        a run's figures per mailbox, category and language with 95 % intervals,
                                        knowledge gaps, and which categories would qualify for automatic sending`,
    options: JSON_OPTION,
    run: (ctx, { positionals }) => replayReport(ctx.config(), ctx.one(positionals, 'run id')),
    format: (r) => formatReplayReport(r as ReplayReport),
  },
  {
    name: 'replay delete',
    usage: 'replay delete <run id> [--by NAME]     delete a run with its mail, pairs and results (audited)',
    options: { by: { type: 'string' } },
    run: (ctx, { positionals, values }) => replayDelete(ctx, ctx.one(positionals, 'run id'), byOrActor(values)),
  },
  {
    name: 'replay list',
    usage: 'replay list [--json]                   the replay runs, newest first',
    options: JSON_OPTION,
    run: (ctx) => withStore(ctx.config(), (store) => store.runs(50)),
    format: (r) => {
      const runs = r as ReplayRunView[];
      return runs.length === 0 ? 'no replay runs' : runs.map((run) => formatRun({ ...run, workflow: null })).join('\n');
    },
  },
  groupUsage('replay', 'replay run|status|report|delete|list …'),
];
