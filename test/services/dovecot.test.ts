import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { ImapFlow } from 'imapflow';
import { startDovecot } from '../support/services/dovecot';
import type { DovecotServer } from '../support/services/dovecot';

const USER = { user: 'alice', password: 's3cret' };
let dir: string;
let server: DovecotServer;

before(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'email-rag-dovecot-'));
  server = await startDovecot({ dir, users: [USER, { user: 'bob', password: 'other' }] });
});

after(async () => {
  await server?.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

function client(auth = USER): ImapFlow {
  const c = new ImapFlow({
    host: server.host,
    port: server.port,
    secure: false,
    auth: { user: auth.user, pass: auth.password },
    logger: false,
  });
  c.on('error', () => undefined);
  return c;
}

test('delivers a message and reads it back over IMAP', async () => {
  const raw =
    'From: Carol <carol@example.test>\r\n' +
    'To: alice@example.test\r\n' +
    'Subject: Angebot Anfrage\r\n' +
    'Message-ID: <dovecot-test-1@example.test>\r\n' +
    'Date: Mon, 01 Jan 2024 10:00:00 +0000\r\n' +
    '\r\n' +
    'Hallo, bitte ein Angebot.\r\n';
  await server.deliver('alice', raw);

  const imap = client();
  await imap.connect();
  try {
    const lock = await imap.getMailboxLock('INBOX');
    try {
      const messages = [];
      for await (const msg of imap.fetch('1:*', { uid: true, envelope: true, source: true })) messages.push(msg);
      assert.equal(messages.length, 1);
      const msg = messages[0];
      assert.ok(msg);
      assert.equal(msg.envelope?.subject, 'Angebot Anfrage');
      assert.equal(msg.envelope?.messageId, '<dovecot-test-1@example.test>');
      assert.ok(msg.uid > 0);
      assert.equal(msg.source?.toString('utf8'), raw);
    } finally {
      lock.release();
    }
  } finally {
    await imap.logout();
  }
});

test('a Sent mailbox exists and deliver() can target it', async () => {
  await server.deliver('alice', 'Subject: copy\r\n\r\nsent copy\r\n', 'Sent');
  const imap = client();
  await imap.connect();
  try {
    const boxes = await imap.list();
    const sent = boxes.find((b) => b.path === 'Sent');
    assert.ok(sent, `Sent in ${boxes.map((b) => b.path).join(', ')}`);
    assert.equal(sent.specialUse, '\\Sent');
    const status = await imap.status('Sent', { messages: true });
    assert.ok(status);
    assert.equal(status.messages, 1);
  } finally {
    await imap.logout();
  }
});

test('deliver() creates a missing mailbox', async () => {
  await server.deliver('alice', 'Subject: archived\r\n\r\nold\r\n', 'Archive');
  const imap = client();
  await imap.connect();
  try {
    const status = await imap.status('Archive', { messages: true });
    assert.ok(status);
    assert.equal(status.messages, 1);
  } finally {
    await imap.logout();
  }
});

test('wrong password is refused, other users are separate', async () => {
  await assert.rejects(client({ user: 'alice', password: 'wrong' }).connect());
  const imap = client({ user: 'bob', password: 'other' });
  await imap.connect();
  try {
    const status = await imap.status('INBOX', { messages: true });
    assert.ok(status);
    assert.equal(status.messages, 0);
  } finally {
    await imap.logout();
  }
});

test('starts from a directory about 150 characters deep (sockets stay short)', async () => {
  const top = fs.mkdtempSync(path.join(os.tmpdir(), 'email-rag-deep-'));
  let deep = top;
  while (deep.length < 150) deep = path.join(deep, 'a-rather-long-checkout-folder');
  assert.ok(deep.length >= 150, deep);
  // Dovecot's own socket names add ~30 bytes: inside this dir they would pass the 108-byte limit.
  assert.ok(path.join(deep, 'run', 'login', 'imap-urlauth-worker').length > 108);
  let deepServer: DovecotServer | undefined;
  try {
    deepServer = await startDovecot({ dir: deep, users: [USER] });
    assert.ok(deepServer.runDir.length < 40, deepServer.runDir);
    assert.ok(fs.existsSync(deepServer.runDir));
    await deepServer.deliver(USER.user, 'Subject: deep\r\n\r\nfrom a deep checkout\r\n');
    const imap = new ImapFlow({
      host: deepServer.host,
      port: deepServer.port,
      secure: false,
      auth: { user: USER.user, pass: USER.password },
      logger: false,
    });
    imap.on('error', () => undefined);
    await imap.connect();
    try {
      const status = await imap.status('INBOX', { messages: true });
      assert.ok(status);
      assert.equal(status.messages, 1);
    } finally {
      await imap.logout();
    }
    await deepServer.stop();
    assert.equal(fs.existsSync(deepServer.runDir), false, 'stop() removes the socket folder');
  } finally {
    await deepServer?.stop();
    fs.rmSync(top, { recursive: true, force: true });
  }
});
