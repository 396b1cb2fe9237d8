/**
 * TODO face header
 */
export { loadBusinessCalendars } from './business-calendars.file';
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
