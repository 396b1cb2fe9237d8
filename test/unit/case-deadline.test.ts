import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DateTime } from 'luxon';
import { ALWAYS_OPEN, buildBusinessCalendar } from '../../src/business-time/business-hours';
import {
  DEFAULT_RESPONSE_TARGETS,
  DEFAULT_REMINDER_BEFORE,
  formatDuration,
  parseBusinessDuration,
  planDeadline,
  raisedPriority,
} from '../../src/business-time/case-deadline';
import { ConfigError } from '../../src/platform/errors';
import { parseMailboxRegistry, type MailboxDefaults } from '../../src/mailboxes/mailbox-registry';

const H = 3_600_000;
const berlin = (text: string) => DateTime.fromISO(text, { zone: 'Europe/Berlin' }).toJSDate();
const local = (d: Date | null) => (d ? DateTime.fromJSDate(d, { zone: 'Europe/Berlin' }).toFormat('ccc HH:mm') : null);
const office = buildBusinessCalendar(
  {
    timeZone: 'Europe/Berlin',
    weekly: { mon: '08:00-17:00', tue: '08:00-17:00', wed: '08:00-17:00', thu: '08:00-17:00', fri: '08:00-17:00' },
  },
  () => assert.fail('valid'),
)!;

test('the deadline is the priority target in business time from the oldest unanswered mail; the reminder at 25 % left', () => {
  const base = { calendar: office, targets: DEFAULT_RESPONSE_TARGETS, reminderBefore: DEFAULT_REMINDER_BEFORE };
  const friday = berlin('2026-12-04T18:30');
  const normal = planDeadline({ ...base, waitingSince: friday, priority: 'normal', now: friday });
  assert.equal(local(normal.dueAt), 'Mon 16:00');
  assert.equal(local(normal.remindAt), 'Mon 14:00');
  const critical = planDeadline({ ...base, waitingSince: friday, priority: 'critical', now: friday });
  assert.equal(local(critical.dueAt), 'Mon 09:00');
  assert.equal(local(critical.remindAt), 'Mon 08:45');
  const low = planDeadline({ ...base, waitingSince: friday, priority: 'low', now: friday });
  assert.equal(DateTime.fromJSDate(low.dueAt, { zone: 'Europe/Berlin' }).toFormat('ccc HH:mm'), 'Wed 14:00'); // 9 h a day: Mon 9, Tue 9, Wed 6
  // A fixed reminder time instead of a share.
  const fixed = planDeadline({ ...base, reminderBefore: { ms: 30 * 60_000 }, waitingSince: friday, priority: 'high', now: friday });
  assert.equal(local(fixed.remindAt), 'Mon 11:30');
});

test('planned late: a reminder in the past comes now, and none once the due time has passed', () => {
  const since = new Date('2026-12-01T08:00:00Z');
  const base = { calendar: ALWAYS_OPEN, targets: DEFAULT_RESPONSE_TARGETS, reminderBefore: DEFAULT_REMINDER_BEFORE, waitingSince: since };
  const late = planDeadline({ ...base, priority: 'normal', now: new Date('2026-12-01T15:00:00Z') });
  assert.equal(late.dueAt.toISOString(), '2026-12-01T16:00:00.000Z');
  assert.equal(late.remindAt?.toISOString(), '2026-12-01T15:00:00.000Z');
  const over = planDeadline({ ...base, priority: 'normal', now: new Date('2026-12-02T00:00:00Z') });
  assert.equal(over.remindAt, null);
  // Without business hours the clock is the wall clock.
  assert.equal(planDeadline({ ...base, priority: 'critical', now: since }).dueAt.getTime() - since.getTime(), H);
});

test('the reminder raises the priority one step: low → normal → high → critical, critical stays', () => {
  assert.deepEqual((['low', 'normal', 'high', 'critical'] as const).map(raisedPriority), ['normal', 'high', 'critical', 'critical']);
});

test('durations of business time: hours and minutes, never days', () => {
  assert.equal(parseBusinessDuration('4h'), 4 * H);
  assert.equal(parseBusinessDuration('1h30m'), 90 * 60_000);
  assert.equal(parseBusinessDuration('45m'), 45 * 60_000);
  assert.equal(parseBusinessDuration(90), 90 * 60_000);
  for (const bad of ['1d', '', '0h', '-1h', 'h', '4 hours', 1.5, null, {}]) assert.equal(parseBusinessDuration(bad), null, String(bad));
  assert.equal(formatDuration(90 * 60_000), '1h30m');
  assert.equal(formatDuration(8 * H), '8h');
});

const defaults: MailboxDefaults = {
  imap: { host: 'imap.example.test', port: 993, tls: true, sentFolder: 'Sent', pollIntervalSeconds: 60 },
  smtp: { host: 'smtp.example.test', port: 587, tls: false, timeoutMs: 60_000 },
  language: 'de',
};
const entry = (extra: string) => `
version: 1
mailboxes:
  - id: support
    imap: { user: support@example.test, password: { env: P } }
    smtp: { from: support@example.test }
${extra}`;

