/**
 * The deadline activities of a case against real MariaDB (case rows written in SQL), the real SMTP
 * listener for the escalation mail and a local HTTP server for the webhook.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { MockActivityEnvironment } from '@temporalio/testing';
import { DateTime } from 'luxon';
import { createCaseDeadlineActivities, escalationKey } from '../../src/cases/case-deadline.activities';
import { loadBusinessCalendars } from '../../src/business-time/business-calendars.file';
import { createEscalationMailNotifier } from '../../src/cases/escalation.smtp';
import { createWebhookNotifier } from '../../src/cases/escalation.webhook';
import { createMailboxDirectory } from '../../src/mailboxes/mailbox-directory';
import { createMariaDbAuditLog } from '../../src/platform/audit-log.mariadb';
import { createMariaDbCaseClock } from '../../src/cases/case-clock.mariadb';
import type { Pool } from '../../src/platform/pool.mariadb';
import { FAILURE_TYPES } from '../../src/platform/contract';
import { TransientError } from '../../src/platform/errors';
import { parseMailboxRegistry } from '../../src/mailboxes/mailbox-registry';
import type { MailboxDirectory } from '../../src/mailboxes/mailbox-directory.port';
import { createTestDatabase } from '../support/database';
import { startSmtpSink, type SmtpSink } from '../support/services/smtp-sink';

const berlin = (text: string) => DateTime.fromISO(text, { zone: 'Europe/Berlin' }).toJSDate();

interface Hook {
  headers: IncomingHttpHeaders;
  body: Record<string, unknown>;
  status: number;
}

let db: { pool: Pool; drop(): Promise<void> };
let sink: SmtpSink;
let hookServer: Server;
let hookUrl = '';
const hooks: Hook[] = [];
/** The webhook's next answers (status codes); 200 when empty, 0: never answer. */
const hookAnswers: number[] = [];
let directory: MailboxDirectory;
let clock = new Date();

function registry(smtpPort: number, webhook: string) {
  return `
version: 1
mailboxes:
  - id: support
    language: en
    imap: { host: 127.0.0.1, user: support@example.test, password: { env: UNUSED } }
    smtp: { host: 127.0.0.1, port: ${smtpPort}, tls: false, from: 'Support <support@example.test>' }
    businessHours:
      timeZone: Europe/Berlin
      weekly: { mon: "08:00-17:00", tue: "08:00-17:00", wed: "08:00-17:00", thu: "08:00-17:00", fri: "08:00-17:00" }
    escalation: { email: lead@example.test, webhook: "${webhook}" }
  - id: quiet
    imap: { host: 127.0.0.1, user: quiet@example.test, password: { env: UNUSED } }
    smtp: { host: 127.0.0.1, port: ${smtpPort}, tls: false, from: quiet@example.test }
`;
}

function activities(opts: { webhookTimeoutMs?: number } = {}) {
  return createCaseDeadlineActivities({
    audit: createMariaDbAuditLog(db.pool),
    mailboxes: directory,
    caseDeadlines: {
      clock: createMariaDbCaseClock(db.pool),
      calendars: loadBusinessCalendars(directory.list()),
      notifiers: {
        email: createEscalationMailNotifier(directory),
        webhook: createWebhookNotifier({ timeoutMs: opts.webhookTimeoutMs ?? 5_000 }),
      },
      now: () => clock,
    },
  });
}

function run<A extends unknown[], R>(caseId: string, fn: (...a: A) => Promise<R>, attempt: number, ...args: A): Promise<R> {
  const env = new MockActivityEnvironment({
    workflowExecution: { workflowId: `case-${caseId}`, runId: randomUUID() },
    activityId: '1',
    attempt,
  });
  return env.run(fn, ...args);
}

