import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { DateTime } from 'luxon';
import { loadBusinessCalendars, readHolidaysFile } from '../../src/business-time/business-calendars.file';
import {
  ALWAYS_OPEN,
  addBusinessTime,
  buildBusinessCalendar,
  businessTimeBetween,
  isOpen,
  nextOpening,
  type BusinessCalendar,
} from '../../src/business-time/business-hours';
import { ConfigError } from '../../src/platform/errors';
import { parseHolidays } from '../../src/business-time/holidays';
import type { MailboxEntry } from '../../src/mailboxes/mailbox-registry';

const H = 3_600_000;
const BERLIN = 'Europe/Berlin';

function calendar(weekly: Record<string, unknown>, holidays: string[] = [], timeZone = BERLIN): BusinessCalendar {
  const problems: string[] = [];
  const cal = buildBusinessCalendar({ timeZone, weekly, holidays }, (p) => problems.push(p));
  assert.deepEqual(problems, []);
  return cal!;
}

const OFFICE = { mon: '08:00-17:00', tue: '08:00-17:00', wed: '08:00-17:00', thu: '08:00-17:00', fri: '08:00-17:00' };
/** A wall-clock time in Berlin as a Date. */
const berlin = (text: string) => DateTime.fromISO(text, { zone: BERLIN }).toJSDate();
const local = (d: Date) => DateTime.fromJSDate(d, { zone: BERLIN }).toFormat('ccc yyyy-LL-dd HH:mm ZZ');

test('a mail on Friday evening reaches its 8 h target on Monday at 16:00, 4 h at noon', () => {
  const cal = calendar(OFFICE);
  const friday = berlin('2026-12-04T18:30');
  assert.equal(local(addBusinessTime(friday, 8 * H, cal)), 'Mon 2026-12-07 16:00 +01:00');
  assert.equal(local(addBusinessTime(friday, 4 * H, cal)), 'Mon 2026-12-07 12:00 +01:00');
  // Two hours left on Friday afternoon, the rest on Monday morning.
  assert.equal(local(addBusinessTime(berlin('2026-12-04T15:00'), 4 * H, cal)), 'Mon 2026-12-07 10:00 +01:00');
  // A target reached exactly at closing time is due at closing time.
  assert.equal(local(addBusinessTime(berlin('2026-12-04T09:00'), 8 * H, cal)), 'Fri 2026-12-04 17:00 +01:00');
  assert.equal(businessTimeBetween(friday, berlin('2026-12-07T16:00'), cal), 8 * H);
  assert.equal(businessTimeBetween(berlin('2026-12-07T16:00'), friday, cal), 0);
});

test('across a weekend and holidays: Christmas Eve afternoon to the Tuesday after', () => {
  // 25 Dec is a Friday in 2026; the Monday after is closed too in this file.
  const cal = calendar(OFFICE, ['2026-12-25', '2026-12-28']);
  const start = berlin('2026-12-24T16:00');
  assert.equal(local(addBusinessTime(start, 4 * H, cal)), 'Tue 2026-12-29 11:00 +01:00');
  assert.equal(local(nextOpening(berlin('2026-12-24T17:00'), cal)), 'Tue 2026-12-29 08:00 +01:00');
  assert.equal(isOpen(berlin('2026-12-25T10:00'), cal), false);
  assert.equal(isOpen(berlin('2026-12-29T10:00'), cal), true);
  assert.equal(businessTimeBetween(start, berlin('2026-12-29T11:00'), cal), 4 * H);
});

test('DST in Europe/Berlin: the offset after the change is right, and a short or long night counts real hours', () => {
  const cal = calendar(OFFICE);
  // Friday before the spring change (CET) to Monday after it (CEST).
  const due = addBusinessTime(berlin('2026-03-27T16:00'), 2 * H, cal);
  assert.equal(local(due), 'Mon 2026-03-30 09:00 +02:00');
  assert.equal(due.toISOString(), '2026-03-30T07:00:00.000Z');
  // Autumn: Friday CEST to Monday CET.
  assert.equal(addBusinessTime(berlin('2026-10-23T16:00'), 2 * H, cal).toISOString(), '2026-10-26T08:00:00.000Z');
  // Open at night on the Sundays of the change: 00:00-04:00 is 3 real hours in March, 5 in October.
  const night = calendar({ sun: '00:00-04:00' });
  assert.equal(businessTimeBetween(berlin('2026-03-29T00:00'), berlin('2026-03-29T12:00'), night), 3 * H);
  assert.equal(businessTimeBetween(berlin('2026-10-25T00:00'), berlin('2026-10-25T12:00'), night), 5 * H);
  // Around the clock in Berlin: 24 h of business time are 24 real hours across the change.
  const always = calendar(Object.fromEntries(['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'].map((d) => [d, '00:00-24:00'])));
  const sat = berlin('2026-03-28T12:00');
  assert.equal(addBusinessTime(sat, 24 * H, always).getTime() - sat.getTime(), 24 * H);
  assert.equal(local(addBusinessTime(sat, 24 * H, always)), 'Sun 2026-03-29 13:00 +02:00');
});

