/**
 * `email-rag guidance list|show|set`: the team's guidance for drafts (docs/guidance.md). `set`
 * adds a version to a scope, audited like a save in the review inbox; no version is ever changed.
 */
import { readFileSync } from 'node:fs';
import { createMariaDbAuditLog } from '../platform/audit-log.mariadb';
import type { Config } from '../platform/config';
import { CliError, connectDatabase } from '../platform/cli-context';
import { byOrActor, groupUsage, JSON_OPTION, text, type CliCommand } from '../platform/cli-command';
import type { Pool } from '../platform/pool.mariadb';
import { knownNames, saveGuidance } from './guidance-changes';
import { GUIDANCE_AUDIT_EVENTS, GUIDANCE_MAX_CHARS } from './guidance.contract';
import { createMariaDbGuidanceStore } from './guidance-store.mariadb';
import type { GuidanceVersion } from './guidance.port';
import { formatScope, parseScope } from './guidance-scope';

/** A version as the CLI prints it in JSON: its scope written out. */
export type GuidanceRow = Omit<GuidanceVersion, 'scope'> & { scope: string };
const row = (v: GuidanceVersion): GuidanceRow => ({ ...v, scope: formatScope(v.scope) });

async function withStore<R>(config: Config, work: (pool: Pool) => Promise<R>): Promise<R> {
  const pool = await connectDatabase(config);
  try {
    return await work(pool);
  } catch (err) {
    if (err instanceof RangeError) throw new CliError(err.message, 2);
    throw err;
  } finally {
    await pool.end();
  }
}

export const guidanceList = (config: Config): Promise<GuidanceRow[]> =>
  withStore(config, async (pool) => (await createMariaDbGuidanceStore(pool).listCurrent()).map(row));

export const guidanceShow = (config: Config, scope: string): Promise<GuidanceRow[]> =>
  withStore(config, async (pool) => (await createMariaDbGuidanceStore(pool).history(parseScope(scope))).map(row));

export function guidanceSet(config: Config, opts: { scope: string | undefined; file: string | undefined; by: string }): Promise<string> {
  if (!opts.scope || !opts.file) throw new CliError('guidance set needs --scope SCOPE and --file FILE (- reads stdin)', 2);
  let body: string;
  try {
    body = readFileSync(opts.file === '-' ? 0 : opts.file, 'utf8');
  } catch (err) {
    throw new CliError(`cannot read ${opts.file}: ${(err as Error).message}`, 2);
  }
  return withStore(config, async (pool) => {
    const deps = { store: createMariaDbGuidanceStore(pool), audit: createMariaDbAuditLog(pool) };
    const { created, version: v } = await saveGuidance(deps, { scope: opts.scope!, text: body, author: opts.by }, knownNames(config));
    return created
      ? `guidance ${formatScope(v.scope)}: version ${v.version} saved (g${v.id}) by ${v.author}`
      : `guidance ${formatScope(v.scope)}: unchanged, version ${v.version} (g${v.id}) has this text already`;
  });
}

const firstLine = (t: string) => {
  const line = t.split('\n')[0] ?? '';
  return line.length > 60 ? `${line.slice(0, 59)}…` : line;
};

export function formatList(rows: GuidanceRow[]): string {
  if (rows.length === 0) return 'no guidance yet (email-rag guidance set --scope default --file FILE)';
  const width = Math.max(5, ...rows.map((r) => r.scope.length));
  return [
    `${'scope'.padEnd(width)}  version  id      chars  saved by, at`,
    ...rows.map(
      (r) =>
        `${r.scope.padEnd(width)}  ${String(r.version).padStart(7)}  ${`g${r.id}`.padEnd(6)}  ${String(r.text.length).padStart(5)}  ${r.author}, ${r.createdAt.toISOString()}  "${firstLine(r.text)}"`,
    ),
  ].join('\n');
}

export function formatHistory(rows: GuidanceRow[]): string {
  if (rows.length === 0) return 'no guidance for this scope';
  return rows
    .map(
      (r, i) =>
        `--- ${r.scope} version ${r.version} (g${r.id})${i === 0 ? ', current' : ''}: ${r.author}, ${r.createdAt.toISOString()}\n${r.text}`,
    )
    .join('\n\n');
}

export const guidanceCommands: CliCommand[] = [
  {
    name: 'guidance list',
    usage: `guidance list [--json]                  the current guidance of every scope: version, id, author, first line`,
    options: JSON_OPTION,
    accepts: (rest) => rest.length === 0,
    run: (ctx) => guidanceList(ctx.config()),
    format: formatList,
  } satisfies CliCommand<GuidanceRow[]>,
  {
    name: 'guidance show',
    usage: `guidance show <scope> [--json]          every version of one scope, newest first (default, mailbox:<id>,
                                        category:<name>, mailbox:<id>/category:<name>)`,
    options: JSON_OPTION,
    accepts: (rest) => rest.length === 1,
    run: (ctx, { positionals }) => guidanceShow(ctx.config(), positionals[0]!),
    format: formatHistory,
  } satisfies CliCommand<GuidanceRow[]>,
  {
    name: 'guidance set',
    usage: `guidance set --scope SCOPE --file FILE [--by NAME]
                                        a new version of a scope's guidance from FILE (- reads stdin; at most
                                        ${GUIDANCE_MAX_CHARS} characters); audited as ${GUIDANCE_AUDIT_EVENTS.changed}`,
    options: { scope: { type: 'string' }, file: { type: 'string' }, by: { type: 'string' } },
    accepts: (rest) => rest.length === 0,
    run: (ctx, { values }) =>
      guidanceSet(ctx.config(), { scope: text(values, 'scope'), file: text(values, 'file'), by: byOrActor(values) }),
  } satisfies CliCommand<string>,
  groupUsage('guidance', 'guidance list [--json] | guidance show <scope> [--json] | guidance set --scope SCOPE --file FILE [--by NAME]'),
];
