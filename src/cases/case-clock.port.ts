import type { CaseStatus } from './case-status';
import type { Priority } from '../triage';
import type { CaseClockDueKind } from './cases.contract';

/** What the deadline activities read of a case (a `cases` row). */
export interface CaseClockRow {
  id: string;
  mailboxId: string;
  correspondent: string;
  subject: string;
  status: CaseStatus;
  priority: Priority;
  /** The customer's oldest unanswered mail; null: nothing to answer (the clock is paused). */
  waitingSince: Date | null;
  dueAt: Date | null;
  remindAt: Date | null;
  remindedAt: Date | null;
  breachedAt: Date | null;
  escalatedAt: Date | null;
  /** What the stored due time was planned from (waiting_since and priority at the time). */
  deadlineBasis: Date | null;
  deadlinePriority: Priority | null;
  /** The case's oldest email still waiting for our answer (not sent, rejected or ignored); else its oldest email. */
  oldestWaitingEmailId: string | null;
}

/** One thing due on the case clock. */
export interface CaseClockDue {
  caseId: string;
  kind: CaseClockDueKind;
  /** The due time a reminder or breach is for; null for plan and close. */
  dueAt: Date | null;
}

/** One row of a case's history; lands once per `eventKey`. */
export interface CaseEventRecord {
  caseId: string;
  emailId: string | null;
  eventType: string;
  actor?: string | null;
  message: string;
  details?: Record<string, unknown>;
  eventKey: string;
}

/**
 * The response clock of cases. Every write is conditional on the row still being what the caller
 * saw (same due time, not yet reminded or breached, still running), so a retried or late activity
 * never acts on a deadline that moved.
 */
export interface CaseClock {
  get(caseId: string): Promise<CaseClockRow | null>;
  /**
   * Stores a planned deadline for this waiting_since and priority, only while the case still has
   * that waiting_since. A new basis (another waiting_since) also clears reminded_at, breached_at
   * and escalated_at: a new wait starts a new clock. The event lands with the change, in one
   * transaction. False when the row moved on.
   */
  setDeadline(
    caseId: string,
    plan: { waitingSince: Date; priority: Priority; dueAt: Date; remindAt: Date | null },
    event: CaseEventRecord,
  ): Promise<boolean>;
  /**
   * Clears due_at and remind_at of a paused case. The basis stays: resumed with the same
   * waiting_since, the wait keeps its reminder and breach; a new waiting_since plans afresh.
   */
  clearDeadline(caseId: string): Promise<void>;
  /**
   * Sets reminded_at and the raised priority (also as deadline_priority), with the event, only
   * while the case runs with this due time and was not reminded. False when nothing changed.
   */
  markReminded(caseId: string, dueAt: Date, raised: Priority, at: Date, event: CaseEventRecord): Promise<boolean>;
  /** Sets breached_at with the event, only while the case runs with this due time and was not breached. */
  markBreached(caseId: string, dueAt: Date, at: Date, event: CaseEventRecord): Promise<boolean>;
  /** Sets escalated_at once, for this due time. */
  markEscalated(caseId: string, dueAt: Date, at: Date): Promise<void>;
  /** Adds a history row (INSERT IGNORE on its key); true when it was new. */
  addEvent(event: CaseEventRecord): Promise<boolean>;
  /** A history row by its key, or null. */
  event(eventKey: string): Promise<{ details: Record<string, unknown> | null } | null>;
  /**
   * What is due at `now`, at most `limit` of each kind: running cases to plan, reminders and due
   * times that passed (not yet reminded / breached), cases waiting for their customer longer than
   * `windowDays` since our last reply.
   */
  due(now: Date, windowDays: number, limit: number): Promise<CaseClockDue[]>;
  /** The earliest reminder, due time or quiet close after `now`; null: nothing is planned. */
  nextDue(now: Date, windowDays: number): Promise<Date | null>;
  /** The case clock's own record of when it wakes next (null: not known, e.g. it never ran). */
  setNextWake(at: Date | null): Promise<void>;
  /**
   * Lowers the clock's next wake to `at` when that is earlier than the one recorded, or none is:
   * true when it did, and the clock must be woken to plan its timer again.
   */
  lowerNextWake(at: Date): Promise<boolean>;
}
