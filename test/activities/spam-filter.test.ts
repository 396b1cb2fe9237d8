/**
 * Intake asks a real spamd (TRIAGE_SPAMD) about every message, on real Dovecot and MariaDB: spam
 * the built-in check lets through is held with the filter's score and rules; a customer's mail is
 * not; and a filter that does not answer costs the message nothing but an audit row.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { loadConfig } from '../../src/config';
import { TRIAGE_AUDIT_EVENTS } from '../../src/triage/triage.contract';
import { freePort } from '../support/services/ports';
import { useSpamd, type Spamd } from '../support/services/spamd';
import type { TestStack } from '../support/stack';
import { activityHarness, useActivityStack, type inboxDelivery } from './support';

// Real spam (SpamAssassin's test set) whose wording the built-in check does not know: no points there.
const SPAM = readFileSync(path.join(__dirname, '../fixtures/spam-corpus/spamassassin/spam/015'), 'latin1');

let stack: TestStack;
let h: ReturnType<typeof activityHarness>;
let deliver: ReturnType<typeof inboxDelivery>;
let spamd: Spamd;

useActivityStack((s) => ({ stack, h, deliver } = s));
useSpamd((s) => (spamd = s));

/** The spam with its own Message-ID, so that each copy is a message of its own. */
const spamCopy = (n: number) => SPAM.replace(/^Message-ID: <[^>]+>/im, `Message-ID: <spam-copy-${n}@dunlopdriver.com>`);

async function parseWith(harness: ReturnType<typeof activityHarness>, raw: string) {
  const input = await deliver(raw);
  await harness.run(input.emailId, harness.activities.fetchEmail, input);
  return { emailId: input.emailId, summary: await harness.run(input.emailId, harness.activities.parseEmail, { emailId: input.emailId }) };
}

test('without a filter the built-in check drafts this spam; with spamd it is held as spam, with its score and rules', async () => {
  const plain = await parseWith(h, spamCopy(1));
  assert.equal(plain.summary.triage, null, 'the built-in check alone lets it through');

  const withSpamd = activityHarness(loadConfig({ ...stack.env, TRIAGE_SPAMD: spamd.address }));
  try {
    const { emailId, summary } = await parseWith(withSpamd, spamCopy(2));
    assert.equal(summary.triage?.class, 'spam');
    assert.match(
      summary.triage?.reason ?? '',
      new RegExp(`^spamd 127\\.0\\.0\\.1:${spamd.port}: score \\d+(\\.\\d+)? ≥ 5 \\([A-Z0-9_, ]+\\)$`),
    );
    const [row] = (await stack.db.pool.query('SELECT triage_class FROM emails WHERE id = ?', [emailId])) as Array<{ triage_class: string }>;
    assert.equal(row?.triage_class, 'spam');

    const ham = await parseWith(
      withSpamd,
      [
        'From: Erika Mustermann <erika@customer.example>',
        'To: support@example.test',
        'Subject: Rechnung doppelt abgebucht',
        `Date: ${new Date().toUTCString()}`,
        'Message-ID: <rechnung-doppelt@customer.example>',
        '',
        'Guten Tag, mein Abo wurde diesen Monat zweimal abgebucht. Bitte erstatten Sie einen Betrag. Viele Grüße, Erika Mustermann',
        '',
      ].join('\r\n'),
    );
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
    const rows = (await stack.db.pool.query('SELECT error_class, message FROM audit_log WHERE email_id = ? AND event_type = ?', [
      emailId,
      TRIAGE_AUDIT_EVENTS.spamFilterUnavailable,
    ])) as Array<{ error_class: string; message: string }>;
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
