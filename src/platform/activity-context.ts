import { Context } from '@temporalio/activity';
import type { EmailStatus } from './domain';
import type { AuditLog, MessageStore } from './store.port';
import { PLATFORM_AUDIT_EVENTS } from './contract';

/** The correlation id of everything an activity writes: its workflow id. */
export function correlationId(): string {
  const info = Context.current().info;
  return info.workflowExecution?.workflowId ?? `activity-${info.activityId}`;
}

/**
 * The running activity's start-to-close timeout; undefined outside an activity (a test that calls
 * the function itself) or when none was set.
 */
export function activityTimeoutMs(): number | undefined {
  try {
    const ms = Context.current().info.startToCloseTimeoutMs;
    return ms > 0 ? ms : undefined;
  } catch {
    return undefined;
  }
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
    eventType: PLATFORM_AUDIT_EVENTS.statusChanged,
    message: `${status}: ${message}`,
    details: { status, ...details },
    eventKey: `${cid}:status:${status}:${Context.current().info.activityId}`,
  });
}