async function insertCase(opts: { mailbox?: string; priority?: string; status?: string; waitingSince: Date | null }): Promise<string> {
  const id = `c-${randomUUID().slice(0, 8)}`;
  await db.pool.query(
    `INSERT INTO cases (id, account, mailbox_id, correspondent, subject, status, priority, waiting_since, email_count)
     VALUES (?, 'support@example.test', ?, 'kunde@example.org', 'Rechnung fehlt <script>', ?, ?, ?, 3)`,
    [id, opts.mailbox ?? 'support', opts.status ?? 'open', opts.priority ?? 'normal', opts.waitingSince],
  );
  // An answered older mail, then the two the customer waits on: the older of those is the case's waiting mail.
  for (const [n, status, at] of [
    [1, 'sent', '2026-12-01T09:00:00Z'],
    [2, 'awaiting_approval', '2026-12-04T17:30:00Z'],
    [3, 'awaiting_approval', '2026-12-04T18:00:00Z'],
  ] as const) {
    await db.pool.query(`INSERT INTO emails (id, source, status, case_id, mailbox_id, created_at) VALUES (?, 'file', ?, ?, ?, ?)`, [
      `${id}-e${n}`,
      status,
      id,
      opts.mailbox ?? 'support',
      new Date(at),
    ]);
  }
  return id;
}

const caseRow = async (id: string) =>
  ((await db.pool.query('SELECT * FROM cases WHERE id = ?', [id])) as Array<Record<string, unknown>>)[0]!;
const events = async (id: string) =>
  (await db.pool.query('SELECT event_type, email_id, message, details FROM case_events WHERE case_id = ? ORDER BY id', [id])) as Array<{
    event_type: string;
    email_id: string | null;
    message: string;
    details: unknown;
  }>;
const audits = async (id: string) =>
  (await db.pool.query(`SELECT event_type, email_id, error_class, message FROM audit_log WHERE correlation_id = ? ORDER BY id`, [
    `case-${id}`,
  ])) as Array<{ event_type: string; email_id: string | null; error_class: string | null; message: string }>;

before(async () => {
  db = await createTestDatabase('deadlines');
  sink = await startSmtpSink();
  hookServer = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', () => {
      const status = hookAnswers.shift() ?? 200;
      hooks.push({ headers: req.headers, body: JSON.parse(body) as Record<string, unknown>, status });
      if (status === 0) return; // never answers: the client's timeout ends it
      res.writeHead(status, { 'content-type': 'text/plain' }).end(status >= 300 ? 'database on fire\n' : 'ok');
    });
  });
  await new Promise<void>((resolve) => hookServer.listen(0, '127.0.0.1', resolve));
  hookUrl = `http://127.0.0.1:${(hookServer.address() as AddressInfo).port}/hooks/escalate?token=s3cret`;
  directory = createMailboxDirectory(
    parseMailboxRegistry(registry(sink.port, hookUrl), {
      imap: { host: '127.0.0.1', port: 143, tls: false, sentFolder: 'Sent', pollIntervalSeconds: 60 },
      smtp: { host: '127.0.0.1', port: 25, tls: false, timeoutMs: 10_000 },
      language: 'de',
    }),
    { readSecret: () => 'unused' },
  );
});

after(async () => {
  await directory?.close();
  hookServer?.closeAllConnections();
  await new Promise((resolve) => hookServer?.close(resolve));
  await sink?.stop();
  await db?.drop();
});

test('the case clock reads what is due from the rows: plan, then the reminder, then the breach; its next wake is lowered only by an earlier time', async () => {
  // First in this file: the only case in the database, so the clock's next time is this case's.
  const c = createMariaDbCaseClock(db.pool);
  const ours = async (at: Date) => (await c.due(at, 14, 50)).filter((d) => d.caseId === id).map((d) => d.kind);
  const id = await insertCase({ waitingSince: berlin('2026-12-04T18:00') });
  clock = berlin('2026-12-04T18:05');
  assert.deepEqual(await ours(clock), ['plan'], 'a running case without a deadline is planned first');
  await run(id, activities().planCaseDeadline, 1, { caseId: id });
  // Friday after hours: 8 business hours from Monday 08:00; the reminder 2 h before.
  assert.deepEqual(await ours(clock), []);
  assert.deepEqual(await c.nextDue(clock, 14), berlin('2026-12-07T14:00'));
  assert.deepEqual(await ours(berlin('2026-12-07T14:00')), ['remind']);
  assert.deepEqual(await ours(berlin('2026-12-07T16:00')), ['remind', 'breach'], 'both due when the clock was away for both');
  clock = berlin('2026-12-07T14:00');
  await run(id, activities().remindCase, 1, { caseId: id, dueAt: berlin('2026-12-07T16:00').toISOString() });
  assert.deepEqual(await ours(clock), [], 'the reminder raised the priority without moving the deadline');
  assert.deepEqual(await c.nextDue(clock, 14), berlin('2026-12-07T16:00'));

  // The clock's own record of its next wake: a later plan leaves it, an earlier one lowers it once.
  await c.setNextWake(berlin('2026-12-07T16:00'));
  assert.equal(await c.lowerNextWake(berlin('2026-12-08T09:00')), false);
  assert.equal(await c.lowerNextWake(berlin('2026-12-07T15:00')), true);
  assert.equal(await c.lowerNextWake(berlin('2026-12-07T15:00')), false, 'the same time again: already that early');
  await c.setNextWake(null);
  assert.equal(await c.lowerNextWake(berlin('2026-12-09T09:00')), true, 'a clock with nothing planned is woken by any time');
});

