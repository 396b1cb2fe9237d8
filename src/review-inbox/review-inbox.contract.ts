/** The audit events the review inbox writes (`audit_log.event_type`); operations counts the refusals. */
export const REVIEW_INBOX_AUDIT_EVENTS = {
  /** A sign-in was refused (the reason is in the row's details: `LOGIN_REFUSAL_REASONS`). */
  loginRefused: 'inbox_login_refused',
  /** The open inbox sessions of a person were ended (disabled, new password or role, sign-out everywhere). */
  sessionsEnded: 'inbox_sessions_ended',
} as const;

// This feature's audit event types join the one type every audit row is checked against.
declare module '../platform/audit-event-types' {
  interface AuditEventGroups {
    reviewInbox: (typeof REVIEW_INBOX_AUDIT_EVENTS)[keyof typeof REVIEW_INBOX_AUDIT_EVENTS];
  }
}
