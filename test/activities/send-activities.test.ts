/**
 * The send step against a hostile SMTP server (raw sockets, misbehaving on purpose) and the real
 * MariaDB ledger: exactly one copy where SMTP allows it, `in_doubt` only after the final dot.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { ImapFlow } from 'imapflow';
import { simpleParser } from 'mailparser';
import { createSmtpSender } from '../../src/mailboxes/mail-sender.smtp';
import { PermanentError } from '../../src/platform/errors';
import { loadConfig } from '../../src/config';
import { envelopeMismatch } from '../../src/email/send/recipients';
import { startHostileSmtp, type HostileSmtp } from '../support/hostile-smtp';
import { withImap } from '../support/imap-session';
import { MAILBOX_PASSWORD, MAILBOX_USER, sampleEmail, startStack, type TestStack } from '../support/stack';
import { activityHarness, approveDelivered, inboxDelivery } from './support';

let stack: TestStack;
let smtp: HostileSmtp;
let h: ReturnType<typeof activityHarness>;
let deliver: ReturnType<typeof inboxDelivery>;

before(async () => {
  stack = await startStack({ temporal: false });
  smtp = await startHostileSmtp();
  h = activityHarness(loadConfig({ ...stack.env, SMTP_HOST: smtp.host, SMTP_PORT: String(smtp.port), SMTP_TIMEOUT_MS: '1500' }));
  deliver = inboxDelivery(stack, h);
});
after(async () => {
  await h?.close();
  await smtp?.stop();
  await stack?.stop();
});

/** Delivers, fetches, parses, indexes, drafts and approves one email, as the workflow would. */
async function approved(opts: Parameters<typeof sampleEmail>[0] = {}) {
  return approveDelivered(h, await deliver(sampleEmail(opts)));
}

type Force = { by: string; key: string };
const send = (m: { emailId: string; draftId: string }, force?: Force) =>
  h.run(m.emailId, h.activities.sendReply, { emailId: m.emailId, draftId: m.draftId, ...(force ? { force } : {}) });
const row = async (draftId: string) => (await h.deps.activities.sends.get(draftId))!;
/** Messages the server received for this reply (DATA complete), whatever it answered. */
const copies = (messageId: string) => smtp.received.filter((r) => r.raw.toString('utf8').includes(messageId));
async function auditCount(emailId: string, eventType: string): Promise<number> {
  const rows = (await stack.db.pool.query('SELECT COUNT(*) AS n FROM audit_log WHERE email_id = ? AND event_type = ?', [
    emailId,
    eventType,
  ])) as Array<{ n: number }>;
  return Number(rows[0]?.n);
}
/** MAIL FROM commands the server got, over all connections (the sender keeps sessions for the next message). */
const transactions = () => smtp.sessions.flat().filter((c) => c.startsWith('MAIL FROM')).length;
const inDoubt = (err: unknown) =>
  err instanceof PermanentError && err.code === 'SEND_IN_DOUBT' && /email-rag resend .* --force/.test(err.message);

for (const behaviour of ['dropAfterData', 'silentAfterData'] as const) {
  test(`${behaviour}: one copy reached the server, the row is in_doubt, a second call sends nothing`, async () => {
    const m = await approved({ subject: `Zweifel ${behaviour}` });
    smtp.plan(behaviour);
    await assert.rejects(send(m), inDoubt);
    const r = await row(m.draftId);
    assert.equal(r.status, 'in_doubt');
    assert.equal(r.phase, 'data_end');
    assert.equal(copies(r.messageId).length, 1, 'exactly one copy was handed over');
    const sessions = smtp.sessions.length;
    const mailFroms = transactions();
    await assert.rejects(send(m), inDoubt);
    assert.equal(smtp.sessions.length, sessions, 'not even a connection was opened');
    assert.equal(transactions(), mailFroms, 'nor a kept one used');
    assert.equal(copies(r.messageId).length, 1);
    assert.equal((await row(m.draftId)).status, 'in_doubt');
    assert.equal(await auditCount(m.emailId, 'send_in_doubt'), 1, 'the same doubt is audited once');
    assert.equal((await h.deps.activities.messages.getEmail(m.emailId))?.status, 'approved', 'the email status is the workflow’s');
  });
}

