import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { DateTime } from 'luxon';
import { parse as parseYaml, stringify } from 'yaml';
import { loadBusinessCalendars } from '../../src/business-time/business-calendars.file';
import { isOpen } from '../../src/business-time/business-hours';
import { parseHolidays } from '../../src/business-time/holidays';
import { computePublicHolidays } from '../../src/business-time/public-holidays.date-holidays';
import { parseMailboxRegistry, type MailboxDefaults } from '../../src/mailboxes/mailbox-registry';

const ROOT = path.resolve(__dirname, '../..');
const BERLIN = 'deploy/holidays/de-be.txt';

test('every holidays file the documentation names is shipped', () => {
  const docs = readdirSync(path.join(ROOT, 'docs')).filter((f) => f.endsWith('.md'));
  const named = docs.flatMap((f) =>
    [...readFileSync(path.join(ROOT, 'docs', f), 'utf8').matchAll(/holidaysFile: ([^\s#]+)/g)].map((m) => m[1]!),
  );
  assert.ok(named.includes(BERLIN), `docs/cases.md names ${BERLIN}`);
  for (const file of named) assert.ok(existsSync(path.join(ROOT, file)), `${file} is in the repository`);
});

/** The file this product shipped for Berlin 2026 – 2028, typed by hand; the library must give the same days. */
const TYPED_BY_HAND = {
  2026: ['01-01', '03-08', '04-03', '04-06', '05-01', '05-14', '05-25', '10-03', '12-25', '12-26'],
  2027: ['01-01', '03-08', '03-26', '03-29', '05-01', '05-06', '05-17', '10-03', '12-25', '12-26'],
  2028: ['01-01', '03-08', '04-14', '04-17', '05-01', '05-25', '06-05', '10-03', '12-25', '12-26'],
};
/** Easter Sunday of a Gregorian year (the anonymous algorithm, Meeus/Jones/Butcher): checked apart from the library. */
function easterSunday(year: number): DateTime {
  const a = year % 19;
  const [b, c] = [Math.floor(year / 100), year % 100];
  const [d, e] = [Math.floor(b / 4), b % 4];
  const g = Math.floor((8 * b + 13) / 25);
  const h = (19 * a + b - d - g + 15) % 30;
  const [i, k] = [Math.floor(c / 4), c % 4];
  const l = (32 + 2 * e + 2 * i - h - k) % 7;
  const m = Math.floor((a + 11 * h + 22 * l) / 451);
  const month = Math.floor((h + l - 7 * m + 114) / 31);
  return DateTime.fromObject({ year, month, day: ((h + l - 7 * m + 114) % 31) + 1 }, { zone: 'UTC' });
}

test(`${BERLIN} is an example of extra days only: the region DE-BE gives Berlin's ten public holidays in every year`, () => {
  assert.deepEqual(parseHolidays(readFileSync(path.join(ROOT, BERLIN), 'utf8'), BERLIN), [], 'every example line is a comment');
  const { days } = computePublicHolidays({ regions: ['DE-BE'], types: ['public'], from: 2026, to: 2040 });
  const of = (year: number) => days['DE-BE']!.filter((d) => d.startsWith(`${year}-`));
  // The library knows one day the hand-typed file missed: 17 June 2028, Berlin's one-off holiday for
  // the 75th anniversary of the 1953 uprising (a Saturday, so it closes no working day).
  const typed = (year: string, dates: string[]) => [...dates, ...(year === '2028' ? ['06-17'] : [])].sort().map((d) => `${year}-${d}`);
  for (const [year, dates] of Object.entries(TYPED_BY_HAND)) assert.deepEqual(of(Number(year)), typed(year, dates));
  assert.equal(easterSunday(2026).toISODate(), '2026-04-05', 'the algorithm, against the hand-typed Ostermontag');
  for (let year = 2029; year <= 2040; year++) {
    const easter = easterSunday(year);
    const fromEaster = [-2, 1, 39, 50].map((n) => easter.plus({ days: n }).toISODate()!);
    const fixed = ['01-01', '03-08', '05-01', '10-03', '12-25', '12-26'].map((d) => `${year}-${d}`);
    assert.deepEqual(of(year), [...fixed, ...fromEaster].sort(), `${year}: Karfreitag, Ostermontag, Himmelfahrt, Pfingstmontag`);
  }
});

test("docs/cases.md's business hours: closed on Berlin's holidays in any year, open the Tuesday before Christmas", () => {
  const cases = readFileSync(path.join(ROOT, 'docs/cases.md'), 'utf8');
  const block = [...cases.matchAll(/^```yaml\n([\s\S]*?)^```$/gm)].map((m) => m[1]!).find((b) => b.includes('holidaysFile'));
  assert.ok(block, 'the business hours example');
  const doc = parseYaml(block) as { mailboxes: Array<Record<string, unknown>> };
  const entry = doc.mailboxes[0]!;
  const hours = entry.businessHours as Record<string, unknown>;
  hours.holidaysFile = path.join(ROOT, String(hours.holidaysFile));
  Object.assign(entry, { imap: { user: 'support@example.test', password: { env: 'PW' } }, smtp: { from: 'support@example.test' } });
  const defaults: MailboxDefaults = {
    imap: { host: 'imap.example.test', port: 993, tls: true, sentFolder: 'Sent', pollIntervalSeconds: 60 },
    smtp: { host: 'smtp.example.test', port: 587, tls: true, timeoutMs: 60_000 },
    language: 'de',
  };
  const entries = parseMailboxRegistry(stringify({ version: 1, mailboxes: [entry] }), defaults);
  const calendar = loadBusinessCalendars(entries, { compute: computePublicHolidays }).calendarFor(String(entry.id));
  const noon = (date: string) => DateTime.fromISO(`${date}T12:00`, { zone: 'Europe/Berlin' }).toJSDate();
  assert.equal(isOpen(noon('2026-12-22'), calendar), true);
  assert.equal(isOpen(noon('2026-12-25'), calendar), false, '1. Weihnachtstag');
  assert.equal(isOpen(noon('2027-03-26'), calendar), false, 'Karfreitag');
  assert.equal(isOpen(noon('2029-03-08'), calendar), false, 'Internationaler Frauentag, years after the hand-typed file');
  assert.equal(isOpen(noon('2031-04-14'), calendar), false, 'Ostermontag 2031');
});
