import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { DateTime } from 'luxon';
import { parse as parseYaml, stringify } from 'yaml';
import { loadBusinessCalendars, readHolidaysFile } from '../../src/business-time/business-calendars.file';
import { isOpen } from '../../src/business-time/business-hours';
import { parseHolidays } from '../../src/business-time/holidays';
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

test(`${BERLIN}: Berlin's ten public holidays a year, each on its date`, () => {
  const holidays = parseHolidays(readFileSync(path.join(ROOT, BERLIN), 'utf8'), BERLIN);
  assert.deepEqual(
    readHolidaysFile(path.join(ROOT, BERLIN)),
    holidays.map((h) => h.date),
    'the worker reads the same dates',
  );
  const years = [...new Set(holidays.map((h) => h.date.slice(0, 4)))];
  assert.deepEqual(years, ['2026', '2027', '2028']);
  for (const year of years) {
    const day = (name: string) => {
      const found = holidays.filter((h) => h.date.startsWith(year) && h.name === name);
      assert.equal(found.length, 1, `${year}: ${name}`);
      return DateTime.fromISO(found[0]!.date, { zone: 'Europe/Berlin' });
    };
    const fixed: Record<string, string> = {
      Neujahr: '01-01',
      'Internationaler Frauentag': '03-08',
      'Tag der Arbeit': '05-01',
      'Tag der Deutschen Einheit': '10-03',
      '1. Weihnachtstag': '12-25',
      '2. Weihnachtstag': '12-26',
    };
    for (const [name, date] of Object.entries(fixed)) assert.equal(day(name).toISODate(), `${year}-${date}`);
    // The movable ones keep their distance from Easter Sunday, and so their weekdays.
    const easter = day('Ostermontag').minus({ days: 1 });
    assert.equal(easter.weekday, 7, `${year}: Easter is a Sunday`);
    assert.equal(day('Karfreitag').toISODate(), easter.minus({ days: 2 }).toISODate());
    assert.equal(day('Christi Himmelfahrt').toISODate(), easter.plus({ days: 39 }).toISODate());
    assert.equal(day('Pfingstmontag').toISODate(), easter.plus({ days: 50 }).toISODate());
    assert.equal(holidays.filter((h) => h.date.startsWith(year)).length, 10);
  }
  // Easter Sunday itself, by the calendar: 5 April 2026, 28 March 2027, 16 April 2028.
  assert.deepEqual(
    holidays.filter((h) => h.name === 'Ostermontag').map((h) => h.date),
    ['2026-04-06', '2027-03-29', '2028-04-17'],
  );
});

test("docs/cases.md's business hours with the shipped holidays: closed on Christmas Day, open the Tuesday before", () => {
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
  const calendar = loadBusinessCalendars(entries).calendarFor(String(entry.id));
  const noon = (date: string) => DateTime.fromISO(`${date}T12:00`, { zone: 'Europe/Berlin' }).toJSDate();
  assert.equal(isOpen(noon('2026-12-22'), calendar), true);
  assert.equal(isOpen(noon('2026-12-25'), calendar), false, '1. Weihnachtstag');
  assert.equal(isOpen(noon('2027-03-26'), calendar), false, 'Karfreitag');
});
