/**
 * The email's stores: its messages and records (`emails`, `raw_messages`), its drafts (`drafts`)
 * and its sends (`send_attempts`, the exactly-once ledger).
 */
import type { Priority, TriageClass, TriageVerdict } from '../triage';
import type { EmailStatus, SendStatus } from './email-status';
import type { DraftOutcome, DraftStatus } from '../drafting';
import type { SmtpPhase } from '../mailboxes';

export interface ParsedEmail {
  messageId: string | null;
  inReplyTo: string | null;
  references: string[];
  threadId: string;
  from: { name: string; address: string } | null;
  replyTo: { name: string; address: string } | null;
  to: Array<{ name: string; address: string }>;
  cc: Array<{ name: string; address: string }>;
  subject: string;
  text: string;
  hasHtml: boolean;
  date: Date | null;
  attachments: Array<{ filename: string | null; contentType: string; size: number; contentId: string | null }>;
  priority: Priority;
}

export interface EmailRecord extends ParsedEmail {
  id: string;
  /** The IMAP folder it came from (null for an imported file). */
  mailbox: string | null;
  /** The registry entry it came in through ('default' for the single-account variables). */
  mailboxId: string;
  status: EmailStatus;
  historyOnly: boolean;
  rawSize: number;
  /** Intake triage class when the email deserves no reply (see src/triage/triage.ts). */
  triageClass?: TriageClass | null;
  /** Why the email ended where it is: a triage reason, `too_large`, … */
  statusReason?: string | null;
  /** The case it joined (null: none yet), as read with the record; absent where not read. */
  caseId?: string | null;
}

export interface NewRawEmail {
  emailId: string;
  source: 'imap' | 'file';
  /** Registry id of the mailbox; 'default' when left out. */
  mailboxId?: string;
  mailbox?: string;
  uidValidity?: number;
  uid?: number;
  raw: Buffer;
  historyOnly: boolean;
}

/** One email's send as far as MariaDB knows it (status of `send_attempts`). */
export interface SendSnapshot {
  draftId: string;
  status: string;
  messageId: string;
}

/** An email above MAX_MESSAGE_BYTES: recorded with what is known, never downloaded or stored. */
export interface OversizedEmail {
  emailId: string;
  source: 'imap' | 'file';
  mailboxId?: string;
  mailbox?: string;
  uidValidity?: number;
  uid?: number;
  size: number;
  subject?: string | null;
  from?: string | null;
  historyOnly: boolean;
}

