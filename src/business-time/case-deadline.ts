import { addBusinessTime, type BusinessCalendar } from './business-hours';
import type { Priority } from '../triage';
import type { SecretRef } from '../platform/secret-ref';

/** How much business time before the due time the reminder comes: a share of the target, or a fixed time. */
export type ReminderBefore = { percent: number } | { ms: number };

/** Where a missed deadline is reported, besides the audit log, the case history and the metric. */
export interface EscalationTargets {
  /** An address that gets a mail from the mailbox's own SMTP identity. */
  email?: string;
  /** A URL that gets a JSON POST (https; http only to this host). */
  webhook?: string;
  /** Signs each POST (HMAC-SHA256 over the timestamp and the body), so the receiver knows it is ours. */
  webhookSecret?: SecretRef;
}

/** A mailbox's response deadlines (registry fields `businessHours`, `responseTargets`, `reminderBefore`, `escalation`). */
export interface DeadlineSettings {
  /** Absent: always open in UTC (business time = wall-clock time). */
  businessHours?: {
    timeZone: string;
    weekly: BusinessCalendar['weekly'];
    /** Absolute path of the holidays file (src/business-time/holidays.ts), read by the worker at start. */
    holidaysFile?: string;
    /** Whose public holidays close days (`DE-BE`, or `none`); absent: BUSINESS_HOLIDAYS_REGION's. */
    holidaysRegion?: string;
  };
  /** Business time (ms) to the first answer, per priority. */
  responseTargets: Record<Priority, number>;
  reminderBefore: ReminderBefore;
  escalation: EscalationTargets;
}

const HOUR = 3_600_000;

/**
 * Response targets in business time when a mailbox sets none. With business hours of 8 h a day,
 * normal is one working day and low three; without business hours they are wall-clock hours.
 */
export const DEFAULT_RESPONSE_TARGETS: Readonly<Record<Priority, number>> = Object.freeze({
  critical: 1 * HOUR,
  high: 4 * HOUR,
  normal: 8 * HOUR,
  low: 24 * HOUR,
});

/** The reminder comes when a quarter of the target is left. */
export const DEFAULT_REMINDER_BEFORE: ReminderBefore = Object.freeze({ percent: 25 });

export const DEFAULT_DEADLINE_SETTINGS: DeadlineSettings = Object.freeze({
  responseTargets: DEFAULT_RESPONSE_TARGETS,
  reminderBefore: DEFAULT_REMINDER_BEFORE,
  escalation: Object.freeze({}),
});

export interface DeadlinePlan {
  dueAt: Date;
  /** null: the due time has passed already, a reminder has nothing left to warn about. */
  remindAt: Date | null;
}

/**
 * A case's deadline: the response target of its priority counted in business time from the
 * customer's oldest unanswered mail. The reminder comes `reminderBefore` (business time) before
 * it; one that would lie in the past comes now, and none comes once the due time has passed.
 */
export function planDeadline(input: {
  waitingSince: Date;
  priority: Priority;
  calendar: BusinessCalendar;
  targets: Record<Priority, number>;
  reminderBefore: ReminderBefore;
  now: Date;
}): DeadlinePlan {
  const target = input.targets[input.priority];
  const dueAt = addBusinessTime(input.waitingSince, target, input.calendar);
  const before = 'percent' in input.reminderBefore ? (target * input.reminderBefore.percent) / 100 : input.reminderBefore.ms;
  // Counted forward from the start rather than back from the due time: the same calendar walk,
  // and a reminder never lands in closed hours.
  const remindAt = addBusinessTime(input.waitingSince, Math.max(0, target - Math.min(before, target)), input.calendar);
  const now = input.now.getTime();
  if (now >= dueAt.getTime()) return { dueAt, remindAt: null };
  return { dueAt, remindAt: new Date(Math.max(remindAt.getTime(), now)) };
}

const RAISE: Readonly<Record<Priority, Priority>> = Object.freeze({
  low: 'normal',
  normal: 'high',
  high: 'critical',
  critical: 'critical',
});

/** The priority a case gets at its reminder: one step up (low → normal → high → critical). */
export function raisedPriority(priority: Priority): Priority {
  return RAISE[priority];
}

/**
 * A duration of business time as configured: `90m`, `4h`, `1h30m` (or a number of minutes).
 * Days are refused on purpose: a "day" of business time (24 h) reads as a working day but is three.
 */
export function parseBusinessDuration(raw: unknown): number | null {
  if (typeof raw === 'number') return Number.isInteger(raw) && raw > 0 ? raw * 60_000 : null;
  if (typeof raw !== 'string') return null;
  const m = /^\s*(?:(\d{1,5})\s*h\s*)?(?:(\d{1,6})\s*m(?:in)?\s*)?$/i.exec(raw);
  if (!m || (m[1] === undefined && m[2] === undefined)) return null;
  const ms = (Number(m[1] ?? 0) * 60 + Number(m[2] ?? 0)) * 60_000;
  return ms > 0 ? ms : null;
}

/** `8h`, `1h30m`, `45m`: how a duration reads in messages. */
export function formatDuration(ms: number): string {
  const total = Math.round(ms / 60_000);
  const h = Math.floor(total / 60);
  const m = total % 60;
  return h > 0 ? `${h}h${m > 0 ? `${m}m` : ''}` : `${m}m`;
}
