/**
 * The operating figures on real MariaDB (range edges, redrafts, odd audit rows), and the worker's
 * sampler on the SDK's real Prometheus exporter while its MariaDB link is cut and restored.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Runtime } from '@temporalio/worker';
import { createMariaDbOperatingFigures } from '../../src/operations/operating-figures.mariadb';
import { createPool, type Pool } from '../../src/platform/pool.mariadb';
import { freePort } from '../support/services/ports';
import { readMetrics } from '../../src/operations/operations.mariadb';
import { startBusinessMetricsSampler } from '../../workers/business-metrics';
import { createTestDatabase } from '../support/database';
import { parsePrometheusText, total, type Sample } from '../support/prometheus-text';
import { startTcpProxy } from '../support/tcp-proxy';
import { waitFor } from '../support/wait';

let db: Awaited<ReturnType<typeof createTestDatabase>>;
let metricsUrl: string;

before(async () => {
  db = await createTestDatabase('figures');
  const port = await freePort();
  Runtime.install({ telemetryOptions: { metrics: { prometheus: { bindAddress: `127.0.0.1:${port}` } } } });
  metricsUrl = `http://127.0.0.1:${port}/metrics`;
});
after(async () => {
  await db?.drop();
});

const sql = (statement: string, params: unknown[] = []) => db.pool.query(statement, params);
const minutesAgo = (now: Date, m: number) => new Date(now.getTime() - m * 60_000);

async function email(id: string, status: string, priority: string, createdAt: Date, changedAt = createdAt): Promise<void> {
  await sql('INSERT INTO emails (id, source, status, priority, created_at, status_changed_at) VALUES (?, ?, ?, ?, ?, ?)', [
    id,
    'file',
    status,
    priority,
    createdAt,
    changedAt,
  ]);
}
async function audit(emailId: string, eventType: string, message: string, at: Date, extra: { errorClass?: string; details?: object } = {}) {
  await sql(
    'INSERT INTO audit_log (email_id, correlation_id, event_type, error_class, message, details, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
    [emailId, emailId, eventType, extra.errorClass ?? null, message, extra.details ? JSON.stringify(extra.details) : null, at],
  );
}

test('state and events from the tables: range edges, one time to draft per email, backlog and dead letters', async () => {
  const figures = createMariaDbOperatingFigures(db.pool);
  const now = await figures.now();
  const from = minutesAgo(now, 10);
  const to = minutesAgo(now, 1);
  await email('e-urgent', 'parsed', 'critical', minutesAgo(now, 40), minutesAgo(now, 5));
  await email('e-waiting', 'awaiting_approval', 'normal', minutesAgo(now, 8), minutesAgo(now, 3));
  await email('e-early', 'awaiting_approval', 'low', minutesAgo(now, 30), minutesAgo(now, 20));
  await email('e-sent', 'sent', 'high', minutesAgo(now, 9));
  await email('e-at-from', 'failed', 'normal', from);
  // First draft inside the range, its redraft too: one time to draft.
  await audit('e-waiting', 'status_changed', 'awaiting_approval: draft 1', minutesAgo(now, 6), {
    details: { status: 'awaiting_approval' },
  });
  await audit('e-waiting', 'status_changed', 'awaiting_approval: draft 2', minutesAgo(now, 3));
  // First draft before the range, the redraft inside: no time to draft in this range.
  await audit('e-early', 'status_changed', 'manual_review: LLM timeout twice', minutesAgo(now, 25));
  await audit('e-early', 'status_changed', 'awaiting_approval: draft 2 by a person', minutesAgo(now, 4));
  await audit('e-sent', 'status_changed', 'sent: <reply@x>', to);
  await audit('e-sent', 'status_changed', 'no colon in this odd row', minutesAgo(now, 2));
  await audit('e-at-from', 'status_changed', 'failed: at the lower edge, excluded', from);
  await audit('e-urgent', 'retry_scheduled', 'parse attempt 1 failed', minutesAgo(now, 5), {
    errorClass: 'transient',
    details: { step: 'parse' },
  });
  await audit('e-urgent', 'job_dead', 'index attempt 3 failed', minutesAgo(now, 5), {
    errorClass: 'dependency',
    details: { step: 'index' },
  });
  await audit('e-urgent', 'job_dead', 'after the range', minutesAgo(now, 0.5), { errorClass: 'permanent', details: { step: 'draft' } });
  await audit('e-arf', 'feedback_report', 'abuse complaint about our mail', minutesAgo(now, 5), { errorClass: 'unclear' });
  await audit('e-arf-2', 'feedback_report', 'abuse complaint about our mail', minutesAgo(now, 4), { errorClass: 'unclear' });
  await audit('e-loop', 'reply_limit_reached', 'reply limit: 5 drafts to robot@x', minutesAgo(now, 0.5), { errorClass: 'unclear' });
  await sql(
    `INSERT INTO queue_jobs (workflow_id, email_id, step, activity_id, status, priority, attempt, max_attempts, error_class, runtime_ms, created_at, finished_at)
     VALUES ('e-sent', 'e-sent', 'send', '1', 'done', 'high', 1, 3, NULL, 1500, ?, ?),
            ('e-urgent', 'e-urgent', 'index', '2', 'dead', 'critical', 3, 3, 'dependency', 20, ?, ?),
            ('e-old', 'e-old', 'parse', '3', 'done', 'normal', 1, 4, NULL, 700, ?, ?)`,
    [minutesAgo(now, 8), minutesAgo(now, 7), minutesAgo(now, 6), minutesAgo(now, 5), minutesAgo(now, 60 * 7), minutesAgo(now, 2)],
  );
  await sql(
    `INSERT INTO send_attempts (draft_id, email_id, message_id, status) VALUES ('d1', 'e-sent', '<r1@x>', 'sent'), ('d2', 'e-x', '<r2@x>', 'in_doubt')`,
  );

  const events = await figures.eventsBetween(from, to);
  const received = Object.fromEntries(
    ['critical', 'normal', 'low', 'high'].map((p) => [p, events.received.filter((r) => r.priority === p).reduce((s, r) => s + r.count, 0)]),
  );
  // Arrived after `from` (the email made exactly at `from` is not) and up to `to`.
  assert.deepEqual(received, { critical: 0, normal: 1, low: 0, high: 1 });
  const changes = Object.fromEntries(events.statusChanges.map((c) => [c.status, c.count]));
  assert.deepEqual(changes, { awaiting_approval: 3, sent: 1, 'no colon in this odd row': 1 });
  assert.equal(events.timeToDraftSeconds.length, 1);
  assert.ok(Math.abs(events.timeToDraftSeconds[0]! - 120) < 0.01, `time to draft ${events.timeToDraftSeconds[0]}`);
  assert.deepEqual(events.failures.map((f) => [f.step, f.errorClass, f.dead, f.count]).sort(), [
    ['index', 'dependency', true, 1],
    ['parse', 'transient', false, 1],
  ]);
  // The parse job's row was made seven hours before it finished: outside the runtime look-back.
  assert.deepEqual(events.stepRuntimes, [{ step: 'send', seconds: 1.5 }]);
  assert.deepEqual(events.draftOutcomes, []);
  // Abuse complaints in the range; the reply-limit hold came after it.
  assert.deepEqual(events.triageAlerts, [{ event: 'feedback_report', count: 2 }]);

  const state = await figures.state();
  const group = (status: string) => state.emails.filter((g) => g.status === status);
  assert.deepEqual(
    group('parsed').map((g) => [g.priority, g.count]),
    [['critical', 1]],
  );
  assert.ok(Math.abs(group('parsed')[0]!.oldestSinceArrivalSeconds - 2400) <= 2);
  assert.ok(Math.abs(group('parsed')[0]!.oldestInStatusSeconds - 300) <= 2);
  assert.equal(
    group('awaiting_approval').reduce((s, g) => s + g.count, 0),
    2,
  );
  assert.equal(group('sent').length + group('failed').length, 0, 'final statuses are neither backlog nor waiting');
  assert.deepEqual(state.deadLetters, [{ step: 'index', errorClass: 'dependency', count: 1 }]);
  assert.deepEqual(state.sends, { sent: 1, in_doubt: 1 });
  // Rows written without a mailbox belong to the single-account `default` one.
  assert.deepEqual([...new Set(state.emails.map((g) => g.mailboxId))], ['default']);
});

async function scrape(): Promise<Sample[]> {
  return parsePrometheusText(await (await fetch(metricsUrl)).text());
}

test('the sampler counts a lost MariaDB link, keeps the last values, and catches up on the events when it is back', async () => {
  const target = new URL(db.url);
  const proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 3306) });
  const viaProxy = new URL(db.url);
  viaProxy.port = String(proxy.port);
  const pool: Pool = createPool(viaProxy.toString(), 1, 1_000);
  const sampler = startBusinessMetricsSampler(createMariaDbOperatingFigures(pool), Runtime.instance().metricMeter, 200);
  try {
    const first = await waitFor('a first sample', async () => {
      const s = await scrape();
      return total(s, 'email_rag_metrics_last_sample_timestamp_seconds') > 0 ? s : undefined;
    });
    assert.equal(total(first, 'email_rag_emails_received_total'), 0, 'counters start at the worker start, not with history');
    assert.equal(total(first, 'email_rag_send_attempts', { status: 'in_doubt' }), 1);
    // Odd audit rows never become label values.
    assert.ok(!first.some((s) => s.name === 'email_rag_status_changes_total' && s.labels.status?.includes(' ')));

    const now = await createMariaDbOperatingFigures(db.pool).now();
    await email('e-new-1', 'fetched', 'high', now);
    await waitFor(
      'the new email counted',
      async () => total(await scrape(), 'email_rag_emails_received_total', { priority: 'high' }) === 1,
    );

    proxy.cut();
    await waitFor('failed rounds counted', async () => total(await scrape(), 'email_rag_metrics_sample_failures_total') >= 2, 30_000);
    await email('e-new-2', 'fetched', 'low', await createMariaDbOperatingFigures(db.pool).now());
    const during = await scrape();
    assert.equal(total(during, 'email_rag_backlog_emails', { status: 'fetched', priority: 'high' }), 1, 'the last values stay');
    assert.equal(total(during, 'email_rag_emails_received_total', { priority: 'low' }), 0);

    proxy.restore();
    const back = await waitFor(
      'the events of the outage caught up',
      async () => {
        const s = await scrape();
        return total(s, 'email_rag_emails_received_total', { priority: 'low' }) === 1 ? s : undefined;
      },
      30_000,
    );
    assert.equal(total(back, 'email_rag_emails_received_total'), 2, 'each email counted once');
    assert.equal(total(back, 'email_rag_backlog_emails', { status: 'fetched' }), 2);
  } finally {
    await sampler.stop();
    await pool.end().catch(() => undefined);
    await proxy.stop();
  }
});

test('per mailbox: backlog by mailbox_id, seconds since the last successful poll and failures in a row, for the registry only', async () => {
  const now = await createMariaDbOperatingFigures(db.pool).now();
  await sql(
    `INSERT INTO emails (id, source, status, priority, mailbox_id, created_at, status_changed_at)
     VALUES ('m-billing-1', 'imap', 'fetched', 'normal', 'billing', ?, ?), ('m-billing-2', 'imap', 'awaiting_approval', 'normal', 'billing', ?, ?)`,
    [minutesAgo(now, 90), minutesAgo(now, 90), minutesAgo(now, 90), minutesAgo(now, 90)],
  );
  // billing's login broke 20 minutes ago; support never got through; a removed mailbox left a row.
  await sql(
    `INSERT INTO mailbox_polls (mailbox_id, folder, last_attempt_at, last_success_at, last_error, failures_in_a_row)
     VALUES ('billing', 'INBOX', ?, ?, 'login refused', 3), ('support', 'INBOX', ?, NULL, 'timeout', 2),
            ('removed', 'INBOX', ?, ?, 'gone', 9)`,
    [minutesAgo(now, 1), minutesAgo(now, 20), minutesAgo(now, 1), minutesAgo(now, 1), minutesAgo(now, 600)],
  );
  const state = await createMariaDbOperatingFigures(db.pool).state();
  const polls = new Map(state.polls.map((p) => [p.mailboxId, p]));
  assert.ok(Math.abs(polls.get('billing')!.secondsSinceSuccess! - 1200) <= 2);
  assert.equal(polls.get('billing')!.failuresInARow, 3);
  assert.equal(polls.get('support')!.secondsSinceSuccess, null, 'never polled successfully');

  const registry = [
    { id: 'support', folders: ['INBOX', 'Escalations'] },
    { id: 'billing', folders: ['INBOX'] },
  ];
  const m = await readMetrics(db.pool, 60, 30, registry);
  assert.equal(m.backlog.byMailbox.billing, 1);
  assert.deepEqual(Object.keys(m.backlog.byMailbox).sort(), ['billing', 'default'], 'default: the rows of the tests before');
  const pollAlerts = m.alerts.filter((a) => a.startsWith('mailbox '));
  assert.deepEqual(pollAlerts, [
    'mailbox billing folder INBOX: not polled successfully for 20 min (3 failed polls in a row; email-rag status)',
    'mailbox support folder INBOX: never polled successfully (2 failed polls in a row; email-rag status)',
  ]);

  const sampler = startBusinessMetricsSampler(createMariaDbOperatingFigures(db.pool), Runtime.instance().metricMeter, 200, {
    mailboxes: registry,
  });
  try {
    const s = await waitFor('the per-mailbox series', async () => {
      const samples = await scrape();
      return samples.some((x) => x.name === 'email_rag_mailbox_poll_failures_in_a_row' && x.labels.mailbox === 'billing')
        ? samples
        : undefined;
    });
    const age = (mailbox: string, folder: string) => total(s, 'email_rag_mailbox_seconds_since_poll_success', { mailbox, folder });
    assert.ok(Math.abs(age('billing', 'INBOX') - 1200) <= 5, `billing age ${age('billing', 'INBOX')}`);
    // Never polled successfully, or never polled at all: as long as this sampler has been watching.
    assert.ok(age('support', 'INBOX') < 60);
    assert.ok(age('support', 'Escalations') < 60);
    assert.equal(total(s, 'email_rag_mailbox_poll_failures_in_a_row', { mailbox: 'billing', folder: 'INBOX' }), 3);
    assert.equal(total(s, 'email_rag_mailbox_poll_failures_in_a_row', { mailbox: 'support', folder: 'Escalations' }), 0);
    assert.ok(!s.some((x) => x.labels.mailbox === 'removed'), 'a mailbox the registry no longer has is not exported');
    assert.equal(total(s, 'email_rag_backlog_emails', { mailbox: 'billing', status: 'fetched' }), 1);
    assert.equal(total(s, 'email_rag_waiting_for_person_emails', { mailbox: 'billing' }), 1);
    // The full grid for every registry mailbox, also the one without mail.
    assert.equal(s.filter((x) => x.name === 'email_rag_backlog_emails' && x.labels.mailbox === 'support').length, 6 * 4);
  } finally {
    await sampler.stop();
  }
});

test('draft outcomes: a counter per outcome, mailbox, drafter and prompt version, starting at 0 for the configured drafter', async () => {
  const sampler = startBusinessMetricsSampler(createMariaDbOperatingFigures(db.pool), Runtime.instance().metricMeter, 200, {
    mailboxes: [{ id: 'outcomes-box', folders: ['INBOX'] }],
    drafter: 'openai',
    promptVersion: 'draft-v2',
  });
  const outcome = (id: string, outcome: string, drafter: string, promptVersion: string, at: Date) =>
    sql(
      `INSERT INTO draft_outcomes (draft_id, email_id, outcome, mailbox_id, category, language, drafter, model, prompt_version, decided_at)
       VALUES (?, ?, ?, 'outcomes-box', 'a category the model made up', 'de', ?, 'm', ?, ?)`,
      [id, id, outcome, drafter, promptVersion, at],
    );
  const series = (s: Sample[]) => s.filter((x) => x.name === 'email_rag_draft_outcomes_total' && x.labels.mailbox === 'outcomes-box');
  try {
    const first = await waitFor('the outcome series at 0', async () => {
      const s = series(await scrape());
      return s.length === 6 ? s : undefined;
    });
    assert.deepEqual(
      first.map((x) => x.value),
      [0, 0, 0, 0, 0, 0],
    );
    assert.deepEqual(Object.keys(first[0]!.labels).sort(), ['drafter', 'mailbox', 'outcome', 'prompt_version']);
    const now = await createMariaDbOperatingFigures(db.pool).now();
    await outcome('o1', 'approved_unchanged', 'openai', 'draft-v2', now);
    await outcome('o2', 'approved_unchanged', 'openai', 'draft-v2', now);
    await outcome('o3', 'heavy_edit', 'openai', 'draft-v2', now);
    await outcome('o4', 'rejected', 'someone else', 'a prompt with spaces', now);
    const after = await waitFor('the outcomes counted', async () => {
      const s = await scrape();
      return total(s, 'email_rag_draft_outcomes_total', { mailbox: 'outcomes-box' }) === 4 ? s : undefined;
    });
    assert.equal(
      total(after, 'email_rag_draft_outcomes_total', { outcome: 'approved_unchanged', drafter: 'openai', prompt_version: 'draft-v2' }),
      2,
    );
    assert.equal(total(after, 'email_rag_draft_outcomes_total', { outcome: 'heavy_edit' }), 1);
    // Unknown drafters and odd prompt versions never become label values; categories are no label at all.
    assert.equal(total(after, 'email_rag_draft_outcomes_total', { outcome: 'rejected', drafter: 'other', prompt_version: 'other' }), 1);
    assert.ok(!series(after).some((x) => 'category' in x.labels));
  } finally {
    await sampler.stop();
  }
});
