/**
 * The business-time section of the configuration (src/config.ts assembles the sections):
 * BUSINESS_HOLIDAYS_REGION and BUSINESS_HOLIDAY_TYPES, the public holidays that close the days of
 * every mailbox with business hours (a registry entry's `businessHours.holidaysRegion` overrides
 * the region). Only the form is checked here; the worker checks the code against the holidays
 * library when it starts (src/business-time/business-calendars.file.ts).
 */
import { envValues, type Env } from '../platform/env-values';
import { DEFAULT_HOLIDAY_SETTINGS, type HolidaySettings } from './business-calendars.file';
import { parseHolidayRegion, parseHolidayTypes } from './holiday-region';

export interface BusinessTimeConfig {
  businessHolidays: HolidaySettings;
}

export function readBusinessTimeConfig(env: Env, problems: string[]): BusinessTimeConfig {
  const v = envValues(env, problems);
  const holidays = { ...DEFAULT_HOLIDAY_SETTINGS };
  const region = v.optional('BUSINESS_HOLIDAYS_REGION');
  if (region !== undefined) {
    const r = parseHolidayRegion(region);
    if ('code' in r) holidays.region = r.code;
    else problems.push(`BUSINESS_HOLIDAYS_REGION ${r.problem}`);
  }
  const types = v.optional('BUSINESS_HOLIDAY_TYPES');
  if (types !== undefined) {
    const t = parseHolidayTypes(types);
    if ('types' in t) holidays.types = t.types;
    else problems.push(`BUSINESS_HOLIDAY_TYPES ${t.problem}`);
  }
  return { businessHolidays: holidays };
}

// This feature's section of the whole configuration (src/platform/config.ts).
declare module '../platform/config' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- merged into the whole configuration
  interface Config extends BusinessTimeConfig {}
}
