import { DEFAULT_MAILBOX_ID, type MailboxEntry } from './mailbox-registry';

/**
 * The mailbox a command acts as when the operator may leave `--mailbox` out (`email-rag ingest`):
 * the one named; else the registry's only mailbox, whatever its id; else the one with the id
 * `default` (the single-account variables, or a registry that kept that id when it grew). With
 * several and none of them `default`, a guess could file mail under the wrong identity: the
 * operator chooses, and is told from what.
 */
export function chooseMailbox(mailboxes: readonly MailboxEntry[], requested?: string): { mailbox: MailboxEntry } | { problem: string } {
  const known = mailboxes.map((m) => m.id).join(', ') || 'none';
  if (requested !== undefined) {
    const named = mailboxes.find((m) => m.id === requested);
    return named ? { mailbox: named } : { problem: `unknown mailbox "${requested}" (known: ${known})` };
  }
  if (mailboxes.length === 1) return { mailbox: mailboxes[0]! };
  const fallback = mailboxes.find((m) => m.id === DEFAULT_MAILBOX_ID);
  if (fallback) return { mailbox: fallback };
  return { problem: `the registry has ${mailboxes.length} mailboxes: choose one with --mailbox (${known})` };
}
