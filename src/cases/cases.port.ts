import type { CaseStatus } from './case-status';
import type { EmailStatus } from '../email';

/** What a mail brings to its case when it joins. */
export interface CaseJoinInput {
  emailId: string;
  threadId: string;
  account: string;
  mailboxId: string;
  /** The normalised address the case is about (the sender, or Reply-To when it differs). */
  correspondent: string;
  correspondentName: string;
  subject: string;
  priority: string;
  /** How long after its last activity an open case still takes the correspondent's new mail (days). */
  windowDays: number;
}

export interface CaseJoin {
  caseId: string;
  /** A new case was opened for this mail. */
  opened: boolean;
  /** How the mail came to the case: its thread, the correspondent's open case, or a new case. */
  via: 'thread' | 'correspondent' | 'opened' | 'already';
  /** Other mails of the case waiting for a person: their drafts were written without this mail. */
  waiting: string[];
}

export interface CaseMail {
  emailId: string;
  subject: string;
  text: string;
  status: EmailStatus;
  receivedAt: string;
}

export interface CaseRow {
  id: string;
  mailboxId: string;
  account: string;
  correspondent: string;
  subject: string;
  status: CaseStatus;
  priority: string;
  team: string | null;
  owner: string | null;
  emailCount: number;
  openEmails: number;
  waitingSince: string | null;
  dueAt: string | null;
  lastReplyAt: string | null;
  lastCustomerAt: string | null;
  openedAt: string;
  closedAt: string | null;
}

/** The case an email belongs to, and what moves it: the case store (MariaDB). */
export interface CaseStore {
  /** Puts the email in its case (idempotent: an email keeps the case it joined first). */
  join(input: CaseJoinInput): Promise<CaseJoin>;
  caseOf(emailId: string): Promise<string | null>;
  /**
   * The email's case and its newest draft (the one a decision must name now), if it has one, with
   * what routing reads of it: one round trip for what a mail reaching a person needs.
   */
  caseAndCurrentDraft(
    emailId: string,
  ): Promise<{ caseId: string | null; draft: { id: string; category: string | null; language: string | null } | null }>;
  get(caseId: string): Promise<CaseRow | null>;
  /** The case's other mails that still wait for our answer, oldest first (for the draft's context). */
  openMails(caseId: string, exceptEmailId: string, limit: number): Promise<CaseMail[]>;
  /**
   * Brings the case's status and clock in line with its mails (after one of them moved): open while
   * one waits for an answer, waiting_for_customer once all are answered, closed when none was.
   */
  refresh(caseId: string, reason: string): Promise<CaseRow | null>;
  /** Closes a case whose correspondent stayed quiet since our last reply for `windowDays`; false when not due. */
  closeIfQuiet(caseId: string, windowDays: number): Promise<boolean>;
  /** One row of the case's history (idempotent by key). */
  event(e: {
    caseId: string;
    emailId?: string | null;
    eventType: string;
    actor?: string | null;
    message: string;
    details?: unknown;
    key?: string;
  }): Promise<void>;
  list(filter: { status?: CaseStatus; mailboxId?: string; correspondent?: string; limit: number }): Promise<CaseRow[]>;
}
