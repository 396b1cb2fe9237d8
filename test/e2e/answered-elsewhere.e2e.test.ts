/**
 * A person answers a waiting mail beside the assistant, on real servers (Temporal dev server,
 * MariaDB, Dovecot, an SMTP listener; only the LLM is a double): their reply filed in the Sent
 * folder by their own client, or the copy a team address sends to the inbox, closes the email as
 * `answered_elsewhere`; its draft is withdrawn, a later approval is refused with who answered and
 * when, and nothing reaches the SMTP listener.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Client } from '@temporalio/client';
import type { ImapFlow } from 'imapflow';
import { withImap } from '../support/imap-session';
import { imapEmailId } from '../../src/email/email-input';
import { installSchedules, wantedSchedules } from '../../src/operations/schedules';
import type { EmailWorkflowResult } from '../../src/email/email.workflow';
import { createTemporalDecisions } from '../../src/email/decisions/decisions.temporal';
import { MAILBOX_PASSWORD, MAILBOX_USER, sampleEmail, type TestStack } from '../support/stack';
import { currentDraftId } from '../support/decisions';
import { waitFor } from '../support/wait';
import { useWorkerStack } from '../support/worker-stack';
import { emailStatusOf, pollOnce } from '../support/poll-runs';
import { inboxOnDatabase, listenLocally } from '../support/inbox-app';
import { loadConfig } from '../../src/config';

const COLLEAGUE = 'kollegin@example.test';
let stack: TestStack;
let client: Client;

const imap = <T>(fn: (c: ImapFlow) => Promise<T>): Promise<T> =>
  withImap({ host: stack.dovecot.host, port: stack.dovecot.port, user: MAILBOX_USER, password: MAILBOX_PASSWORD }, fn);

/** A customer mail appended to the inbox, polled until its draft waits for approval. */
async function waitingMail(subject: string, messageId: string): Promise<{ emailId: string; draftId: string }> {
  const r = await imap((c) => c.append('INBOX', sampleEmail({ subject, messageId })));
  assert.ok(r && r.uid);
  const emailId = imapEmailId(MAILBOX_USER, 'INBOX', Number(r.uidValidity), r.uid);
  const polled = await pollOnce(client);
  assert.ok(polled.started.includes(emailId), `${emailId} started`);
  await waitFor(`${emailId} awaiting approval`, async () => (await emailStatusOf(stack.db.pool, emailId)) === 'awaiting_approval', 90_000);
  return { emailId, draftId: await currentDraftId(client, emailId) };
}

/** A reply as a person's mail client writes it (and files it in Sent). */
function personalReply(o: { inReplyTo?: string; subject: string; from?: string; to?: string; messageId: string; body?: string }): string {
  return [
    `From: ${o.from ?? `Support <${MAILBOX_USER}>`}`,
    `To: ${o.to ?? 'Erika Mustermann <erika@customer.example>'}`,
    `Subject: ${o.subject}`,
    `Message-ID: ${o.messageId}`,
    ...(o.inReplyTo ? [`In-Reply-To: ${o.inReplyTo}`, `References: ${o.inReplyTo}`] : []),
    `Date: ${new Date().toUTCString()}`,
    'MIME-Version: 1.0',
    'Content-Type: text/plain; charset=utf-8',
    '',
    o.body ?? 'Hallo Frau Mustermann,\n\ndie Gutschrift ist veranlasst.\n\nViele Grüße\nAnna aus dem Support',
    '',
  ].join('\r\n');
}

useWorkerStack((s) => ({ stack, client } = s), {
  stack: { env: { OWN_ADDRESSES: COLLEAGUE } },
  then: async (s) => {
    await installSchedules(s.client, s.config);
    for (const w of wantedSchedules(s.config)) await s.client.schedule.getHandle(w.id).pause('the test triggers each run itself');
    // Connects the inbox; the Sent folder does not exist yet: what is filed there later is new.
    await pollOnce(client);
  },
});