test('registry: business hours, targets, reminder and escalation per mailbox; without them the defaults', () => {
  const [plain] = parseMailboxRegistry(entry(''), defaults);
  assert.equal(plain!.deadlines, undefined);
  const [m] = parseMailboxRegistry(
    entry(`    businessHours:
      timeZone: Europe/Berlin
      weekly: { mon: "08:00-17:00", tue: "08:00-12:00, 13:00-17:00", sat: closed }
      holidaysFile: holidays/de-be.txt
      holidaysRegion: de-by
    responseTargets: { critical: 30m, high: 2h }
    reminderBefore: 20m
    escalation: { email: teamlead@example.test, webhook: "https://hooks.example.test/case?x=1" }`),
    defaults,
  );
  const d = m!.deadlines!;
  assert.equal(d.businessHours?.timeZone, 'Europe/Berlin');
  assert.deepEqual(d.businessHours?.weekly.tue, [
    { start: 480, end: 720 },
    { start: 780, end: 1020 },
  ]);
  assert.deepEqual(d.businessHours?.weekly.sat, []);
  assert.ok(d.businessHours?.holidaysFile?.endsWith('/holidays/de-be.txt') && d.businessHours.holidaysFile.startsWith('/'));
  assert.equal(d.businessHours?.holidaysRegion, 'DE-BY', "the code in the library's upper case");
  assert.deepEqual(d.responseTargets, { critical: 30 * 60_000, high: 2 * H, normal: 8 * H, low: 24 * H });
  assert.deepEqual(d.reminderBefore, { ms: 20 * 60_000 });
  assert.deepEqual(d.escalation, { email: 'teamlead@example.test', webhook: 'https://hooks.example.test/case?x=1' });
  const [p] = parseMailboxRegistry(entry('    reminderBefore: "10%"\n    escalation: { webhook: "http://127.0.0.1:8080/x" }'), defaults);
  assert.deepEqual(p!.deadlines!.reminderBefore, { percent: 10 });
  assert.equal(p!.deadlines!.businessHours, undefined);
});

test('registry: every deadline problem of an entry is listed at once', () => {
  const bad = entry(`    businessHours:
      timeZone: Berlin/Europe
      weekly: { mon: "17:00-08:00", funday: "08:00-09:00" }
      holidaysFile: 42
      holidaysRegion: Berlin
      colour: blue
    responseTargets: { critical: 5h, urgent: 1h, low: 2d, normal: "8 hours" }
    reminderBefore: 100%
    escalation: { email: "not an address", webhook: "http://hooks.example.test/x", pager: 1 }`);
  assert.throws(
    () => parseMailboxRegistry(bad, defaults),
    (err: unknown) => {
      assert.ok(err instanceof ConfigError);
      for (const want of [
        'mailboxes[0].businessHours.colour is not a known field (known: timeZone, weekly, holidaysFile, holidaysRegion)',
        'mailboxes[0].businessHours.holidaysRegion must be a country code, optionally with state and region ("DE", "DE-BE", "DE-BY-A", "US-CA"), or "none", got "Berlin"',
        'mailboxes[0].businessHours.timeZone must be an IANA time zone like "Europe/Berlin", got "Berlin/Europe"',
        'mailboxes[0].businessHours.weekly.mon "17:00-08:00" ends before it starts',
        'mailboxes[0].businessHours.weekly: "funday" is not a weekday',
        'mailboxes[0].businessHours.holidaysFile must be a file path, got 42',
        'mailboxes[0].responseTargets: "urgent" is not a priority (critical, high, normal, low)',
        'mailboxes[0].responseTargets.low must be business time like "30m", "4h" or "1h30m" (at most 2000h), got "2d"',
        'mailboxes[0].responseTargets.normal must be business time',
        'mailboxes[0].responseTargets.critical (5h) must not be longer than high (4h)',
        'mailboxes[0].reminderBefore must be a share of the target like "25%" (1 to 99) or business time like "1h", got "100%"',
        'mailboxes[0].escalation.pager is not a known field (known: email, webhook, webhookSecret)',
        'mailboxes[0].escalation.email must be one email address, got "not an address"',
        'mailboxes[0].escalation.webhook must be an https URL without user:password (http only to 127.0.0.1 or localhost), got "http://hooks.example.test/x"',
      ])
        assert.ok(err.message.includes(want), `missing: ${want}\nin: ${err.message}`);
      return true;
    },
  );
  assert.throws(
    () => parseMailboxRegistry(entry('    reminderBefore: 2h\n    responseTargets: { critical: 1h }'), defaults),
    /reminderBefore \(2h\) must be shorter than the shortest response target \(1h\)/,
  );
  assert.throws(
    () => parseMailboxRegistry(entry('    escalation: { webhook: "https://user:secret@hooks.example.test/" }'), defaults),
    /escalation\.webhook must be an https URL without user:password/,
  );
});

test('registry: the webhook signing secret is a reference, never the secret, and only with a webhook', () => {
  const [signed] = parseMailboxRegistry(
    entry('    escalation: { webhook: "https://hooks.example.test/x", webhookSecret: { env: SUPPORT_WEBHOOK_SECRET } }'),
    defaults,
  );
  assert.deepEqual(signed?.deadlines?.escalation, {
    webhook: 'https://hooks.example.test/x',
    webhookSecret: { env: 'SUPPORT_WEBHOOK_SECRET' },
  });
  for (const [yaml, want] of [
    [
      '{ webhook: "https://hooks.example.test/x", webhookSecret: "hunter2" }',
      /webhookSecret must reference the secret \(\{ env: VARIABLE \} or \{ file: path \}\), not contain it/,
    ],
    [
      '{ webhook: "https://hooks.example.test/x", webhookSecret: { env: "lower case" } }',
      /webhookSecret must be \{ env: VARIABLE \} or \{ file: path \}/,
    ],
    ['{ email: lead@example.test, webhookSecret: { env: SECRET } }', /webhookSecret signs the webhook: set \.escalation\.webhook too/],
  ] as const) {
    assert.throws(
      () => parseMailboxRegistry(entry(`    escalation: ${yaml}`), defaults),
      (err: unknown) => err instanceof ConfigError && want.test(err.message) && !err.message.includes('hunter2'),
      yaml,
    );
  }
  assert.throws(
    () => parseMailboxRegistry(entry('    businessHours: "08:00-17:00"'), defaults),
    /businessHours must be \{ timeZone, weekly, holidaysFile, holidaysRegion \}/,
  );
});