test('force is one-shot per key: it sends once, the same key again is refused, a new key sends', async () => {
  const m = await approved({ subject: 'Erzwungen' });
  smtp.plan('dropAfterData');
  await assert.rejects(send(m), inDoubt);
  const messageId = (await row(m.draftId)).messageId;
  // The forced attempt goes in doubt again (the server drops it once more).
  smtp.plan('dropAfterData');
  await assert.rejects(send(m, { by: 'ops', key: 'k1' }), inDoubt);
  assert.equal(copies(messageId).length, 2, 'the forced attempt sent once');
  assert.deepEqual([(await row(m.draftId)).forcedBy, (await row(m.draftId)).forceKey], ['ops', 'k1']);
  // Temporal's automatic retry of that forced attempt carries the same key: refused.
  await assert.rejects(
    send(m, { by: 'ops', key: 'k1' }),
    (err: unknown) => inDoubt(err) && /k1.*already used/.test((err as Error).message),
  );
  assert.equal(copies(messageId).length, 2);
  const forced = await send(m, { by: 'lead', key: 'k2' });
  assert.equal(forced.outcome, 'sent');
  assert.equal(copies(messageId).length, 3);
  const r = await row(m.draftId);
  assert.deepEqual([r.status, r.forcedBy, r.forceKey], ['sent', 'lead', 'k2']);
  assert.equal(await auditCount(m.emailId, 'send_forced'), 2);
  // Force on a row that is not in doubt changes nothing and is audited.
  const again = await send(m, { by: 'ops', key: 'k3' });
  assert.equal(again.outcome, 'already_sent');
  assert.equal(copies(messageId).length, 3);
  assert.equal(await auditCount(m.emailId, 'force_ignored'), 1);
  assert.equal((await h.deps.activities.drafts.get(m.draftId))?.status, 'sent');
});

test('force on a send that is only failed is ignored for sending purposes, audited, and the send goes on normally', async () => {
  const m = await approved({ subject: 'Force ohne Zweifel' });
  smtp.plan('greeting421');
  await assert.rejects(send(m), { code: 'SMTP_TRANSIENT' });
  const sent = await send(m, { by: 'ops', key: 'x1' });
  assert.equal(sent.outcome, 'sent');
  const r = await row(m.draftId);
  assert.equal(r.forcedBy, null, 'not recorded as forced');
  assert.equal(await auditCount(m.emailId, 'force_ignored'), 1);
});

test('421 at the greeting: failed before anything was handed over, then sent once', async () => {
  const m = await approved({ subject: 'Greeting 421' });
  smtp.plan('greeting421');
  await assert.rejects(send(m), (err: unknown) => (err as { code?: string }).code === 'SMTP_TRANSIENT');
  const failed = await row(m.draftId);
  assert.deepEqual([failed.status, failed.phase], ['failed', 'greeting']);
  assert.equal(copies(failed.messageId).length, 0);
  assert.equal((await send(m)).outcome, 'sent');
  assert.equal((await send(m)).outcome, 'already_sent');
  const r = await row(m.draftId);
  assert.deepEqual([r.status, r.attempts], ['sent', 2]);
  assert.equal(copies(r.messageId).length, 1);
  assert.deepEqual(r.envelope?.to, ['erika@customer.example']);
});

test('a reset at RCPT TO: failed (phase rcpt), then sent once', async () => {
  const m = await approved({ subject: 'Reset bei RCPT' });
  smtp.plan('resetAtRcpt');
  await assert.rejects(send(m), (err: unknown) => (err as { code?: string }).code === 'SMTP_UNAVAILABLE');
  const failed = await row(m.draftId);
  assert.deepEqual([failed.status, failed.phase], ['failed', 'rcpt']);
  assert.equal((await send(m)).outcome, 'sent');
  assert.equal(copies(failed.messageId).length, 1);
});

