import { createMariaDbDraftStore, createMariaDbMessageStore, createMariaDbSendLedger } from '../email/index.adapters';
import { EMAIL_STATUSES, NEEDS_PERSON_STATUSES, SEND_STATUS, SEND_STATUSES } from '../email';
import { createMariaDbJobLedger } from '../platform/job-ledger.mariadb';
import { countEmailsByMailbox, createMariaDbMailboxHealth, pollHealthLine, createMariaDbWatcherHealth } from '../mailboxes/index.adapters';
import { type PollHealth, type WatcherRow, watcherLine, watcherStatus, type WatcherStatus } from '../mailboxes';
import type { Config } from '../platform/config';
import { QUEUE_STATUS, QUEUE_STATUSES } from '../platform/job-queue';
import { connectDatabase } from '../platform/cli-context';
import { JSON_OPTION, type CliCommand } from '../platform/cli-command';

export interface StatusReport {
  emails: Record<string, number>;
  queue: Record<string, number>;
  deadLetters: number;
  awaitingApproval: number;
  /** send_attempts rows per status. */
  sends: Record<string, number>;
  /** Sends that may have been delivered: a person must decide (resend --force or mark-sent). */
  sendsInDoubt: number;
  sendsBounced: number;
  /** Per mailbox of the registry (and any other mailbox_id the emails still name). */
  mailboxes: MailboxStatus[];
}

export interface MailboxStatus {
  id: string;
  /** `removed`: emails name it, the registry does not (any more). */
  registry: 'enabled' | 'disabled' | 'removed';
  /** Statuses with at least one email. */
  emails: Record<string, number>;
  /** One entry per watched folder; `health` null until its first poll; `watcher`: its IDLE push intake. */
  folders: Array<{ folder: string; health: PollHealth | null; watcher?: WatcherStatus }>;
}

export async function status(config: Config): Promise<StatusReport> {
  const pool = await connectDatabase(config);
  try {
    const emails = await createMariaDbMessageStore(pool).countByStatus();
    const queue = await createMariaDbJobLedger(pool).countByStatus();
    const sends = await createMariaDbSendLedger(pool).countByStatus();
    const perMailbox = await countEmailsByMailbox(pool);
    const polls = await createMariaDbMailboxHealth(pool).list();
    const watchers = await createMariaDbWatcherHealth(pool).list();
    const fill = (keys: readonly string[], counts: Record<string, number>) => Object.fromEntries(keys.map((k) => [k, counts[k] ?? 0]));
    return {
      emails: fill(EMAIL_STATUSES, emails),
      queue: fill(QUEUE_STATUSES, queue),
      deadLetters: queue[QUEUE_STATUS.dead] ?? 0,
      awaitingApproval: NEEDS_PERSON_STATUSES.reduce((sum, s) => sum + (emails[s] ?? 0), 0),
      sends: fill(SEND_STATUSES, sends),
      sendsInDoubt: sends[SEND_STATUS.inDoubt] ?? 0,
      sendsBounced: sends[SEND_STATUS.bounced] ?? 0,
      mailboxes: mailboxStatus(config, perMailbox, polls, watchers),
    };
  } finally {
    await pool.end();
  }
}

function mailboxStatus(
  config: Config,
  perMailbox: Record<string, Record<string, number>>,
  polls: PollHealth[],
  watchers: WatcherRow[],
): MailboxStatus[] {
  const order = (counts: Record<string, number> | undefined) =>
    Object.fromEntries(EMAIL_STATUSES.filter((s) => (counts?.[s] ?? 0) > 0).map((s) => [s, counts![s]!]));
  const known = config.mailboxes.map((m): MailboxStatus => ({
    id: m.id,
    registry: m.enabled ? 'enabled' : 'disabled',
    emails: order(perMailbox[m.id]),
    folders: m.imap.folders.map((folder) => ({
      folder,
      health: polls.find((p) => p.mailboxId === m.id && p.folder === folder) ?? null,
      watcher: watcherStatus(
        config.imap.idle && m.enabled,
        watchers.find((w) => w.mailboxId === m.id && w.folder === folder),
      ),
    })),
  }));
  const removed = Object.keys(perMailbox)
    .filter((id) => !config.mailboxes.some((m) => m.id === id))
    .sort()
    .map((id): MailboxStatus => ({ id, registry: 'removed', emails: order(perMailbox[id]), folders: [] }));
  return [...known, ...removed];
}

export function formatStatus(r: StatusReport): string {
  const line = (counts: Record<string, number>) =>
    Object.entries(counts)
      .map(([k, v]) => `${k}=${v}`)
      .join('  ');
  return [
    `emails: ${line(r.emails)}`,
    `queue:  ${line(r.queue)}`,
    `sends:  ${line(r.sends)}`,
    `dead letters: ${r.deadLetters}   waiting for a person: ${r.awaitingApproval}   sends in doubt: ${r.sendsInDoubt}   bounced: ${r.sendsBounced}`,
    ...(r.sendsInDoubt > 0
      ? [
          'sends in doubt are never retried automatically: check the SMTP log, then `email-rag resend <id> --force --by NAME` or `email-rag mark-sent <id> --by NAME`',
        ]
      : []),
    'mailboxes:',
    ...r.mailboxes.flatMap((m) => [
      `  ${m.id}${m.registry === 'enabled' ? '' : ` (${m.registry === 'removed' ? 'not in the registry' : 'disabled'})`}: ${
        Object.keys(m.emails).length > 0 ? line(m.emails) : 'no emails'
      }`,
      ...m.folders.flatMap((f) => [
        `    ${pollHealthLine(f.health ?? undefined, f.folder)}`,
        ...(f.watcher ? [`      ${watcherLine(f.watcher)}`] : []),
      ]),
    ]),
  ].join('\n');
}

export async function drafts(config: Config) {
  const pool = await connectDatabase(config);
  try {
    return await createMariaDbDraftStore(pool).listAwaiting();
  } finally {
    await pool.end();
  }
}

export const statusCommand: CliCommand<StatusReport> = {
  name: 'status',
  usage: `status [--json]                         emails per status, queue rows per status, dead letters; per mailbox:
                                        emails per status, last successful poll and current poll failures`,
  options: JSON_OPTION,
  run: (ctx) => status(ctx.config()),
  format: formatStatus,
};

type AwaitingDraft = Awaited<ReturnType<typeof drafts>>[number];

export function formatDrafts(list: AwaitingDraft[]): string {
  if (list.length === 0) return 'no drafts waiting for approval';
  return list
    .map((d) => {
      const flags = d.flags.length > 0 ? `, flags: ${d.flags.join(' ')}` : '';
      return `${d.emailId}\tdraft ${d.version} (${d.id})\tto ${d.to.address}\t${d.subject}\t(${d.drafter}/${d.model}, confidence ${d.confidence}${flags})`;
    })
    .join('\n');
}

export const draftsCommand: CliCommand<AwaitingDraft[]> = {
  name: 'drafts',
  usage: 'drafts [--json]                         drafts waiting for approval',
  options: JSON_OPTION,
  run: (ctx) => drafts(ctx.config()),
  format: formatDrafts,
};