test('plan: Friday evening to Monday 16:00 in business time; idempotent; a new priority re-plans; paused and closed', async () => {
  const a = activities();
  const id = await insertCase({ waitingSince: berlin('2026-12-04T18:30') });
  clock = berlin('2026-12-04T18:31');
  const first = await run(id, a.planCaseDeadline, 1, { caseId: id });
  assert.deepEqual(first, {
    state: 'running',
    dueAt: berlin('2026-12-07T16:00').toISOString(),
    remindAt: berlin('2026-12-07T14:00').toISOString(),
    reminded: false,
    breached: false,
    priority: 'normal',
  });
  clock = berlin('2026-12-05T10:00');
  assert.deepEqual(await run(id, a.planCaseDeadline, 2, { caseId: id }), first, 'a repeated plan returns what is stored');
  assert.deepEqual(
    (await events(id)).map((e) => [e.event_type, e.email_id]),
    [['case_deadline_set', `${id}-e2`]],
  );
  await db.pool.query(`UPDATE cases SET priority = 'critical' WHERE id = ?`, [id]);
  const critical = await run(id, a.planCaseDeadline, 1, { caseId: id });
  assert.equal(critical.dueAt, berlin('2026-12-07T09:00').toISOString());
  assert.equal((await caseRow(id)).deadline_priority, 'critical');

  await db.pool.query(`UPDATE cases SET status = 'waiting_for_customer' WHERE id = ?`, [id]);
  const paused = await run(id, a.planCaseDeadline, 1, { caseId: id });
  assert.equal(paused.state, 'paused');
  assert.equal(paused.dueAt, null);
  assert.equal((await caseRow(id)).due_at, null);
  // Resumed with the same unanswered mail: the same wait, planned again.
  await db.pool.query(`UPDATE cases SET status = 'open' WHERE id = ?`, [id]);
  assert.equal((await run(id, a.planCaseDeadline, 1, { caseId: id })).dueAt, critical.dueAt);
  await db.pool.query(`UPDATE cases SET waiting_since = NULL WHERE id = ?`, [id]);
  assert.equal((await run(id, a.planCaseDeadline, 1, { caseId: id })).state, 'paused', 'nothing unanswered: paused');
  await db.pool.query(`UPDATE cases SET status = 'closed' WHERE id = ?`, [id]);
  assert.equal((await run(id, a.planCaseDeadline, 1, { caseId: id })).state, 'closed');
  assert.equal((await run('no-such-case', a.planCaseDeadline, 1, { caseId: 'no-such-case' })).state, 'closed');
});

