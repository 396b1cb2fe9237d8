/**
 * Status words and identifiers shared by workflows, activities and operators' SQL.
 * This file must stay free of I/O: workflows import it.
 */

/**
 * Business status of one email (table `emails`, column `status`), by name: code names a status
 * through this object, so a renamed or removed status is a type error wherever it is used.
 */
export const STATUS = {
  fetched: 'fetched',
  parsed: 'parsed',
  indexed: 'indexed',
  partiallyIndexed: 'partially_indexed',
  drafted: 'drafted',
  awaitingApproval: 'awaiting_approval',
  approved: 'approved',
  sent: 'sent',
  rejected: 'rejected',
  manualReview: 'manual_review',
  failed: 'failed',
  // Triage decided no reply is due (bounce, auto-reply, list mail, ...); a person can pull it back.
  ignored: 'ignored',
} as const;
export type EmailStatus = (typeof STATUS)[keyof typeof STATUS];
/** Every email status, in pipeline order. */
export const EMAIL_STATUSES: readonly EmailStatus[] = Object.freeze(Object.values(STATUS));

/** The workflow's own status before its first step; never stored in `emails.status`. */
export const START_STATUS = 'new';
/** What the email workflow reports as its status: an email status, or `new` before the first step. */
export type WorkflowStatus = EmailStatus | typeof START_STATUS;

/** The email waits for a person: a draft to approve, or a reply a person must write. */
export const NEEDS_PERSON_STATUSES = Object.freeze([STATUS.awaitingApproval, STATUS.manualReview] as const);
export type NeedsPersonStatus = (typeof NEEDS_PERSON_STATUSES)[number];
/** Whether an email in `status` waits for a person (search attribute NeedsHuman, the review queue). */
export function needsPerson(status: string): status is NeedsPersonStatus {
  return (NEEDS_PERSON_STATUSES as readonly string[]).includes(status);
}

/** The email's run ended: nothing further happens unless a person pulls it back. */
export const ENDED_STATUSES = Object.freeze([STATUS.sent, STATUS.rejected, STATUS.failed, STATUS.ignored] as const);
export type EndedStatus = (typeof ENDED_STATUSES)[number];
/** Whether an email in `status` has ended (its case then settles or moves on). */
export function hasEnded(status: string): status is EndedStatus {
  return (ENDED_STATUSES as readonly string[]).includes(status);
}

/** Statuses in which an email is still work for the pipeline (its backlog): neither waiting for a person nor ended. */
export type UnfinishedStatus = Exclude<EmailStatus, NeedsPersonStatus | EndedStatus>;
export const UNFINISHED_STATUSES: readonly UnfinishedStatus[] = Object.freeze(
  EMAIL_STATUSES.filter(
    (s): s is UnfinishedStatus =>
      !(NEEDS_PERSON_STATUSES as readonly string[]).includes(s) && !(ENDED_STATUSES as readonly string[]).includes(s),
  ),
);

/**
 * Statuses of an email in intake (fetched to drafted): what BACKLOG_LIMIT bounds. An approved
 * reply waits for SMTP, not for intake: counting it held new mail back while a batch of approved
 * replies was being sent.
 */
export const INTAKE_STATUSES: readonly UnfinishedStatus[] = Object.freeze(UNFINISHED_STATUSES.filter((s) => s !== STATUS.approved));

/** Statuses after which no draft is on its way: a decision was taken or the email ended. */
const PAST_DRAFTING: readonly EmailStatus[] = [STATUS.approved, ...ENDED_STATUSES];

/**
 * Statuses (the workflow's own, `new` before its first step) in which a workflow that waits for
 * no decision is on its way to a draft (the first or a redraft). The draft step stores the draft
 * and the status itself, so for a moment a reviewer can see a draft the workflow has not taken in.
 */
export const DRAFT_IN_MAKING_STATUSES: readonly WorkflowStatus[] = Object.freeze([
  START_STATUS,
  ...EMAIL_STATUSES.filter((s) => !PAST_DRAFTING.includes(s)),
]);

