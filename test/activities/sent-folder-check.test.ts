/**
 * Sends in doubt of a mailbox whose provider files every accepted message in the Sent folder
 * (Microsoft 365, Gmail): the send step looks the reply up there by its Message-ID. Real Dovecot,
 * MariaDB and a submission server (smtp-server) that files into Dovecot and breaks the hand-over.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import { loadConfig } from '../../src/config';
import { PermanentError } from '../../src/platform/errors';
import { startFilingSmtp, type FilingSmtp } from '../support/filing-smtp';
import { withImap, type ImapLogin } from '../support/imap-session';
import { MAILBOX_PASSWORD, MAILBOX_USER, sampleEmail, startStack, type TestStack } from '../support/stack';
import { startTcpProxy } from '../support/tcp-proxy';
import { activityHarness, approveDelivered, inboxDelivery } from './support';

let stack: TestStack;
let filing: FilingSmtp;
let imapProxy: Awaited<ReturnType<typeof startTcpProxy>>;
/** The mailbox flagged `providerFilesSent` (IMAP through a proxy a test can cut). */
let filed: ReturnType<typeof activityHarness>;
/** The same account without the flag: what every mailbox did before. */
let plain: ReturnType<typeof activityHarness>;
let login: ImapLogin;
let deliver: ReturnType<typeof inboxDelivery>;

before(async () => {
  stack = await startStack({ temporal: false });
  login = { host: stack.dovecot.host, port: stack.dovecot.port, user: MAILBOX_USER, password: MAILBOX_PASSWORD };
  await withImap(login, async (c) => {
    await c.mailboxCreate('Sent').catch(() => undefined);
  });
  filing = await startFilingSmtp({ login, folder: 'Sent' });
  imapProxy = await startTcpProxy({ host: stack.dovecot.host, port: stack.dovecot.port });
  const file = path.join(stack.dir, 'mailboxes.yaml');
  writeFileSync(
    file,
    [
      'version: 1',
      'mailboxes:',
      '  - id: default',
      `    imap: { host: 127.0.0.1, port: ${imapProxy.port}, user: ${MAILBOX_USER}, password: { env: IMAP_PASSWORD } }`,
      '    smtp:',
      `      host: ${filing.host}`,
      `      port: ${filing.port}`,
      '      from: "Support Team <support@example.test>"',
      '      providerFilesSent: { graceSeconds: 1, attempts: 2 }',
      '',
    ].join('\n'),
  );
  const smtpEnv = { SMTP_HOST: filing.host, SMTP_PORT: String(filing.port), SMTP_TIMEOUT_MS: '1500' };
  filed = activityHarness(loadConfig({ ...stack.env, ...smtpEnv, MAILBOXES_FILE: file }));
  plain = activityHarness(loadConfig({ ...stack.env, ...smtpEnv }));
  deliver = inboxDelivery(stack, plain);
});
after(async () => {
  await filed?.close();
  await plain?.close();
  await filing?.stop();
  await imapProxy?.stop();
  await stack?.stop();
});

/** Delivers, fetches, parses, indexes, drafts and approves one email through harness `h`. */
async function approved(h: ReturnType<typeof activityHarness>, subject: string) {
  return approveDelivered(h, await deliver(sampleEmail({ subject })));
}

const send = (h: ReturnType<typeof activityHarness>, m: { emailId: string; draftId: string }, force?: { by: string; key: string }) =>
  h.run(m.emailId, h.activities.sendReply, { emailId: m.emailId, draftId: m.draftId, ...(force ? { force } : {}) });
const row = async (draftId: string) => (await filed.deps.activities.sends.get(draftId))!;
const inDoubt = (err: unknown) => err instanceof PermanentError && err.code === 'SEND_IN_DOUBT';

/** UIDs of the messages with this Message-ID in Sent. */
const inSent = (messageId: string) =>
  withImap(login, async (c) => {
    await c.mailboxOpen('Sent');
    const found = await c.search({ header: { 'message-id': messageId } }, { uid: true });
    return Array.isArray(found) ? found : [];
  });

