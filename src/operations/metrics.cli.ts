import { readMetrics, type Metrics } from './operations.mariadb';
import type { Config } from '../platform/config';
import { CliError, connectDatabase } from '../platform/cli-context';
import { JSON_OPTION, type CliCommand } from '../platform/cli-command';

export type { Metrics } from './operations.mariadb';

/**
 * The operating figures (intake, time to draft, runtimes, backlog, dead letters; see
 * docs/operating.md) from the product's own tables (the queries live in the
 * operations adapter, shared with the review inbox's operations view).
 */
export async function metrics(config: Config, windowMinutes: number, urgentDeadlineMinutes: number): Promise<Metrics> {
  const pool = await connectDatabase(config);
  try {
    const enabled = config.mailboxes.filter((b) => b.enabled).map((b) => ({ id: b.id, folders: b.imap.folders }));
    return await readMetrics(pool, windowMinutes, urgentDeadlineMinutes, enabled);
  } finally {
    await pool.end();
  }
}

export function formatMetrics(m: Metrics): string {
  const ms = (v: number | null) => (v === null ? '–' : `${Math.round(v)} ms`);
  return [
    `last ${m.windowMinutes} min: ${m.intake.emails} emails in (${m.intake.perMinute}/min, peak ${m.intake.peakPerMinute}/min)`,
    `time to draft: p50 ${ms(m.timeToDraftMs.p50)}, p95 ${ms(m.timeToDraftMs.p95)}`,
    'step      runs  p50       p95       failed attempts  dead',
    ...Object.entries(m.steps).map(
      ([step, s]) =>
        `${step.padEnd(9)} ${String(s.runs).padStart(4)}  ${ms(s.p50Ms).padEnd(8)}  ${ms(s.p95Ms).padEnd(8)}  ${String(s.failedAttempts).padStart(15)}  ${String(s.dead).padStart(4)}`,
    ),
    `backlog: ${m.backlog.unfinished} unfinished, oldest ${m.backlog.oldestAgeSeconds ?? '–'} s, oldest urgent ${m.backlog.oldestUrgentAgeSeconds ?? '–'} s`,
    ...(Object.keys(m.backlog.byMailbox).length > 1
      ? [
          `backlog per mailbox: ${Object.entries(m.backlog.byMailbox)
            .map(([id, n]) => `${id}=${n}`)
            .join('  ')}`,
        ]
      : []),
    `dead letters: ${m.deadLetters}`,
    `sends in doubt: ${m.sends.inDoubt}, bounced: ${m.sends.bounced}`,
    ...(m.alerts.length > 0 ? m.alerts.map((a) => `ALERT: ${a}`) : ['alerts: none']),
  ].join('\n');
}

export const metricsCommand: CliCommand<Metrics> = {
  name: 'metrics',
  usage: `metrics [--json] [--minutes N] [--urgent-deadline M]
                                        intake, time to draft, step runtimes and failures, backlog age, alerts`,
  options: { ...JSON_OPTION, minutes: { type: 'string' }, 'urgent-deadline': { type: 'string' } },
  run(ctx, { values }) {
    const minutes = Number(values.minutes ?? 60);
    const deadline = Number(values['urgent-deadline'] ?? 30);
    if (!Number.isInteger(minutes) || minutes < 1 || !Number.isInteger(deadline) || deadline < 1) {
      throw new CliError('--minutes and --urgent-deadline take whole numbers of minutes', 2);
    }
    return metrics(ctx.config(), minutes, deadline);
  },
  format: formatMetrics,
  exitCode: (m) => (m.alerts.length > 0 ? 4 : undefined),
};
