import { Context } from '@temporalio/activity';
import type { EmailStatus } from '../lib/domain';
import type { AuditLog, MessageStore } from '../ports/store';

/** The correlation id of everything an activity writes: its workflow id. */
export function correlationId(): string {
  const info = Context.current().info;
  return info.workflowExecution?.workflowId ?? `activity-${info.activityId}`;
}

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
    eventType: 'status_changed',
    message: `${status}: ${message}`,
    details: { status, ...details },
    eventKey: `${cid}:status:${status}:${Context.current().info.activityId}`,
  });
}

/** Set by workflows that record the email status themselves (patch `decisions-bound-to-draft-v2`). */
export interface StatusOwned {
  statusOwner?: 'workflow';
}

/**
 * The status write of runs started before the workflow owned the status: they still replay on
 * the old workflow code, which relies on its activities to move the status. Runs that own it pass
 * `statusOwner: 'workflow'` and this does nothing.
 */
export async function legacyTransition(input: StatusOwned, ...args: Parameters<typeof transition>): Promise<void> {
  if (input.statusOwner !== 'workflow') await transition(...args);
}