async function audit(emailId: string, eventType: string) {
  return (await stack.db.pool.query('SELECT actor, message, details FROM audit_log WHERE email_id = ? AND event_type = ? ORDER BY id', [
    emailId,
    eventType,
  ])) as Array<{ actor: string | null; message: string; details: string | null }>;
}

test('provider-filed mailbox: a normal send appends no copy of ours; one delivery, one copy in Sent', async () => {
  const m = await approved(filed, 'Normaler Versand');
  const sent = await send(filed, m);
  assert.equal(sent.outcome, 'sent');
  assert.equal(sent.foundInSent, undefined);
  const r = await row(m.draftId);
  assert.equal(r.status, 'sent');
  assert.equal(r.appendedToSent, false, 'the provider filed it, not the send step');
  assert.equal(filing.deliveries.get(r.messageId), 1);
  assert.equal((await inSent(r.messageId)).length, 1);
});

for (const mode of ['fileThenCut', 'fileThenSilent'] as const) {
  test(`${mode}: the send in doubt is found in Sent and recorded sent by the mailbox check, with folder and UID`, async () => {
    const m = await approved(filed, `Zweifel ${mode}`);
    filing.plan(mode);
    const sent = await filed.run(m.emailId, filed.activities.sendReply, { emailId: m.emailId, draftId: m.draftId, record: { seq: 3 } });
    const r = await row(m.draftId);
    const uids = await inSent(r.messageId);
    assert.equal(uids.length, 1, 'exactly one copy in Sent: the provider’s');
    assert.equal(filing.deliveries.get(r.messageId), 1, 'one delivery');
    assert.equal(sent.outcome, 'sent');
    assert.deepEqual([sent.foundInSent?.folder, sent.foundInSent?.uid], ['Sent', uids[0]]);
    assert.deepEqual([r.status, r.resolvedBy, r.appendedToSent], ['sent', 'mailbox-check', false]);
    assert.equal((await filed.deps.activities.drafts.get(m.draftId))?.status, 'sent');
    // The email ends sent, recorded by the step as the workflow's transition, saying how.
    assert.equal((await filed.deps.activities.messages.getEmail(m.emailId))?.status, 'sent');
    assert.match(sent.recorded?.reason ?? '', /^sent as <reply-.*> \(in doubt, found in Sent as UID \d+\)$/);
    const marked = await audit(m.emailId, 'send_marked_sent');
    assert.equal(marked.length, 1);
    assert.equal(marked[0]!.actor, 'mailbox-check');
    const details = JSON.parse(marked[0]!.details ?? '{}') as { folder?: string; uid?: number; resolvedBy?: string };
    assert.deepEqual([details.folder, details.uid, details.resolvedBy], ['Sent', uids[0], 'mailbox-check']);
    assert.equal((await audit(m.emailId, 'send_in_doubt')).length, 0, 'no person is asked');
    // A later call finds it sent: nothing goes out again.
    const connections = filing.connections();
    assert.equal((await send(filed, m)).outcome, 'already_sent');
    assert.equal(filing.connections(), connections);
  });
}

test('not filed: after the looks the send stays in doubt for a person, audited; nothing is sent again', async () => {
  const m = await approved(filed, 'Nicht abgelegt');
  filing.plan('cutWithoutFiling');
  await assert.rejects(send(filed, m), inDoubt);
  const r = await row(m.draftId);
  assert.deepEqual([r.status, r.resolvedBy], ['in_doubt', null]);
  assert.equal(filing.deliveries.get(r.messageId), 1);
  assert.equal((await inSent(r.messageId)).length, 0);
  const notFound = await audit(m.emailId, 'send_not_found_in_sent');
  assert.equal(notFound.length, 1);
  assert.match(notFound[0]!.message, /not in Sent of mailbox "default" after 2 look\(s\) 1 s apart; the send stays in doubt/);
  assert.equal((await audit(m.emailId, 'send_in_doubt')).length, 1);
  const connections = filing.connections();
  await assert.rejects(send(filed, m), inDoubt);
  assert.equal(filing.connections(), connections, 'a second call looks again but opens no SMTP connection');
  assert.equal(filing.deliveries.get(r.messageId), 1);
});

