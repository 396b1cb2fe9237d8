/**
 * Ids of a mailbox's poll schedule and watcher workflow: the CLI installs them, the worker's
 * watcher wakes the schedule. Derived from the registry id only, so every process names the same.
 */

/** Every IMAP poll schedule of the product starts with this; install removes the ones no mailbox wants. */
export const POLL_SCHEDULE_PREFIX = 'imap-poll-';

/** The poll schedule of one registry entry (docs/mailboxes.md). */
export function pollScheduleId(mailboxId: string): string {
  return `${POLL_SCHEDULE_PREFIX}${mailboxId}`;
}

/** Every mailbox watcher's workflow id starts with this. */
export const WATCH_WORKFLOW_PREFIX = 'watch-';

/** The one watcher workflow of a mailbox: however many workers or installs start it, one runs. */
export function watchWorkflowId(mailboxId: string): string {
  return `${WATCH_WORKFLOW_PREFIX}${mailboxId}`;
}