/** Raw and parsed emails and their business status. */
export interface MessageStore {
  /** Stores the raw bytes once (upsert on the email id); returns false when they were there already. */
  saveRaw(email: NewRawEmail): Promise<boolean>;
  getRaw(emailId: string): Promise<Buffer | null>;
  /** The `emails` row of a message too large to store (`status_reason = 'too_large'`). */
  saveOversized(email: OversizedEmail): Promise<void>;
  /**
   * Stores the parsed fields, the mail account the email belongs to (threads never cross
   * accounts) and the triage class and reason (null: the email deserves a draft), in one write.
   */
  saveParsed(emailId: string, parsed: ParsedEmail, also: { account: string; triage: TriageVerdict | null }): Promise<void>;
  getEmail(emailId: string): Promise<EmailRecord | null>;
  /** The business status of an email, null when there is no row (a cheap check for imports). */
  statusOf(emailId: string): Promise<EmailStatus | null>;
  /**
   * The thread of any known email among these Message-IDs, within `account` when given. Whether
   * the new email may join it is the caller's decision (`threadParticipants`).
   */
  findThreadId(messageIds: string[], account?: string): Promise<string | null>;
  /**
   * Every address that took part in the thread, lower case: senders, Reply-To, To and Cc of its
   * emails, and the recipients of our sent replies.
   */
  threadParticipants(threadId: string, account: string): Promise<string[]>;
  /**
   * Records the status the workflow decided (with why). A sent email stays sent; returns the
   * status stored afterwards.
   */
  setStatus(emailId: string, status: EmailStatus, reason?: string): Promise<EmailStatus | null>;
  /** The send that matters most for this email (sent or in doubt before failed), and its newest draft version. */
  sendSnapshot(emailId: string): Promise<{ send: SendSnapshot | null; maxDraftVersion: number }>;
  /**
   * setStatus and sendSnapshot in two round trips instead of three: what the workflow's status
   * bookkeeping runs at every transition.
   */
  moveStatus(
    emailId: string,
    status: EmailStatus,
    reason: string,
  ): Promise<{ stored: EmailStatus | null; send: SendSnapshot | null; maxDraftVersion: number }>;
  countByStatus(): Promise<Record<string, number>>;
  /** Records whether the email's retrieval entries are complete (`partial` after a degraded index step). */
  setIndexState(emailId: string, state: 'partial' | 'complete'): Promise<void>;
  /** Other emails of the thread whose draft waits for a person (awaiting_approval, manual_review). */
  waitingInThread(threadId: string, exceptEmailId: string): Promise<string[]>;
  /** Emails whose index entries are incomplete, oldest first. */
  idsNeedingReindex(limit: number): Promise<string[]>;
  /** Emails in intake (fetched to drafted; not an approved reply waiting for SMTP): the backlog. */
  countInIntake(): Promise<number>;
  /**
   * Messages of this folder (of this registry mailbox, when given) above `afterUid` that have an emails row: a poll that keeps draining
   * subtracts them from what it started, since a started workflow has no row until it fetched.
   */
  countStoredAbove(mailbox: string, uidValidity: number, afterUid: number, mailboxId?: string): Promise<number>;
}

export interface DraftRecord {
  id: string;
  emailId: string;
  version: number;
  status: DraftStatus;
  subject: string;
  body: string;
  language: string;
  confidence: number;
  drafter: string;
  model: string;
  promptVersion: string;
  contextIds: string[];
  /** Notes for the reviewer, e.g. `possible_prompt_injection`, `json_repaired`, `offline_drafter`. */
  flags: string[];
  /** The drafter's category for the email (e.g. billing), when it gave one; the quality figures group by it. */
  category?: string | null;
  /** The case's other open mails this draft answers, as its drafter said (a case reply covers only these). */
  answersEmailIds?: string[];
  /** The guidance versions the draft was written under (`g12+g15`, src/guidance/), null when none. */
  guidanceVersion?: string | null;
  to: { name: string; address: string };
  approvedBody: string | null;
  decidedBy: string | null;
  decisionReason: string | null;
  createdAt: Date;
}

export type NewDraft = Omit<DraftRecord, 'status' | 'approvedBody' | 'decidedBy' | 'decisionReason' | 'createdAt'>;

export interface DraftStore {
  /** Upsert on (email, version): a retried draft step overwrites its own version only. */
  save(draft: NewDraft): Promise<DraftRecord>;
  get(draftId: string): Promise<DraftRecord | null>;
  /** `editDistance`: words changed by the person (0 when approved as drafted). */
  approve(draftId: string, by: string, editedBody: string | null, editDistance: number): Promise<void>;
  reject(draftId: string, by: string, reason: string): Promise<void>;
  /**
   * What became of a decided draft (`draft_outcomes`, upserted on the draft id): recorded with
   * the decision; `redrafted` is recorded by markStale itself.
   */
  recordOutcome(draftId: string, outcome: { outcome: DraftOutcome; editDistance?: number; changedShare?: number }): Promise<void>;
  markSent(draftId: string): Promise<void>;
  /** Drafts of the email below `version` still waiting for approval become `stale` (outcome `redrafted`). */
  markStale(emailId: string, version: number): Promise<void>;
  /** The email's drafts not yet sent (awaiting approval, or approved and not handed over) become `withdrawn`; how many. */
  withdraw(emailId: string): Promise<number>;
  listAwaiting(): Promise<DraftRecord[]>;
  /**
   * The per-correspondent reply limit: takes this email's slot for `address` (kept when it exists:
   * a retried step keeps its place) and returns how many slots of that address came before it
   * within `seconds`. Emails drafted at the same moment each see the other's slot.
   */
  claimReplySlot(emailId: string, address: string, seconds: number): Promise<number>;
  /** Gives the slot back: the email was held, it does not count against the next ones. */
  releaseReplySlot(emailId: string): Promise<void>;
}

