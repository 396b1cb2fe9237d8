/**
 * `email-rag status` per mailbox on real MariaDB: emails per status and mailbox, when each folder
 * last polled successfully and, while it fails, why and how many times in a row.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import { createMariaDbMailboxHealth } from '../../src/mailboxes/mailbox-health.mariadb';
import { formatStatus, status } from '../../src/operations/status.cli';
import { loadConfig, type Config } from '../../src/config';
import { createTestDatabase } from '../support/database';
import { writeRegistry } from '../support/mailbox-registry-file';

let db: Awaited<ReturnType<typeof createTestDatabase>>;
let dir: string;
let config: Config;

before(async () => {
  db = await createTestDatabase('statusmbx');
  dir = mkdtempSync(path.join(tmpdir(), 'email-rag-status-'));
  writeRegistry(path.join(dir, 'mailboxes.yaml'), [
    {
      id: 'support',
      user: 'support@example.test',
      passwordEnv: 'SUPPORT_PW',
      folders: ['INBOX', 'Escalations'],
      from: 'support@example.test',
    },
    { id: 'billing', user: 'billing@example.test', passwordEnv: 'BILLING_PW', from: 'billing@example.test' },
    { id: 'info', enabled: false, user: 'info@example.test', passwordEnv: 'INFO_PW', from: 'info@example.test' },
  ]);
  config = loadConfig({ DATABASE_URL: db.url, MAILBOXES_FILE: path.join(dir, 'mailboxes.yaml') });
});
after(async () => {
  await db?.drop();
  rmSync(dir, { recursive: true, force: true });
});

test('status shows emails per status for each mailbox and each folder’s last success and current failure', async () => {
  const rows: Array<[string, string, string]> = [
    ['s1', 'support', 'awaiting_approval'],
    ['s2', 'support', 'awaiting_approval'],
    ['s3', 'support', 'sent'],
    ['b1', 'billing', 'fetched'],
    // Taken in before the registry existed: the single-account mailbox, no longer configured.
    ['d1', 'default', 'sent'],
  ];
  for (const [id, mailbox, st] of rows)
    await db.pool.query('INSERT INTO emails (id, source, status, mailbox_id) VALUES (?, ?, ?, ?)', [id, 'imap', st, mailbox]);
  const health = createMariaDbMailboxHealth(db.pool);
  await health.recordPollSuccess({ mailboxId: 'support', folder: 'INBOX', started: 2 });
  await health.recordPollSuccess({ mailboxId: 'billing', folder: 'INBOX', started: 1 });
  for (let i = 0; i < 3; i++)
    await health.recordPollFailure({
      mailboxId: 'billing',
      folder: 'INBOX',
      error: 'IMAP login refused: AUTHENTICATIONFAILED',
      errorClass: 'permanent',
    });

  const report = await status(config);
  assert.deepEqual(
    report.mailboxes.map((m) => [m.id, m.registry, m.emails]),
    [
      ['support', 'enabled', { awaiting_approval: 2, sent: 1 }],
      ['billing', 'enabled', { fetched: 1 }],
      ['info', 'disabled', {}],
      ['default', 'removed', { sent: 1 }],
    ],
  );
  const billing = report.mailboxes[1]!.folders[0]!;
  assert.equal(billing.folder, 'INBOX');
  assert.equal(billing.health?.failuresInARow, 3);
  assert.ok(billing.health?.lastSuccessAt, 'the last success is kept while it fails');
  assert.equal(report.mailboxes[0]!.folders[1]!.health, null, 'Escalations never polled');
  assert.equal(report.emails.awaiting_approval, 2, 'the totals stay');

  const text = formatStatus(report);
  assert.match(text, /^mailboxes:$/m);
  assert.match(text, /^ {2}support: awaiting_approval=2 {2}sent=1$/m);
  assert.match(text, /^ {4}INBOX: last success \d{4}-\d\d-\d\dT[\d:.]+Z$/m);
  assert.match(text, /^ {4}Escalations: never polled$/m);
  assert.match(text, /^ {2}billing: fetched=1$/m);
  assert.match(
    text,
    /^ {4}INBOX: last success [\dT:.Z-]+; FAILING 3 times in a row since then: \[permanent\] IMAP login refused: AUTHENTICATIONFAILED$/m,
  );
  assert.match(text, /^ {2}info \(disabled\): no emails$/m);
  assert.match(text, /^ {2}default \(not in the registry\): sent=1$/m);

  // The next success clears the failure.
  await health.recordPollSuccess({ mailboxId: 'billing', folder: 'INBOX', started: 0 });
  const healed = formatStatus(await status(config));
  assert.doesNotMatch(healed, /FAILING/);
});
