/**
 * Intake triage in the parse step, against real Dovecot, MariaDB and the SMTP listener: a
 * delivery status notification for a reply we sent marks that send `bounced`.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { sampleEmail, type TestStack } from '../support/stack';
import { useActivityStack, type activityHarness, type inboxDelivery } from './support';

const FIXTURES = path.join(__dirname, '../fixtures/triage');
/** The Message-ID of our reply inside the bounce fixture; replaced by the one we really sent. */
const FIXTURE_REPLY_ID = '<reply-5f1c0a9e2b7d4c3a8e6f1d2c3b4a5968@example.test>';

let stack: TestStack;
let h: ReturnType<typeof activityHarness>;
let deliver: ReturnType<typeof inboxDelivery>;

useActivityStack((s) => ({ stack, h, deliver } = s));

async function fetchAndParse(raw: string) {
  const input = await deliver(raw);
  await h.run(input.emailId, h.activities.fetchEmail, input);
  const summary = await h.run(input.emailId, h.activities.parseEmail, { emailId: input.emailId });
  return { ...input, summary };
}

async function row(emailId: string) {
  const rows = (await stack.db.pool.query('SELECT status, triage_class, status_reason FROM emails WHERE id = ?', [emailId])) as Array<{
    status: string;
    triage_class: string | null;
    status_reason: string | null;
  }>;
  return rows[0];
}

async function bouncedAudit() {
  return (await stack.db.pool.query(
    `SELECT email_id, correlation_id FROM audit_log WHERE event_type = 'send_bounced' ORDER BY id`,
  )) as Array<{ email_id: string; correlation_id: string }>;
}

test('a DSN bounce of a reply we sent marks that send bounced, audited on the original email and on the bounce', async () => {
  const original = await fetchAndParse(sampleEmail({ messageId: '<rechnung-117@customer.example>' }));
  assert.equal(original.summary.triage, null);
  await h.run(original.emailId, h.activities.indexEmail, { emailId: original.emailId });
  // Each step records the status it reaches under the workflow's number, as in the workflow.
  const draft = await h.run(original.emailId, h.activities.draftReply, { emailId: original.emailId, version: 1, record: { seq: 1 } });
  await h.run(original.emailId, h.activities.recordDecision, {
    emailId: original.emailId,
    draftId: draft.draftId,
    decision: { kind: 'approve', by: 'tester' },
    record: { seq: 2 },
  });
  const sent = await h.run(original.emailId, h.activities.sendReply, {
    emailId: original.emailId,
    draftId: draft.draftId,
    record: { seq: 3 },
  });
  assert.equal((await h.deps.activities.sends.get(draft.draftId))?.status, 'sent');

  const dsn = readFileSync(path.join(FIXTURES, 'bounce-postfix-dsn.eml'), 'utf8').split(FIXTURE_REPLY_ID).join(sent.messageId);
  assert.ok(dsn.includes(sent.messageId));
  const bounce = await fetchAndParse(dsn);
  assert.equal(bounce.summary.triage?.class, 'bounce');
  assert.match(bounce.summary.triage!.reason, /delivery-status/);
  assert.equal((await h.deps.activities.sends.get(draft.draftId))?.status as string, 'bounced');

  const b = await row(bounce.emailId);
  assert.equal(b?.triage_class, 'bounce');
  assert.match(b?.status_reason ?? '', /^bounce: /);
  assert.equal(b?.status, 'fetched', 'the workflow, not the parse step, decides the status');
  assert.deepEqual(await bouncedAudit(), [
    { email_id: original.emailId, correlation_id: original.emailId },
    { email_id: bounce.emailId, correlation_id: bounce.emailId },
  ]);

  // A retried parse step changes nothing and writes no second pair of audit rows.
  const again = await h.run(bounce.emailId, h.activities.parseEmail, { emailId: bounce.emailId });
  assert.equal(again.triage?.class, 'bounce');
  assert.equal((await bouncedAudit()).length, 2);
  assert.equal((await h.deps.activities.sends.get(draft.draftId))?.status as string, 'bounced');
  // The original email keeps its own status: the bounce is about the send.
  assert.equal((await row(original.emailId))?.status, 'sent');
});

test('a bounce of a message we never sent, or of a send that did not go out, marks nothing', async () => {
  const foreign = await fetchAndParse(readFileSync(path.join(FIXTURES, 'bounce-exchange-unzustellbar.eml'), 'utf8'));
  assert.equal(foreign.summary.triage?.class, 'bounce');
  assert.equal((await bouncedAudit()).length, 2, 'no new send_bounced rows');
  const [failed] = (await stack.db.pool.query(
    `INSERT INTO send_attempts (draft_id, email_id, message_id, status) VALUES ('d-failed', 'e-failed', '<reply-failed@example.test>', 'failed')
     RETURNING status`,
  )) as Array<{ status: string }>;
  assert.equal(failed?.status, 'failed');
  const dsn = readFileSync(path.join(FIXTURES, 'bounce-postfix-dsn.eml'), 'utf8')
    .split(FIXTURE_REPLY_ID)
    .join('<reply-failed@example.test>')
    .replace('<20241112091503.4Wq1Zk3Jz9z9sQ@mx.example.test>', '<other-dsn@mx.example.test>');
  await fetchAndParse(dsn);
  const rows = (await stack.db.pool.query(`SELECT status FROM send_attempts WHERE draft_id = 'd-failed'`)) as Array<{ status: string }>;
  assert.equal(rows[0]?.status, 'failed', 'only sent → bounced');
});

test('a customer mail gets triage null; auto-replies, list mail and our own mail are classed and kept', async () => {
  const customer = await fetchAndParse(readFileSync(path.join(FIXTURES, 'customer.eml'), 'utf8'));
  assert.equal(customer.summary.triage, null);
  // The parse step writes no status (the workflow records it): the row is as the fetch left it.
  assert.deepEqual(await row(customer.emailId), { status: 'fetched', triage_class: null, status_reason: null });

  const cases: Array<[string, string]> = [
    ['ooo-de.eml', 'auto_reply'],
    ['ooo-en.eml', 'auto_reply'],
    ['list-mailman.eml', 'list'],
    ['noreply.eml', 'no_reply'],
    ['spam-flagged.eml', 'spam'],
    // SMTP_FROM of the test stack is support@example.test.
    ['loop-own-address.eml', 'own_address'],
  ];
  for (const [file, cls] of cases) {
    const r = await fetchAndParse(readFileSync(path.join(FIXTURES, file), 'utf8'));
    assert.equal(r.summary.triage?.class, cls, file);
    assert.equal((await row(r.emailId))?.triage_class, cls, file);
    // Kept as parsed data: subject and sender are there for a person who pulls it back.
    const email = await h.deps.activities.messages.getEmail(r.emailId);
    assert.ok(email?.subject, file);
  }
  const audit = (await stack.db.pool.query(
    `SELECT details FROM audit_log WHERE correlation_id = ? AND event_type = 'status_changed' ORDER BY id DESC LIMIT 1`,
    [customer.emailId],
  )) as Array<{ details: string }>;
  assert.doesNotMatch(audit[0]?.details ?? '', /triage/);
});
