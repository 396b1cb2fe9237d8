/**
 * What passes between the email's workflows and its activities: each activity's input and result,
 * and the interface the workflows proxy. Types only: reading the workflow ends here, not in the
 * activities' code.
 */
import type { SendSnapshot } from './email-stores.port';
import type { StatusStep } from './status-transitions';
import type { Priority, TriageClass } from '../triage';
import type { FoundMessage } from '../mailboxes';
import type { AuditEventType } from '../platform/audit-event-types';
import type { Decision, EmailWorkflowInput } from './email-input';
import type { EmailStatus, SendOutcome } from './email-status';
import type { AnsweredElsewhereNote } from './workflow-starter.port';

/** What MariaDB knows after the workflow recorded a status. */
export interface StatusRecord {
  stored: EmailStatus | null;
  /** The send that matters most: a reply that left (or may have) outranks a failed try. */
  send: SendSnapshot | null;
  /** Drafts of earlier runs keep their versions; a reset run numbers on from here. */
  maxDraftVersion: number;
}

/** A transition an activity recorded for the workflow, and what MariaDB knew afterwards. */
export type RecordedStatus = StatusRecord & StatusStep;

/**
 * What the workflow hands an activity that records its own transition when it succeeds: the
 * transition's number (reserved by the workflow) and, for intake, the statuses passed on the way.
 */
export interface StatusToRecord {
  seq: number;
  via?: StatusStep[];
}

/** What the workflow records when it stands down for a person's outside answer. */
export interface StandDownResult {
  /** Who answered, when, which message; null when the store holds no answer (a signal without one). */
  note: AnsweredElsewhereNote | null;
  /** Drafts withdrawn now (a retry withdraws none). */
  withdrawn: number;
}

export interface PollResult {
  /** The registry id of the polled mailbox (absent in results of runs from before the registry). */
  mailboxId?: string;
  /** The IMAP folder of this pass. */
  mailbox: string;
  uidValidity: number;
  started: string[];
  existing: string[];
  backlog: number;
  watermark: number;
  /** An OAuth2 mailbox not signed in yet: nothing was polled (its poll health says so). */
  notSignedIn?: boolean;
  /**
   * The failure code this poll met again, the one its poll before failed with for good (a refused
   * sign-in, a folder that is gone): nothing was polled, and no second dead letter was made.
   */
  stillFailing?: string;
  /** The watermark before this pass. */
  from?: number;
  /** New mail is still waiting above the watermark and the backlog left room: poll again at once. */
  more?: boolean;
  /**
   * The backlog (BACKLOG_LIMIT) had no room for all the new mail listed: some waits above the
   * watermark until emails leave the backlog. The poll workflow waits and passes again.
   */
  cutByBacklog?: boolean;
  /** The mailbox's poll interval: how long a run may wait for the backlog before the next run takes over. */
  pollIntervalSeconds?: number;
  /**
   * Every folder the mailbox watches, when the input named none: the poll workflow drains the
   * others after this one.
   */
  folders?: string[];
  /** Waiting emails this run found answered by a person in the mailbox's Sent folder (their workflows were told). */
  answeredElsewhere?: string[];
}

export interface PollInput {
  /** Registry id; left out (runs and schedules from before the registry): the default mailbox. */
  mailboxId?: string;
  /** The folder to poll; left out: the mailbox's first folder. */
  folder?: string;
  /** The folder, as runs and schedules from before the registry name it. */
  mailbox?: string;
  /**
   * Set by the poll workflow on its second and later passes: what it started since `sinceUid`.
   * Those workflows count towards the backlog until they stored their message.
   */
  run?: { uidValidity: number; sinceUid: number; started: number };
}

export interface IngestResult {
  size: number;
  parsed: ParseSummary;
  /** Absent for a triaged email (it is not indexed) and when the index step gave up. */
  index?: string;
  /** Why the index step gave up after its attempts: the email goes on as partially_indexed. */
  indexError?: string;
}

export interface ParseSummary {
  priority: Priority;
  hasReplyAddress: boolean;
  attachments: number;
  /**
   * Intake triage: why this email deserves no reply (bounce, auto-reply, list, …), or null when
   * it gets a draft. Stored on the email; the workflow decides what status follows from it.
   */
  triage: { class: TriageClass; reason: string } | null;
  /**
   * A class a person must see (an abuse complaint about our mail): `triage` stays null, so the run
   * goes on to the draft step, which writes no draft and leaves the email in manual review.
   */
  held?: { class: TriageClass; reason: string };
}

