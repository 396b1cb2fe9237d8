import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { loadConfig } from '../../src/config';
import { chooseMailbox } from '../../src/mailboxes/mailbox-choice';
import { runCli } from '../support/cli-run';

const entry = (id: string) =>
  `  - id: ${id}\n    imap: { user: ${id}@example.test, password: { env: PW } }\n    smtp: { from: ${id}@example.test }\n`;

/** A registry file with these mailboxes, and one message to import. */
function installation(...ids: string[]): { registry: string; mail: string } {
  const dir = mkdtempSync(path.join(tmpdir(), 'ingest-mailbox-'));
  const registry = path.join(dir, 'mailboxes.yaml');
  writeFileSync(registry, `version: 1\nmailboxes:\n${ids.map(entry).join('')}`);
  const mail = path.join(dir, 'one.eml');
  writeFileSync(
    mail,
    'From: a@customer.test\r\nTo: support@example.test\r\nSubject: Hallo\r\nMessage-ID: <1@customer.test>\r\n\r\nText\r\n',
  );
  return { registry, mail };
}

const mailboxesOf = (...ids: string[]) => loadConfig({ MAILBOXES_FILE: installation(...ids).registry }).mailboxes;

test('without --mailbox: the only mailbox, else "default"; with several and no default the operator chooses', () => {
  const only = chooseMailbox(mailboxesOf('support'));
  assert.ok('mailbox' in only && only.mailbox.id === 'support', 'the only mailbox, whatever its id');
  const kept = chooseMailbox(mailboxesOf('billing', 'default'));
  assert.ok('mailbox' in kept && kept.mailbox.id === 'default', 'a registry that kept the id default');
  assert.deepEqual(chooseMailbox(mailboxesOf('support', 'billing')), {
    problem: 'the registry has 2 mailboxes: choose one with --mailbox (support, billing)',
  });
  const named = chooseMailbox(mailboxesOf('support', 'billing'), 'billing');
  assert.ok('mailbox' in named && named.mailbox.id === 'billing');
  assert.deepEqual(chooseMailbox(mailboxesOf('support'), 'sales'), { problem: 'unknown mailbox "sales" (known: support)' });
});

const offline = { TEMPORAL_ADDRESS: '127.0.0.1:1', DATABASE_URL: 'mariadb://root@127.0.0.1:1/x', PW: 'pw' };

test('email-rag ingest with one mailbox "support" takes it without --mailbox (and goes on to the database)', async () => {
  const { registry, mail } = installation('support');
  const r = await runCli({ ...offline, MAILBOXES_FILE: registry }, ['ingest', mail]);
  assert.doesNotMatch(r.stderr, /mailbox/, r.stderr);
  assert.equal(r.code, 3, r.stderr);
  assert.match(r.stderr, /cannot reach MariaDB/);
});

test('email-rag ingest with several mailboxes names them and exits 2', async () => {
  const { registry, mail } = installation('support', 'billing');
  const r = await runCli({ ...offline, MAILBOXES_FILE: registry }, ['ingest', mail]);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /^email-rag: the registry has 2 mailboxes: choose one with --mailbox \(support, billing\)/);
});
