/**
 * `email-rag autonomy status|on|off`: where earned autonomy stands per mailbox and category (the
 * record, the bar, the state) and the automatic sends waiting for their time; one command turns
 * every automatic send off (or on again), audited with the name given.
 */
import { createMariaDbAuditLog } from '../platform/audit-log.mariadb';
import { createMariaDbAutonomyStore } from './autonomy-store.mariadb';
import type { ReplayEvidenceReader } from './replay-evidence';
import type { Pool } from '../platform/pool.mariadb';
import { stopAutomaticSend } from './autonomy.activities';
import { readAutonomyStatus, switchAutonomy, type AutonomyStatus } from './autonomy-status';
import type { Config } from '../platform/config';
import { CliError, connectDatabase } from '../platform/cli-context';
import { groupUsage, JSON_OPTION, text, type CliCommand } from '../platform/cli-command';

/** Reads what named replay runs add to a record; the command line passes the replay's adapter. */
export type ReplayEvidenceOf = (pool: Pool) => ReplayEvidenceReader;

export async function autonomyStatus(config: Config, replayEvidence: ReplayEvidenceOf): Promise<AutonomyStatus> {
  const pool = await connectDatabase(config);
  try {
    return await readAutonomyStatus(createMariaDbAutonomyStore(pool, replayEvidence(pool)), config.autonomy);
  } finally {
    await pool.end();
  }
}

export async function autonomySwitch(config: Config, on: boolean, by: string | undefined): Promise<string> {
  if (typeof by !== 'string' || by.trim() === '') throw new CliError(`autonomy ${on ? 'on' : 'off'} needs --by NAME (who switches)`, 2);
  const pool = await connectDatabase(config);
  try {
    const sw = await switchAutonomy({ store: createMariaDbAutonomyStore(pool), audit: createMariaDbAuditLog(pool) }, on, by);
    const note = on && !config.autonomy ? ' (no AUTONOMY_FILE: no mailbox has a policy, nothing is sent automatically)' : '';
    return `autonomy ${sw.on ? 'on' : 'off'} (by ${sw.by ?? by})${on ? note : ': every draft waits for a person'}`;
  } catch (err) {
    if (err instanceof RangeError) throw new CliError(err.message, 2);
    throw err;
  } finally {
    await pool.end();
  }
}

/** Stops the automatic send of an email's draft (the pending one when --draft is not given). */
export async function autonomyStop(config: Config, emailId: string, opts: { by?: string; draft?: string }): Promise<string> {
  if (typeof opts.by !== 'string' || opts.by.trim() === '') throw new CliError('autonomy stop needs --by NAME (who stops it)', 2);
  const pool = await connectDatabase(config);
  try {
    const store = createMariaDbAutonomyStore(pool);
    const draftId = opts.draft ?? (await store.listPending(emailId))[0]?.draftId;
    if (!draftId)
      throw new CliError(`no automatic send is pending for ${emailId} (name a draft with --draft ID to stop one in advance)`, 1);
    const r = await stopAutomaticSend({ autonomy: store, audit: createMariaDbAuditLog(pool) }, { emailId, draftId, by: opts.by });
    if (!r.stopped) throw new CliError(`draft ${draftId} was sent automatically already`, 5);
    return `stopped the automatic send of ${draftId}: it waits for a person`;
  } finally {
    await pool.end();
  }
}

const pct = (v: number) => `${(v * 100).toFixed(1)} %`;
const STATE_WORDS = { qualifies: 'qualifies', below_bar: 'below bar', not_listed: 'not listed', switched_off: 'switched off' } as const;