/** What the workflow keeps of a draft: enough for the approval query, nothing large. */
export interface DraftView {
  draftId: string;
  version: number;
  subject: string;
  body: string;
  to: { name: string; address: string };
  language: string;
  confidence: number;
  drafter: string;
  model: string;
  flags: string[];
  /** True when the drafter gave up (no usable body): a person must write the reply. */
  needsHuman: boolean;
  /** The drafter's category for the email (e.g. billing), when it gave one. */
  category?: string;
  /** Why no draft was written on purpose (reply limit, abuse complaint): the manual review's reason. */
  heldReason?: string;
  /** The mailbox runs in shadow mode: nobody is asked, nothing is sent; the draft waits for the team's own reply. */
  shadow?: true;
}

/** A status the email passes through on the way to the one recorded. */
interface PassedStatus {
  status: EmailStatus;
  reason: string;
}

/**
 * The email's activities as its workflows call them. The workflows proxy this interface, so what
 * they need to read ends at the activities' signatures; `createEmailActivities`
 * (src/email/email.activities.ts) is checked against it, so the two cannot part.
 */
export interface EmailActivities {
  /** The poll schedule's pass over new UIDs above each folder's watermark (intake/poll.activities.ts). */
  pollMailbox(input: PollInput): Promise<PollResult>;
  /** Fetch, parse and index in one activity, the status it reaches recorded (intake/ingest.activities.ts). */
  ingestEmail(
    input: EmailWorkflowInput & { priority?: Priority; record?: StatusToRecord },
  ): Promise<IngestResult & { recorded?: RecordedStatus }>;
  /** The draft of one version (draft/draft.activities.ts). */
  draftReply(input: {
    emailId: string;
    version: number;
    requestedBy?: string;
    record?: StatusToRecord;
  }): Promise<DraftView & { recorded?: RecordedStatus }>;
  /** A person's own reply, stored as the next version. */
  saveHumanDraft(input: { emailId: string; version: number; body: string; by: string }): Promise<DraftView>;
  /** A person's decision on exactly that draft (send/send.activities.ts). */
  recordDecision(input: {
    emailId: string;
    draftId: string;
    decision: Decision;
    record?: StatusToRecord;
  }): Promise<{ recorded?: RecordedStatus }>;
  /** The spam filter learns a mail a person marked as spam; audited, never undoes the decision (intake/spam-learning.ts). */
  learnMarkedSpam(input: { emailId: string; by: string }): Promise<void>;
  /** The exactly-once send. */
  sendReply(input: {
    emailId: string;
    draftId: string;
    force?: { by: string; key: string };
    record?: StatusToRecord;
  }): Promise<{ messageId: string; outcome: SendOutcome; foundInSent?: FoundMessage; recorded?: RecordedStatus }>;
  /** A person confirms that a send in doubt reached the customer. */
  confirmSentByOperator(input: { emailId: string; draftId: string; by: string; note?: string }): Promise<{ messageId: string }>;
  /** The workflow's own transitions and their audit rows (status.activities.ts). */
  recordStatus(input: {
    emailId: string;
    status: EmailStatus;
    reason: string;
    /** The transition's number within the run: the audit row's idempotency key. */
    seq: number;
    event?: { eventType: AuditEventType; errorClass: string | null; message: string };
    /** Statuses passed on the way (e.g. `drafted` before `awaiting_approval`), recorded first, in order. */
    via?: PassedStatus | PassedStatus[];
  }): Promise<StatusRecord>;
  /** A decision the workflow refused, in the audit log. */
  recordRefusal(input: { emailId: string; decision: string; by: string; reason: string; at: string }): Promise<void>;
  /** A person answered the mail outside the assistant: its unsent drafts are withdrawn. */
  withdrawForOutsideAnswer(input: { emailId: string; draftId?: string }): Promise<StandDownResult>;
  /** The re-index schedule's pass over emails indexed without one of the indexes (intake/indexing.activities.ts). */
  reindexPartial(input: { limit: number }): Promise<{ checked: number; completed: number; failed: number; vectors?: number }>;
}
