import { createHash } from 'node:crypto';
import {
  businessTimeBetween,
  DEFAULT_DEADLINE_SETTINGS,
  formatDuration,
  planDeadline,
  raisedPriority,
  type DeadlineSettings,
} from '../business-time';
import { CASE_CLOCK_STATES, type CaseClockState, CASE_DEADLINE_EVENTS } from './cases.contract';
import { FAILURE_TYPES } from '../platform/contract';
import { CASE_STATUS } from './case-status';
import { PermanentError, TransientError } from '../platform/errors';
import type { CaseClockRow } from './case-clock.port';
import type { EscalationChannel, EscalationNotice } from './escalation-notifier.port';
import type { MailboxDirectory } from '../mailboxes';
import { notifyOnce } from './case-escalation';
import { correlationId } from '../platform/activity-context';
import type { CaseDeadlinePorts, CasesDeps } from './cases-deps';

export type CaseDeadlineDeps = Pick<CasesDeps, 'audit' | 'caseDeadlines'> & { mailboxes: Pick<MailboxDirectory, 'list'> };

export interface CaseDeadlineState {
  state: CaseClockState;
  dueAt: string | null;
  remindAt: string | null;
  reminded: boolean;
  breached: boolean;
  priority: string;
}

const running = (r: CaseClockRow) => r.status === CASE_STATUS.open && r.waitingSince !== null;
const iso = (d: Date | null) => (d ? d.toISOString() : null);
const sameTime = (a: Date | null, b: Date | null) => (a === null || b === null ? a === b : a.getTime() === b.getTime());

function dueTime(text: string): Date {
  const d = new Date(text);
  if (!text || Number.isNaN(d.getTime())) throw new PermanentError(`dueAt must be an ISO 8601 time, got ${JSON.stringify(text)}`);
  return d;
}

/** The key a breach is known by outside: the same case and due time always give the same one. */
export function escalationKey(caseId: string, dueAt: Date): string {
  return `escalation-${createHash('sha256').update(`${caseId}\n${dueAt.toISOString()}`).digest('hex').slice(0, 32)}`;
}

/**
 * The activities behind "deadlines that act": the case workflow plans the deadline, sleeps until
 * the reminder, reminds, sleeps until the due time, escalates. Each one checks the row first and
 * acts only on the deadline the workflow names, so a timer that fires after the case was answered,
 * paused or re-planned does nothing. Every write is keyed by case and due time: retries land once.
 */
