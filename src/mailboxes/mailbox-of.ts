import { DEFAULT_MAILBOX_ID } from './mailbox-registry';
import { isolationKey, ownMailboxAddresses, type IsolationKey } from './mailbox-scope';
import type { ServedMailbox, MailboxDirectory } from './mailbox-directory.port';

/** What these helpers need: the registry's mailboxes. */
type Deps = { mailboxes: MailboxDirectory };
/** An email as far as its mailbox goes: the registry entry and IMAP folder it came in through. */
type EmailOfMailbox = { mailboxId: string; mailbox: string | null };

/**
 * The mailbox an email or poll belongs to. Inputs and rows from before the registry name none:
 * they are the `default` mailbox. An id the registry lacks is refused (UNKNOWN_MAILBOX, permanent).
 */
export function mailboxOf(deps: Deps, mailboxId: string | null | undefined): ServedMailbox {
  return deps.mailboxes.get(mailboxId || DEFAULT_MAILBOX_ID);
}

/** The isolation key of a stored email: its mailbox's team, or its account and folder. */
export function emailKey(deps: Deps, email: EmailOfMailbox): IsolationKey {
  return isolationKey(mailboxOf(deps, email.mailboxId).entry, email.mailbox ?? '');
}

/** Every address of every registered mailbox, lower case. */
export function ourAddresses(deps: Deps): string[] {
  return ownMailboxAddresses(deps.mailboxes.list());
}
