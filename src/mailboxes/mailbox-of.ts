import { DEFAULT_MAILBOX_ID } from './mailbox-registry';
import { isolationKey, ownMailboxAddresses, type IsolationKey } from './mailbox-scope';
import type { ServedMailbox } from './mailbox-directory.port';
import type { EmailRecord } from '../platform/store.port';
import type { ActivityDeps } from '../../activities/activity-deps';

/**
 * The mailbox an email or poll belongs to. Inputs and rows from before the registry name none:
 * they are the `default` mailbox. An id the registry lacks is refused (UNKNOWN_MAILBOX, permanent).
 */
export function mailboxOf(deps: Pick<ActivityDeps, 'mailboxes'>, mailboxId: string | null | undefined): ServedMailbox {
  return deps.mailboxes.get(mailboxId || DEFAULT_MAILBOX_ID);
}

/** The isolation key of a stored email: its mailbox's team, or its account and folder. */
export function emailKey(deps: Pick<ActivityDeps, 'mailboxes'>, email: Pick<EmailRecord, 'mailboxId' | 'mailbox'>): IsolationKey {
  return isolationKey(mailboxOf(deps, email.mailboxId).entry, email.mailbox ?? '');
}

/** Every address of every registered mailbox, lower case. */
export function ourAddresses(deps: Pick<ActivityDeps, 'mailboxes'>): string[] {
  return ownMailboxAddresses(deps.mailboxes.list());
}