test('a reply filed in Sent by a person’s own client closes the waiting mail; its approval is refused and nothing is sent', async () => {
  const { emailId, draftId } = await waitingMail('Gutschrift bitte', '<credit-1@customer.example>');
  await imap((c) =>
    c.append(
      'Sent',
      personalReply({ inReplyTo: '<credit-1@customer.example>', subject: 'Re: Gutschrift bitte', messageId: '<anna-1@example.test>' }),
    ),
  );
  const polled = await pollOnce(client);
  assert.deepEqual(polled.answeredElsewhere, [emailId], 'the poll found the answer in Sent');
  const result = (await client.workflow.getHandle(emailId).result()) as EmailWorkflowResult;
  assert.equal(result.status, 'answered_elsewhere');
  assert.equal(await emailStatusOf(stack.db.pool, emailId), 'answered_elsewhere');
  const [draft] = (await stack.db.pool.query('SELECT status FROM drafts WHERE id = ?', [draftId])) as Array<{ status: string }>;
  assert.equal(draft?.status, 'withdrawn');
  const audit = (await stack.db.pool.query('SELECT event_type, message FROM audit_log WHERE email_id = ? ORDER BY id', [
    emailId,
  ])) as Array<{
    event_type: string;
    message: string;
  }>;
  const types = audit.map((a) => a.event_type);
  assert.ok(types.includes('outside_reply_seen'), types.join(','));
  const closed = audit.find((a) => a.event_type === 'answered_elsewhere');
  assert.match(closed?.message ?? '', /support@example\.test.*<anna-1@example\.test>.*draft withdrawn/);
  // A reviewer who approves the draft they still have open is told who answered, and when.
  const decided = await createTemporalDecisions(client, { catchUpMs: 0 }).decide(emailId, 'approve', { draftId, by: 'reviewer' });
  assert.equal(decided.ok, false);
  assert.match(decided.ok ? '' : decided.message, /answered outside the assistant by support@example\.test.*<anna-1@example\.test>/);
  // The case waits for the customer now: no deadline runs for the answered mail, and the person's
  // answer is the case's last reply.
  const [row] = (await stack.db.pool.query(
    `SELECT c.status, c.due_at, c.waiting_since, c.last_reply_at FROM emails e JOIN cases c ON c.id = e.case_id WHERE e.id = ?`,
    [emailId],
  )) as Array<{ status: string; due_at: Date | null; waiting_since: Date | null; last_reply_at: Date | null }>;
  assert.ok(row, 'the mail belongs to a case');
  assert.equal(row.status, 'waiting_for_customer');
  assert.equal(row.due_at, null);
  assert.equal(row.waiting_since, null);
  assert.ok(row.last_reply_at, 'the outside reply counts as the case’s reply');
  assert.equal(stack.smtp.messages.length, 0, 'no reply reached the SMTP listener');
  // The review page shows the person's answer beside the withdrawn draft.
  const app = await inboxOnDatabase(loadConfig({ ...stack.env, INBOX_AUTH: 'header' }), stack.db.pool, {
    decisions: createTemporalDecisions(client, { catchUpMs: 0 }),
  });
  try {
    const base = await listenLocally(app);
    const html = await (
      await fetch(`${base}/email/${encodeURIComponent(emailId)}`, { headers: { 'x-forwarded-user': 'rita', 'accept-language': 'en' } })
    ).text();
    assert.match(html, /id="outside-answer"/);
    assert.match(html, /Answered outside the assistant/);
    assert.match(html, /die Gutschrift ist veranlasst/);
    assert.match(html, /&lt;anna-1@example.test&gt;|<code>&lt;anna-1@example\.test&gt;<\/code>/);
    assert.match(html, /withdrawn/);
  } finally {
    await app.close();
  }
});

test('a reply in Sent to mail the assistant never saw, and our own replies, change nothing', async () => {
  const before = (await stack.db.pool.query('SELECT COUNT(*) AS n FROM outside_replies')) as Array<{ n: bigint }>;
  await imap((c) =>
    c.append(
      'Sent',
      personalReply({ inReplyTo: '<never-seen@customer.example>', subject: 'Re: Etwas anderes', messageId: '<anna-2@example.test>' }),
    ),
  );
  const polled = await pollOnce(client);
  assert.equal(polled.answeredElsewhere, undefined);
  const afterRows = (await stack.db.pool.query('SELECT COUNT(*) AS n FROM outside_replies')) as Array<{ n: bigint }>;
  assert.equal(Number(afterRows[0]!.n), Number(before[0]!.n), 'nothing stored for a reply to unknown mail');
});

test('a client that broke the headers: the same customer, a Re: of the subject, after the mail', async () => {
  const { emailId } = await waitingMail('Lieferung fehlt', '<delivery-1@customer.example>');
  await imap((c) => c.append('Sent', personalReply({ subject: 'AW: Lieferung fehlt', messageId: '<anna-3@example.test>' })));
  const polled = await pollOnce(client);
  assert.deepEqual(polled.answeredElsewhere, [emailId]);
  const result = (await client.workflow.getHandle(emailId).result()) as EmailWorkflowResult;
  assert.equal(result.status, 'answered_elsewhere');
  const [tie] = (await stack.db.pool.query('SELECT matched_by FROM outside_answers WHERE email_id = ?', [emailId])) as Array<{
    matched_by: string;
  }>;
  assert.equal(tie?.matched_by, 'subject');
});

test('a colleague’s copy from a team address answers the mail; the customer writing again gets a fresh draft for the new mail only', async () => {
  const { emailId } = await waitingMail('Passwort vergessen', '<pw-1@customer.example>');
  const copy = personalReply({
    from: `Anna Kollegin <${COLLEAGUE}>`,
    to: `Erika Mustermann <erika@customer.example>, Support <${MAILBOX_USER}>`,
    inReplyTo: '<pw-1@customer.example>',
    subject: 'Re: Passwort vergessen',
    messageId: '<anna-4@example.test>',
  });
  const r = await imap((c) => c.append('INBOX', copy));
  assert.ok(r && r.uid);
  await pollOnce(client);
  const result = (await client.workflow.getHandle(emailId).result()) as EmailWorkflowResult;
  assert.equal(result.status, 'answered_elsewhere');
  const copyId = imapEmailId(MAILBOX_USER, 'INBOX', Number(r.uidValidity), r.uid);
  await waitFor('the copy is triaged', async () => (await emailStatusOf(stack.db.pool, copyId)) === 'ignored', 60_000);
  // The customer writes again after the outside answer: only the new mail gets a draft.
  const again = await waitingMail('Re: Passwort vergessen', '<pw-2@customer.example>');
  assert.equal(await emailStatusOf(stack.db.pool, emailId), 'answered_elsewhere');
  const drafts = (await stack.db.pool.query('SELECT email_id, status FROM drafts WHERE email_id IN (?, ?) ORDER BY created_at', [
    emailId,
    again.emailId,
  ])) as Array<{ email_id: string; status: string }>;
  assert.deepEqual(
    drafts.map((d) => [d.email_id === emailId ? 'first' : 'again', d.status]),
    [
      ['first', 'withdrawn'],
      ['again', 'awaiting_approval'],
    ],
  );
  assert.equal(stack.smtp.messages.length, 0);
});