export function createCaseDeadlineActivities(all: CaseDeadlineDeps) {
  // Checked on use, not at construction: a worker without case workflows builds every activity all the same.
  const ports = (): CaseDeadlinePorts => {
    if (!all.caseDeadlines)
      throw new PermanentError('case deadlines are not set up in this worker (caseDeadlines missing)', FAILURE_TYPES.config);
    return all.caseDeadlines;
  };
  const now = () => (all.caseDeadlines?.now ?? (() => new Date()))();
  const settingsOf = (mailboxId: string): DeadlineSettings =>
    all.mailboxes.list().find((m) => m.id === mailboxId)?.deadlines ?? DEFAULT_DEADLINE_SETTINGS;
  const answer = (state: CaseClockState, r: CaseClockRow | null): CaseDeadlineState => ({
    state,
    dueAt: state === CASE_CLOCK_STATES.paused ? null : iso(r?.dueAt ?? null),
    remindAt: state === CASE_CLOCK_STATES.paused ? null : iso(r?.remindAt ?? null),
    reminded: r?.remindedAt != null,
    breached: r?.breachedAt != null,
    priority: r?.priority ?? 'normal',
  });

  /** The case's row while it still runs with exactly this due time; null otherwise. */
  const runningWith = async (caseId: string, due: Date): Promise<CaseClockRow | null> => {
    const row = await ports().clock.get(caseId);
    return row && running(row) && sameTime(row.dueAt, due) ? row : null;
  };

  return {
    /**
     * Computes and stores the case's due time and reminder for its current waiting_since and
     * priority (once: a repeated call returns what is stored); clears them while the case waits for
     * the customer. `reminded` / `breached` say what already happened to this wait.
     */
    async planCaseDeadline(input: { caseId: string }): Promise<CaseDeadlineState> {
      for (let round = 0; round < 3; round++) {
        const row = await ports().clock.get(input.caseId);
        if (!row || row.status === CASE_STATUS.closed) return answer(CASE_CLOCK_STATES.closed, row);
        if (!running(row)) {
          await ports().clock.clearDeadline(row.id);
          return answer(CASE_CLOCK_STATES.paused, row);
        }
        const since = row.waitingSince!;
        if (row.dueAt && sameTime(row.deadlineBasis, since) && row.deadlinePriority === row.priority) {
          return answer(CASE_CLOCK_STATES.running, row);
        }
        const s = settingsOf(row.mailboxId);
        const calendar = ports().calendars.calendarFor(row.mailboxId);
        const plan = planDeadline({
          waitingSince: since,
          priority: row.priority,
          calendar,
          targets: s.responseTargets,
          reminderBefore: s.reminderBefore,
          now: now(),
        });
        const target = formatDuration(s.responseTargets[row.priority]);
        const stored = await ports().clock.setDeadline(
          row.id,
          { waitingSince: since, priority: row.priority, ...plan },
          {
            caseId: row.id,
            emailId: row.oldestWaitingEmailId,
            eventType: CASE_DEADLINE_EVENTS.deadlineSet,
            message: `answer due by ${plan.dueAt.toISOString()}: ${target} of business time (${row.priority}) from ${since.toISOString()}`,
            details: { dueAt: iso(plan.dueAt), remindAt: iso(plan.remindAt), waitingSince: iso(since), priority: row.priority, target },
            eventKey: `case:${row.id}:deadline:${since.toISOString()}:${row.priority}`,
          },
        );
        if (stored) {
          const after = await ports().clock.get(row.id);
          if (after) return answer(CASE_CLOCK_STATES.running, after);
        }
        // The row moved on between the read and the write (new mail, an answer): plan what it is now.
      }
      throw new TransientError(`case ${input.caseId} keeps changing while its deadline is planned`);
    },

    /**
     * The reminder: only while the case still runs with this due time. Sets reminded_at, raises the
     * priority one step, and records it in the case's history and the audit log (`case_reminder`,
     * on the case's oldest waiting email).
     */
    async remindCase(input: { caseId: string; dueAt: string }): Promise<{ done: boolean }> {
      const due = dueTime(input.dueAt);
      let row = await runningWith(input.caseId, due);
      if (!row) return { done: false };
      const key = `case:${row.id}:reminder:${due.toISOString()}`;
      if (!row.remindedAt) {
        const raised = raisedPriority(row.priority);
        await ports().clock.markReminded(row.id, due, raised, now(), {
          caseId: row.id,
          emailId: row.oldestWaitingEmailId,
          eventType: CASE_DEADLINE_EVENTS.reminder,
          message: `reminder: the answer is due by ${due.toISOString()}; priority ${row.priority} → ${raised}`,
          details: { dueAt: due.toISOString(), from: row.priority, to: raised },
          eventKey: key,
        });
        row = await runningWith(input.caseId, due);
        if (!row) return { done: false };
      }
      // Reminded by this call or by an earlier attempt of it; reminded for another due time is not this reminder.
      const event = await ports().clock.event(key);
      if (!event) return { done: false };
      const d = event.details ?? {};
      await all.audit.record({
        emailId: row.oldestWaitingEmailId,
        correlationId: correlationId(),
        eventType: CASE_DEADLINE_EVENTS.reminder,
        message: `case ${row.id} (${row.correspondent}): answer due by ${due.toISOString()}; priority ${String(d.from)} → ${String(d.to)}`,
        details: { caseId: row.id, mailboxId: row.mailboxId, ...d },
        eventKey: key,
      });
      return { done: true };
    },

    /**
     * The due time passed without an answer: records the breach first (case history and audit
     * `case_breached`), then tells the mailbox's escalation address and/or webhook, each once per
     * case and due time. A failed notice is audited (`escalation_failed`) and fails the activity
     * with a TransientError so it is retried; what was delivered is not sent again.
     */
    async escalateCase(input: { caseId: string; dueAt: string }): Promise<{ done: boolean; notified: string[] }> {
      const due = dueTime(input.dueAt);
      const cid = correlationId();
      let row = await runningWith(input.caseId, due);
      if (!row) return { done: false, notified: [] };
      const at = now();
      const breachKey = `case:${row.id}:breached:${due.toISOString()}`;
      const calendar = ports().calendars.calendarFor(row.mailboxId);
      const overdueBySeconds = Math.floor(businessTimeBetween(due, at, calendar) / 1000);
      if (!row.breachedAt) {
        await ports().clock.markBreached(row.id, due, at, {
          caseId: row.id,
          emailId: row.oldestWaitingEmailId,
          eventType: CASE_DEADLINE_EVENTS.breached,
          message: `no answer by the due time ${due.toISOString()} (${row.priority})`,
          details: { dueAt: due.toISOString(), priority: row.priority },
          eventKey: breachKey,
        });
        row = await runningWith(input.caseId, due);
        if (!row) return { done: false, notified: [] };
      }
      // Breached for an earlier due time of this wait: that breach was escalated then.
      if (!(await ports().clock.event(breachKey))) return { done: false, notified: [] };
      await all.audit.record({
        emailId: row.oldestWaitingEmailId,
        correlationId: cid,
        eventType: CASE_DEADLINE_EVENTS.breached,
        errorClass: null,
        message: `case ${row.id} (${row.correspondent}, mailbox ${row.mailboxId}): no answer by ${due.toISOString()}`,
        details: { caseId: row.id, mailboxId: row.mailboxId, priority: row.priority, dueAt: due.toISOString() },
        eventKey: breachKey,
      });
      const notice: EscalationNotice = {
        caseId: row.id,
        mailboxId: row.mailboxId,
        correspondent: row.correspondent,
        subject: row.subject,
        priority: row.priority,
        dueAt: due.toISOString(),
        overdueBySeconds,
        idempotencyKey: escalationKey(row.id, due),
      };
      const targets = settingsOf(row.mailboxId).escalation;
      const channels = (['email', 'webhook'] as const).filter((c) => targets[c]);
      const notified: EscalationChannel[] = [];
      const failures: string[] = [];
      for (const channel of channels) {
        const result = await notifyOnce({ ports: ports(), audit: all.audit, correlationId: cid }, row, channel, targets[channel]!, notice);
        if (result.delivered) notified.push(channel);
        else failures.push(result.reason);
      }
      if (failures.length > 0) {
        throw new TransientError(
          `case ${row.id}: escalation failed (${failures.join('; ')}); the breach is recorded`,
          FAILURE_TYPES.escalationFailed,
        );
      }
      if (notified.length > 0) await ports().clock.markEscalated(row.id, due, at);
      return { done: true, notified };
    },
  };
}

export type CaseDeadlineActivities = ReturnType<typeof createCaseDeadlineActivities>;
