/**
 * An email status moved by an activity itself (the steps that reach one outside the workflow's
 * own bookkeeping), with its audit row.
 */
import type { MessageStore } from './email-stores.port';
import type { AuditLog } from '../platform/store.port';
import type { EmailStatus } from './email-status';
import { correlationId } from '../platform/activity-context';
import { PLATFORM_AUDIT_EVENTS } from '../platform/contract';
import { Context } from '@temporalio/activity';

/**
 * Moves an email's business status and records it in the audit log. The event key makes a
 * retried activity write the audit row once.
 */
export async function transition(
  deps: { messages: MessageStore; audit: AuditLog },
  emailId: string,
  status: EmailStatus,
  message: string,
  details?: Record<string, unknown>,
): Promise<void> {
  const cid = correlationId();
  await deps.messages.setStatus(emailId, status);
  await deps.audit.record({
    emailId,
    correlationId: cid,
    eventType: PLATFORM_AUDIT_EVENTS.statusChanged,
    message: `${status}: ${message}`,
    details: { status, ...details },
    eventKey: `${cid}:status:${status}:${Context.current().info.activityId}`,
  });
}
