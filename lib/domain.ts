/**
 * Status words and identifiers shared by workflows, activities and operators' SQL.
 * This file must stay free of I/O: workflows import it.
 */

/** Business status of one email (table `emails`, column `status`). */
export const EMAIL_STATUSES = [
  'fetched',
  'parsed',
  'indexed',
  'partially_indexed',
  'drafted',
  'awaiting_approval',
  'approved',
  'sent',
  'rejected',
  'manual_review',
  'failed',
  // Triage decided no reply is due (bounce, auto-reply, list mail, ...); a person can pull it back.
  'ignored',
] as const;
export type EmailStatus = (typeof EMAIL_STATUSES)[number];

/** Statuses after which no draft is on its way: a decision was taken or the email ended. */
const PAST_DRAFTING: readonly EmailStatus[] = ['approved', 'sent', 'rejected', 'failed', 'ignored'];

/**
 * Statuses (the workflow's own, `new` before its first step) in which a workflow that waits for
 * no decision is on its way to a draft (the first or a redraft). The draft step stores the draft
 * and the status itself, so for a moment a reviewer can see a draft the workflow has not taken in.
 */
export const DRAFT_IN_MAKING_STATUSES: ReadonlyArray<EmailStatus | 'new'> = [
  'new',
  ...EMAIL_STATUSES.filter((s) => !PAST_DRAFTING.includes(s)),
];

/** Technical status of one (email, step) job (table `queue_jobs`). */
export const QUEUE_STATUSES = ['pending', 'processing', 'done', 'failed', 'dead'] as const;
export type QueueStatus = (typeof QUEUE_STATUSES)[number];

/**
 * Why an incoming email gets no draft (stored as `emails.triage_class`). Order matters only for
 * documentation; lib/triage.ts decides which class wins when several apply.
 */
export const TRIAGE_CLASSES = ['own_address', 'spam', 'bounce', 'auto_reply', 'list', 'no_reply'] as const;
export type TriageClass = (typeof TRIAGE_CLASSES)[number];

export const PRIORITIES = ['critical', 'high', 'normal', 'low'] as const;
export type Priority = (typeof PRIORITIES)[number];

/**
 * Where the raw message of an email comes from. `mailboxId` names the registry entry it came in
 * through (README "Several mailboxes"); runs started before there was a registry lack it and mean
 * the `default` mailbox. `mailbox` is the IMAP folder.
 */
export type EmailSource =
  { kind: 'imap'; mailboxId?: string; mailbox: string; uidValidity: number; uid: number } | { kind: 'stored'; mailboxId?: string };

export interface EmailWorkflowInput {
  /** Equals the workflow id: the business identity of the email. */
  emailId: string;
  source: EmailSource;
  /** Imported as history: indexed for retrieval, never answered. */
  historyOnly?: boolean;
  /** Priority decided at intake (headers and rules); aging raises it while the email waits. */
  priority?: Priority;
  /** Drafts one email may get (people's redrafts and thread follow-ups) before a person must write it. */
  maxDrafts?: number;
  /** A person pulled an `ignored` email back into the pipeline: triage is skipped, a draft is made. */
  answerRequestedBy?: string;
  /**
   * `queue`: the intake runs as an activity on the mail-io task queue, where a fleet-wide rate
   * (WORKER_RATE_MAIL_IO_PER_SECOND) applies. Absent: it runs in the run's first workflow task.
   */
  intake?: 'queue';
}

/** A person's decision on a draft, as the workflow passes it on. */
export type Decision = { kind: 'approve'; by: string; body?: string } | { kind: 'reject'; by: string; reason: string };

/** Workflow id of a message in an IMAP mailbox: stable across polls and restarts. */
export function imapEmailId(account: string, mailbox: string, uidValidity: number, uid: number): string {
  const safe = (s: string) => s.replace(/[^A-Za-z0-9._@-]+/g, '_');
  return `email-${safe(account)}-${safe(mailbox)}-${uidValidity}-${uid}`;
}

/** Maps a priority to Temporal's priorityKey (1 runs first). */
export function priorityKey(priority: Priority): number {
  return { critical: 1, high: 2, normal: 3, low: 4 }[priority];
}
