/** How the last poll of one folder of one mailbox went. */
export interface PollHealth {
  mailboxId: string;
  folder: string;
  lastAttemptAt: Date | null;
  lastSuccessAt: Date | null;
  /** Set while the latest attempt failed; cleared by the next success. */
  lastError: string | null;
  lastErrorClass: string | null;
  /** Failed attempts since the last success. */
  failuresInARow: number;
  /** New messages the last successful poll started. */
  lastStarted: number;
}

/**
 * Per-mailbox poll bookkeeping for `email-rag status`, metrics and alerts: one bad mailbox must
 * be visible without hiding the others.
 */
export interface MailboxHealth {
  recordPollSuccess(input: { mailboxId: string; folder: string; started: number }): Promise<void>;
  /** Returns the folder's failure before this one while it was still failing (null after a success or on the first attempt). */
  recordPollFailure(input: { mailboxId: string; folder: string; error: string; errorClass: string }): Promise<{ standing: string | null }>;
  list(): Promise<PollHealth[]>;
}
