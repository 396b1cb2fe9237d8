/**
 * The email's status words (table `emails`), its queue rows' (`queue_jobs`) and its sends'
 * (`send_attempts`), and the sets the workflow and operators' SQL test them by. Free of I/O: the
 * email's workflow imports it.
 */
import { DRAFT_STATUS } from '../drafting/index.workflow';

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
  // The email waits, is approved, sent or rejected when its draft is: one word for both.
  awaitingApproval: DRAFT_STATUS.awaitingApproval,
  approved: DRAFT_STATUS.approved,
  sent: DRAFT_STATUS.sent,
  rejected: DRAFT_STATUS.rejected,
  manualReview: 'manual_review',
  failed: 'failed',
  // Triage decided no reply is due (bounce, auto-reply, list mail, ...); a person can pull it back.
  ignored: 'ignored',
  // A person answered the mail outside the assistant (their own mail client, a colleague's
  // address): the draft is withdrawn and nothing is sent. Who, when and the Message-ID are in
  // `outside_replies` and the audit row.
  answeredElsewhere: 'answered_elsewhere',
  // Drafted for a mailbox in shadow mode: nobody is asked and nothing is sent; the email waits for
  // the team's own reply, which its draft is measured against.
  shadowed: 'shadowed',
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

/**
 * A person took the mail for real: its reply was approved or sent, or they answered it elsewhere.
 * Its sender is known to triage: their next mail is never held by a spam score alone.
 */
export const TAKEN_FOR_REAL_STATUSES = Object.freeze([STATUS.approved, STATUS.sent, STATUS.answeredElsewhere] as const);

/** The email's run ended: nothing further happens unless a person pulls it back. */
export const ENDED_STATUSES = Object.freeze([
  STATUS.sent,
  STATUS.rejected,
  STATUS.failed,
  STATUS.ignored,
  STATUS.answeredElsewhere,
] as const);

export type EndedStatus = (typeof ENDED_STATUSES)[number];

/** Whether an email in `status` has ended (its case then settles or moves on). */
export function hasEnded(status: string): status is EndedStatus {
  return (ENDED_STATUSES as readonly string[]).includes(status);
}

/** Shadow mode: the email waits for the team's own reply, not for the pipeline or for a person of ours. */
export const WAITING_FOR_TEAM_STATUSES = Object.freeze([STATUS.shadowed] as const);

export type WaitingForTeamStatus = (typeof WAITING_FOR_TEAM_STATUSES)[number];

/** Statuses in which an email is still work for the pipeline (its backlog): neither waiting for a person or the team nor ended. */
export type UnfinishedStatus = Exclude<EmailStatus, NeedsPersonStatus | EndedStatus | WaitingForTeamStatus>;

export const UNFINISHED_STATUSES: readonly UnfinishedStatus[] = Object.freeze(
  EMAIL_STATUSES.filter(
    (s): s is UnfinishedStatus =>
      !(NEEDS_PERSON_STATUSES as readonly string[]).includes(s) &&
      !(ENDED_STATUSES as readonly string[]).includes(s) &&
      !(WAITING_FOR_TEAM_STATUSES as readonly string[]).includes(s),
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

/** What the email workflow waits for (`waitingFor.kind` of its `state` query); a decision must fit it. */
export const WAITING_KINDS = {
  /** A draft to approve, reject or redraft. */
  approval: 'approval',
  /** No usable draft: a person writes the reply (the email's status of the same name). */
  manualReview: STATUS.manualReview,
  /** The approved reply waits for its next send round. */
  sendRound: 'send_round',
  /** The SMTP server may have the reply: a person checks and decides. */
  sendInDoubt: 'send_in_doubt',
  /** Shadow mode: no decision is taken; the draft waits for the team's own reply. */
  shadow: 'shadow',
} as const;
