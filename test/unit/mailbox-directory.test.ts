/**
 * The mailbox directory's secret handling: a missing secret fails only its own mailbox, with an
 * error that names the entry and the variable or file, never a value. No server is reached: the
 * adapter factories only record the settings they were built with.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { createMailboxDirectory } from '../../src/mailboxes/mailbox-directory';
import type { ImapSettings } from '../../src/mailboxes/imap-connection.imap';
import type { SmtpSettings } from '../../src/mailboxes/mail-sender.smtp';
import { loadConfig } from '../../src/config';
import { EmailRagError } from '../../src/platform/errors';
import { resolveSecret, type MailboxEntry } from '../../src/mailboxes/mailbox-registry';
import { isolationKey } from '../../src/mailboxes/mailbox-scope';
import type { MailSender } from '../../src/mailboxes/mail-sender.port';
import type { ImapConnection } from '../../src/mailboxes/imap-connection.port';

function entry(
  id: string,
  over: { imapPassword?: MailboxEntry['imap']['password']; smtpPassword?: MailboxEntry['smtp']['password'] } = {},
) {
  const e: MailboxEntry = {
    id,
    enabled: true,
    team: `account:${id}@example.test`,
    imap: {
      host: '127.0.0.1',
      port: 143,
      tls: false,
      user: `${id}@example.test`,
      password: over.imapPassword ?? { env: `${id.toUpperCase()}_IMAP_PASSWORD` },
      folders: ['INBOX'],
      sentFolder: 'Sent',
      pollIntervalSeconds: 60,
    },
    smtp: {
      host: '127.0.0.1',
      port: 25,
      tls: false,
      timeoutMs: 5000,
      from: { name: id, address: `${id}@example.test` },
      ...(over.smtpPassword ? { user: id, password: over.smtpPassword } : {}),
    },
    priorityRules: [],
    language: 'de',
  };
  return e;
}

/** Factories that never connect: they record what the directory built and whether it was closed. */
function recorder() {
  const imap: ImapSettings[] = [];
  const smtp: SmtpSettings[] = [];
  let closed = 0;
  const mailbox = (s: ImapSettings): ImapConnection => {
    imap.push(s);
    return {
      listSince: async () => ({ uidValidity: 1, highestUid: 0, messages: [] }),
      fetchRaw: async () => Buffer.alloc(0),
      folderMark: async () => ({ uidValidity: '1', uidNext: 1 }),
      appendOnce: async () => 'appended',
      findByMessageId: async () => null,
      close: async () => void (closed += 1),
    };
  };
  const sender = (s: SmtpSettings): MailSender => {
    smtp.push(s);
    return { send: async () => Promise.reject(new Error('not in this test')), close: async () => void (closed += 1) };
  };
  return { imap, smtp, mailbox, sender, closed: () => closed };
}

async function refusal(p: Promise<unknown>): Promise<EmailRagError> {
  const err = await p.then(
    () => assert.fail('expected a refusal'),
    (e: unknown) => e,
  );
  assert.ok(err instanceof EmailRagError, String(err));
  return err;
}

test('a missing secret variable fails only its own mailbox, naming the entry and the variable, never a value', async () => {
  const env = { SUPPORT_IMAP_PASSWORD: 'right-horse-battery', BILLING_SMTP_PASSWORD: 'staple-value-42' };
  const r = recorder();
  const dir = createMailboxDirectory([entry('support'), entry('billing', { smtpPassword: { env: 'BILLING_SMTP_PASSWORD' } })], {
    readSecret: (ref) => resolveSecret(ref, env),
    createImapConnection: r.mailbox,
    createSender: r.sender,
  });
  // Looking a mailbox up reads no secret: only its first use does.
  const billing = dir.get('billing');
  const err = await refusal(billing.imap.listSince('INBOX', 0, 10));
  assert.equal(err.code, 'MAILBOX_SECRET');
  assert.equal(err.errorClass, 'permanent');
  assert.match(err.message, /mailbox "billing"/);
  assert.match(err.message, /BILLING_IMAP_PASSWORD/);
  for (const value of Object.values(env)) assert.ok(!err.message.includes(value), 'no secret value in the message');
  assert.equal(r.imap.length, 0, 'no adapter was built without its secret');

  // The other mailbox is untouched; billing's SMTP side has its own (present) secret.
  assert.deepEqual(await dir.get('support').imap.listSince('INBOX', 0, 10), { uidValidity: 1, highestUid: 0, messages: [] });
  assert.equal(r.imap[0]?.user, 'support@example.test');
  assert.equal(r.imap[0]?.password, 'right-horse-battery');
  await assert.rejects(billing.sender.send({} as never, {} as never), /not in this test/);
  assert.equal(r.smtp[0]?.password, 'staple-value-42');

  // Once the operator sets it, the same directory builds the adapter on the next use.
  Object.assign(env, { BILLING_IMAP_PASSWORD: 'now-set' });
  await billing.imap.listSince('INBOX', 0, 10);
  assert.equal(r.imap.at(-1)?.password, 'now-set');
  assert.match(r.imap.at(-1)?.hints?.login ?? '', /\$BILLING_IMAP_PASSWORD\) of mailbox "billing"/);

  await dir.close();
  assert.equal(r.closed(), 3, 'every adapter that was opened is closed, and only those');
});

