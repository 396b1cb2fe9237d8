/**
 * `email-rag shadow report`: how close the drafts came to the replies the team sent itself — for
 * mailboxes in shadow mode (and live ones where a person answered first), with the same figures
 * and intervals as a replay report.
 */
import type { Config } from '../platform/config';
import { CliError, connectDatabase } from '../platform/cli-context';
import { groupUsage, JSON_OPTION, text, type CliCommand } from '../platform/cli-command';
import { buildEmbedder } from '../retrieval/index.adapters';
import { evidenceOptions, formatEvidenceFigures } from '../replay';
import { MAILBOX_MODES } from '../mailboxes';
import { createMariaDbShadowEvidence } from './shadow-evidence.mariadb';
import { buildShadowReport, standDownFigures, type ShadowReport } from './shadow-report';

export async function shadowReport(config: Config, opts: { mailboxId?: string; mode?: string; sinceDays?: number }): Promise<ShadowReport> {
  if (opts.mode !== undefined && opts.mode !== MAILBOX_MODES.shadow && opts.mode !== MAILBOX_MODES.live)
    throw new CliError(`--mode must be ${MAILBOX_MODES.shadow} or ${MAILBOX_MODES.live}, got ${opts.mode}`, 2);
  const modes = config.mailboxes.map((m) => ({ mailboxId: m.id, mode: m.mode ?? MAILBOX_MODES.live }));
  if (opts.mailboxId && !modes.some((m) => m.mailboxId === opts.mailboxId))
    throw new CliError(`unknown mailbox "${opts.mailboxId}" (known: ${modes.map((m) => m.mailboxId).join(', ')})`, 2);
  const since = opts.sinceDays ? new Date(Date.now() - opts.sinceDays * 86_400_000) : undefined;
  const filter = {
    ...(opts.mailboxId ? { mailboxId: opts.mailboxId } : {}),
    ...(opts.mode ? { mode: opts.mode } : {}),
    ...(since ? { since } : {}),
  };
  const pool = await connectDatabase(config);
  const embedding = await buildEmbedder(config).catch(() => null);
  try {
    const store = createMariaDbShadowEvidence(pool);
    return await buildShadowReport(
      await store.rows(filter),
      {
        filter: { mailboxId: opts.mailboxId ?? null, mode: opts.mode ?? null, sinceDays: opts.sinceDays ?? null },
        standDowns: standDownFigures(await store.standDownLatencies(filter)),
        modes: opts.mailboxId ? modes.filter((m) => m.mailboxId === opts.mailboxId) : modes,
      },
      evidenceOptions(config, embedding?.embedder ?? null),
    );
  } finally {
    await embedding?.stop();
    await pool.end();
  }
}

const seconds = (s: number | null) => (s === null ? '–' : `${s.toFixed(1)} s`);

export function formatShadowReport(r: ShadowReport): string {
  const scope = [
    r.filter.mailboxId ? `mailbox ${r.filter.mailboxId}` : 'every mailbox',
    r.filter.mode ? `measured in ${r.filter.mode} mode` : 'shadow and live',
    r.filter.sinceDays ? `the last ${r.filter.sinceDays} days` : 'all time',
  ].join(', ');
  return formatEvidenceFigures(r, [
    `shadow report (${scope}): ${r.total.measured} drafts measured against the replies the team sent itself`,
    `modes now: ${r.modes.map((m) => `${m.mailboxId} ${m.mode}`).join(', ') || 'no mailboxes'}`,
    `stood down for a person's own answer: ${r.standDowns.withdrawn}; from the reply's Date to the withdrawal p50 ${seconds(r.standDowns.latencyP50)}, p95 ${seconds(r.standDowns.latencyP95)}`,
  ]);
}

export const shadowCommands: CliCommand[] = [
  {
    name: 'shadow report',
    usage: `shadow report [--mailbox ID] [--mode shadow|live] [--days N] [--json]
                                        drafts measured against the team's own replies: the replay's figures with 95 % intervals,
                                        per mailbox, category and language, knowledge gaps, stand-downs and their latency`,
    options: { ...JSON_OPTION, mailbox: { type: 'string' }, mode: { type: 'string' }, days: { type: 'string' } },
    run: (ctx, { values }) => {
      const days = text(values, 'days');
      if (days !== undefined && !/^\d{1,4}$/.test(days)) throw new CliError(`--days must be a whole number of days, got ${days}`, 2);
      const mailboxId = text(values, 'mailbox');
      const mode = text(values, 'mode');
      return shadowReport(ctx.config(), {
        ...(mailboxId ? { mailboxId } : {}),
        ...(mode ? { mode } : {}),
        ...(days ? { sinceDays: Number(days) } : {}),
      });
    },
    format: (r) => formatShadowReport(r as ShadowReport),
  },
  groupUsage('shadow', 'shadow report …'),
];
