import { createMariaDbAccessLog } from './access-log.mariadb';
import type { Config } from '../platform/config';
import { parseWindow } from '../platform/time-window';
import type { AccessRow } from './access-log.port';
import { CliError, connectDatabase } from '../platform/cli-context';
import { groupUsage, JSON_OPTION, text, type CliCommand } from '../platform/cli-command';

export interface AccessQuery {
  user?: string;
  email?: string;
  /** A window like `7d`, `24h`; none: everything kept. */
  since?: string;
}

/** Who opened which email, who exported or erased what: newest first. */
export async function auditAccess(config: Config, q: AccessQuery): Promise<AccessRow[]> {
  let since: Date | undefined;
  if (q.since !== undefined) {
    try {
      since = parseWindow(q.since, new Date());
    } catch (err) {
      throw new CliError((err as Error).message, 2);
    }
  }
  const pool = await connectDatabase(config);
  try {
    return await createMariaDbAccessLog(pool).list({
      ...(q.user ? { actor: q.user } : {}),
      ...(q.email ? { emailId: q.email } : {}),
      ...(since ? { since } : {}),
    });
  } finally {
    await pool.end();
  }
}

export function formatAccess(rows: AccessRow[]): string {
  if (rows.length === 0) return 'no access recorded';
  return rows
    .map((r) =>
      [r.at.toISOString(), r.actor, r.action, r.emailId ?? '-', r.subjectHash ? `subject ${r.subjectHash.slice(0, 12)}…` : '', r.detail]
        .filter((x) => x !== '')
        .join('\t'),
    )
    .join('\n');
}

export const auditCommands: CliCommand[] = [
  {
    name: 'audit access',
    usage: `audit access [--user NAME] [--email ID] [--since 7d] [--json]
                                        who opened which email in the inbox, who exported or erased what`,
    options: { ...JSON_OPTION, user: { type: 'string' }, email: { type: 'string' }, since: { type: 'string' } },
    accepts: (rest) => rest.length === 0,
    run: (ctx, { values }) =>
      auditAccess(ctx.config(), { user: text(values, 'user'), email: text(values, 'email'), since: text(values, 'since') }),
    format: formatAccess,
  } satisfies CliCommand<AccessRow[]>,
  groupUsage('audit', 'audit access [options]'),
];
