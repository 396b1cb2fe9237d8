import { readFileSync, statSync } from 'node:fs';
import { ALWAYS_OPEN, type BusinessCalendar, type ClosedDates } from './business-hours';
import { ConfigError, errorMessage } from '../platform/errors';
import { HOLIDAYS_MAX_BYTES, parseHolidays } from './holidays';
import type { DeadlineSettings } from './case-deadline';
import { DEFAULT_HOLIDAY_TYPES, DEFAULT_HOLIDAYS_REGION, NO_HOLIDAYS_REGION, type HolidayType } from './holiday-region';
import { loadPublicHolidays, type ComputePublicHolidays } from './public-holidays';
import type { BusinessCalendars } from './business-calendars.port';

/** What a calendar is read from: a mailbox's id and its deadline settings (a registry entry fits). */
export interface CalendarSource {
  id: string;
  deadlines?: DeadlineSettings;
}

/** The installation's public-holiday settings (BUSINESS_HOLIDAYS_REGION, BUSINESS_HOLIDAY_TYPES). */
export interface HolidaySettings {
  /** The region of a mailbox that names none; `none`: only its holidays file. */
  region: string;
  types: readonly HolidayType[];
}

export const DEFAULT_HOLIDAY_SETTINGS: HolidaySettings = Object.freeze({ region: DEFAULT_HOLIDAYS_REGION, types: DEFAULT_HOLIDAY_TYPES });

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
 * The calendars of every registry entry: the public holidays of each one's region (its
 * `holidaysRegion`, else `holidays.region`) and the days of its holidays file, read once, now.
 * Throws one ConfigError listing every unreadable or bad file and every region the holidays
 * library does not know, with the mailbox it belongs to, so a worker never starts counting
 * deadlines with a mistyped holiday. A changed file takes effect at the next start.
 */
export function loadBusinessCalendars(
  entries: readonly CalendarSource[],
  opts: { holidays?: HolidaySettings; read?: (file: string) => string[]; compute?: ComputePublicHolidays; now?: () => Date } = {},
): BusinessCalendars {
  const holidays = opts.holidays ?? DEFAULT_HOLIDAY_SETTINGS;
  const read = opts.read ?? readHolidaysFile;
  const problems: string[] = [];
  const withHours = entries.flatMap((e) => (e.deadlines?.businessHours ? [{ id: e.id, hours: e.deadlines.businessHours }] : []));
  const regionOf = (hours: { holidaysRegion?: string }) => hours.holidaysRegion ?? holidays.region;
  const regions = [...new Set(withHours.map((e) => regionOf(e.hours)))].filter((r) => r !== NO_HOLIDAYS_REGION);
  const publicHolidays = loadPublicHolidays({
    regions,
    types: holidays.types,
    year: (opts.now?.() ?? new Date()).getUTCFullYear(),
    compute: opts.compute,
  });
  const byId = new Map<string, BusinessCalendar>();
  const files = new Map<string, string[]>();
  const unknownRegions = new Map<string, string[]>();
  for (const { id, hours } of withHours) {
    let fileDays: string[] = [];
    if (hours.holidaysFile) {
      try {
        fileDays = files.get(hours.holidaysFile) ?? read(hours.holidaysFile);
        files.set(hours.holidaysFile, fileDays);
      } catch (err) {
        problems.push(`mailbox "${id}": ${errorMessage(err)}`);
      }
    }
    const region = regionOf(hours);
    if (publicHolidays.problems[region]) {
      // Named once per setting and code: the list of valid codes is long.
      const setting = hours.holidaysRegion === undefined ? 'BUSINESS_HOLIDAYS_REGION' : 'businessHours.holidaysRegion';
      const key = `${setting} ${publicHolidays.problems[region]}`;
      unknownRegions.set(key, [...(unknownRegions.get(key) ?? []), `"${id}"`]);
    }
    const own = new Set(fileDays);
    const closed: ClosedDates = region === NO_HOLIDAYS_REGION ? own : withRegion(own, publicHolidays.datesOf(region));
    byId.set(id, { timeZone: hours.timeZone, weekly: hours.weekly, holidays: closed });
  }
  for (const [problem, ids] of unknownRegions) problems.push(`${ids.length > 1 ? 'mailboxes' : 'mailbox'} ${ids.join(', ')}: ${problem}`);
  if (problems.length > 0) throw new ConfigError(`business hours: ${problems.join('; ')}`);
  return { calendarFor: (id) => byId.get(id) ?? ALWAYS_OPEN };
}

/** The file's days on top of the region's: either closes the date. */
function withRegion(own: ReadonlySet<string>, region: ClosedDates): ClosedDates {
  return { has: (date) => own.has(date) || region.has(date) };
}