test('a 451 or 554 answer to the message itself is a definite refusal, not a doubt', async () => {
  const m = await approved({ subject: 'Abgelehnt nach DATA' });
  smtp.plan('reply451AfterData');
  await assert.rejects(send(m), { code: 'SMTP_TRANSIENT' });
  assert.equal((await row(m.draftId)).status, 'failed');
  assert.equal((await send(m)).outcome, 'sent');
  const m2 = await approved({ subject: 'Endgültig abgelehnt' });
  smtp.plan('reply554AfterData');
  await assert.rejects(send(m2), (err: unknown) => err instanceof PermanentError && err.code === 'SMTP_REJECTED');
  assert.equal((await row(m2.draftId)).status, 'failed');
});

test('a crash before the final dot leaves a row that is taken over and sent once; after it, the row is in doubt', async () => {
  const sends = h.deps.activities.sends;
  const early = await approved({ subject: 'Absturz vor dem Punkt' });
  await sends.ensure(early.draftId, early.emailId, '<crashed-early@example.test>');
  assert.ok(await sends.claim(early.draftId, 'dead-worker'));
  assert.ok(await sends.setPhase(early.draftId, 'dead-worker', 'rcpt'));
  assert.equal((await send(early)).outcome, 'sent');
  const r = await row(early.draftId);
  assert.deepEqual([r.status, r.attempts], ['sent', 2]);
  assert.equal(copies('<crashed-early@example.test>').length, 1);
  // The dead worker comes back to life: it no longer holds the claim and cannot reach the dot.
  assert.equal(await sends.setPhase(early.draftId, 'dead-worker', 'data_end'), false);

  const late = await approved({ subject: 'Absturz nach dem Punkt' });
  await sends.ensure(late.draftId, late.emailId, '<crashed-late@example.test>');
  assert.ok(await sends.claim(late.draftId, 'dead-worker'));
  assert.ok(await sends.setPhase(late.draftId, 'dead-worker', 'data_end'));
  const sessions = smtp.sessions.length;
  const mailFroms = transactions();
  await assert.rejects(send(late), inDoubt);
  assert.equal((await row(late.draftId)).status, 'in_doubt');
  assert.equal(smtp.sessions.length, sessions, 'nothing was sent');
  assert.equal(transactions(), mailFroms, 'not over a kept session either');
});

test('two concurrent sendReply calls for the same draft hand over one copy', async () => {
  for (let i = 0; i < 3; i++) {
    const m = await approved({ subject: `Gleichzeitig ${i}` });
    const results = await Promise.allSettled([send(m), send(m)]);
    const r = await row(m.draftId);
    assert.equal(copies(r.messageId).length, 1, `round ${i}: ${JSON.stringify(results.map((x) => x.status))}`);
    assert.equal(r.status, 'sent');
    assert.ok(results.some((x) => x.status === 'fulfilled' && x.value.outcome === 'sent'));
    for (const x of results) {
      if (x.status === 'rejected')
        assert.match(String((x.reason as { code?: string }).code), /SEND_SUPERSEDED|SEND_IN_DOUBT|SEND_CONTENDED/);
    }
  }
});

