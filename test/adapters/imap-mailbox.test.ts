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
import { createImapConnection } from '../../src/mailboxes/imap-connection.imap';
import { PermanentError, TransientError } from '../../src/platform/errors';
import { startDovecot, type DovecotServer } from '../support/services/dovecot';
import { withImap } from '../support/imap-session';

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
    const busy = createImapConnection(settings);
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
  const ok = createImapConnection(settings);
  assert.equal((await ok.listSince('INBOX', 0, 10)).messages.length, 0);
  await ok.close();
  const wrong = createImapConnection({ ...settings, password: 'not-the-password' });
  await assert.rejects(wrong.listSince('INBOX', 0, 10), (err: unknown) => err instanceof PermanentError && err.code === 'IMAP_AUTH');
  await wrong.close();
});

test('a reused session keeps the folder selected, yet finds mail that arrived after its SELECT; a missing UID is gone', async () => {
  const settings = { host: dovecot.host, port: dovecot.port, tls: false, user: USER.user, password: USER.password };
  const mailbox = createImapConnection(settings);
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

const login = () => ({ host: dovecot.host, port: dovecot.port, user: USER.user, password: USER.password });

/** The Message-IDs in a folder, oldest first (a separate session, as a mail client would look). */
const messageIdsIn = (folder: string): Promise<string[]> =>
  withImap(login(), async (c) => {
    await c.mailboxOpen(folder);
    const ids: string[] = [];
    for await (const m of c.fetch('1:*', { envelope: true })) ids.push(m.envelope?.messageId ?? '');
    return ids;
  });

/** Files a message from another session, as a provider that keeps sent mail does. */
const fileElsewhere = (folder: string, id: string) =>
  withImap(login(), async (c) => {
    await c.append(folder, sentMail(id), ['\\Seen']);
  });

const sentMail = (id: string) => Buffer.from(`Message-ID: ${id}\r\nSubject: Re: ${id}\r\n\r\nreply ${id}\r\n`);

test('a Sent copy is filed once: the folder mark bounds the search to what arrived after it, a recreated folder is searched whole', async () => {
  const settings = { host: dovecot.host, port: dovecot.port, tls: false, user: USER.user, password: USER.password };
  const mailbox = createImapConnection(settings);
  try {
    // A missing folder has no mark (the send goes on without); the first append creates the folder.
    await assert.rejects(mailbox.folderMark('Gesendet'));
    assert.equal(await mailbox.appendOnce('Gesendet', sentMail('<r0@x>'), '<r0@x>'), 'appended');
    for (let i = 1; i <= 5; i++) assert.equal(await mailbox.appendOnce('Gesendet', sentMail(`<old${i}@x>`), `<old${i}@x>`), 'appended');

    // As a server that files sent mail itself: a copy that arrives after the mark is found, not filed again.
    const mark = await mailbox.folderMark('Gesendet');
    assert.equal(mark.uidNext, 7, 'six messages are in the folder');
    await fileElsewhere('Gesendet', '<r1@x>');
    assert.equal(await mailbox.appendOnce('Gesendet', sentMail('<r1@x>'), '<r1@x>', mark), 'present');
    // Without a copy since the mark it is filed, once; a retry of the same append finds it.
    assert.equal(await mailbox.appendOnce('Gesendet', sentMail('<r2@x>'), '<r2@x>', mark), 'appended');
    assert.equal(await mailbox.appendOnce('Gesendet', sentMail('<r2@x>'), '<r2@x>', mark), 'present');
    // Older messages are outside the mark's range: only what came later is looked at.
    assert.equal(await mailbox.appendOnce('Gesendet', sentMail('<old1@x>'), '<old1@x>', await mailbox.folderMark('Gesendet')), 'appended');
    // Without a mark the whole folder is searched.
    assert.equal(await mailbox.appendOnce('Gesendet', sentMail('<old2@x>'), '<old2@x>'), 'present');
    // A mark counts what other sessions filed, also on a session that has the folder selected.
    const before = await mailbox.folderMark('Gesendet');
    await fileElsewhere('Gesendet', '<r9@x>');
    assert.equal((await mailbox.folderMark('Gesendet')).uidNext, before.uidNext + 1);
    assert.deepEqual(await messageIdsIn('Gesendet'), [
      '<r0@x>',
      '<old1@x>',
      '<old2@x>',
      '<old3@x>',
      '<old4@x>',
      '<old5@x>',
      '<r1@x>',
      '<r2@x>',
      '<old1@x>',
      '<r9@x>',
    ]);

    // The folder deleted and created again (new UIDVALIDITY): a mark from before says nothing about it.
    const stale = await mailbox.folderMark('Gesendet');
    await mailbox.close();
    await withImap(login(), async (c) => {
      await c.mailboxDelete('Gesendet');
      // Dovecot derives a new folder's UIDVALIDITY from the clock's seconds.
      await new Promise((r) => setTimeout(r, 1_100));
      await c.mailboxCreate('Gesendet');
      await c.append('Gesendet', sentMail('<r3@x>'), ['\\Seen']);
    });
    const later = createImapConnection(settings);
    try {
      const fresh = await later.folderMark('Gesendet');
      assert.notEqual(fresh.uidValidity, stale.uidValidity);
      assert.equal(await later.appendOnce('Gesendet', sentMail('<r3@x>'), '<r3@x>', stale), 'present');
      assert.deepEqual(await messageIdsIn('Gesendet'), ['<r3@x>']);
    } finally {
      await later.close();
    }
  } finally {
    await mailbox.close();
  }
});

test('a folder mark up to maxAgeMs old answers without the server; a copy filed after it is still found', async () => {
  const settings = { host: dovecot.host, port: dovecot.port, tls: false, user: USER.user, password: USER.password };
  const mailbox = createImapConnection(settings);
  try {
    assert.equal(await mailbox.appendOnce('Ablage', sentMail('<a0@x>'), '<a0@x>'), 'appended');
    const first = await mailbox.folderMark('Ablage', { maxAgeMs: 60_000 });
    await fileElsewhere('Ablage', '<a1@x>');
    // The earlier mark is returned as it was: the folder has moved on since.
    assert.deepEqual(await mailbox.folderMark('Ablage', { maxAgeMs: 60_000 }), first);
    assert.equal((await mailbox.folderMark('Ablage')).uidNext, first.uidNext + 1, 'without maxAgeMs the server is asked');
    // A copy filed after the earlier mark is inside its range: found, not filed twice.
    assert.equal(await mailbox.appendOnce('Ablage', sentMail('<a1@x>'), '<a1@x>', first), 'present');
    await fileElsewhere('Ablage', '<a2@x>');
    assert.equal((await mailbox.folderMark('Ablage', { maxAgeMs: 0 })).uidNext, first.uidNext + 2, 'an older mark is read again');
    assert.deepEqual(await messageIdsIn('Ablage'), ['<a0@x>', '<a1@x>', '<a2@x>']);
  } finally {
    await mailbox.close();
  }
});

test('a reply is looked up by Message-ID: where it is (folder, UIDVALIDITY, UID), null when absent or the folder is missing', async () => {
  const settings = { host: dovecot.host, port: dovecot.port, tls: false, user: USER.user, password: USER.password };
  const mailbox = createImapConnection(settings);
  try {
    assert.equal(await mailbox.findByMessageId('Nirgends', '<n1@x>'), null, 'a missing folder holds nothing');
    await withImap(login(), async (c) => {
      await c.mailboxCreate('Versendet');
    });
    await fileElsewhere('Versendet', '<early@x>');
    const mark = await mailbox.folderMark('Versendet');
    assert.equal(await mailbox.findByMessageId('Versendet', '<late@x>', mark), null);
    // Filed by another session (the provider) after the mark: found, also on the session that has the folder selected.
    await fileElsewhere('Versendet', '<late@x>');
    assert.deepEqual(await mailbox.findByMessageId('Versendet', '<late@x>', mark), {
      folder: 'Versendet',
      uidValidity: mark.uidValidity,
      uid: mark.uidNext,
    });
    // Before the mark is out of range; without a mark the whole folder counts.
    assert.equal(await mailbox.findByMessageId('Versendet', '<early@x>', mark), null);
    assert.equal((await mailbox.findByMessageId('Versendet', '<early@x>'))?.uid, mark.uidNext - 1);
    // A hostile id is a search string, nothing more: quotes and brackets find nothing and break nothing.
    assert.equal(await mailbox.findByMessageId('Versendet', '<a"b) OR ALL (@x>'), null);
    assert.deepEqual(await messageIdsIn('Versendet'), ['<early@x>', '<late@x>'], 'the lookup changed nothing');
  } finally {
    await mailbox.close();
  }
});
