import { DateTime, IANAZone } from 'luxon';

/**
 * Business time: the hours a team works, in its own time zone, without its holidays. Response
 * targets count only this time, so a mail that arrives on Friday evening is due on Monday.
 * Every function here is pure; instants go in and out as `Date` (UTC), the calendar's zone only
 * decides which wall-clock hours are open (luxon applies the zone's DST rules).
 */

export const WEEKDAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const;
export type Weekday = (typeof WEEKDAYS)[number];

/** One opening of a day, in minutes after local midnight: [start, end), end at most 1440 (24:00). */
export interface OpenRange {
  start: number;
  end: number;
}

/** A calendar's closed dates (`YYYY-MM-DD` in its zone): a set, or the holidays of a region and a file together. */
export interface ClosedDates {
  has(date: string): boolean;
}

export interface BusinessCalendar {
  /** IANA zone name, e.g. `Europe/Berlin`. */
  timeZone: string;
  /** Openings per weekday, sorted and not overlapping; an empty list is a closed day. */
  weekly: Record<Weekday, OpenRange[]>;
  /** Closed dates (`YYYY-MM-DD` in the calendar's zone). */
  holidays: ClosedDates;
}

const ALL_DAY: OpenRange[] = [{ start: 0, end: 1440 }];

/**
 * The calendar of a mailbox that configures no business hours: always open, in UTC. Business
 * time is then plain wall-clock time, so installations without business hours behave as before.
 */
export const ALWAYS_OPEN: BusinessCalendar = Object.freeze({
  timeZone: 'UTC',
  weekly: Object.freeze(Object.fromEntries(WEEKDAYS.map((d) => [d, ALL_DAY]))) as Record<Weekday, OpenRange[]>,
  holidays: new Set<string>(),
});

/**
 * A calendar without any open hour in a week never reaches a deadline; searching for one gives up
 * after this many days (holidays cannot close more than a year in a row in any sane file).
 */
const SEARCH_DAYS = 3 * 366;

/** The open intervals (epoch ms) from the local day of `from` on, in order, clipped to start at `from`. */
function* openIntervals(from: number, cal: BusinessCalendar): Generator<[number, number]> {
  let day = DateTime.fromMillis(from, { zone: cal.timeZone }).startOf('day');
  // Ranges of one day never overlap, but a wall-clock hour repeated at the end of DST could make
  // two of them cover the same instants: the cursor counts each instant once.
  let cursor = from;
  for (let i = 0; i < SEARCH_DAYS; i++) {
    const next = day.plus({ days: 1 }).startOf('day');
    if (!cal.holidays.has(day.toISODate() ?? '')) {
      for (const r of cal.weekly[WEEKDAYS[day.weekday - 1]!]) {
        const a = Math.max(instant(day, next, r.start), cursor);
        const b = instant(day, next, r.end);
        if (b > a) {
          yield [a, b];
          cursor = b;
        }
      }
    }
    day = next;
  }
  throw new RangeError(`the business calendar (${cal.timeZone}) has no open hour within ${SEARCH_DAYS} days`);
}

/** The instant of `minutes` after local midnight of `day`; 24:00 is the next day's midnight. */
function instant(day: DateTime, next: DateTime, minutes: number): number {
  if (minutes >= 1440) return next.toMillis();
  // A wall-clock time skipped by DST (02:30 on the spring change) is moved forward by luxon.
  return day.set({ hour: Math.floor(minutes / 60), minute: minutes % 60 }).toMillis();
}

/**
 * The moment at which `ms` of business time have passed since `start`. A start outside the hours
 * begins at the next opening; `ms` = 0 gives that opening. A target reached exactly at closing
 * time is due at closing time, not at the next opening.
 */
export function addBusinessTime(start: Date, ms: number, cal: BusinessCalendar): Date {
  let remaining = Math.max(0, ms);
  for (const [a, b] of openIntervals(start.getTime(), cal)) {
    if (remaining <= b - a) return new Date(a + remaining);
    remaining -= b - a;
  }
  /* c8 ignore next */
  throw new RangeError('unreachable');
}

/** Business time (ms) between `a` and `b`; 0 when `b` is not after `a`. */
export function businessTimeBetween(a: Date, b: Date, cal: BusinessCalendar): number {
  const end = b.getTime();
  let total = 0;
  if (end <= a.getTime()) return 0;
  for (const [x, y] of openIntervals(a.getTime(), cal)) {
    if (x >= end) break;
    total += Math.min(y, end) - x;
    if (y >= end) break;
  }
  return total;
}

/** The earliest instant at or after `at` when the calendar is open (`at` itself while open). */
export function nextOpening(at: Date, cal: BusinessCalendar): Date {
  return addBusinessTime(at, 0, cal);
}

