/**
 * The child process of public-holidays.ts: reads one request (JSON) from stdin, answers with the
 * closed dates (JSON) on stdout and exits, so the holidays library's data never stays in the
 * worker's memory. Loaded only as that process's entry.
 */
import { readFileSync } from 'node:fs';
import { computePublicHolidays, type PublicHolidaysRequest } from './public-holidays.date-holidays';

const request = JSON.parse(readFileSync(0, 'utf8')) as PublicHolidaysRequest;
process.stdout.write(JSON.stringify(computePublicHolidays(request)));
