/**
 * Public holidays from the holidays library (date-holidays): a mailbox's region closes its days in
 * any year, its holidays file adds the team's own days, and a region the library does not know
 * stops the start with the codes it does know. Most tests compute in this process with the real
 * library (computePublicHolidays) to stay fast; the worker's own path, a child process, is tested
 * at the end.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { DateTime } from 'luxon';
import { loadConfig } from '../../src/config';
import { loadBusinessCalendars, type HolidaySettings } from '../../src/business-time/business-calendars.file';
import { addBusinessTime, buildBusinessCalendar, isOpen } from '../../src/business-time/business-hours';
import { computePublicHolidays, type PublicHolidaysRequest } from '../../src/business-time/public-holidays.date-holidays';
import { computeInChildProcess } from '../../src/business-time/public-holidays';
import type { HolidayType } from '../../src/business-time/holiday-region';
import { ConfigError } from '../../src/platform/errors';
import type { MailboxEntry } from '../../src/mailboxes/mailbox-registry';

const H = 3_600_000;
const BERLIN = 'Europe/Berlin';
const OFFICE = { mon: '08:00-17:00', tue: '08:00-17:00', wed: '08:00-17:00', thu: '08:00-17:00', fri: '08:00-17:00' };
const berlin = (text: string) => DateTime.fromISO(text, { zone: BERLIN }).toJSDate();
const local = (d: Date) => DateTime.fromJSDate(d, { zone: BERLIN }).toFormat('ccc yyyy-LL-dd HH:mm');
/** Worker start in January 2029, so that 2029 and 2030 are the years computed at start. */
const START_2029 = () => new Date('2029-01-15T09:00:00Z');

function weekly() {
  const cal = buildBusinessCalendar({ timeZone: BERLIN, weekly: OFFICE }, (p) => assert.fail(p));
  return cal!.weekly;
}

function entry(id: string, hours: { holidaysRegion?: string; holidaysFile?: string } = {}): MailboxEntry {
  return { id, deadlines: { businessHours: { timeZone: BERLIN, weekly: weekly(), ...hours } } } as unknown as MailboxEntry;
}

/** The library's answers, counted: how often the worker had to compute. */
function counted() {
  const requests: PublicHolidaysRequest[] = [];
  const compute = (req: PublicHolidaysRequest) => {
    requests.push(req);
    return computePublicHolidays(req);
  };
  return { requests, compute };
}

function calendars(entries: MailboxEntry[], holidays?: HolidaySettings, compute = computePublicHolidays) {
  return loadBusinessCalendars(entries, { holidays, compute, now: START_2029 });
}

test("Berlin's library holidays in 2029 and 2030 move deadlines without any holidays file", () => {
  const cal = calendars([entry('support')]).calendarFor('support');
  // 8 March 2029 (Internationaler Frauentag) is a Thursday: a Wednesday-afternoon mail is due Friday.
  assert.equal(isOpen(berlin('2029-03-08T10:00'), cal), false);
  assert.equal(local(addBusinessTime(berlin('2029-03-07T13:00'), 8 * H, cal)), 'Fri 2029-03-09 12:00');
  // Easter 2030: Karfreitag 19 April and Ostermontag 22 April close the days around the weekend.
  assert.equal(local(addBusinessTime(berlin('2030-04-18T16:00'), 4 * H, cal)), 'Tue 2030-04-23 11:00');
  assert.equal(isOpen(berlin('2030-04-22T10:00'), cal), false, 'Ostermontag 2030');
  // 3 October (Tag der Deutschen Einheit): a Wednesday in 2029, a Thursday in 2030.
  assert.equal(local(addBusinessTime(berlin('2029-10-02T12:00'), 8 * H, cal)), 'Thu 2029-10-04 11:00');
  assert.equal(isOpen(berlin('2030-10-03T10:00'), cal), false);
  // Bank holidays are not public ones: 24 and 31 December stay working days by default.
  assert.equal(isOpen(berlin('2029-12-24T10:00'), cal), true);
  assert.equal(isOpen(berlin('2029-12-25T10:00'), cal), false);
});

test('a region without the holiday: Bavaria works on 8 March and closes on its own days', () => {
  const cals = calendars([entry('munich', { holidaysRegion: 'DE-BY' }), entry('berlin')]);
  const munich = cals.calendarFor('munich');
  assert.equal(isOpen(berlin('2029-03-08T10:00'), munich), true, 'no Frauentag in Bavaria');
  assert.equal(local(addBusinessTime(berlin('2029-03-07T13:00'), 8 * H, munich)), 'Thu 2029-03-08 12:00');
  assert.equal(isOpen(berlin('2029-05-31T10:00'), munich), false, 'Fronleichnam 2029');
  assert.equal(isOpen(berlin('2029-05-31T10:00'), cals.calendarFor('berlin')), true, 'no Fronleichnam in Berlin');
  // A country alone: the nationwide days only.
  const germany = calendars([entry('de', { holidaysRegion: 'DE' })]).calendarFor('de');
  assert.equal(isOpen(berlin('2029-03-08T10:00'), germany), true);
  assert.equal(isOpen(berlin('2029-10-03T10:00'), germany), false);
});