/** Whether `at` lies within the business hours (an opening's start is open, its end is closed). */
export function isOpen(at: Date, cal: BusinessCalendar): boolean {
  const t = at.getTime();
  const day = DateTime.fromMillis(t, { zone: cal.timeZone }).startOf('day');
  if (cal.holidays.has(day.toISODate() ?? '')) return false;
  const next = day.plus({ days: 1 }).startOf('day');
  return cal.weekly[WEEKDAYS[day.weekday - 1]!].some((r) => instant(day, next, r.start) <= t && t < instant(day, next, r.end));
}

const TIME = /^([01]\d|2[0-3]):([0-5]\d)$|^24:00$/;

/**
 * One day's hours as configured: `"08:00-17:00"`, several ranges `"08:00-12:00, 13:00-17:00"` (or
 * a list of them), `"closed"`, or nothing (closed). Problems are reported, never thrown.
 */
export function parseDayHours(raw: unknown, problem: (p: string) => void): OpenRange[] {
  if (raw === undefined || raw === null || raw === false) return [];
  const parts = Array.isArray(raw) ? raw : typeof raw === 'string' ? raw.split(',') : null;
  if (!parts || parts.some((p) => typeof p !== 'string')) {
    problem(`must be "HH:MM-HH:MM" (several separated by ","), "closed" or a list of ranges, got ${JSON.stringify(raw)}`);
    return [];
  }
  const texts = (parts as string[]).map((p) => p.trim()).filter((p) => p !== '');
  if (texts.length === 1 && texts[0]!.toLowerCase() === 'closed') return [];
  const ranges: OpenRange[] = [];
  for (const text of texts) {
    const m = /^([^-\s]+)\s*-\s*([^-\s]+)$/.exec(text);
    const start = m ? minutes(m[1]!) : null;
    const end = m ? minutes(m[2]!) : null;
    if (start === null || end === null || start === 1440) {
      problem(`"${text}" is not a range like "08:00-17:00" (times 00:00 to 24:00)`);
    } else if (end <= start) {
      problem(`"${text}" ends before it starts; a range across midnight is two ranges ("22:00-24:00" and "00:00-02:00" the next day)`);
    } else ranges.push({ start, end });
  }
  ranges.sort((x, y) => x.start - y.start);
  for (let i = 1; i < ranges.length; i++) {
    if (ranges[i]!.start < ranges[i - 1]!.end) problem(`ranges overlap: ${show(ranges[i - 1]!)} and ${show(ranges[i]!)}`);
  }
  return ranges;
}

function minutes(text: string): number | null {
  const m = TIME.exec(text);
  if (!m) return null;
  return m[1] === undefined ? 1440 : Number(m[1]) * 60 + Number(m[2]);
}

function show(r: OpenRange): string {
  const t = (n: number) => `${String(Math.floor(n / 60)).padStart(2, '0')}:${String(n % 60).padStart(2, '0')}`;
  return `${t(r.start)}-${t(r.end)}`;
}

/**
 * A calendar from its configured parts: `timeZone` (IANA), `weekly` (weekday → hours, missing
 * days closed) and the holiday dates. Every problem is reported through `problem`, prefixed with
 * the field it belongs to; the result is null when any was found.
 */
export function buildBusinessCalendar(
  input: { timeZone: unknown; weekly: unknown; holidays?: Iterable<string> },
  problem: (p: string) => void,
): BusinessCalendar | null {
  let ok = true;
  const bad = (p: string) => {
    ok = false;
    problem(p);
  };
  const tz = typeof input.timeZone === 'string' ? input.timeZone.trim() : '';
  if (!tz || !IANAZone.isValidZone(tz))
    bad(`timeZone must be an IANA time zone like "Europe/Berlin", got ${JSON.stringify(input.timeZone)}`);
  const weekly = Object.fromEntries(WEEKDAYS.map((d) => [d, [] as OpenRange[]])) as Record<Weekday, OpenRange[]>;
  const raw = input.weekly;
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    bad(`weekly must map weekdays (${WEEKDAYS.join(', ')}) to hours like "08:00-17:00", got ${JSON.stringify(raw)}`);
  } else {
    for (const [key, value] of Object.entries(raw as Record<string, unknown>)) {
      const day = key.trim().toLowerCase() as Weekday;
      if (!WEEKDAYS.includes(day)) {
        bad(`weekly: "${key}" is not a weekday (${WEEKDAYS.join(', ')})`);
        continue;
      }
      weekly[day] = parseDayHours(value, (p) => bad(`weekly.${key} ${p}`));
    }
    if (ok && WEEKDAYS.every((d) => weekly[d].length === 0)) bad('weekly has no open hour on any day');
  }
  if (!ok) return null;
  return { timeZone: tz, weekly, holidays: new Set(input.holidays ?? []) };
}
