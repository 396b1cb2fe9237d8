import type { DraftOutcome } from '../drafting';
import type { NeedsPersonStatus, UnfinishedStatus, SendStatus } from '../email';
import type { Priority, TriageAlertEvent } from '../triage';

/** Priorities whose oldest unfinished email has a deadline (the urgent-mail alert). */
export const URGENT_PRIORITIES: readonly Priority[] = ['critical', 'high'];

/** Emails of one (mailbox, status, priority) among the unfinished and waiting ones. */
export interface EmailGroup {
  /** The registry entry the emails came in through (emails.mailbox_id). */
  mailboxId: string;
  status: UnfinishedStatus | NeedsPersonStatus;
  priority: Priority;
  count: number;
  /** How long the longest-waiting of them has been in this status. */
  oldestInStatusSeconds: number;
  /** How long ago the oldest of them arrived. */
  oldestSinceArrivalSeconds: number;
}

/** Queue jobs (or failed attempts) of one step and error class. */
export interface StepFailures {
  step: string;
  errorClass: string;
  count: number;
}

/** What the database holds right now. */
export interface OperatingState {
  emails: EmailGroup[];
  /** `queue_jobs` rows in `dead` now (the dead-letter queue). */
  deadLetters: StepFailures[];
  /** `send_attempts` rows per status; statuses without rows are absent. */
  sends: Partial<Record<SendStatus, number>>;
  /** How the last polls of each mailbox and folder went (`mailbox_polls`), by the database's clock. */
  polls: MailboxPollState[];
}

export interface MailboxPollState {
  mailboxId: string;
  folder: string;
  /** null: never polled successfully. */
  secondsSinceSuccess: number | null;
  failuresInARow: number;
  /**
   * Set while the latest poll failed because the mailbox's OAuth2 sign-in was refused
   * (MAILBOX_AUTH_EXPIRED): the provider's reason. The mailbox is blocked until someone fixes it.
   */
  signInRefused?: string | null;
}

/** What happened in a time range (after `from`, up to and including `to`). */
export interface OperatingEvents {
  /** Emails that arrived, per minute (`YYYY-MM-DD HH:MM`, UTC) and priority. */
  received: Array<{ minute: string; priority: Priority; count: number }>;
  /** Status transitions the workflows recorded (`status_changed` audit rows). */
  statusChanges: Array<{ status: string; count: number }>;
  /** Failed attempts per step and error class: retried (`retry_scheduled`) or dead (`job_dead`). */
  failures: Array<StepFailures & { dead: boolean }>;
  /** Arrival to the first draft waiting for a person (or to `manual_review`), per email. */
  timeToDraftSeconds: number[];
  /** Runtime of each step that finished (`done`). */
  stepRuntimes: Array<{ step: string; seconds: number }>;
  /** Drafts decided (`draft_outcomes`), per outcome, mailbox, drafter and prompt version. */
  draftOutcomes: Array<{ outcome: DraftOutcome; mailbox: string; drafter: string; promptVersion: string; count: number }>;
  /** Triage events a person must see (abuse complaints, senders held at the reply limit), per event. */
  triageAlerts: Array<{ event: TriageAlertEvent; count: number }>;
  /** Refused review-inbox sign-ins (`inbox_login_refused` audit rows), per reason. */
  loginRefusals?: Array<{ reason: string; count: number }>;
  /** Categories whose record fell below their autonomy bar (`autonomy_demoted` audit rows), per mailbox. */
  autonomyDemotions?: Array<{ mailbox: string; count: number }>;
}

/**
 * The operating figures, read from the product's own tables: shared by the
 * `email-rag metrics` command (a window) and the worker's Prometheus sampler (every few seconds).
 */
export interface OperatingFigures {
  /** The database's clock minus `lagSeconds`, so that rows still being written are read next time. */
  now(lagSeconds?: number): Promise<Date>;
  state(): Promise<OperatingState>;
  eventsBetween(from: Date, to: Date): Promise<OperatingEvents>;
}

/** Refused sign-ins of the review inbox per reason in a window (the review inbox's adapter; its contract names the reasons). */
export interface SignInRefusals {
  refusalsBetween(from: Date, to: Date): Promise<Array<{ reason: string; count: number }>>;
}
