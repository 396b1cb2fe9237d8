import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import nodemailer from 'nodemailer';
import { startSmtpSink } from '../support/services/smtp-sink';
import type { SmtpSink } from '../support/services/smtp-sink';

let dir: string;
let sink: SmtpSink;

before(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'email-rag-smtp-'));
  sink = await startSmtpSink({ dir });
});

after(async () => {
  await sink?.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

function transport(auth?: { user: string; pass: string }) {
  return nodemailer.createTransport({ host: sink.host, port: sink.port, secure: false, ignoreTLS: true, auth });
}

test('records the envelope and the raw message, also as a .eml file', async () => {
  const already = sink.messages.length;
  const info = await transport().sendMail({
    from: { name: 'Support', address: 'support@example.test' },
    to: [{ name: 'Kunde', address: 'kunde@example.test' }],
    bcc: [{ name: '', address: 'archive@example.test' }],
    subject: 'Ihre Anfrage',
    text: 'Guten Tag',
  });
  assert.deepEqual(info.accepted, ['kunde@example.test', 'archive@example.test']);
  const mail = (await sink.waitForMessages(already + 1, 5_000))[already];
  assert.ok(mail);
  assert.equal(mail.envelope.mailFrom, 'support@example.test');
  assert.deepEqual(mail.envelope.rcptTo, ['kunde@example.test', 'archive@example.test']);
  const raw = mail.raw.toString('utf8');
  assert.match(raw, /^Subject: Ihre Anfrage\r$/m);
  assert.doesNotMatch(raw, /archive@example\.test/, 'Bcc stays out of the message');
  assert.ok(mail.receivedAt instanceof Date);
  const files = fs.readdirSync(dir).filter((f) => f.endsWith('.eml'));
  assert.equal(files.length, sink.messages.length);
});

test('accepts AUTH from any user', async () => {
  const already = sink.messages.length;
  await transport({ user: 'anyone', pass: 'whatever' }).sendMail({
    from: 'a@example.test',
    to: 'b@example.test',
    subject: 'auth',
    text: 'x',
  });
  await sink.waitForMessages(already + 1, 5_000);
});

test('failNext(1, 451) fails exactly one delivery with a transient code', async () => {
  const already = sink.messages.length;
  sink.failNext(1, 451, 'Try again later');
  const mail = { from: 'a@example.test', to: 'b@example.test', subject: 'retry', text: 'x' };
  await assert.rejects(transport().sendMail(mail), (err: Error & { responseCode?: number }) => {
    assert.equal(err.responseCode, 451);
    return true;
  });
  assert.equal(sink.messages.length, already, 'the refused message is not recorded');
  await transport().sendMail(mail);
  assert.equal((await sink.waitForMessages(already + 1, 5_000)).length, already + 1);
});

test('failNext(1, 550) fails with a permanent code', async () => {
  sink.failNext(1, 550, 'Mailbox unavailable');
  await assert.rejects(
    transport().sendMail({ from: 'a@example.test', to: 'b@example.test', subject: 'no', text: 'x' }),
    (err: Error & { responseCode?: number }) => err.responseCode === 550,
  );
});

test('waitForMessages rejects after its timeout', async () => {
  await assert.rejects(sink.waitForMessages(sink.messages.length + 1, 200), /expected/);
});

test('keepMessages: false (long benchmarks) keeps only the counts and the Message-IDs seen', async () => {
  const counting = await startSmtpSink({ keepMessages: false });
  try {
    const send = (messageId: string) =>
      nodemailer
        .createTransport({ host: counting.host, port: counting.port, secure: false, ignoreTLS: true })
        .sendMail({ from: 'a@example.test', to: 'b@example.test', subject: 'n', text: 'x', messageId });
    await send('<one@example.test>');
    await send('<two@example.test>');
    await send('<one@example.test>');
    assert.deepEqual(await counting.waitForMessages(3, 5_000), []);
    assert.deepEqual(counting.counts(), { received: 3, duplicates: 1, connections: 3 }, 'a transport per message: three connections');
    assert.equal(counting.messages.length, 0, 'no raw message is held');
  } finally {
    await counting.stop();
  }
  // The default sink counts too, beside the messages it keeps.
  assert.equal(sink.counts().received, sink.messages.length);
});
