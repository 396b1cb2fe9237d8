/**
 * The case deadline figures on real MariaDB, exported by the worker's sampler on the SDK's real
 * Prometheus endpoint: overdue cases per mailbox and priority, escalations counted as they happen.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Runtime } from '@temporalio/worker';
import { createMariaDbCaseFigures } from '../../src/cases/case-figures.mariadb';
import { createMariaDbOperatingFigures } from '../../src/operations/operating-figures.mariadb';
import { startBusinessMetricsSampler } from '../../workers/business-metrics';
import { createTestDatabase } from '../support/database';
import { parsePrometheusText, total, type Sample } from '../support/prometheus-text';
import { freePort } from '../support/services/ports';
import { waitFor } from '../support/wait';

let db: Awaited<ReturnType<typeof createTestDatabase>>;
let metricsUrl: string;

before(async () => {
  db = await createTestDatabase('casefigures');
  const port = await freePort();
  Runtime.install({ telemetryOptions: { metrics: { prometheus: { bindAddress: `127.0.0.1:${port}` } } } });
  metricsUrl = `http://127.0.0.1:${port}/metrics`;
});
after(async () => {
  await db?.drop();
});

const scrape = async (): Promise<Sample[]> => parsePrometheusText(await (await fetch(metricsUrl)).text());
const hoursFromNow = (h: number) => new Date(Date.now() + h * 3_600_000);

async function insertCase(
  id: string,
  mailbox: string,
  priority: string,
  due: Date | null,
  extra: { status?: string; waiting?: boolean } = {},
) {
  await db.pool.query(
    `INSERT INTO cases (id, account, mailbox_id, correspondent, status, priority, waiting_since, due_at) VALUES (?, 'a', ?, 'k@example.org', ?, ?, ?, ?)`,
    [id, mailbox, extra.status ?? 'open', priority, extra.waiting === false ? null : hoursFromNow(-10), due],
  );
}

test('overdue open cases per mailbox and priority; paused, closed and not yet due cases are not counted', async () => {
  await insertCase('late-1', 'support', 'high', hoursFromNow(-1));
  await insertCase('late-2', 'support', 'high', hoursFromNow(-2));
  await insertCase('late-3', 'billing', 'low', hoursFromNow(-0.5));
  await insertCase('future', 'support', 'normal', hoursFromNow(3));
  await insertCase('paused', 'support', 'normal', hoursFromNow(-1), { status: 'waiting_for_customer' });
  await insertCase('closed', 'support', 'normal', hoursFromNow(-1), { status: 'closed' });
  await insertCase('answered', 'support', 'critical', hoursFromNow(-1), { waiting: false });
  const figures = createMariaDbCaseFigures(db.pool);
  const overdue = (await figures.overdue()).sort((a, b) => a.mailboxId.localeCompare(b.mailboxId));
  assert.deepEqual(overdue, [
    { mailboxId: 'billing', priority: 'low', count: 1 },
    { mailboxId: 'support', priority: 'high', count: 2 },
  ]);

  const sampler = startBusinessMetricsSampler(createMariaDbOperatingFigures(db.pool), Runtime.instance().metricMeter, 200, {
    mailboxes: [
      { id: 'support', folders: ['INBOX'] },
      { id: 'quiet', folders: ['INBOX'] },
    ],
    cases: figures,
  });
  try {
    const first = await waitFor('the case series', async () => {
      const s = await scrape();
      return s.some((x) => x.name === 'email_rag_cases_overdue' && x.labels.mailbox === 'billing') ? s : undefined;
    });
    assert.equal(total(first, 'email_rag_cases_overdue', { mailbox: 'support', priority: 'high' }), 2);
    assert.equal(total(first, 'email_rag_cases_overdue', { mailbox: 'billing', priority: 'low' }), 1);
    assert.equal(total(first, 'email_rag_cases_overdue', { mailbox: 'support', priority: 'normal' }), 0);
    assert.equal(
      first.filter((x) => x.name === 'email_rag_cases_overdue' && x.labels.mailbox === 'quiet').length,
      4,
      'every priority from the start',
    );
    assert.equal(total(first, 'email_rag_case_escalations_total', { mailbox: 'quiet' }), 0);

    // Two breaches recorded after the sampler started: counted once each; the case answered: not overdue any more.
    for (const id of ['late-1', 'late-2'])
      await db.pool.query(`INSERT INTO case_events (case_id, event_type, message, event_key) VALUES (?, 'case_breached', 'x', ?)`, [
        id,
        `b-${id}`,
      ]);
    await db.pool.query(`UPDATE cases SET waiting_since = NULL WHERE id = 'late-1'`);
    // One sample reads the overdue cases and the new events in two statements side by side: one taken
    // between the events and the answer can count both breaches with the case still overdue.
    // The next sample shows both.
    const later = await waitFor('the escalations and the answered case', async () => {
      const s = await scrape();
      const escalations = total(s, 'email_rag_case_escalations_total', { mailbox: 'support' });
      return escalations === 2 && total(s, 'email_rag_cases_overdue', { mailbox: 'support', priority: 'high' }) === 1 ? s : undefined;
    });
    assert.equal(total(later, 'email_rag_cases_overdue', { mailbox: 'support', priority: 'high' }), 1);
    await new Promise((r) => setTimeout(r, 600));
    assert.equal(total(await scrape(), 'email_rag_case_escalations_total', { mailbox: 'support' }), 2, 'counted once');
  } finally {
    await sampler.stop();
  }
});