test('a worker killed after the final dot: the retried attempt finds the row in doubt and the reply in Sent', async () => {
  const sends = filed.deps.activities.sends;
  const m = await approved(filed, 'Abgestürzt nach dem Punkt');
  const messageId = '<killed-after-dot@example.test>';
  await sends.ensure(m.draftId, m.emailId, messageId);
  assert.ok(await sends.claim(m.draftId, 'dead-worker'));
  assert.ok(await sends.setPhase(m.draftId, 'dead-worker', 'data_end'));
  // What the provider filed for the dead worker's session.
  await withImap(login, async (c) => {
    await c.append('Sent', `Message-ID: ${messageId}\r\nFrom: support@example.test\r\nSubject: Re\r\n\r\nHallo\r\n`, ['\\Seen']);
  });
  const connections = filing.connections();
  const sent = await send(filed, m);
  assert.equal(sent.outcome, 'sent');
  assert.equal(sent.foundInSent?.folder, 'Sent');
  assert.equal(filing.connections(), connections, 'nothing was handed over again');
  assert.deepEqual([(await row(m.draftId)).status, (await row(m.draftId)).resolvedBy], ['sent', 'mailbox-check']);
  assert.equal((await inSent(messageId)).length, 1);
});

test('IMAP down during the lookup: the send stays in doubt and is never sent again; a forced resend later finds the copy', async () => {
  const m = await approved(filed, 'IMAP weg');
  filing.plan('fileThenCut');
  imapProxy.cut();
  try {
    await assert.rejects(send(filed, m), inDoubt);
  } finally {
    imapProxy.restore();
  }
  const r = await row(m.draftId);
  assert.equal(r.status, 'in_doubt');
  assert.equal(filing.deliveries.get(r.messageId), 1);
  const notFound = await audit(m.emailId, 'send_not_found_in_sent');
  assert.equal(notFound.length, 1);
  assert.match(notFound[0]!.message, /2 failed: look 2: IMAP/);
  // IMAP is back. A person forces a resend: the step looks first, finds the provider's copy and sends nothing.
  const connections = filing.connections();
  const sent = await send(filed, m, { by: 'ops', key: 'k1' });
  assert.equal(sent.outcome, 'sent');
  assert.equal(sent.foundInSent?.folder, 'Sent');
  assert.equal((await audit(m.emailId, 'force_ignored')).length, 1);
  assert.equal((await audit(m.emailId, 'send_forced')).length, 0);
  assert.equal(filing.connections(), connections);
  assert.equal(filing.deliveries.get(r.messageId), 1);
  assert.equal((await inSent(r.messageId)).length, 1);
});

test('a mailbox without the flag behaves as before: in doubt for a person, no lookup, though the copy is in Sent', async () => {
  const m = await approved(plain, 'Ohne Kennzeichen');
  filing.plan('fileThenCut');
  await assert.rejects(send(plain, m), inDoubt);
  const r = await row(m.draftId);
  assert.equal(r.status, 'in_doubt');
  assert.equal((await inSent(r.messageId)).length, 1);
  assert.equal((await audit(m.emailId, 'send_not_found_in_sent')).length, 0);
  assert.equal((await audit(m.emailId, 'send_marked_sent')).length, 0);
  // A normal send files our own copy, once (the provider's is found and kept).
  const n = await approved(plain, 'Ohne Kennzeichen, normal');
  assert.equal((await send(plain, n)).outcome, 'sent');
  const messageId = (await row(n.draftId)).messageId;
  assert.equal((await inSent(messageId)).length, 1);
  assert.equal((await row(n.draftId)).appendedToSent, true);
});
