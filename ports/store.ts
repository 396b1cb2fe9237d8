import type { EmailStatus, Priority, QueueStatus } from '../lib/domain';
import type { ErrorClass } from '../lib/errors';

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
  mailbox: string | null;
  status: EmailStatus;
  historyOnly: boolean;
  rawSize: number;
}

export interface NewRawEmail {
  emailId: string;
  source: 'imap' | 'file';
  mailbox?: string;
  uidValidity?: number;
  uid?: number;
  raw: Buffer;
  historyOnly: boolean;
}

/** Raw and parsed emails and their business status. */
export interface MessageStore {
  /** Stores the raw bytes once (upsert on the email id); returns false when they were there already. */
  saveRaw(email: NewRawEmail): Promise<boolean>;
  getRaw(emailId: string): Promise<Buffer | null>;
  saveParsed(emailId: string, parsed: ParsedEmail): Promise<void>;
  getEmail(emailId: string): Promise<EmailRecord | null>;
  /**
   * The thread of any known email among these Message-IDs, within `account` when given. Whether
   * the new email may join it is the caller's decision (`threadParticipants`).
   */
  findThreadId(messageIds: string[], account?: string): Promise<string | null>;
  /** Records the mail account an email belongs to: threads never cross accounts. */
  setAccount(emailId: string, account: string): Promise<void>;
  /**
   * Every address that took part in the thread, lower case: senders, Reply-To, To and Cc of its
   * emails, and the recipients of our sent replies.
   */
  threadParticipants(threadId: string, account: string): Promise<string[]>;
  setStatus(emailId: string, status: EmailStatus): Promise<void>;
  countByStatus(): Promise<Record<string, number>>;
  /** Records whether the email's retrieval entries are complete (`partial` after a degraded index step). */
  setIndexState(emailId: string, state: 'partial' | 'complete'): Promise<void>;
  /** Other emails of the thread whose draft waits for a person (awaiting_approval, manual_review). */
  waitingInThread(threadId: string, exceptEmailId: string): Promise<string[]>;
  /** Emails whose index entries are incomplete, oldest first. */
  idsNeedingReindex(limit: number): Promise<string[]>;
  /** Emails that are neither finished nor waiting for a person: the backlog. */
  countUnfinished(): Promise<number>;
}

export interface AuditEntry {
  emailId: string | null;
  correlationId: string;
  eventType: string;
  errorClass?: ErrorClass | null;
  message: string;
  actor?: string | null;
  details?: Record<string, unknown>;
  /** Makes a retried write land once. */
  eventKey?: string;
}

/** Append-only record of every error, retry, fallback and human decision. */
export interface AuditLog {
  record(entry: AuditEntry): Promise<void>;
}

export interface JobAttempt {
  workflowId: string;
  emailId: string | null;
  step: string;
  activityId: string;
  attempt: number;
  maxAttempts: number;
  priority: Priority;
}

export interface JobFailure {
  status: Extract<QueueStatus, 'failed' | 'dead'>;
  errorClass: ErrorClass;
  error: string;
  nextAttemptAt: Date | null;
  runtimeMs: number;
}

/** One `queue_jobs` row per (workflow, step), moved by every activity attempt. */
export interface JobLedger {
  started(job: JobAttempt): Promise<void>;
  succeeded(job: JobAttempt, runtimeMs: number): Promise<void>;
  failed(job: JobAttempt, failure: JobFailure): Promise<void>;
  countByStatus(): Promise<Record<string, number>>;
  /** Rows in `processing` whose attempt started more than `olderThanSeconds` ago. */
  findStuck(
    olderThanSeconds: number,
  ): Promise<Array<{ id: number; workflowId: string; emailId: string | null; step: string; activityId: string; startedAt: Date }>>;
  /** Puts a stuck row back into the retry cycle as `failed` (unless it moved on meanwhile). */
  resetStuck(id: number, reason: string, nextAttemptAt: Date | null): Promise<boolean>;
}

export type DraftStatus = 'awaiting_approval' | 'approved' | 'rejected' | 'sent' | 'stale';

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
  /** Notes for the reviewer, e.g. `possible_prompt_injection`, `json_repaired`, `offline_template`. */
  flags: string[];
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
  markSent(draftId: string): Promise<void>;
  /** Drafts of the email below `version` still waiting for approval become `stale`. */
  markStale(emailId: string, version: number): Promise<void>;
  listAwaiting(): Promise<DraftRecord[]>;
}

export interface SendAttemptRecord {
  draftId: string;
  emailId: string;
  messageId: string;
  status: 'pending' | 'sending' | 'sent' | 'failed';
  attempts: number;
  lastError: string | null;
  envelope: { from: string; to: string[] } | null;
  appendedToSent: boolean;
}

/** Exactly one row per draft: the idempotency record of sending. */
export interface SendLedger {
  /** Creates the row on the first attempt, counts every further one; returns the row as it now is. */
  begin(draftId: string, emailId: string, messageId: string): Promise<SendAttemptRecord>;
  /**
   * Marks the moment the message is handed to the SMTP server. A row still `sending` when the
   * next attempt starts means that attempt was interrupted and the message may have gone out.
   */
  markSending(draftId: string): Promise<void>;
  succeeded(draftId: string, envelope: { from: string; to: string[] }, response: string): Promise<void>;
  failed(draftId: string, error: string): Promise<void>;
  markAppended(draftId: string): Promise<void>;
  /** Emails still `approved` whose last send round failed more than `olderThanSeconds` ago. */
  failedSendsOlderThan(olderThanSeconds: number): Promise<string[]>;
  get(draftId: string): Promise<SendAttemptRecord | null>;
}

export interface Watermark {
  uidValidity: number;
  lastUid: number;
  /** UIDs up to here were in the mailbox when it was connected: indexed as history, never answered. */
  historyUntilUid: number;
}

/** The last UID seen per account and mailbox. */
export interface WatermarkStore {
  get(account: string, mailbox: string): Promise<Watermark | null>;
  /** Only ever moves forward within one UIDVALIDITY, so a late write cannot rewind it. */
  advance(account: string, mailbox: string, mark: Watermark): Promise<void>;
}