/**
 * A case's status (table `cases`): `open` while a mail of the correspondent waits for our answer,
 * `waiting_for_customer` after we answered everything (its clock is paused), `closed` when the
 * correspondent stayed quiet for the case window or nothing was left to answer.
 */
export const CASE_STATUS = { open: 'open', waitingForCustomer: 'waiting_for_customer', closed: 'closed' } as const;
export type CaseStatus = (typeof CASE_STATUS)[keyof typeof CASE_STATUS];
export const CASE_STATUSES: readonly CaseStatus[] = Object.freeze(Object.values(CASE_STATUS));
/** An email in these statuses no longer waits for an answer from us: it does not keep its case open. */
export const CASE_SETTLED_STATUSES = Object.freeze([STATUS.sent, STATUS.rejected, STATUS.ignored] as const);

/** Technical status of one (email, step) job (table `queue_jobs`). */
export const QUEUE_STATUS = {
  pending: 'pending',
  processing: 'processing',
  done: 'done',
  /** Failed, a retry is scheduled. */
  failed: 'failed',
  /** Failed for good: a dead letter for a person (`dlq`). */
  dead: 'dead',
} as const;
export type QueueStatus = (typeof QUEUE_STATUS)[keyof typeof QUEUE_STATUS];
export const QUEUE_STATUSES: readonly QueueStatus[] = Object.freeze(Object.values(QUEUE_STATUS));

/** Status of one draft (table `drafts`). */
export const DRAFT_STATUS = {
  awaitingApproval: STATUS.awaitingApproval,
  approved: STATUS.approved,
  rejected: STATUS.rejected,
  sent: STATUS.sent,
  /** A newer draft of the same email replaced it before a decision. */
  stale: 'stale',
} as const;
export type DraftStatus = (typeof DRAFT_STATUS)[keyof typeof DRAFT_STATUS];

/**
 * What became of a decided draft (table `draft_outcomes`, docs/operating.md "Draft quality").
 * Light and heavy edits are split by the share of words changed (src/drafting/draft-outcome.ts).
 */
export const DRAFT_OUTCOME = {
  approvedUnchanged: 'approved_unchanged',
  lightEdit: 'light_edit',
  heavyEdit: 'heavy_edit',
  rejected: 'rejected',
  /** A newer draft replaced it before a decision: a person asked for one, or a follow-up came. */
  redrafted: 'redrafted',
  /** The reply that went out was written by a person (manual review, or no usable draft). */
  writtenByPerson: 'written_by_person',
} as const;
export type DraftOutcome = (typeof DRAFT_OUTCOME)[keyof typeof DRAFT_OUTCOME];
export const DRAFT_OUTCOMES: readonly DraftOutcome[] = Object.freeze(Object.values(DRAFT_OUTCOME));

/** Send level of the design: `pending → sending → sent`, `failed` (safe to retry), `in_doubt`, `bounced` (table `send_attempts`). */
export const SEND_STATUS = {
  pending: 'pending',
  sending: 'sending',
  sent: 'sent',
  failed: 'failed',
  inDoubt: 'in_doubt',
  bounced: 'bounced',
} as const;
export type SendStatus = (typeof SEND_STATUS)[keyof typeof SEND_STATUS];
export const SEND_STATUSES: readonly SendStatus[] = Object.freeze(Object.values(SEND_STATUS));
/** The reply left (or came back): a send in this status is never made again. */
export const SEND_DONE_STATUSES = Object.freeze([SEND_STATUS.sent, SEND_STATUS.bounced] as const);
export function sendIsDone(status: string): boolean {
  return (SEND_DONE_STATUSES as readonly string[]).includes(status);
}
/** Sends a person must look at: in doubt (decide) and bounced (the reply came back). */
export const SEND_PROBLEM_STATUSES = Object.freeze([SEND_STATUS.inDoubt, SEND_STATUS.bounced] as const);
export type SendProblemStatus = (typeof SEND_PROBLEM_STATUSES)[number];

