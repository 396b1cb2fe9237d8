/** The audit events the review inbox writes (`audit_log.event_type`); the worker counts the refusals. */
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

/**
 * A refused review-inbox sign-in (one audit row each, counted by the worker as
 * email_rag_inbox_login_refusals_total{reason}) and why it was refused.
 * The audit event itself is the review inbox's (`REVIEW_INBOX_AUDIT_EVENTS.loginRefused`).
 */
export const LOGIN_REFUSAL_REASONS = [
  'wrong_credentials',
  'too_soon',
  'account_locked',
  'address_locked',
  'burst',
  // Single sign-on: the provider's answer failed a check (state, nonce, signature, expiry…), or gave no inbox role.
  'sso_invalid',
  'sso_no_role',
] as const;

export type LoginRefusalReason = (typeof LOGIN_REFUSAL_REASONS)[number];
