/**
 * Names of the cases feature that cross a boundary: its `case_events.event_type` words and its
 * audit event types (`audit_log.event_type`). Operators filter on them; migrations and tests name
 * them. The union of every feature's audit events is src/audit-events.ts.
 */

/**
 * Events of a case's deadline, as `case_events.event_type` and `audit_log.event_type`: operators
 * and the review inbox filter on them (docs/cases.md#deadlines).
 */
export const CASE_DEADLINE_EVENTS = {
  /** A response deadline was set (or moved: new unanswered mail, another priority). */
  deadlineSet: 'case_deadline_set',
  /** The reminder before the due time: the case's priority went one step up. */
  reminder: 'case_reminder',
  /** The due time passed without an answer. */
  breached: 'case_breached',
  /** The escalation mail or webhook was delivered (one row per channel and due time). */
  escalationSent: 'escalation_sent',
  /** The escalation mail or webhook failed; the activity retries. */
  escalationFailed: 'escalation_failed',
} as const;
export type CaseDeadlineEvent = (typeof CASE_DEADLINE_EVENTS)[keyof typeof CASE_DEADLINE_EVENTS];
/**
 * What the case clock finds due (src/cases/case-clock.workflow.ts): a running case whose deadline
 * is not planned for its current wait and priority, a reminder or due time that passed, a case
 * waiting for its customer whose window passed.
 */
export const CASE_CLOCK_DUE = { plan: 'plan', remind: 'remind', breach: 'breach', close: 'close' } as const;
export type CaseClockDueKind = (typeof CASE_CLOCK_DUE)[keyof typeof CASE_CLOCK_DUE];

/** The `case_events` row of a new summary, and the audit row of a summary the LLM could not write. */
export const CASE_SUMMARY_EVENTS = { summarised: 'summarised', llmFallback: 'case_summary_fallback' } as const;

/**
 * `case_events.event_type` of routing and claims (operators filter on them): a case got a team or an
 * owner (by a rule or by hand), and a reviewer took over a claim another one had let expire.
 * Opening a case is not an event: it happens on every page view.
 */
export const CASE_ROUTING_EVENTS = { assigned: 'case_assigned', claimTakenOver: 'case_claim_taken_over' } as const;

/** Audit event types of cases besides their deadlines (CASE_DEADLINE_EVENTS), for operators' filters. */
export const CASE_AUDIT_EVENTS = {
  /** A case workflow could not be told of a new mail; it plans again on its next event or timer. */
  signalFailed: 'case_signal_failed',
  /** A reviewer answered several mails of a case in one reply. */
  replyApproved: 'case_reply_approved',
  /** The LLM could not write a case summary: the summary is made from the mails' sentences. */
  summaryFallback: CASE_SUMMARY_EVENTS.llmFallback,
  ...CASE_DEADLINE_EVENTS,
} as const;
export type CaseAuditEvent = (typeof CASE_AUDIT_EVENTS)[keyof typeof CASE_AUDIT_EVENTS];

// This feature's audit event types join the one type every audit row is checked against.
declare module '../platform/audit-event-types' {
  interface AuditEventGroups {
    cases: (typeof CASE_AUDIT_EVENTS)[keyof typeof CASE_AUDIT_EVENTS];
  }
}

/** The case clock: its workflow id, and the signal that wakes it when a case is due before its next wake. */
export const CASE_CLOCK = { workflowId: 'case-clock', wake: 'caseClockWake' } as const;

/** What the system tells a case workflow (each by signal-with-start: the first one starts it). */
export const CASE_SIGNALS = {
  /** A mail joined the case (1.3 runs; 1.4 tells the case clock instead). */
  emailJoined: 'emailJoined',
  /** A mail of the case waits for a person (a draft to approve, or a reply to write). */
  draftReady: 'draftReady',
  /** Something that moves the case's clock happened (a reply sent, a mail settled; 1.3 runs). */
  caseChanged: 'caseChanged',
  /** A reviewer stopped a pending automatic send. */
  stopAutoSend: 'stopAutoSend',
} as const;

export const CASE_QUERIES = { case: 'case' } as const;

/**
 * Where a case's response clock stands (the answer of the `planCaseDeadline` activity): running
 * (open, a customer's mail unanswered), paused (waiting for the customer, or nothing unanswered),
 * closed.
 */
export const CASE_CLOCK_STATES = { running: 'running', paused: 'paused', closed: 'closed' } as const;

export type CaseClockState = (typeof CASE_CLOCK_STATES)[keyof typeof CASE_CLOCK_STATES];
