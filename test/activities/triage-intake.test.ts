/**
 * What triage decides beyond the parse step, against real Dovecot (two accounts), MariaDB and the
 * SMTP listener: an abuse complaint waits for a person without a draft, a message to two of our
 * mailboxes is answered by one, two auto-responders answering each other hit the reply limit, and
 * the reply we send asks not to be answered automatically and is filed to Sent byte for byte.
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import { ImapFlow } from 'imapflow';
import { loadConfig } from '../../src/config';
import { imapEmailId } from '../../src/email/email-input';
import { MAILBOX_PASSWORD, MAILBOX_USER, sampleEmail, startStack, type TestStack } from '../support/stack';
import { activityHarness } from './support';

const BILLING_USER = 'billing@example.test';
const USERS: Record<string, string> = { support: MAILBOX_USER, billing: BILLING_USER };
const PASSWORDS: Record<string, string> = { support: MAILBOX_PASSWORD, billing: 'billing-pw' };
const FIXTURES = path.join(__dirname, '../fixtures/triage');

let stack: TestStack;
let h: ReturnType<typeof activityHarness>;

before(async () => {
  stack = await startStack({ temporal: false, extraUsers: [{ user: BILLING_USER, password: 'billing-pw' }] });
  const registry = path.join(stack.dir, 'mailboxes.json');
  const entry = (id: string, pw: string) => ({ id, imap: { user: USERS[id], password: { env: pw } }, smtp: { from: USERS[id] } });
  writeFileSync(registry, JSON.stringify({ version: 1, mailboxes: [entry('support', 'SUPPORT_PW'), entry('billing', 'BILLING_PW')] }));
  h = activityHarness(
    loadConfig({
      ...stack.env,
      MAILBOXES_FILE: registry,
      SUPPORT_PW: MAILBOX_PASSWORD,
      BILLING_PW: PASSWORDS.billing!,
      REPLY_LIMIT_PER_HOUR: '2',
    }),
  );
});

after(async () => {
  await h?.close();
  await stack?.stop();
});

/** Delivers to a mailbox and runs the combined intake (fetch, parse, index) as the workflow does. */
async function arrive(mailboxId: string, raw: string) {
  const user = USERS[mailboxId]!;
  await stack.dovecot.deliver(user, raw);
  const listing = await h.deps.activities.mailboxes.get(mailboxId).imap.listSince('INBOX', 0, 100);
  const uid = listing.messages.at(-1)!.uid;
  const emailId = imapEmailId(user, 'INBOX', listing.uidValidity, uid);
  const source = { kind: 'imap' as const, mailboxId, mailbox: 'INBOX', uidValidity: listing.uidValidity, uid };
  const ingested = await h.run(emailId, h.activities.ingestEmail, { emailId, source });
  return { emailId, ingested };
}

async function audit(emailId: string, eventType: string) {
  return (await stack.db.pool.query('SELECT message, error_class FROM audit_log WHERE email_id = ? AND event_type = ?', [
    emailId,
    eventType,
  ])) as Array<{ message: string; error_class: string | null }>;
}

const draft = (emailId: string, version = 1, requestedBy?: string) =>
  h.run(emailId, h.activities.draftReply, { emailId, version, record: { seq: version }, ...(requestedBy ? { requestedBy } : {}) });

async function status(emailId: string) {
  const rows = (await stack.db.pool.query('SELECT status, status_reason, triage_class FROM emails WHERE id = ?', [emailId])) as Array<{
    status: string;
    status_reason: string | null;
    triage_class: string | null;
  }>;
  return rows[0]!;
}

test('an abuse feedback report is not ignored: audited, not indexed, and it waits for a person without a draft', async () => {
  const llmBefore = stack.llm.requestCount();
  const { emailId, ingested } = await arrive('support', readFileSync(path.join(FIXTURES, 'arf-abuse-report.eml'), 'utf8'));
  assert.equal(ingested.parsed.triage, null, 'the workflow goes on to the draft step');
  assert.equal(ingested.parsed.held?.class, 'feedback_report');
  assert.match(ingested.index ?? '', /^no index: held for a person \(feedback_report\)$/);
  assert.equal((await status(emailId)).triage_class, 'feedback_report');
  const [row] = await audit(emailId, 'feedback_report');
  assert.match(row?.message ?? '', /abuse complaint about our mail .*waits for a person: reports <reply-arf-1@example\.test>/);
  assert.equal(row?.error_class, 'unclear');

  const view = await draft(emailId);
  assert.equal(view.needsHuman, true);
  assert.equal(view.body, '');
  assert.deepEqual(view.flags, ['feedback_report']);
  assert.equal(stack.llm.requestCount(), llmBefore, 'no model was asked');
  const after = await status(emailId);
  assert.equal(after.status, 'manual_review');
  assert.match(after.status_reason ?? '', /^feedback_report: an abuse complaint about our mail; a person handles it/);
  assert.equal((await audit(emailId, 'draft_held')).length, 1);
  // A person who asks for a draft gets one.
  assert.equal((await draft(emailId, 2, 'carol')).needsHuman, false);
});

