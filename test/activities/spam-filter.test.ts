/**
 * Intake asks a real spamd (TRIAGE_SPAMD) about every message, on real Dovecot and MariaDB: spam
 * the built-in check lets through is held with the filter's score and rules; a customer's mail is
 * not; and a filter that does not answer costs the message nothing but an audit row.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadConfig } from '../../src/config';
import { TRIAGE_AUDIT_EVENTS } from '../../src/triage/triage.contract';
import { freePort } from '../support/services/ports';
import { useSpamd, type Spamd } from '../support/services/spamd';
import type { TestStack } from '../support/stack';
import { auditRows, customerMail, harnessWithSpamd, parseDelivered, spamCopy as copyOf } from '../support/spam-mail';
import { activityHarness, useActivityStack, type inboxDelivery } from './support';

let stack: TestStack;
let h: ReturnType<typeof activityHarness>;
let deliver: ReturnType<typeof inboxDelivery>;
let spamd: Spamd;

useActivityStack((s) => ({ stack, h, deliver } = s));
useSpamd((s) => (spamd = s));

/** Real spam (SpamAssassin's test set) whose wording the built-in check does not know, with its own Message-ID. */
const spamCopy = (n: number) => copyOf(`spam-copy-${n}@dunlopdriver.com`);
const parseWith = (harness: ReturnType<typeof activityHarness>, raw: string) => parseDelivered(harness, deliver, raw);

test('without a filter the built-in check drafts this spam; with spamd it is held as spam, with its score and rules', async () => {
  const plain = await parseWith(h, spamCopy(1));
  assert.equal(plain.summary.triage, null, 'the built-in check alone lets it through');

  const withSpamd = harnessWithSpamd(stack.env, spamd);
  try {
    const { emailId, summary } = await parseWith(withSpamd, spamCopy(2));
    assert.equal(summary.triage?.class, 'spam');
    assert.match(
      summary.triage?.reason ?? '',
      new RegExp(`^spamd 127\\.0\\.0\\.1:${spamd.port}: score \\d+(\\.\\d+)? ≥ 5 \\([A-Z0-9_, ]+\\)$`),
    );
    const [row] = (await stack.db.pool.query('SELECT triage_class FROM emails WHERE id = ?', [emailId])) as Array<{ triage_class: string }>;
    assert.equal(row?.triage_class, 'spam');

    const ham = await parseWith(withSpamd, customerMail('erika@customer.example', 'rechnung-doppelt@customer.example'));
    assert.equal(ham.summary.triage, null);
  } finally {
    await withSpamd.close();
  }
});

test('spamd not answering: the message is triaged without it and one audit row says so', async () => {
  const port = await freePort();
  const down = activityHarness(loadConfig({ ...stack.env, TRIAGE_SPAMD: `127.0.0.1:${port}` }));
  try {
    const { emailId, summary } = await parseWith(down, spamCopy(3));
    assert.equal(summary.triage, null, 'the built-in check decided alone');
    // A retry of the step writes no second row.
    await down.run(emailId, down.activities.parseEmail, { emailId });
    const rows = await auditRows(stack.db.pool, emailId, TRIAGE_AUDIT_EVENTS.spamFilterUnavailable);
    assert.equal(rows.length, 1);
    assert.equal(rows[0]?.error_class, 'dependency');
    assert.match(
      rows[0]?.message ?? '',
      new RegExp(`spam filter not asked, triaged without it: spamd 127\\.0\\.0\\.1:${port}: connect ECONNREFUSED`),
    );
  } finally {
    await down.close();
  }
});

test('TRIAGE_SPAMD that is no address is refused at start', () => {
  assert.throws(() => loadConfig({ ...stack.env, TRIAGE_SPAMD: 'http://spamd:783/' }), /TRIAGE_SPAMD must be host or host:port/);
  assert.deepEqual(loadConfig({ ...stack.env, TRIAGE_SPAMD: 'spamd.internal' }).spamd, {
    host: 'spamd.internal',
    port: 783,
    timeoutMs: 10_000,
    learn: true,
  });
  assert.equal(loadConfig({ ...stack.env, TRIAGE_SPAMD: 'spamd.internal', TRIAGE_SPAMD_LEARN: 'false' }).spamd?.learn, false);
});
