/** A case that missed its response deadline, as the escalation mail and webhook tell it. */
export interface EscalationNotice {
  caseId: string;
  mailboxId: string;
  correspondent: string;
  subject: string;
  priority: string;
  /** ISO 8601 (UTC). */
  dueAt: string;
  /** Business time past the due time when the notice was made, in seconds. */
  overdueBySeconds: number;
  /**
   * Derived from the case and its due time: the same breach always has the same key, so a retried
   * notice is recognisable as the same one (webhook `Idempotency-Key`, the mail's Message-ID).
   */
  idempotencyKey: string;
}

export type EscalationChannel = 'email' | 'webhook';

/**
 * Tells someone outside the review inbox that a case is overdue. Throws when the notice was not
 * delivered (TransientError or PermanentError with the reason); resolves once it was accepted.
 */
export interface EscalationNotifier {
  notify(target: string, notice: EscalationNotice): Promise<void>;
}

export type EscalationNotifiers = Record<EscalationChannel, EscalationNotifier>;