test('one message to two of our mailboxes: the mailbox in To answers, the copy in Cc is a duplicate naming it', async () => {
  const raw = sampleEmail({
    subject: 'Rechnung und Vertrag',
    messageId: '<both-1@customer.example>',
    extra: [`Cc: Buchhaltung <${BILLING_USER}>`],
  });
  // Delivered to billing first: the answer does not depend on which copy comes in first.
  const copy = await arrive('billing', raw);
  const answered = await arrive('support', raw);
  assert.equal(answered.ingested.parsed.triage, null);
  assert.deepEqual(copy.ingested.parsed.triage, {
    class: 'duplicate',
    reason: `also delivered to mailbox support (${MAILBOX_USER}), which answers it`,
  });
  assert.equal((await status(copy.emailId)).triage_class, 'duplicate');
  assert.equal(copy.ingested.index, undefined, 'the duplicate is not indexed twice');

  // Only Cc names us: the first of ours in Cc answers.
  const ccOnly = [
    'From: Erika Mustermann <erika@customer.example>',
    'To: Team <team@customer.example>',
    `Cc: ${BILLING_USER}, ${MAILBOX_USER}`,
    'Subject: Zur Info',
    'Message-ID: <cc-only-1@customer.example>',
    `Date: ${new Date().toUTCString()}`,
    '',
    'Bitte prüfen.',
    '',
  ].join('\r\n');
  assert.equal((await arrive('support', ccOnly)).ingested.parsed.triage?.class, 'duplicate');
  assert.equal((await arrive('billing', ccOnly)).ingested.parsed.triage, null);
});

test('two auto-responders answering each other: drafts stop at REPLY_LIMIT_PER_HOUR and the rest waits for a person', async () => {
  // A ticket system that marks nothing as automatic, confirming our confirmations.
  const robot = 'Ticket System <tickets@helpdesk.example>';
  const views = [];
  for (let i = 1; i <= 4; i += 1) {
    const { emailId } = await arrive(
      'support',
      sampleEmail({ from: robot, subject: `[#${1000 + i}] Ihre Anfrage ist eingegangen`, messageId: `<loop-${i}@helpdesk.example>` }),
    );
    views.push({ emailId, view: await draft(emailId) });
  }
  assert.deepEqual(
    views.map((v) => v.view.needsHuman),
    [false, false, true, true],
    'two drafts in the hour, then a person',
  );
  const held = views[2]!;
  assert.deepEqual(held.view.flags, ['reply_limit']);
  const row = await status(held.emailId);
  assert.equal(row.status, 'manual_review');
  assert.match(row.status_reason ?? '', /^reply limit: 2 drafts to tickets@helpdesk\.example in the last hour \(REPLY_LIMIT_PER_HOUR=2\)/);
  assert.equal((await audit(held.emailId, 'reply_limit_reached')).length, 1);
  // Held drafts do not count, a retried step does not count itself, another sender is not limited.
  assert.equal((await draft(views[0]!.emailId)).needsHuman, false);
  const other = await arrive('support', sampleEmail({ subject: 'Frage zur Lieferung', messageId: '<other-1@customer.example>' }));
  assert.equal((await draft(other.emailId)).needsHuman, false);
  // A person may still ask for a draft of a held email.
  assert.equal((await draft(held.emailId, 2, 'carol')).needsHuman, false);
});

test('mails of one address drafted at the same moment: no more than the limit pass', async () => {
  const emails = [];
  for (let i = 1; i <= 4; i += 1) {
    emails.push(
      await arrive(
        'support',
        sampleEmail({ from: 'Alarm <alarm@monitoring.example>', subject: `Alarm ${i}`, messageId: `<burst-${i}@monitoring.example>` }),
      ),
    );
  }
  const views = await Promise.all(emails.map((e) => draft(e.emailId)));
  assert.equal(views.filter((v) => !v.needsHuman).length, 2, JSON.stringify(views.map((v) => v.flags)));
  assert.equal(views.filter((v) => v.flags.includes('reply_limit')).length, 2);
});

test('our reply asks for no automatic answer, carries no Auto-Submitted, and the Sent folder holds its exact bytes', async () => {
  const { emailId } = await arrive(
    'support',
    sampleEmail({ subject: 'Kopfzeilen der Antwort', messageId: '<headers-1@customer.example>' }),
  );
  const view = await draft(emailId);
  await h.run(emailId, h.activities.recordDecision, {
    emailId,
    draftId: view.draftId,
    decision: { kind: 'approve', by: 'tester' },
    record: { seq: 2 },
  });
  const sent = await h.run(emailId, h.activities.sendReply, { emailId, draftId: view.draftId });
  const got = stack.smtp.messages.filter((m) => m.raw.includes(sent.messageId));
  assert.equal(got.length, 1);
  const raw = got[0]!.raw.toString('utf8');
  const head = raw.slice(0, raw.indexOf('\r\n\r\n'));
  assert.match(head, /^X-Auto-Response-Suppress: OOF, AutoReply$/m);
  assert.doesNotMatch(head, /^Auto-Submitted:/im);
  assert.match(head, new RegExp(`^Message-ID: ${sent.messageId.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`, 'm'));
  const client = new ImapFlow({
    host: stack.dovecot.host,
    port: stack.dovecot.port,
    secure: false,
    auth: { user: MAILBOX_USER, pass: MAILBOX_PASSWORD },
    logger: false,
  });
  await client.connect();
  try {
    await client.mailboxOpen('Sent');
    const uids = await client.search({ header: { 'message-id': sent.messageId } }, { uid: true });
    assert.ok(Array.isArray(uids) && uids.length === 1);
    const filed = await client.fetchOne(String(uids[0]), { source: true }, { uid: true });
    assert.ok(filed && filed.source);
    assert.deepEqual(filed.source, got[0]!.raw, 'the Sent copy is what the server received');
  } finally {
    await client.logout();
  }
});