/** SMTP phases an attempt can have reached; see src/mailboxes/mail-sender.port.ts. `claimed`: no session yet. */
export type SendPhase = 'claimed' | SmtpPhase;

/** Phases before the final dot of DATA: nothing was handed over, a retry cannot duplicate. */
export const PHASES_BEFORE_FINAL_DOT: readonly SendPhase[] = [
  'claimed',
  'connect',
  'greeting',
  'tls',
  'login',
  'mail_from',
  'rcpt',
  'data',
];

export interface SendAttemptRecord {
  draftId: string;
  emailId: string;
  messageId: string;
  status: SendStatus;
  phase: SendPhase | null;
  /** Fences attempts: only the holder of the current claim may write the final dot. */
  attemptToken: string | null;
  attempts: number;
  lastError: string | null;
  envelope: { from: string; to: string[] } | null;
  appendedToSent: boolean;
  forcedBy: string | null;
  forceKey: string | null;
  resolvedBy: string | null;
  createdAt: Date;
  updatedAt: Date;
}

/**
 * Exactly one row per draft: the idempotency record of sending. Every transition is a
 * compare-and-swap that reports whether it applied; a `sent` row is never reopened.
 */
export interface SendLedger {
  /** Creates the row as `pending` on the first attempt; returns the row as it now is. */
  ensure(draftId: string, emailId: string, messageId: string): Promise<SendAttemptRecord>;
  /**
   * The first attempt of a draft: creates its row already claimed (`sending`, phase `claimed`,
   * one attempt, under `token`) and returns it; null when the draft has a row (then `ensure` and
   * `claim` decide on it). One statement where `ensure`, the read and `claim` took three.
   */
  claimFirst(draftId: string, emailId: string, messageId: string, token: string): Promise<SendAttemptRecord | null>;
  /** `pending | failed → sending` under `token` (counts an attempt). */
  claim(draftId: string, token: string): Promise<boolean>;
  /** `sending` still before the final dot under `staleToken` → `sending` under `token`: takes over an interrupted attempt. */
  takeOver(draftId: string, staleToken: string | null, token: string): Promise<boolean>;
  /** `in_doubt` whose force key differs from `key` → `sending` under `token`, recording who forced it with which key. */
  claimForced(draftId: string, token: string, by: string, key: string): Promise<boolean>;
  /** Records the phase the attempt under `token` reached; false when it no longer holds the claim. */
  setPhase(draftId: string, token: string, phase: SendPhase): Promise<boolean>;
  /**
   * The server accepted the message. Applies unless the row is already `sent`/`bounced`: a 250 is
   * certain, so it also settles a doubt or a competing attempt that has not reached the dot.
   */
  succeeded(draftId: string, envelope: { from: string; to: string[] }, response: string): Promise<boolean>;
  /** `sending` under `token` → `failed` (nothing handed over), recording the phase it failed in. */
  failed(draftId: string, token: string, phase: SendPhase | null, error: string): Promise<boolean>;
  /** `sending` under `token` past the final dot → `in_doubt`. */
  markInDoubt(draftId: string, token: string | null, reason: string): Promise<boolean>;
  /** `in_doubt → sent` on a person's word that the customer got it. */
  confirmSent(draftId: string, by: string, note: string | null): Promise<boolean>;
  markAppended(draftId: string): Promise<void>;
  /** Emails still `approved` whose last send round failed more than `olderThanSeconds` ago. */
  failedSendsOlderThan(olderThanSeconds: number): Promise<string[]>;
  get(draftId: string): Promise<SendAttemptRecord | null>;
  /** The newest row of the email (its latest draft sent or tried). */
  latestOfEmail(emailId: string): Promise<SendAttemptRecord | null>;
  countByStatus(): Promise<Record<string, number>>;
}
