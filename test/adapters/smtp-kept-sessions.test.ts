/**
 * The SMTP sender keeps a session that carried a message for the next one: one connection for a
 * run of messages, and a kept session the server ended goes unnoticed by the caller (the message
 * goes out once, over a new connection). Against the raw hostile server, which counts connections
 * and commands as it got them.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createSmtpSender } from '../../src/mailboxes/mail-sender.smtp';
import type { MailSender, SmtpPhase } from '../../src/mailboxes/mail-sender.port';
import { startHostileSmtp, type HostileSmtp } from '../support/hostile-smtp';

let smtp: HostileSmtp;
let sender: MailSender;

before(async () => {
  smtp = await startHostileSmtp();
  sender = createSmtpSender({ host: smtp.host, port: smtp.port, tls: false, timeoutMs: 1500 });
});
after(async () => {
  await sender?.close();
  await smtp?.stop();
});

let n = 0;
async function sendOne(phases: SmtpPhase[] = []) {
  n += 1;
  const messageId = `<kept-${n}@example.test>`;
  const result = await sender.send(
    {
      from: { name: 'Support', address: 'support@example.test' },
      to: { name: 'Erika', address: 'erika@customer.example' },
      subject: `Nachricht ${n}`,
      text: 'Hallo',
      messageId,
    },
    {
      onPhase: async (p) => {
        phases.push(p);
      },
      beforeData: async () => undefined,
      beforeFinalDot: async () => {
        phases.push('data_end');
      },
    },
  );
  return { messageId, result };
}
const copies = (messageId: string) => smtp.received.filter((r) => r.raw.toString('utf8').includes(messageId)).length;

test('a run of messages goes over one connection; each arrives once', async () => {
  const connections = smtp.sessions.length;
  const sent = [];
  for (let i = 0; i < 3; i++) sent.push(await sendOne());
  assert.equal(smtp.sessions.length - connections, 1, 'one connection for three messages');
  for (const { messageId, result } of sent) {
    assert.equal(copies(messageId), 1);
    assert.deepEqual(result.envelope.to, ['erika@customer.example']);
  }
  const commands = smtp.sessions.at(-1)!;
  assert.equal(commands.filter((c) => c.startsWith('MAIL FROM')).length, 3);
  assert.equal(commands.filter((c) => c === 'QUIT').length, 0, 'kept, not ended');
});

test('a kept session the server ended: the message goes out once, over a new connection', async () => {
  await sendOne();
  const connections = smtp.sessions.length;
  // The server ends its idle sessions (a restart): the sender may not have heard of it yet.
  smtp.plan();
  const phases: SmtpPhase[] = [];
  const { messageId } = await sendOne(phases);
  assert.equal(copies(messageId), 1);
  assert.equal(smtp.sessions.length - connections, 1, 'a new connection');
  assert.deepEqual(phases.slice(-4), ['connect', 'mail_from', 'data', 'data_end']);
});

test('a kept session that answers 421 when used: the message goes out once, over a new connection', async () => {
  await sendOne();
  const connections = smtp.sessions.length;
  smtp.expireIdle();
  const phases: SmtpPhase[] = [];
  const { messageId } = await sendOne(phases);
  assert.equal(copies(messageId), 1);
  assert.equal(smtp.sessions.length - connections, 1, 'a new connection');
  assert.equal(smtp.sessions.at(-2)?.at(-1)?.startsWith('MAIL FROM'), true, 'the kept session was tried first');
  assert.deepEqual(phases, ['mail_from', 'connect', 'mail_from', 'data', 'data_end']);
});

test('a failed message ends its session: the next one gets a new connection, and the planned behaviour', async () => {
  await sendOne();
  smtp.plan('reply451AfterData');
  await assert.rejects(sendOne(), { code: 'SMTP_TRANSIENT' });
  const connections = smtp.sessions.length;
  const { messageId } = await sendOne();
  assert.equal(copies(messageId), 1);
  assert.equal(smtp.sessions.length - connections, 1, 'the refused session was not kept');
});

test('a break after the final dot is in doubt: never sent again over another connection', async () => {
  await sendOne();
  const before = smtp.received.length;
  // Planned for the next connection; a kept session would be 'ok', so plan() ends it first.
  smtp.plan('dropAfterData');
  await assert.rejects(sendOne(), (err: unknown) => (err as { code?: string }).code === 'SMTP_IN_DOUBT');
  assert.equal(smtp.received.length - before, 1, 'handed over once, not repeated over a new connection');
});