test('closed days, several ranges a day, and the 24x7 UTC default', () => {
  const cal = calendar({ mon: '08:00-12:00, 13:00-17:00', wed: ['09:00-11:00'], sat: 'closed', sun: null });
  assert.equal(local(addBusinessTime(berlin('2026-12-07T11:00'), 2 * H, cal)), 'Mon 2026-12-07 14:00 +01:00');
  assert.equal(isOpen(berlin('2026-12-07T12:30'), cal), false);
  assert.equal(local(nextOpening(berlin('2026-12-07T12:30'), cal)), 'Mon 2026-12-07 13:00 +01:00');
  // Monday evening: Tuesday is closed, Wednesday has two hours, then next Monday.
  assert.equal(local(addBusinessTime(berlin('2026-12-07T18:00'), 3 * H, cal)), 'Mon 2026-12-14 09:00 +01:00');
  assert.equal(isOpen(berlin('2026-12-07T08:00'), cal), true);
  assert.equal(isOpen(berlin('2026-12-07T17:00'), cal), false);
  const t = new Date('2026-12-05T23:30:00Z');
  assert.equal(addBusinessTime(t, 8 * H, ALWAYS_OPEN).toISOString(), '2026-12-06T07:30:00.000Z');
  assert.equal(businessTimeBetween(t, new Date('2026-12-08T23:30:00Z'), ALWAYS_OPEN), 72 * H);
  assert.equal(nextOpening(t, ALWAYS_OPEN).getTime(), t.getTime());
  assert.equal(isOpen(t, ALWAYS_OPEN), true);
});

test('bad calendars are refused with every problem named', () => {
  const problems: string[] = [];
  const cal = buildBusinessCalendar(
    {
      timeZone: 'Mars/Olympus_Mons',
      weekly: {
        mon: '08:00-25:00',
        tue: '17:00-08:00',
        wed: '08:00-12:00, 11:00-14:00',
        thu: 8,
        monday: '08:00-17:00',
        fri: '8-17',
        sat: '24:00-24:00',
      },
    },
    (p) => problems.push(p),
  );
  assert.equal(cal, null);
  const all = problems.join('\n');
  for (const want of [
    /timeZone must be an IANA time zone like "Europe\/Berlin", got "Mars\/Olympus_Mons"/,
    /weekly\.mon "08:00-25:00" is not a range like "08:00-17:00"/,
    /weekly\.tue "17:00-08:00" ends before it starts; a range across midnight is two ranges/,
    /weekly\.wed ranges overlap: 08:00-12:00 and 11:00-14:00/,
    /weekly\.thu must be "HH:MM-HH:MM"/,
    /weekly: "monday" is not a weekday \(mon, tue, wed, thu, fri, sat, sun\)/,
    /weekly\.fri "8-17" is not a range/,
    /weekly\.sat "24:00-24:00" is not a range/,
  ])
    assert.match(all, want);
  const closed: string[] = [];
  assert.equal(
    buildBusinessCalendar({ timeZone: 'UTC', weekly: { mon: 'closed' } }, (p) => closed.push(p)),
    null,
  );
  assert.deepEqual(closed, ['weekly has no open hour on any day']);
  const notMap: string[] = [];
  buildBusinessCalendar({ timeZone: 'UTC', weekly: ['08:00-17:00'] }, (p) => notMap.push(p));
  assert.match(notMap.join(), /weekly must map weekdays/);
});

test('a calendar that only a year of holidays closes gives up with a clear error instead of looping', () => {
  const days: string[] = [];
  for (let d = DateTime.fromISO('2026-01-01'); d.year < 2030; d = d.plus({ days: 1 })) days.push(d.toISODate()!);
  const cal = calendar({ mon: '08:00-17:00' }, days);
  assert.throws(() => addBusinessTime(berlin('2026-01-01T00:00'), H, cal), /no open hour within \d+ days/);
});

