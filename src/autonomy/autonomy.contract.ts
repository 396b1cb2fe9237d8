/**
 * Earned autonomy (docs/cases.md "Earned autonomy"): the audit events operators filter on
 * (`audit_log.event_type`). The actor of an automatic approval is in src/platform/contract.ts.
 */
export const AUTONOMY_EVENTS = {
  /** The policy let a draft go: it is sent after the grace period unless a person stops it. */
  pending: 'auto_send_pending',
  /** The draft was approved automatically; details name the policy and the figures. */
  sent: 'auto_sent',
  /** At the end of the grace period something no longer held: the draft waits for a person. */
  skipped: 'auto_send_skipped',
  /** A listed category's draft did not qualify (the reasons say why): it waits for a person. */
  withheld: 'auto_send_withheld',
  /** A reviewer stopped an automatic send. */
  stopped: 'auto_send_stopped',
  /** The global switch was turned on or off. */
  switched: 'autonomy_switched',
  /**
   * A listed category's record no longer clears its bar (it did at the verdict before): its drafts
   * wait for a person again. Counted as `email_rag_autonomy_demotions_total` (alert EmailRagAutonomyDemoted).
   */
  demoted: 'autonomy_demoted',
  /** A listed category's record clears its bar again (or for the first time after a demotion). */
  promoted: 'autonomy_promoted',
} as const;
export type AutonomyEvent = (typeof AUTONOMY_EVENTS)[keyof typeof AUTONOMY_EVENTS];

/**
 * Why a draft waits for a person whatever its category's record says, besides the never-automatic
 * topics of its text (src/autonomy/never-automatic.ts): the name opens the reason in the verdict and
 * in the `auto_send_withheld` / `auto_send_skipped` rows.
 */
export const NEVER_AUTOMATIC_REASONS = {
  /** A factual sentence of the draft is unsupported by its context, or tied to a passage that does not support it. */
  unsupportedClaims: 'unsupported_claims',
  /** A commitment of the draft (amount, date, refund, exception, promise, status change) rests on nothing but the customer's mail. */
  customerAsserted: 'customer_asserted',
} as const;
export type NeverAutomaticReason = (typeof NEVER_AUTOMATIC_REASONS)[keyof typeof NEVER_AUTOMATIC_REASONS];

// This feature's audit event types join the one type every audit row is checked against.
declare module '../platform/audit-event-types' {
  interface AuditEventGroups {
    autonomy: (typeof AUTONOMY_EVENTS)[keyof typeof AUTONOMY_EVENTS];
  }
}

/** What became of an automatic send (`autonomy_pending.state`). */
export const AUTO_SEND_STATES = { pending: 'pending', sent: 'sent', stopped: 'stopped', skipped: 'skipped' } as const;

export type AutoSendState = (typeof AUTO_SEND_STATES)[keyof typeof AUTO_SEND_STATES];