test("the holidays file's days are added to the region's; with region none only the file closes days, as before", () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'holidays-'));
  try {
    const file = path.join(dir, 'extra.txt');
    writeFileSync(file, '# our own days\n2029-12-24 Heiligabend\n2029-06-15 Betriebsausflug\n');
    const cals = calendars([entry('team', { holidaysFile: file }), entry('old', { holidaysFile: file, holidaysRegion: 'none' })]);
    const team = cals.calendarFor('team');
    assert.equal(isOpen(berlin('2029-12-24T10:00'), team), false, 'from the file');
    assert.equal(isOpen(berlin('2029-06-15T10:00'), team), false, 'from the file');
    assert.equal(isOpen(berlin('2029-12-25T10:00'), team), false, 'from the region');
    assert.equal(local(addBusinessTime(berlin('2029-12-21T16:00'), 2 * H, team)), 'Thu 2029-12-27 09:00');
    const old = cals.calendarFor('old');
    assert.equal(isOpen(berlin('2029-12-24T10:00'), old), false, 'from the file');
    assert.equal(isOpen(berlin('2029-12-25T10:00'), old), true, 'no region: Christmas is not in the file');
    // The installation's setting says the same for every mailbox that names no region.
    const none = calendars([entry('team', { holidaysFile: file })], { region: 'none', types: ['public'] }).calendarFor('team');
    assert.equal(isOpen(berlin('2029-12-25T10:00'), none), true);
    assert.equal(isOpen(berlin('2029-06-15T10:00'), none), false);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('BUSINESS_HOLIDAY_TYPES: bank holidays close a day only when listed; a half day never does', () => {
  // California's substitute for Veterans Day 2029 (a Sunday) is a bank holiday on Monday 12 November.
  const us = (types: HolidayType[]) => computePublicHolidays({ regions: ['US-CA'], types, from: 2029, to: 2029 }).days['US-CA']!;
  assert.equal(us(['public']).includes('2029-11-12'), false);
  assert.equal(us(['public', 'bank']).includes('2029-11-12'), true);
  // Germany's 24 and 31 December are bank holidays from 14:00: half days, so even with bank the
  // morning is worked and the day stays open (the holidays file closes them all day).
  const cal = calendars([entry('support')], { region: 'DE-BE', types: ['public', 'bank'] }).calendarFor('support');
  assert.equal(isOpen(berlin('2029-12-24T10:00'), cal), true);
  assert.equal(isOpen(berlin('2029-12-31T10:00'), cal), true);
  assert.equal(isOpen(berlin('2029-12-25T10:00'), cal), false);
});

test('a region the library does not know stops the start, naming the valid codes and the mailboxes', () => {
  assert.throws(
    () =>
      calendars([
        entry('a', { holidaysRegion: 'DE-XX' }),
        entry('b', { holidaysRegion: 'DE-XX' }),
        entry('c', { holidaysRegion: 'DE-BY-Q' }),
      ]),
    (err: unknown) => {
      assert.ok(err instanceof ConfigError);
      assert.match(
        err.message,
        /mailboxes "a", "b": businessHours\.holidaysRegion "DE-XX": Germany \(DE\) has no state "XX"; its states: DE-BB, DE-BE, .*DE-BY, .*DE-TH/,
      );
      assert.match(
        err.message,
        /mailbox "c": businessHours\.holidaysRegion "DE-BY-Q": Bayern \(DE-BY\) has no region "Q"; its regions: DE-BY-A/,
      );
      return true;
    },
  );
  assert.throws(
    () => calendars([entry('support')], { region: 'XY', types: ['public'] }),
    /mailbox "support": BUSINESS_HOLIDAYS_REGION "XY" is not a country of the holidays library; the countries: AD, AE, .*DE, .*US/,
  );
  // Mailboxes without business hours count no holidays: no region is checked or computed for them.
  const { requests, compute } = counted();
  loadBusinessCalendars([{ id: 'plain' } as MailboxEntry], { holidays: { region: 'XY', types: ['public'] }, compute });
  assert.equal(requests.length, 0);
});

test('the environment: a malformed region or an unknown holiday type is a configuration error; the defaults are DE-BE and public', () => {
  const base = { IMAP_USER: 'support@example.test', IMAP_PASSWORD: 'secret' };
  assert.deepEqual(loadConfig(base).businessHolidays, { region: 'DE-BE', types: ['public'] });
  assert.deepEqual(loadConfig({ ...base, BUSINESS_HOLIDAYS_REGION: ' us-ca ', BUSINESS_HOLIDAY_TYPES: 'public, bank' }).businessHolidays, {
    region: 'US-CA',
    types: ['public', 'bank'],
  });
  assert.equal(loadConfig({ ...base, BUSINESS_HOLIDAYS_REGION: 'None' }).businessHolidays.region, 'none');
  assert.throws(
    () => loadConfig({ ...base, BUSINESS_HOLIDAYS_REGION: 'Berlin', BUSINESS_HOLIDAY_TYPES: 'public,holiday' }),
    (err: unknown) =>
      err instanceof ConfigError &&
      err.message.includes(
        'BUSINESS_HOLIDAYS_REGION must be a country code, optionally with state and region ("DE", "DE-BE", "DE-BY-A", "US-CA"), or "none", got "Berlin"',
      ) &&
      err.message.includes(
        'BUSINESS_HOLIDAY_TYPES must list holiday types separated by "," (public, bank, school, optional, observance), got "public,holiday"',
      ),
  );
});

test('the years are computed once around the start, and a year outside them once when first asked', () => {
  const { requests, compute } = counted();
  const cals = calendars([entry('a'), entry('b', { holidaysRegion: 'DE-BY' }), entry('c')], undefined, compute);
  assert.equal(requests.length, 1, 'one computation for every region at start');
  assert.deepEqual(requests[0]!.regions, ['DE-BE', 'DE-BY']);
  const cal = cals.calendarFor('a');
  for (const day of ['2028-03-08', '2029-03-08', '2030-03-08', '2033-03-08']) assert.equal(isOpen(berlin(`${day}T10:00`), cal), false, day);
  assert.equal(requests.length, 1, 'last year to four years ahead were computed at start');
  // A worker that runs into 2034 (or plans that far) computes the next window then, once.
  assert.equal(isOpen(berlin('2034-03-08T10:00'), cal), false);
  assert.equal(isOpen(berlin('2035-10-03T10:00'), cals.calendarFor('b')), false);
  assert.equal(isOpen(berlin('2036-03-10T10:00'), cal), true);
  assert.equal(requests.length, 2);
  assert.deepEqual([requests[1]!.from, requests[1]!.to], [2032, 2038]);
});

test('a computation that fails stops the start, or later throws from the calendar (the deadline activity is retried); the computed years stay', () => {
  let fail = false;
  // A double of the computation that can be made to fail: a child process that cannot start.
  const failing = (req: PublicHolidaysRequest) => {
    if (fail) throw new Error('public holidays could not be computed in a child process: spawn ENOMEM');
    return computePublicHolidays(req);
  };
  // At start the failure stops the worker, like a bad holidays file.
  fail = true;
  assert.throws(() => calendars([entry('a')], undefined, failing), /could not be computed.*ENOMEM/);
  fail = false;
  const cal = calendars([entry('a')], undefined, failing).calendarFor('a');
  fail = true;
  assert.throws(() => isOpen(berlin('2040-03-08T10:00'), cal), /could not be computed.*ENOMEM/);
  assert.equal(isOpen(berlin('2029-03-08T10:00'), cal), false);
  fail = false;
  assert.equal(isOpen(berlin('2040-03-08T10:00'), cal), false);
});

test("the worker's path: a child process computes the days, and its failure is named", () => {
  const answer = computeInChildProcess({ regions: ['DE-BE', 'DE-ZZ'], types: ['public'], from: 2029, to: 2030 });
  assert.deepEqual(
    answer.days['DE-BE']!.filter((d) => d.startsWith('2030')),
    [
      '2030-01-01',
      '2030-03-08',
      '2030-04-19',
      '2030-04-22',
      '2030-05-01',
      '2030-05-30',
      '2030-06-10',
      '2030-10-03',
      '2030-12-25',
      '2030-12-26',
    ],
  );
  assert.match(answer.problems['DE-ZZ']!, /Germany \(DE\) has no state "ZZ"/);
  // A request the child cannot read ends it with an error: the message says so, with the child's last line.
  assert.throws(
    () => computeInChildProcess({ regions: 42 } as unknown as PublicHolidaysRequest),
    /public holidays could not be computed in a child process \(.*\): it ended with 1: .*(TypeError|not iterable)/,
  );
  // The loader uses the child by default.
  const cal = loadBusinessCalendars([entry('support')], { now: START_2029 }).calendarFor('support');
  assert.equal(isOpen(berlin('2029-03-08T10:00'), cal), false);
});

test('library days: several-day holidays close each day, half days close none', () => {
  const { days } = computePublicHolidays({ regions: ['AE', 'IS'], types: ['public'], from: 2029, to: 2029 });
  // Eid al-Fitr 2029 in the Emirates: three days.
  assert.ok(['2029-02-14', '2029-02-15', '2029-02-16'].every((d) => days.AE!.includes(d)));
  // Iceland's 24 December is a holiday from 13:00: the morning is worked, so the day stays open.
  assert.equal(days.IS!.includes('2029-12-24'), false);
  assert.equal(days.IS!.includes('2029-12-25'), true);
});
