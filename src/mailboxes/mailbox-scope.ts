import type { MailboxEntry } from './mailbox-registry';

/**
 * The isolation key of a mailbox's mail (docs/pipeline.md, "Whose data a draft may see"): index entries,
 * threads and retrieval are filtered on `account` and `mailbox`. Without a `team` an entry keeps
 * the key the single-account installation always had (IMAP user + folder), so existing index
 * entries and threads stay valid. Entries naming the same team share one key, whatever their
 * account and folder: their mail, threads and replies are one body of context. A team key never
 * equals an IMAP user (it has a prefix no login name has here), so a team never sees a lone account.
 */
export interface IsolationKey {
  /** Stored as `emails.account` and `passages.account`: threads are joined within it. */
  account: string;
  /** Stored as `passages.mailbox`: retrieval stays within account + mailbox. */
  mailbox: string;
}

const TEAM_PREFIX = 'team:';

/** True when the entry names a team of its own choosing (not the account default). */
export function namesTeam(entry: Pick<MailboxEntry, 'team'>): boolean {
  return entry.team !== '' && !entry.team.startsWith('account:');
}

export function isolationKey(entry: Pick<MailboxEntry, 'team' | 'imap'>, folder: string): IsolationKey {
  if (namesTeam(entry)) return { account: `${TEAM_PREFIX}${entry.team}`, mailbox: `${TEAM_PREFIX}${entry.team}` };
  return { account: entry.imap.user, mailbox: folder };
}

/**
 * Every address that is us: each mailbox's From address, IMAP login (often an address too) and
 * its colleagues' `teamAddresses`. Mail from these is ours, not a customer's; a reply to them is refused.
 */
export function ownMailboxAddresses(entries: ReadonlyArray<Pick<MailboxEntry, 'imap' | 'smtp' | 'teamAddresses'>>): string[] {
  const all = entries.flatMap((e) => [e.smtp.from.address, e.imap.user, ...(e.teamAddresses ?? [])]).map((a) => a.trim().toLowerCase());
  return [...new Set(all.filter((a) => a.includes('@')))];
}
