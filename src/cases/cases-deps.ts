/**
 * What the case activities need: the email's stores and signals (cases build on emails), the
 * mailboxes, and their own ports. The activity registry (activities/index.ts) composes this with
 * the other features' dependencies.
 */
import type { AuditLog } from '../platform/store.port';
import type { MessageStore, WorkflowSignals } from '../email';
import type { MailboxDirectory } from '../mailboxes';
import type { BusinessCalendars } from '../business-time';
import type { CaseClock } from './case-clock.port';
import type { EscalationNotifiers } from './escalation-notifier.port';
import type { CaseReplySettler } from './case-replies.port';
import type { CaseSummaryStore } from './case-summaries.port';
import type { CaseSignals } from './case-signals.port';
import type { CaseStore } from './cases.port';
import type { CaseDesk } from './case-desk';
import type { CaseRoutingDeps } from './case-routing.activities';

/** The case store and signals (CASE_WINDOW_DAYS with them). */
export interface CaseDeps {
  cases: CaseStore;
  caseSignals: CaseSignals;
  /** CASE_WINDOW_DAYS. */
  windowDays: number;
}

/** What the case deadline activities need besides the audit log and the mailboxes (src/cases/case-deadline.activities.ts). */
export interface CaseDeadlinePorts {
  clock: CaseClock;
  /** Each mailbox's business calendar, its holidays files read at start. */
  calendars: BusinessCalendars;
  notifiers: EscalationNotifiers;
  /** The clock; tests pass their own. */
  now?: () => Date;
}

export interface CasesDeps {
  messages: MessageStore;
  audit: AuditLog;
  signals: WorkflowSignals;
  mailboxes: MailboxDirectory;
  /** Cases (a correspondent's open work); absent: every email stands alone, as before cases. */
  case?: CaseDeps;
  /** Routing of cases (ROUTING_FILE); absent with cases off. */
  caseRouting?: CaseRoutingDeps;
  /** Settles the mails a sent case reply answered. */
  caseReplies?: CaseReplySettler;
  /** A case's handover summary (read the mails, store the summary); absent when cases are off. */
  caseSummaries?: CaseSummaryStore;
  /**
   * What an email's steps do for its case (route, judge, plan, wake the clock); built by
   * createActivities from the case activities, not by the wiring. Absent with cases off.
   */
  caseDesk?: CaseDesk;
  /** Case deadlines (planning, reminder, escalation); absent: a worker that runs no case workflows. */
  caseDeadlines?: CaseDeadlinePorts;
}