test('remind: only for the due time the case still has; raises the priority once, history and audit on the waiting mail', async () => {
  const a = activities();
  const id = await insertCase({ waitingSince: berlin('2026-12-04T18:30'), priority: 'low' });
  clock = berlin('2026-12-04T18:31');
  const plan = await run(id, a.planCaseDeadline, 1, { caseId: id });
  clock = new Date(plan.remindAt!);
  assert.deepEqual(await run(id, a.remindCase, 1, { caseId: id, dueAt: '2026-12-01T00:00:00.000Z' }), { done: false });
  assert.deepEqual(await run(id, a.remindCase, 1, { caseId: id, dueAt: plan.dueAt! }), { done: true });
  assert.deepEqual(await run(id, a.remindCase, 2, { caseId: id, dueAt: plan.dueAt! }), { done: true }, 'a retry is the same reminder');
  const row = await caseRow(id);
  assert.equal(row.priority, 'normal', 'raised one step, once');
  assert.ok(row.reminded_at);
  const reminders = (await audits(id)).filter((r) => r.event_type === 'case_reminder');
  assert.equal(reminders.length, 1);
  assert.equal(reminders[0]!.email_id, `${id}-e2`);
  assert.match(reminders[0]!.message, /priority low → normal/);
  assert.equal((await events(id)).filter((e) => e.event_type === 'case_reminder').length, 1);
  // Its own raise does not move the deadline.
  const again = await run(id, a.planCaseDeadline, 1, { caseId: id });
  assert.equal(again.dueAt, plan.dueAt);
  assert.equal(again.reminded, true);
  // Answered meanwhile: a late timer does nothing.
  await db.pool.query(`UPDATE cases SET waiting_since = NULL WHERE id = ?`, [id]);
  assert.deepEqual(await run(id, a.remindCase, 3, { caseId: id, dueAt: plan.dueAt! }), { done: false });
});

test('escalate: breach recorded first; a webhook 500 is audited and retried; the retry does not mail twice', async () => {
  const a = activities();
  const id = await insertCase({ waitingSince: berlin('2026-12-04T18:30') });
  clock = berlin('2026-12-04T18:31');
  const plan = await run(id, a.planCaseDeadline, 1, { caseId: id });
  clock = berlin('2026-12-07T16:45'); // 45 min of business time past the due time
  const mailsBefore = sink.counts().received;
  hooks.length = 0;
  hookAnswers.push(500);
  await assert.rejects(run(id, a.escalateCase, 1, { caseId: id, dueAt: plan.dueAt! }), (err: unknown) => {
    assert.ok(err instanceof TransientError);
    assert.equal(err.code, FAILURE_TYPES.escalationFailed);
    assert.match(err.message, /\(webhook http:\/\/127\.0\.0\.1:\d+: answered HTTP 500: database on fire\); the breach is recorded/);
    assert.doesNotMatch(err.message, /s3cret/, 'the webhook token stays out of messages');
    return true;
  });
  const row = await caseRow(id);
  assert.ok(row.breached_at, 'the breach stays recorded');
  assert.equal(row.escalated_at, null);
  const failed = (await audits(id)).filter((r) => r.event_type === 'escalation_failed');
  assert.equal(failed.length, 1);
  assert.equal(failed[0]!.error_class, 'transient');
  assert.equal((await audits(id)).filter((r) => r.event_type === 'case_breached').length, 1);
  assert.equal(sink.counts().received, mailsBefore + 1, 'the mail went out on the first attempt');

  const second = await run(id, a.escalateCase, 2, { caseId: id, dueAt: plan.dueAt! });
  assert.deepEqual(second, { done: true, notified: ['email', 'webhook'] });
  assert.deepEqual(await run(id, a.escalateCase, 3, { caseId: id, dueAt: plan.dueAt! }), { done: true, notified: ['email', 'webhook'] });
  assert.equal(sink.counts().received, mailsBefore + 1, 'no second mail');
  assert.deepEqual(
    hooks.map((h) => h.status),
    [500, 200],
    'one failed and one delivered post, none after',
  );
  const key = escalationKey(id, new Date(plan.dueAt!));
  for (const h of hooks) assert.equal(h.headers['idempotency-key'], key);
  assert.deepEqual(hooks[1]!.body, {
    event: 'case_overdue',
    caseId: id,
    mailbox: 'support',
    correspondent: 'kunde@example.org',
    subject: 'Rechnung fehlt <script>',
    priority: 'normal',
    dueAt: plan.dueAt,
    overdueBySeconds: 45 * 60,
  });
  const mail = sink.messages.at(-1)!;
  assert.deepEqual(mail.envelope.rcptTo, ['lead@example.test']);
  assert.equal(mail.envelope.mailFrom, 'support@example.test');
  const raw = mail.raw.toString('utf8').replace(/=\r\n/g, ''); // quoted-printable soft breaks
  assert.match(raw, new RegExp(`Message-ID: <${key}@example\\.test>`, 'i'));
  assert.match(raw, /Subject: \[overdue\] Rechnung fehlt <script>/);
  assert.match(raw, /Due: {6}2026-12-07 16:00 \+01:00 \(Europe\/Berlin\)/);
  assert.match(raw, /Overdue: {2}0h45m/);
  assert.ok((await caseRow(id)).escalated_at);
  assert.deepEqual(
    (await events(id)).map((e) => e.event_type),
    ['case_deadline_set', 'case_breached', 'escalation_sent', 'escalation_failed', 'escalation_sent'],
  );
  assert.deepEqual(
    (await audits(id)).map((r) => r.event_type),
    ['case_breached', 'escalation_failed'],
  );

  // Answered, then the customer writes again: a new wait, a new clock with its own reminder and escalation.
  await db.pool.query(`UPDATE cases SET waiting_since = ? WHERE id = ?`, [berlin('2026-12-08T09:00'), id]);
  clock = berlin('2026-12-08T09:00');
  const next = await run(id, a.planCaseDeadline, 1, { caseId: id });
  assert.deepEqual([next.dueAt, next.reminded, next.breached], [berlin('2026-12-08T17:00').toISOString(), false, false]);
  const fresh = await caseRow(id);
  assert.equal(fresh.breached_at, null);
  assert.equal(fresh.escalated_at, null);
});

