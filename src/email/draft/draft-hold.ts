import { TRIAGE_HELD_FOR_PERSON, TRIAGE_ALERT_EVENTS } from '../../triage';
import type { EmailRecord } from '../email-stores.port';
import type { EmailDeps } from '../email-deps';
import { EMAIL_AUDIT_EVENTS } from '../email.contract';
import type { AuditEventType } from '../../platform/audit-event-types';

const HOUR_SECONDS = 3600;

/** Why the draft step writes no draft and leaves the reply to a person; the flag names it on the empty draft. */
export interface DraftHold {
  flag: string;
  eventType: AuditEventType;
  reason: string;
}

/**
 * Decided in the draft step rather than in the workflow, so that released workflow code stays as
 * it is: an empty draft is what the workflow already takes for "a person must write the reply".
 * Only the first draft of an email is held; a redraft a person asked for is written.
 */
export async function draftHold(
  deps: Pick<EmailDeps, 'drafts'> & { settings?: Pick<EmailDeps['settings'], 'replyLimitPerHour'> },
  email: Pick<EmailRecord, 'id' | 'triageClass'>,
  to: { address: string },
  input: { version: number; requestedBy?: string },
): Promise<DraftHold | null> {
  if (input.requestedBy) return null;
  if (email.triageClass && TRIAGE_HELD_FOR_PERSON.includes(email.triageClass)) {
    return {
      flag: email.triageClass,
      eventType: EMAIL_AUDIT_EVENTS.draftHeld,
      reason: `${email.triageClass}: an abuse complaint about our mail; a person handles it (no draft)`,
    };
  }
  const limit = deps.settings?.replyLimitPerHour ?? 0;
  if (limit <= 0 || input.version > 1) return null;
  const address = to.address.toLowerCase();
  const earlier = await deps.drafts.claimReplySlot(email.id, address, HOUR_SECONDS);
  if (earlier < limit) return null;
  // Held emails leave no slot: only drafts count against the next mail of this address.
  await deps.drafts.releaseReplySlot(email.id);
  return {
    flag: 'reply_limit',
    eventType: TRIAGE_ALERT_EVENTS.replyLimit,
    reason: `reply limit: ${earlier} drafts to ${address} in the last hour (REPLY_LIMIT_PER_HOUR=${limit}); a person decides (no draft)`,
  };
}
