/**
 * The IMAP adapter against a real Dovecot: a login refused because the account has too many
 * sessions open (several workers, one user) is a busy server, retried, not a wrong password.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { ImapFlow } from 'imapflow';
import { createImapMailbox } from '../../adapters/imap-mailbox';
import { PermanentError, TransientError } from '../../lib/errors';
import { startDovecot, type DovecotServer } from '../../scripts/services/dovecot';

const USER = { user: 'busy@example.test', password: 'secret' };
let dovecot: DovecotServer;
let dir: string;

before(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'email-rag-imap-'));
  dovecot = await startDovecot({ dir: path.join(dir, 'dovecot'), users: [USER] });
});
after(async () => {
  await dovecot?.stop();
  rmSync(dir, { recursive: true, force: true });
});

test("a login refused for the account's connection limit is transient (IMAP_BUSY); a wrong password stays permanent", async () => {
  const settings = { host: dovecot.host, port: dovecot.port, tls: false, user: USER.user, password: USER.password };
  const held: ImapFlow[] = [];
  try {
    // Dovecot allows 10 sessions per user and address by default: take them all.
    for (;;) {
      const c = new ImapFlow({
        host: dovecot.host,
        port: dovecot.port,
        secure: false,
        auth: { user: USER.user, pass: USER.password },
        logger: false,
      });
      c.on('error', () => undefined);
      try {
        await c.connect();
      } catch {
        break;
      }
      held.push(c);
      assert.ok(held.length <= 50, 'the server should limit sessions per user');
    }
    assert.ok(held.length >= 1);
    const busy = createImapMailbox(settings);
    await assert.rejects(busy.listSince('INBOX', 0, 10), (err: unknown) => {
      assert.ok(err instanceof TransientError, `expected a transient error, got ${String(err)}`);
      assert.equal((err as TransientError).code, 'IMAP_BUSY');
      return true;
    });
    await busy.close();
  } finally {
    await Promise.allSettled(held.map((c) => c.logout()));
  }
  // Sessions ended: the same mailbox works again, and a wrong password is still a wrong password.
  const ok = createImapMailbox(settings);
  assert.equal((await ok.listSince('INBOX', 0, 10)).messages.length, 0);
  await ok.close();
  const wrong = createImapMailbox({ ...settings, password: 'not-the-password' });
  await assert.rejects(wrong.listSince('INBOX', 0, 10), (err: unknown) => err instanceof PermanentError && err.code === 'IMAP_AUTH');
  await wrong.close();
});

test('a reused session keeps the folder selected, yet finds mail that arrived after its SELECT; a missing UID is gone', async () => {
  const settings = { host: dovecot.host, port: dovecot.port, tls: false, user: USER.user, password: USER.password };
  const mailbox = createImapMailbox(settings);
  try {
    await dovecot.deliver(USER.user, 'Message-ID: <first@x>\r\nSubject: first\r\n\r\nfirst body\r\n');
    const listing = await mailbox.listSince('INBOX', 0, 100);
    const first = listing.messages.at(-1)!;
    const raw1 = await mailbox.fetchRaw({ mailbox: 'INBOX', uidValidity: listing.uidValidity, uid: first.uid, maxBytes: 1_000_000 });
    assert.match(raw1.toString(), /first body/);
    // Delivered while the session still has INBOX selected from the fetch above.
    await dovecot.deliver(USER.user, 'Message-ID: <second@x>\r\nSubject: second\r\n\r\nsecond body\r\n');
    const raw2 = await mailbox.fetchRaw({ mailbox: 'INBOX', uidValidity: listing.uidValidity, uid: first.uid + 1, maxBytes: 1_000_000 });
    assert.match(raw2.toString(), /second body/);
    await assert.rejects(
      mailbox.fetchRaw({ mailbox: 'INBOX', uidValidity: listing.uidValidity, uid: first.uid + 50, maxBytes: 1_000_000 }),
      (err: unknown) => err instanceof PermanentError && err.code === 'MESSAGE_GONE',
    );
    await assert.rejects(
      mailbox.fetchRaw({ mailbox: 'INBOX', uidValidity: listing.uidValidity + 1, uid: first.uid, maxBytes: 1_000_000 }),
      (err: unknown) => err instanceof PermanentError && err.code === 'UIDVALIDITY_CHANGED',
    );
  } finally {
    await mailbox.close();
  }
});