test('holidays: lines with names and comments, or a YAML list; bad dates named by line', () => {
  const lines =
    '\uFEFF# Feiertage Berlin\r\n2026-12-25 1. Weihnachtstag\r\n\r\n2026-12-26   2. Weihnachtstag  # Samstag\r\n2026-12-25 duplicate\n2027-01-01\n';
  assert.deepEqual(parseHolidays(lines, 'h.txt'), [
    { date: '2026-12-25', name: '1. Weihnachtstag' },
    { date: '2026-12-26', name: '2. Weihnachtstag' },
    { date: '2027-01-01', name: '' },
  ]);
  const yaml = '# YAML\n- 2026-12-25\n- { date: 2026-12-26, name: Boxing Day }\n- date: "2027-01-01"\n  name: New Year\n';
  assert.deepEqual(
    parseHolidays(yaml, 'h.yml').map((h) => h.date),
    ['2026-12-25', '2026-12-26', '2027-01-01'],
  );
  assert.throws(
    () => parseHolidays('2026-12-25\n2026-02-30 nope\n25.12.2026\n1900-01-01\n', 'h.txt'),
    (err: unknown) =>
      err instanceof ConfigError &&
      /^h\.txt: line 2: "2026-02-30" is not a date of the calendar; line 3: "25\.12\.2026" is not a date \(YYYY-MM-DD\); line 4: "1900-01-01" is outside the years 1970 to 2200$/.test(
        err.message,
      ),
  );
  assert.throws(
    () => parseHolidays('- 2026-12-25\n- 20261226\n- { date: 2026-12-27, when: x }\n', 'h.yml'),
    (err: unknown) => {
      const m = (err as Error).message;
      return (
        /line 2: expected a date YYYY-MM-DD or \{ date, name \}, got 20261226/.test(m) &&
        /line 3: when is not a known field \(known: date, name\)/.test(m)
      );
    },
  );
  assert.throws(() => parseHolidays('- 2026-12-25\n- [unclosed\n', 'h.yml'), /h\.yml: line \d+: not valid YAML/);
});

test('hostile holidays files: binary, huge, endless garbage, aliases, long lines — refused with a short clear message', () => {
  assert.throws(() => parseHolidays('2026-12-25\n\u0000\u0001PK\u0003\u0004', 'bin'), /bin: contains control characters; not a text file/);
  assert.throws(() => parseHolidays('2026-12-25\n'.repeat(30_000), 'big'), /big: larger than 262144 bytes/);
  const garbage = Array.from({ length: 500 }, (_, i) => `garbage-${i}`).join('\n');
  const err = (() => {
    try {
      parseHolidays(garbage, 'g');
    } catch (e) {
      return e as Error;
    }
    return null;
  })();
  assert.ok(err instanceof ConfigError);
  assert.match(err.message, /line 1: "garbage-0" is not a date/);
  assert.match(err.message, /… and 480 more$/);
  assert.ok(err.message.length < 2_000, 'the message stays readable');
  assert.throws(() => parseHolidays('- &a 2026-12-25\n- *a\n', 'alias'), /alias: line 2: expected a date/);
  assert.throws(
    () => parseHolidays(`${'9'.repeat(5_000)}\n`, 'long'),
    (e: unknown) => (e as Error).message.length < 300,
  );
  assert.throws(() => parseHolidays('- !!js/function "x"\n', 'tag'), /tag: line 1/);
});

test('the worker reads each mailbox holidays file once at start; every bad file is named with its mailbox', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'holidays-'));
  try {
    writeFileSync(path.join(dir, 'de.txt'), '2026-12-25 Weihnachten\n');
    writeFileSync(path.join(dir, 'bad.txt'), '2026-12-25\n2026-13-01\n');
    writeFileSync(path.join(dir, 'huge.txt'), Buffer.alloc(300_000, 0x41));
    mkdirSync(path.join(dir, 'folder'));
    const entry = (id: string, file?: string) =>
      ({
        id,
        deadlines: {
          businessHours: { timeZone: BERLIN, weekly: calendar(OFFICE).weekly, ...(file ? { holidaysFile: path.join(dir, file) } : {}) },
        },
      }) as unknown as MailboxEntry;
    // Without a region only the files close days (their own test: test/unit/public-holidays.test.ts).
    const filesOnly = { holidays: { region: 'none', types: ['public' as const] } };
    const good = loadBusinessCalendars([entry('support', 'de.txt'), entry('plain'), { id: 'none' } as MailboxEntry], filesOnly);
    assert.equal(isOpen(berlin('2026-12-25T10:00'), good.calendarFor('support')), false);
    assert.equal(isOpen(berlin('2026-12-25T10:00'), good.calendarFor('plain')), true);
    assert.equal(good.calendarFor('none'), ALWAYS_OPEN);
    assert.equal(good.calendarFor('unknown'), ALWAYS_OPEN);
    assert.throws(
      () =>
        loadBusinessCalendars([entry('a', 'bad.txt'), entry('b', 'missing.txt'), entry('c', 'huge.txt'), entry('d', 'folder')], filesOnly),
      (err: unknown) => {
        const m = (err as Error).message;
        return (
          err instanceof ConfigError &&
          /mailbox "a": .*bad\.txt: line 2: "2026-13-01" is not a date/.test(m) &&
          /mailbox "b": holidays file .*missing\.txt cannot be read/.test(m) &&
          /mailbox "c": .*larger than 262144 bytes/.test(m) &&
          /mailbox "d": .*not a regular file/.test(m)
        );
      },
    );
    assert.deepEqual(readHolidaysFile(path.join(dir, 'de.txt')), ['2026-12-25']);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
