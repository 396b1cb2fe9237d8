/**
 * The words of the public-holiday settings: a region code as the holidays library knows it
 * (`DE`, `DE-BE`, `DE-BY-A`, `US-CA`) and the kinds of holiday that close a day. Only the form is
 * checked here; whether the library knows the region is checked when the worker computes its days
 * (src/business-time/public-holidays.ts), so a process that never counts deadlines never loads it.
 */

/** The library's kinds of holiday, in its own words (date-holidays' `type`). */
export const HOLIDAY_TYPES = ['public', 'bank', 'school', 'optional', 'observance'] as const;
export type HolidayType = (typeof HOLIDAY_TYPES)[number];

/** No region: only the holidays file closes days, as before regions existed. */
export const NO_HOLIDAYS_REGION = 'none';

/**
 * The region of a mailbox with business hours that names none. Berlin: the holidays this product
 * shipped as a file were Berlin's, so a team that used that file keeps its days in every year.
 */
export const DEFAULT_HOLIDAYS_REGION = 'DE-BE';

/** Only statutory holidays close a day; bank holidays (24 and 31 December in Germany) are working days. */
export const DEFAULT_HOLIDAY_TYPES: readonly HolidayType[] = Object.freeze(['public']);

/** Country (ISO 3166-1 alpha-2), then optionally a state and a region, each as the library spells it. */
const REGION_CODE = /^[A-Za-z]{2}(-[A-Za-z0-9]{1,12}){0,2}$/;

/**
 * A region code in upper case (`de-be` → `DE-BE`), or `none`; a problem when it has not the form
 * of one. The library's own codes are matched without regard to case.
 */
export function parseHolidayRegion(raw: unknown): { code: string } | { problem: string } {
  const text = typeof raw === 'string' ? raw.trim() : '';
  if (text.toLowerCase() === NO_HOLIDAYS_REGION) return { code: NO_HOLIDAYS_REGION };
  if (REGION_CODE.test(text)) return { code: text.toUpperCase() };
  return {
    problem: `must be a country code, optionally with state and region ("DE", "DE-BE", "DE-BY-A", "US-CA"), or "${NO_HOLIDAYS_REGION}", got ${JSON.stringify(raw)}`,
  };
}

/** A comma-separated list of HOLIDAY_TYPES (`public,bank`); a problem naming the accepted words otherwise. */
export function parseHolidayTypes(raw: string): { types: HolidayType[] } | { problem: string } {
  const words = raw
    .split(',')
    .map((w) => w.trim().toLowerCase())
    .filter((w) => w !== '');
  const unknown = words.filter((w) => !(HOLIDAY_TYPES as readonly string[]).includes(w));
  if (words.length === 0 || unknown.length > 0)
    return { problem: `must list holiday types separated by "," (${HOLIDAY_TYPES.join(', ')}), got "${raw}"` };
  return { types: [...new Set(words as HolidayType[])] };
}
