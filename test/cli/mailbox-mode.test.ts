/**
 * `email-rag mailboxes mode ID live|shadow` on a registry file and a real MariaDB: the entry's
 * `mode` changes in place (comments and the other entries kept), the switch is audited with who
 * made it, and what cannot be switched is refused without touching the file.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import { loadConfig } from '../../src/config';
import { mailboxesSetMode } from '../../src/mailboxes/mailbox-mode.cli';
import { writeRegistry } from '../support/mailbox-registry-file';
import { createTestDatabase } from '../support/database';

let dir: string;
let db: Awaited<ReturnType<typeof createTestDatabase>>;
const registry = () => path.join(dir, 'mailboxes.yaml');
const config = () => loadConfig({ DATABASE_URL: db.url, MAILBOXES_FILE: registry(), SUPPORT_PW: 'x', BILLING_PW: 'y' }, { imap: true });

before(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'email-rag-mode-'));
  db = await createTestDatabase('mode');
  writeRegistry(registry(), [
    { id: 'support', user: 'support@example.test', passwordEnv: 'SUPPORT_PW', from: 'support@example.test' },
    { id: 'billing', user: 'billing@example.test', passwordEnv: 'BILLING_PW', from: 'billing@example.test' },
  ]);
});
after(async () => {
  await db?.drop();
  rmSync(dir, { recursive: true, force: true });
});

test('a mailbox goes to shadow and back to live, in place and audited; the refusals leave the file alone', async () => {
  const said = await mailboxesSetMode(config(), 'support', 'shadow', 'olga');
  assert.match(said, /mailbox support switched from live to shadow in .*mailboxes\.yaml \(audited as olga\); restart the workers/);
  const text = readFileSync(registry(), 'utf8');
  assert.match(text, /^# mailboxes of this installation$/m, 'the comment is kept');
  assert.match(text, /- id: support\n {4}mode: shadow\n/);
  assert.deepEqual(
    config().mailboxes.map((e) => [e.id, e.mode ?? 'live']),
    [
      ['support', 'shadow'],
      ['billing', 'live'],
    ],
  );
  assert.match(await mailboxesSetMode(config(), 'support', 'shadow', 'olga'), /already shadow/);
  await assert.rejects(mailboxesSetMode(config(), 'support', 'dark', 'olga'), /mode must be live or shadow, got "dark"/);
  await assert.rejects(
    mailboxesSetMode(config(), 'sales', 'shadow', 'olga'),
    /no mailbox "sales" in the registry \(known: support, billing\)/,
  );
  assert.equal(readFileSync(registry(), 'utf8'), text, 'refusals write nothing');
  assert.match(await mailboxesSetMode(config(), 'support', 'live', 'otto'), /switched from shadow to live/);
  assert.match(readFileSync(registry(), 'utf8'), /- id: support\n {4}mode: live\n/);
  const audit = (await db.pool.query(
    `SELECT actor, message FROM audit_log WHERE event_type = 'mailbox_mode_changed' ORDER BY id`,
  )) as Array<{ actor: string; message: string }>;
  assert.deepEqual(
    audit.map((a) => a.actor),
    ['olga', 'otto'],
  );
  assert.match(audit[0]!.message, /olga switched mailbox support from live to shadow in mailboxes\.yaml/);
});