/** What the send step reports: the reply left now, or had left in an earlier attempt. */
export const SEND_OUTCOME = { sent: SEND_STATUS.sent, alreadySent: 'already_sent' } as const;
export type SendOutcome = (typeof SEND_OUTCOME)[keyof typeof SEND_OUTCOME];

/**
 * Why an incoming email gets no draft (stored as `emails.triage_class`). Order matters only for
 * documentation; src/triage/triage.ts decides which class wins when several apply.
 * `feedback_report` (an abuse complaint about our mail, RFC 5965) is not ignored: it waits for a
 * person. `duplicate` is the copy of a message that another of our mailboxes answers.
 */
export const TRIAGE_CLASSES = ['own_address', 'spam', 'feedback_report', 'bounce', 'auto_reply', 'list', 'no_reply', 'duplicate'] as const;
export type TriageClass = (typeof TRIAGE_CLASSES)[number];
/** Classes `TRIAGE_ALLOW` cannot open: a loop, a complaint about our mail, a copy answered elsewhere. */
/** The triage class of an email and why. */
export interface TriageVerdict {
  class: TriageClass;
  /** One line for operators: which header or pattern decided. */
  reason: string;
}

export const TRIAGE_NEVER_ALLOWED: readonly TriageClass[] = Object.freeze(['own_address', 'feedback_report', 'duplicate']);
/** Classes a person must see (the email waits in manual review without a draft) rather than ignored ones. */
export const TRIAGE_HELD_FOR_PERSON: readonly TriageClass[] = Object.freeze(['feedback_report']);

/**
 * A refused review-inbox sign-in (one audit row each, counted by the worker as
 * email_rag_inbox_login_refusals_total{reason}) and why it was refused.
 * The audit event itself is the review inbox's (`REVIEW_INBOX_AUDIT_EVENTS.loginRefused`).
 */
export const LOGIN_REFUSAL_REASONS = [
  'wrong_credentials',
  'too_soon',
  'account_locked',
  'address_locked',
  'burst',
  // Single sign-on: the provider's answer failed a check (state, nonce, signature, expiry…), or gave no inbox role.
  'sso_invalid',
  'sso_no_role',
] as const;
export type LoginRefusalReason = (typeof LOGIN_REFUSAL_REASONS)[number];

export const PRIORITIES = ['critical', 'high', 'normal', 'low'] as const;
export type Priority = (typeof PRIORITIES)[number];

/**
 * Where the raw message of an email comes from. `mailboxId` names the registry entry it came in
 * through (docs/mailboxes.md); inputs written before there was a registry lack it and mean
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
   * LLM_TIMEOUT_MS of whoever started the run: the draft step's start-to-close timeout follows it
   * (llmStepTimeout). Absent in runs started before it existed: the profile's fixed timeout.
   */
  llmTimeoutMs?: number;
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

/**
 * A case's handover summary (`cases.summary_kind`): made from the mails' own sentences, by the LLM,
 * or from the sentences because the LLM was asked and failed.
 */
export const CASE_SUMMARY_KINDS = { extractive: 'extractive', llm: 'llm', extractiveFallback: 'extractive_fallback' } as const;
export type CaseSummaryKind = (typeof CASE_SUMMARY_KINDS)[keyof typeof CASE_SUMMARY_KINDS];

/**
 * SMTP phases of one attempt, in order. Everything before `data_end` hands nothing over: the
 * server discards a message whose final dot never came. From `data_end` on (the final dot is
 * being written, the reply is awaited) the outcome is unknown until the server answers.
 */
export const SMTP_PHASES = ['connect', 'greeting', 'tls', 'login', 'mail_from', 'rcpt', 'data', 'data_end'] as const;
export type SmtpPhase = (typeof SMTP_PHASES)[number];