export function formatAutonomyStatus(s: AutonomyStatus): string {
  const lines = [
    `autonomy: ${s.switch.on ? 'on' : 'off'}${s.switch.by ? ` (by ${s.switch.by} at ${s.switch.at?.toISOString() ?? '?'})` : ' (never switched on)'}`,
    `policy: ${s.policy ?? 'none (no AUTONOMY_FILE): every draft waits for a person'}`,
  ];
  if (s.categories.length === 0) lines.push('no categories with decided drafts yet');
  else {
    const rows = s.categories.map((c) => [
      c.mailboxId,
      c.category,
      String(c.reviewed),
      `${c.unchanged} ${pct(c.share)}`,
      // With a replay counted the interval is of live and replay together: said in the cell, split below the table.
      `${pct(c.lower)}–${pct(c.upper)}${c.replay ? ' (with replay)' : ''}`,
      `${c.minReviewed} / ${pct(c.minShare)}`,
      STATE_WORDS[c.state],
      c.lastDemotedAt ? c.lastDemotedAt.toISOString() : '–',
    ]);
    const head = ['mailbox', 'category', 'reviewed', 'unchanged', '95 % interval', 'bar (lower bound)', 'state', 'last demoted'];
    const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
    for (const r of [head, ...rows])
      lines.push(
        r
          .map((cell, i) => (i >= 2 && i <= 5 ? cell.padStart(widths[i]!) : cell.padEnd(widths[i]!)))
          .join('  ')
          .trimEnd(),
      );
    const withReplay = s.categories.filter((c) => c.replay);
    if (withReplay.length > 0) lines.push('replay counted by the policy (countReplay):');
    for (const c of withReplay) lines.push(`  ${c.mailboxId}/${c.category}: ${c.replay!.evidence}`);
  }
  if (s.pending.length === 0) lines.push('pending automatic sends: none');
  else {
    lines.push(`pending automatic sends (${s.pending.length}):`);
    for (const p of s.pending)
      lines.push(
        `  ${p.sendAfter.toISOString()}  ${p.emailId}  ${p.draftId}  ${p.mailboxId}/${p.category}  (${p.policy}; email-rag autonomy stop ${p.emailId} --by NAME)`,
      );
  }
  return lines.join('\n');
}

const autonomySwitchCommand = (on: boolean): CliCommand<string> => ({
  name: `autonomy ${on ? 'on' : 'off'}`,
  ...(on ? {} : { usage: 'autonomy off|on --by NAME               switch every automatic send off (or on again); off by default' }),
  options: { by: { type: 'string' } },
  accepts: (rest) => rest.length === 0,
  run: (ctx, { values }) => autonomySwitch(ctx.config(), on, text(values, 'by')),
});

/** The `autonomy` commands; `replayEvidence` comes from the replay feature (cli/main.ts passes it). */
export const autonomyCommands = (replayEvidence: ReplayEvidenceOf): CliCommand[] => [
  {
    name: 'autonomy status',
    usage: `autonomy status [--json]                earned autonomy: the switch, each mailbox category's record (reviewed,
                                        share approved unchanged) against its bar, and its state; pending
                                        automatic sends`,
    options: JSON_OPTION,
    accepts: (rest) => rest.length === 0,
    run: (ctx) => autonomyStatus(ctx.config(), replayEvidence),
    format: formatAutonomyStatus,
  } satisfies CliCommand<AutonomyStatus>,
  autonomySwitchCommand(false),
  autonomySwitchCommand(true),
  {
    name: 'autonomy stop',
    usage: `autonomy stop <emailId> [--draft ID] --by NAME
                                        stop an automatic send: the draft waits for a person`,
    options: { by: { type: 'string' }, draft: { type: 'string' } },
    accepts: (rest) => rest.length === 1,
    run(ctx, { positionals, values }) {
      const draft = text(values, 'draft');
      return autonomyStop(ctx.config(), positionals[0]!, { by: text(values, 'by'), ...(draft !== undefined ? { draft } : {}) });
    },
  } satisfies CliCommand<string>,
  groupUsage('autonomy', 'autonomy status [--json] | autonomy off|on --by NAME | autonomy stop <emailId> [--draft ID] --by NAME'),
];