test('an operator confirms a send in doubt: sent with who said so, once; refused when nothing is in doubt', async () => {
  const m = await approved({ subject: 'Kunde hat es bekommen' });
  await assert.rejects(
    h.run(m.emailId, h.activities.confirmSentByOperator, { emailId: m.emailId, draftId: m.draftId, by: 'ops' }),
    (err: unknown) => err instanceof PermanentError && err.code === 'NOT_IN_DOUBT',
  );
  smtp.plan('silentAfterData');
  await assert.rejects(send(m), inDoubt);
  const done = await h.run(m.emailId, h.activities.confirmSentByOperator, {
    emailId: m.emailId,
    draftId: m.draftId,
    by: 'ops',
    note: 'customer confirmed by phone',
  });
  const r = await row(m.draftId);
  assert.equal(done.messageId, r.messageId);
  assert.deepEqual([r.status, r.resolvedBy], ['sent', 'ops']);
  assert.equal((await h.deps.activities.drafts.get(m.draftId))?.status, 'sent');
  const audit = (await stack.db.pool.query(`SELECT actor FROM audit_log WHERE email_id = ? AND event_type = 'send_marked_sent'`, [
    m.emailId,
  ])) as Array<{ actor: string }>;
  assert.deepEqual(
    audit.map((a) => a.actor),
    ['ops'],
  );
  // A retry of the same confirmation is harmless; another person's confirmation of a sent row is refused.
  await h.run(m.emailId, h.activities.confirmSentByOperator, { emailId: m.emailId, draftId: m.draftId, by: 'ops' });
  await assert.rejects(h.run(m.emailId, h.activities.confirmSentByOperator, { emailId: m.emailId, draftId: m.draftId, by: 'other' }), {
    code: 'NOT_IN_DOUBT',
  });
  assert.equal((await send(m)).outcome, 'already_sent');
  assert.equal(copies(r.messageId).length, 1);
  assert.deepEqual(await h.run(m.emailId, h.activities.sendStateOf, { emailId: m.emailId }), {
    draftId: m.draftId,
    status: 'sent',
    messageId: r.messageId,
  });
  assert.equal(await h.run('none', h.activities.sendStateOf, { emailId: 'no-such-email' }), null);
});

test('recipients: local names are refused before any connection; a foreign Reply-To is flagged and answered', async () => {
  for (const from of ['Root <root@localhost>', 'A <a@intranet>', 'B <b@printer.local>']) {
    const m = await approved({ from, subject: `Lokal ${from}` });
    const sessions = smtp.sessions.length;
    const mailFroms = transactions();
    await assert.rejects(send(m), (err: unknown) => err instanceof PermanentError && err.code === 'BAD_RECIPIENT');
    assert.equal(smtp.sessions.length, sessions);
    assert.equal(transactions(), mailFroms);
  }
  const m = await approved({ subject: 'Antwort woandershin', extra: ['Reply-To: Buchhaltung <billing@other-domain.example>'] });
  assert.ok(m.draft.flags.includes('reply_to_differs'));
  assert.equal(m.draft.to.address, 'billing@other-domain.example');
  await send(m);
  const got = copies((await row(m.draftId)).messageId);
  assert.deepEqual(got[0]?.rcptTo, ['billing@other-domain.example']);
  const parsed = await simpleParser(got[0]!.raw);
  assert.equal(
    parsed.to && !Array.isArray(parsed.to) ? parsed.to.value.map((v) => v.address).join(',') : '',
    'billing@other-domain.example',
  );
  const same = await approved({ subject: 'Gleiche Domain', extra: ['Reply-To: <team@customer.example>'] });
  assert.ok(!same.draft.flags.includes('reply_to_differs'));
});

