import Holidays, { type HolidaysTypes } from 'date-holidays';
import { DateTime } from 'luxon';
import type { HolidayType } from './holiday-region';

/** What to compute: the closed dates of each region in the years `from` to `to`, of these kinds. */
export interface PublicHolidaysRequest {
  /** Upper-case codes as holiday-region.ts reads them (`DE-BE`). */
  regions: string[];
  types: HolidayType[];
  from: number;
  to: number;
}

/** Per requested code: its closed dates (`YYYY-MM-DD`, sorted), or why the library does not know it. */
export interface PublicHolidaysAnswer {
  days: Record<string, string[]>;
  problems: Record<string, string>;
}

/** A whole day starts at local midnight; the library's half days (24 December from 13:00) do not. */
const WHOLE_DAY = /^(\d{4}-\d{2}-\d{2}) 00:00:00/;
const DAY_MS = 86_400_000;

/**
 * Computes the closed dates with date-holidays. The library keeps every country's rules in memory
 * once loaded (31–38 MB of RSS), so the worker calls this in a short-lived child process
 * (public-holidays-process.ts) and keeps only the dates.
 */
export function computePublicHolidays(req: PublicHolidaysRequest): PublicHolidaysAnswer {
  const answer: PublicHolidaysAnswer = { days: {}, problems: {} };
  const lib = new Holidays();
  for (const code of req.regions) {
    const found = resolve(lib, code);
    if ('problem' in found) {
      answer.problems[code] = found.problem;
      continue;
    }
    const hd = new Holidays(found.region);
    const dates = new Set<string>();
    for (let year = req.from; year <= req.to; year++) {
      for (const h of hd.getHolidays(year)) {
        const start = WHOLE_DAY.exec(h.date)?.[1];
        if (!start || !(req.types as string[]).includes(h.type)) continue;
        // A holiday of several days (Eid al-Fitr: three) closes each of them.
        const length = Math.max(1, Math.round((h.end.getTime() - h.start.getTime()) / DAY_MS));
        const first = DateTime.fromISO(start, { zone: 'UTC' });
        for (let i = 0; i < length; i++) dates.add(first.plus({ days: i }).toISODate()!);
      }
    }
    answer.days[code] = [...dates].sort();
  }
  return answer;
}

/** The library's own spelling of `code`'s parts, or a problem that names the codes it does know. */
function resolve(lib: Holidays, code: string): { region: HolidaysTypes.Country } | { problem: string } {
  const [country = '', state, region] = code.split('-');
  const countries = lib.getCountries('en');
  const c = keyOf(countries, country);
  if (!c) return { problem: `"${code}" is not a country of the holidays library; the countries: ${Object.keys(countries).join(', ')}` };
  if (state === undefined) return { region: { country: c } };
  const states = lib.getStates(c, 'en') ?? {};
  const s = keyOf(states, state);
  const codes = (m: Record<string, string>, prefix: string) => Object.keys(m).map((k) => `${prefix}-${k}`);
  if (!s) {
    const known = Object.keys(states).length > 0 ? `its states: ${codes(states, c).join(', ')}` : 'it has no states in the library';
    return { problem: `"${code}": ${countries[c]} (${c}) has no state "${state}"; ${known}` };
  }
  if (region === undefined) return { region: { country: c, state: s } };
  const regions = lib.getRegions(c, s, 'en') ?? {};
  const r = keyOf(regions, region);
  if (!r) {
    const known =
      Object.keys(regions).length > 0 ? `its regions: ${codes(regions, `${c}-${s}`).join(', ')}` : 'it has no regions in the library';
    return { problem: `"${code}": ${states[s]} (${c}-${s}) has no region "${region}"; ${known}` };
  }
  return { region: { country: c, state: s, region: r } };
}

/** The key of `map` that is `wanted` without regard to case (the library has `Aitutaki` beside `BE`). */
function keyOf(map: Record<string, string>, wanted: string): string | undefined {
  return Object.keys(map).find((k) => k.toUpperCase() === wanted.toUpperCase());
}
