/**
 * Audit events of triage a person must see: an abuse complaint about our mail, and a sender held
 * at the reply limit (REPLY_LIMIT_PER_HOUR). Counted as `email_rag_triage_alerts_total{event}`.
 */
export const TRIAGE_ALERT_EVENTS = { feedbackReport: 'feedback_report', replyLimit: 'reply_limit_reached' } as const;
export type TriageAlertEvent = (typeof TRIAGE_ALERT_EVENTS)[keyof typeof TRIAGE_ALERT_EVENTS];

/** Audit event types of triage (`audit_log.event_type`): its alerts, and a person's override. */
export const TRIAGE_AUDIT_EVENTS = {
  ...TRIAGE_ALERT_EVENTS,
  /** A person pulled an ignored email back into the pipeline (`email-rag answer`). */
  overridden: 'triage_overridden',
  /** A person released an email held as spam and asked for a reply (`email-rag answer`, the inbox's "not spam"). */
  spamReleased: 'spam_released',
  /** The spam filter intake asks (TRIAGE_SPAMD) did not answer: the message was triaged without it. */
  spamFilterUnavailable: 'spam_filter_unavailable',
  /** A spam score fired on mail of a known sender: not held, drafted with a flag for a person. */
  spamScoreFlagged: 'spam_score_flagged',
  /** A person's spam / not-spam decision taught the spam filter's Bayes database (TRIAGE_SPAMD). */
  spamLearned: 'spam_learned',
  /** Teaching the spam filter failed after its attempts: the decision stands, the filter did not learn it. */
  spamLearnFailed: 'spam_learn_failed',
} as const;
export type TriageAuditEvent = (typeof TRIAGE_AUDIT_EVENTS)[keyof typeof TRIAGE_AUDIT_EVENTS];

// This feature's audit event types join the one type every audit row is checked against.
declare module '../platform/audit-event-types' {
  interface AuditEventGroups {
    triage: (typeof TRIAGE_AUDIT_EVENTS)[keyof typeof TRIAGE_AUDIT_EVENTS];
  }
}