test('the envelope check runs before the message and refuses a mismatch: nothing handed over', async () => {
  const sender = createSmtpSender({ host: smtp.host, port: smtp.port, tls: false, timeoutMs: 1500 });
  const before = smtp.received.length;
  const phases: string[] = [];
  let finalDot = false;
  await assert.rejects(
    sender.send(
      {
        from: { name: 'Support', address: 'support@example.test' },
        to: { name: 'Erika', address: 'erika@customer.example' },
        subject: 'Umschlag',
        text: 'Hallo',
        messageId: '<envelope-check@example.test>',
      },
      {
        onPhase: async (p) => {
          phases.push(p);
        },
        beforeData: async (seen) => {
          // As if the draft named someone else than the session is about to deliver to.
          const mismatch = envelopeMismatch({ from: 'support@example.test', to: 'someone-else@customer.example' }, seen);
          if (mismatch) throw new PermanentError(mismatch, 'ENVELOPE_MISMATCH');
        },
        beforeFinalDot: async () => {
          finalDot = true;
        },
      },
    ),
    (err: unknown) => err instanceof PermanentError && err.code === 'ENVELOPE_MISMATCH' && /RCPT TO/.test(err.message),
  );
  assert.deepEqual(phases, ['connect', 'mail_from', 'data']);
  assert.equal(finalDot, false);
  await new Promise((resolve) => setTimeout(resolve, 200));
  assert.equal(smtp.received.length, before, 'the server never got a complete message');
  assert.deepEqual(smtp.sessions.at(-1)?.slice(-3), ['MAIL FROM:<support@example.test>', 'RCPT TO:<erika@customer.example>', 'DATA']);
});

/** A session on the support mailbox, as a mail client (or the provider's own filing) would open. */
const supportImap = <T>(fn: (c: ImapFlow) => Promise<T>): Promise<T> =>
  withImap({ host: stack.dovecot.host, port: stack.dovecot.port, user: MAILBOX_USER, password: MAILBOX_PASSWORD }, fn);

/** How many messages with this Message-ID the Sent folder holds. */
const inSent = (messageId: string) =>
  supportImap(async (c) => {
    await c.mailboxOpen('Sent');
    const found = await c.search({ header: { 'message-id': messageId } }, { uid: true });
    return Array.isArray(found) ? found.length : 0;
  });

test('the Sent folder gets one copy of each reply, also from a provider that files sent mail itself on receipt', async () => {
  const ours = await approved({ subject: 'Ablage im Gesendet-Ordner' });
  assert.equal((await send(ours)).outcome, 'sent');
  const first = (await row(ours.draftId)).messageId;
  assert.equal(await inSent(first), 1, 'filed by the send step');

  // As Gmail or Exchange do: the server files the message in Sent before it answers 250.
  smtp.onAccept(async (data) => {
    await supportImap(async (c) => {
      await c.append('Sent', data.raw, ['\\Seen']);
    });
  });
  try {
    const theirs = await approved({ subject: 'Ablage durch den Anbieter' });
    assert.equal((await send(theirs)).outcome, 'sent');
    const second = (await row(theirs.draftId)).messageId;
    assert.equal(copies(second).length, 1);
    assert.equal(await inSent(second), 1, 'the provider filed it; the send step found that copy and filed none');
    assert.equal(await auditCount(theirs.emailId, 'sent_copy_failed'), 0);
  } finally {
    smtp.onAccept(null);
  }
  assert.equal(await inSent(first), 1);
});

test('the first attempt writes its row claimed in one statement; a second first attempt finds the row and changes nothing', async () => {
  const sends = h.deps.activities.sends;
  const m = await approved({ subject: 'Erster Versuch' });
  const first = await sends.claimFirst(m.draftId, m.emailId, '<first-claim@example.test>', 'token-a');
  assert.ok(first);
  const stored = await row(m.draftId);
  const withoutTimes = (r: typeof stored) => ({ ...r, createdAt: null, updatedAt: null });
  assert.deepEqual(withoutTimes(first), withoutTimes(stored), 'the returned row is the stored one');
  assert.deepEqual([stored.status, stored.phase, stored.attempts, stored.attemptToken], ['sending', 'claimed', 1, 'token-a']);
  assert.equal(await sends.claimFirst(m.draftId, m.emailId, '<other@example.test>', 'token-b'), null);
  assert.deepEqual(await row(m.draftId), stored);
  // The send that finds it claimed by an attempt that stopped before the dot takes it over, once.
  assert.equal((await send(m)).outcome, 'sent');
  const r = await row(m.draftId);
  assert.deepEqual([r.status, r.attempts, r.messageId], ['sent', 2, '<first-claim@example.test>']);
  assert.equal(copies('<first-claim@example.test>').length, 1);
});
