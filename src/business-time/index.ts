/**
 * The face of business-time/: what the other features and the processes may use of it, none of
 * which loads a driver or SDK (what does is in index.adapters.ts); everything else in the folder is
 * its own.
 *
 * Business time: each mailbox's business calendar (hours, holidays) and a case's response
 * deadline, reminder and escalation in it.
 */
export { loadBusinessCalendars } from './business-calendars.file';
export type { HolidaySettings } from './business-calendars.file';
export { readBusinessTimeConfig } from './business-time.config';
export { parseHolidayRegion } from './holiday-region';
export type { BusinessCalendars } from './business-calendars.port';
export { buildBusinessCalendar, businessTimeBetween } from './business-hours';
export {
  DEFAULT_DEADLINE_SETTINGS,
  DEFAULT_REMINDER_BEFORE,
  DEFAULT_RESPONSE_TARGETS,
  formatDuration,
  parseBusinessDuration,
  planDeadline,
  raisedPriority,
} from './case-deadline';
export type { DeadlineSettings, EscalationTargets, ReminderBefore } from './case-deadline';
