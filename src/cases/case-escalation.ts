import { Context } from '@temporalio/activity';
import { CASE_DEADLINE_EVENTS } from './cases.contract';
import { EmailRagError, errorMessage } from '../platform/errors';
import type { CaseClockRow } from './case-clock.port';
import type { EscalationChannel, EscalationNotice } from './escalation-notifier.port';
import type { AuditLog } from '../platform/store.port';
import type { CaseDeadlinePorts } from './cases-deps';

/**
 * Tells one escalation target about a breach, once per case, channel and due time: a notice
 * recorded as delivered (`escalation_sent` in the case history) is not sent again. A failure is
 * recorded in the history and the audit log (`escalation_failed`, per attempt) and returned as
 * the reason; it is never thrown here, so the other channel still gets its turn.
 */
export async function notifyOnce(
  deps: { ports: CaseDeadlinePorts; audit: AuditLog; correlationId: string },
  row: CaseClockRow,
  channel: EscalationChannel,
  target: string,
  notice: EscalationNotice,
): Promise<{ delivered: true } | { delivered: false; reason: string }> {
  const { ports, audit } = deps;
  const key = `case:${row.id}:escalation:${channel}:${notice.dueAt}`;
  if (await ports.clock.event(key)) return { delivered: true };
  // Scheme, host and port only: a webhook's path often carries its token and must not reach logs.
  const shown = channel === 'webhook' ? new URL(target).origin : target;
  try {
    await ports.notifiers[channel].notify(target, notice);
  } catch (err) {
    const why = errorMessage(err);
    const attempt = Context.current().info.attempt;
    const failedKey = `${key}:failed:${attempt}`;
    const details = { channel, target: shown, dueAt: notice.dueAt, attempt };
    await ports.clock.addEvent({
      caseId: row.id,
      emailId: row.oldestWaitingEmailId,
      eventType: CASE_DEADLINE_EVENTS.escalationFailed,
      message: `escalation by ${channel} to ${shown} failed: ${why}`,
      details,
      eventKey: failedKey,
    });
    await audit.record({
      emailId: row.oldestWaitingEmailId,
      correlationId: deps.correlationId,
      eventType: CASE_DEADLINE_EVENTS.escalationFailed,
      errorClass: err instanceof EmailRagError ? err.errorClass : 'unclear',
      message: `case ${row.id}: escalation by ${channel} to ${shown} failed: ${why}`,
      details: { caseId: row.id, ...details },
      eventKey: failedKey,
    });
    return { delivered: false, reason: `${channel} ${shown}: ${why}` };
  }
  await ports.clock.addEvent({
    caseId: row.id,
    emailId: row.oldestWaitingEmailId,
    eventType: CASE_DEADLINE_EVENTS.escalationSent,
    message: `escalated by ${channel} to ${shown}`,
    details: { channel, target: shown, dueAt: notice.dueAt, overdueBySeconds: notice.overdueBySeconds },
    eventKey: key,
  });
  return { delivered: true };
}
