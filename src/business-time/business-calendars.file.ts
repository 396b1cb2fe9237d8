import { readFileSync, statSync } from 'node:fs';
import { ALWAYS_OPEN, type BusinessCalendar } from './business-hours';
import { ConfigError, errorMessage } from '../platform/errors';
import { HOLIDAYS_MAX_BYTES, parseHolidays } from './holidays';
import type { DeadlineSettings } from './case-deadline';

/** What a calendar is read from: a mailbox's id and its deadline settings (a registry entry fits). */
export interface CalendarSource {
  id: string;
  deadlines?: DeadlineSettings;
}
import type { BusinessCalendars } from './business-calendars.port';

/** Reads one holidays file (src/business-time/holidays.ts); every problem as one ConfigError naming the file. */
export function readHolidaysFile(file: string): string[] {
  let text: string;
  try {
    const st = statSync(file);
    if (!st.isFile()) throw new Error('not a regular file');
    // Checked before reading: a device or a huge file must not be pulled into memory.
    if (st.size > HOLIDAYS_MAX_BYTES) throw new Error(`larger than ${HOLIDAYS_MAX_BYTES} bytes; not a holidays file`);
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new ConfigError(`holidays file ${file} cannot be read: ${errorMessage(err)}`);
  }
  return parseHolidays(text, `holidays file ${file}`).map((h) => h.date);
}

/**
 * The calendars of every registry entry, with their holidays files read once, now. Throws one
 * ConfigError listing every unreadable or bad file with the mailbox it belongs to, so a worker
 * never starts counting deadlines with a mistyped holiday. A changed file takes effect at the
 * next start.
 */
export function loadBusinessCalendars(
  entries: readonly CalendarSource[],
  read: (file: string) => string[] = readHolidaysFile,
): BusinessCalendars {
  const problems: string[] = [];
  const byId = new Map<string, BusinessCalendar>();
  const files = new Map<string, string[]>();
  for (const e of entries) {
    const hours = e.deadlines?.businessHours;
    if (!hours) continue;
    let holidays: string[] = [];
    if (hours.holidaysFile) {
      try {
        holidays = files.get(hours.holidaysFile) ?? read(hours.holidaysFile);
        files.set(hours.holidaysFile, holidays);
      } catch (err) {
        problems.push(`mailbox "${e.id}": ${errorMessage(err)}`);
      }
    }
    byId.set(e.id, { timeZone: hours.timeZone, weekly: hours.weekly, holidays: new Set(holidays) });
  }
  if (problems.length > 0) throw new ConfigError(`business hours: ${problems.join('; ')}`);
  return { calendarFor: (id) => byId.get(id) ?? ALWAYS_OPEN };
}