test('a worker without the case deadline ports refuses clearly instead of half-working', async () => {
  const a = createCaseDeadlineActivities({ audit: createMariaDbAuditLog(db.pool), mailboxes: directory });
  await assert.rejects(run('x', a.planCaseDeadline, 1, { caseId: 'x' }), /case deadlines are not set up in this worker/);
});

test('escalate: an SMTP refusal and a silent webhook are audited with their reasons; nothing escalates an answered case', async () => {
  const a = activities({ webhookTimeoutMs: 300 });
  const id = await insertCase({ waitingSince: berlin('2026-12-07T08:00'), priority: 'high' });
  clock = berlin('2026-12-07T08:00');
  const plan = await run(id, a.planCaseDeadline, 1, { caseId: id });
  clock = berlin('2026-12-07T13:00');
  sink.failNext(1, 451, 'try again later');
  hookAnswers.push(0);
  await assert.rejects(
    run(id, a.escalateCase, 1, { caseId: id, dueAt: plan.dueAt! }),
    /email lead@example\.test: SMTP server deferred the message \(451\).*webhook http:\/\/127\.0\.0\.1:\d+: not reached: no answer within 300 ms/,
  );
  const failed = (await audits(id)).filter((r) => r.event_type === 'escalation_failed').map((r) => r.message);
  assert.equal(failed.length, 2);
  assert.match(failed.join('\n'), /by email to lead@example\.test failed: SMTP server deferred/);
  assert.ok((await caseRow(id)).breached_at);

  // The customer got an answer before the retry: the retry tells nobody.
  await db.pool.query(`UPDATE cases SET waiting_since = NULL WHERE id = ?`, [id]);
  const before = sink.counts().received;
  assert.deepEqual(await run(id, a.escalateCase, 2, { caseId: id, dueAt: plan.dueAt! }), { done: false, notified: [] });
  assert.equal(sink.counts().received, before);

  // A mailbox without escalation targets: the breach is recorded, nobody is told.
  const quiet = await insertCase({ mailbox: 'quiet', waitingSince: new Date('2026-12-07T08:00:00Z') });
  clock = new Date('2026-12-07T08:00:00Z');
  const qPlan = await run(quiet, a.planCaseDeadline, 1, { caseId: quiet });
  assert.equal(qPlan.dueAt, '2026-12-07T16:00:00.000Z', 'no business hours: wall-clock time');
  clock = new Date('2026-12-07T17:00:00Z');
  assert.deepEqual(await run(quiet, a.escalateCase, 1, { caseId: quiet, dueAt: qPlan.dueAt! }), { done: true, notified: [] });
  assert.ok((await caseRow(quiet)).breached_at);
  assert.equal((await caseRow(quiet)).escalated_at, null);
  await assert.rejects(run(quiet, a.escalateCase, 1, { caseId: quiet, dueAt: 'tomorrow' }), /dueAt must be an ISO 8601 time/);
});
