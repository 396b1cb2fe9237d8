import type { BusinessCalendar } from './business-hours';

/** Each mailbox's business calendar (hours, zone and holidays), loaded and checked when the worker starts. */
export interface BusinessCalendars {
  /** The mailbox's calendar; always open in UTC for a mailbox without business hours (or unknown here). */
  calendarFor(mailboxId: string): BusinessCalendar;
}