test('a secret file that cannot be read names the file; an unknown mailbox id is refused for good', async () => {
  const tmp = mkdtempSync(path.join(tmpdir(), 'mbx-dir-'));
  try {
    const file = path.join(tmp, 'imap-password');
    const r = recorder();
    const dir = createMailboxDirectory([entry('info', { imapPassword: { file } })], {
      readSecret: (ref) => resolveSecret(ref, {}),
      createImapConnection: r.mailbox,
      createSender: r.sender,
    });
    const err = await refusal(dir.get('info').imap.fetchRaw({ mailbox: 'INBOX', uidValidity: 1, uid: 1, maxBytes: 10 }));
    assert.equal(err.code, 'MAILBOX_SECRET');
    assert.ok(err.message.includes(file), err.message);
    writeFileSync(file, 'from-file\n');
    await dir.get('info').imap.fetchRaw({ mailbox: 'INBOX', uidValidity: 1, uid: 1, maxBytes: 10 });
    assert.equal(r.imap[0]?.password, 'from-file', 'the trailing newline is not part of the secret');

    const unknown = await refusal(Promise.resolve().then(() => dir.get('sales')));
    assert.equal(unknown.code, 'UNKNOWN_MAILBOX');
    assert.equal(unknown.errorClass, 'permanent');
    assert.match(unknown.message, /mailbox "sales" is not in the registry \(known: info\)/);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
});

test('the registry: every mailbox’s From address is our own; teams share one isolation key, accounts do not', () => {
  const tmp = mkdtempSync(path.join(tmpdir(), 'mbx-cfg-'));
  try {
    const file = path.join(tmp, 'mailboxes.yaml');
    writeFileSync(
      file,
      [
        'version: 1',
        'mailboxes:',
        '  - id: support',
        '    imap: { user: support@example.test, password: { env: SUPPORT_PW } }',
        '    smtp: { from: "Support <support@example.test>" }',
        '  - id: billing',
        '    imap: { user: billing@example.test, password: { env: BILLING_PW }, folders: [INBOX, Rechnungen] }',
        '    smtp: { from: "Billing <billing@shop.example>" }',
        '  - id: sales',
        '    team: front',
        '    imap: { user: sales@example.test, password: { env: SALES_PW } }',
        '    smtp: { from: sales@example.test }',
        '  - id: info',
        '    team: front',
        '    imap: { user: info@example.test, password: { env: INFO_PW }, folders: [Anfragen] }',
        '    smtp: { from: info@example.test }',
      ].join('\n'),
    );
    const config = loadConfig({ MAILBOXES_FILE: file, SUPPORT_PW: 'x' });
    for (const a of ['support@example.test', 'billing@shop.example', 'sales@example.test', 'info@example.test']) {
      assert.ok(config.triage.ownAddresses.includes(a), a);
    }
    assert.equal(config.readSecret({ env: 'SUPPORT_PW' }), 'x', 'secrets come from the environment the config was read from');
    assert.throws(() => config.readSecret({ env: 'BILLING_PW' }), /secret variable BILLING_PW is not set/);
    assert.ok(!JSON.stringify(config).includes('"x"'), 'the config never carries a secret value when printed');

    const [support, billing, sales, info] = config.mailboxes as [MailboxEntry, MailboxEntry, MailboxEntry, MailboxEntry];
    // Without a team: the key a single-account installation always had (account + folder).
    assert.deepEqual(isolationKey(support, 'INBOX'), { account: 'support@example.test', mailbox: 'INBOX' });
    assert.notDeepEqual(isolationKey(billing, 'INBOX'), isolationKey(support, 'INBOX'));
    // One team, two accounts and folders: one key.
    assert.deepEqual(isolationKey(sales, 'INBOX'), isolationKey(info, 'Anfragen'));
    assert.notEqual(isolationKey(sales, 'INBOX').account, 'sales@example.test');
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
});
