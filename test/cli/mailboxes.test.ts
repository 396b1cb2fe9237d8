/**
 * `email-rag mailboxes list|check` against real servers: Dovecot with two accounts (one entry with
 * a wrong password), the SMTP sink, MariaDB and a Temporal dev server.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import { Client, Connection } from '@temporalio/client';
import { createMariaDbMailboxHealth } from '../../src/mailboxes/mailbox-health.mariadb';
import { installSchedules, pollScheduleId } from '../../src/operations/schedules';
import { loadConfig } from '../../src/config';
import { startDovecot, type DovecotServer } from '../support/services/dovecot';
import { freePort } from '../support/services/ports';
import { startSmtpSink, type SmtpSink } from '../support/services/smtp-sink';
import { startTemporalDevServer, type TemporalDevServer } from '../support/services/temporal-dev-server';
import { createTestDatabase } from '../support/database';
import { writeRegistry, type TestMailbox } from '../support/mailbox-registry-file';
import { sampleEmail } from '../support/stack';

let dir: string;
let dovecot: DovecotServer;
let smtp: SmtpSink;
let temporal: TemporalDevServer;
let db: Awaited<ReturnType<typeof createTestDatabase>>;
let env: Record<string, string>;
let entries: TestMailbox[];
const SECRETS = {
  SUPPORT_IMAP_PASSWORD: 'support-secret',
  BILLING_IMAP_PASSWORD: 'not-the-password',
  BILLING_SMTP_PASSWORD: 'smtp-secret',
};

before(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'email-rag-mailboxes-'));
  chmodSync(dir, 0o755);
  db = await createTestDatabase('mailboxes');
  dovecot = await startDovecot({
    dir: path.join(dir, 'dovecot'),
    users: [
      { user: 'support@example.test', password: 'support-secret' },
      { user: 'billing@example.test', password: 'billing-secret' },
    ],
  });
  await dovecot.deliver('support@example.test', sampleEmail(), 'Escalations');
  smtp = await startSmtpSink();
  temporal = await startTemporalDevServer({ dataDir: path.join(dir, 'temporal'), headless: true });
  const imap = { host: dovecot.host, port: dovecot.port };
  const mailSmtp = { host: smtp.host, port: smtp.port };
  entries = [
    {
      id: 'support',
      team: 'helpdesk',
      user: 'support@example.test',
      passwordEnv: 'SUPPORT_IMAP_PASSWORD',
      folders: ['INBOX', 'Escalations'],
      from: 'Support <support@example.test>',
      imap,
      smtp: mailSmtp,
    },
    {
      id: 'billing',
      user: 'billing@example.test',
      passwordEnv: 'BILLING_IMAP_PASSWORD',
      from: 'Billing <billing@example.test>',
      imap,
      smtp: { ...mailSmtp, user: 'billing@example.test', passwordEnv: 'BILLING_SMTP_PASSWORD' },
      providerFilesSent: true,
    },
    // Same account as support, a folder the server does not have, and an SMTP port nobody listens on.
    {
      id: 'sales',
      user: 'support@example.test',
      passwordEnv: 'SUPPORT_IMAP_PASSWORD',
      folders: ['Sales'],
      from: 'sales@example.test',
      imap,
      smtp: { host: '127.0.0.1', port: await freePort() },
    },
    {
      id: 'info',
      enabled: false,
      user: 'info@example.test',
      passwordEnv: 'INFO_IMAP_PASSWORD',
      from: 'info@example.test',
      imap,
      smtp: mailSmtp,
    },
  ];
  writeRegistry(path.join(dir, 'mailboxes.yaml'), entries);
  env = {
    MAILBOXES_FILE: path.join(dir, 'mailboxes.yaml'),
    DATABASE_URL: db.url,
    TEMPORAL_ADDRESS: temporal.address,
    TEMPORAL_TASK_QUEUE: 'email-rag-mailboxes-test',
    INFO_IMAP_PASSWORD: '',
    ...SECRETS,
  };
});
after(async () => {
  await temporal?.stop();
  await smtp?.stop();
  await dovecot?.stop();
  await db?.drop();
  rmSync(dir, { recursive: true, force: true });
});

function cli(args: string[], extra: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, ['bin/email-rag.js', ...args], { env: { ...process.env, ...env, ...extra } }, (err, stdout, stderr) =>
      resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

function assertNoSecrets(text: string): void {
  for (const value of [...Object.values(SECRETS), 'billing-secret']) assert.ok(!text.includes(value), `a secret value leaked: ${value}`);
}

test(
  'check tries every enabled mailbox and reports per mailbox why it fails; one bad entry fails the run',
  { timeout: 120_000 },
  async () => {
    const r = await cli(['mailboxes', 'check', '--json']);
    assert.equal(r.code, 1, r.stderr);
    assertNoSecrets(r.stdout + r.stderr);
    const checks = JSON.parse(r.stdout) as Array<{
      id: string;
      ok: boolean;
      skipped?: string;
      steps: Array<{ step: string; ok: boolean; detail: string }>;
    }>;
    const by = new Map(checks.map((c) => [c.id, c]));
    assert.deepEqual([...by.keys()], ['support', 'billing', 'sales', 'info']);

    const support = by.get('support')!;
    assert.equal(support.ok, true, JSON.stringify(support.steps));
    assert.deepEqual(
      support.steps.map((s) => s.step),
      ['imap login', 'imap folder INBOX', 'imap folder Escalations', 'imap sent folder Sent', 'smtp connect'],
    );

    const billing = by.get('billing')!;
    assert.equal(billing.ok, false);
    const login = billing.steps.find((s) => s.step === 'imap login')!;
    assert.equal(login.ok, false);
    assert.match(login.detail, /billing@example\.test@127\.0\.0\.1:\d+: login refused/);
    assert.equal(billing.steps.find((s) => s.step === 'smtp auth')?.ok, true, 'SMTP AUTH is tried with the referenced password');

    const sales = by.get('sales')!;
    assert.equal(sales.ok, false);
    assert.deepEqual(
      sales.steps.filter((s) => !s.ok).map((s) => s.step),
      ['imap folder Sales', 'smtp connect'],
    );
    assert.equal(by.get('info')!.skipped, 'disabled');
    assert.equal(smtp.messages.length, 0, 'a check sends nothing');

    const text = await cli(['mailboxes', 'check']);
    assert.equal(text.code, 1);
    assert.match(text.stdout, /^support: ok$/m);
    assert.match(text.stdout, /^billing: FAILED: imap login: .*login refused/m);
    assert.match(text.stdout, /^sales: FAILED: imap folder Sales: does not exist on the server; smtp connect: /m);
    assert.match(text.stdout, /^info: skipped \(disabled\)$/m);
  },
);

test('check ID tries just that mailbox, disabled or not; an unknown id is refused', { timeout: 60_000 }, async () => {
  const ok = await cli(['mailboxes', 'check', 'support']);
  assert.equal(ok.code, 0, ok.stdout + ok.stderr);
  assert.match(ok.stdout, /^support: ok$/m);
  assert.doesNotMatch(ok.stdout, /billing/);
  const info = await cli(['mailboxes', 'check', 'info']);
  assert.equal(info.code, 1);
  assert.match(info.stdout, /^info: FAILED: imap password: secret variable INFO_IMAP_PASSWORD is not set/m);
  const unknown = await cli(['mailboxes', 'check', 'nope']);
  assert.equal(unknown.code, 2);
  assert.match(unknown.stderr, /no mailbox "nope"/);
});

test('a broken registry is refused with every problem named', { timeout: 60_000 }, async () => {
  const bad = path.join(dir, 'bad.yaml');
  writeRegistry(bad, [
    { ...entries[0]!, id: 'Support!' },
    { ...entries[1]!, from: 'not an address' },
  ]);
  const r = await cli(['mailboxes', 'check'], { MAILBOXES_FILE: bad });
  assert.equal(r.code, 2);
  assert.match(r.stderr, /mailboxes\[0\]\.id must be/);
  assert.match(r.stderr, /mailboxes\[1\]\.smtp\.from is not an email address/);
});

test('list shows settings, secret references, schedule state and poll health per mailbox', { timeout: 120_000 }, async () => {
  const config = loadConfig(env);
  const connection = await Connection.connect({ address: temporal.address });
  try {
    const client = new Client({ connection });
    await installSchedules(client, config);
    await client.schedule.getHandle(pollScheduleId('sales')).pause('folder missing');
  } finally {
    await connection.close();
  }
  const health = createMariaDbMailboxHealth(db.pool);
  await health.recordPollSuccess({ mailboxId: 'support', folder: 'INBOX', started: 2 });
  await health.recordPollSuccess({ mailboxId: 'billing', folder: 'INBOX', started: 0 });
  await health.recordPollFailure({ mailboxId: 'billing', folder: 'INBOX', error: 'IMAP login refused', errorClass: 'permanent' });
  await health.recordPollFailure({ mailboxId: 'billing', folder: 'INBOX', error: 'IMAP login refused', errorClass: 'permanent' });

  const r = await cli(['mailboxes', 'list']);
  assert.equal(r.code, 0, r.stderr);
  assertNoSecrets(r.stdout);
  const out = r.stdout;
  assert.match(out, /^support {2}enabled {2}live {2}team helpdesk$/m);
  assert.match(out, /^info {2}DISABLED {2}live {2}team account:info@example\.test$/m);
  assert.match(
    out,
    /imap {6}support@example\.test@127\.0\.0\.1:\d+ {2}folders INBOX, Escalations {2}Sent folder Sent {2}password \$SUPPORT_IMAP_PASSWORD/,
  );
  assert.match(
    out,
    /smtp {6}127\.0\.0\.1:\d+ {2}From "Billing" <billing@example\.test> {2}login billing@example\.test password \$BILLING_SMTP_PASSWORD {2}Sent filed by the provider: a send in doubt is looked up 3 × 5 s$/m,
  );
  assert.match(out, /From "Support" <support@example\.test> {2}no login$/m, 'without the flag nothing is said');
  assert.match(out, /schedule {2}imap-poll-support active: every 60 s, next /);
  assert.match(out, /schedule {2}imap-poll-sales paused: every 60 s, paused: folder missing/);
  assert.match(out, /schedule {2}imap-poll-info not installed: mailbox disabled/);
  assert.match(out, /poll {6}INBOX: last success \d{4}-\d\d-\d\dT[\d:.]+Z$/m);
  assert.match(out, /poll {6}Escalations: never polled/);
  assert.match(out, /poll {6}INBOX: last success [\dT:.Z-]+; FAILING 2 times in a row since then: \[permanent\] IMAP login refused/);
  // Push intake per folder, as status shows it: no watcher has run here.
  assert.match(out, /^ {2}Escalations {2}push \(IDLE\): off$/m);

  const json = JSON.parse((await cli(['mailboxes', 'list', '--json'])).stdout) as {
    mailboxes: Array<{
      id: string;
      imap: { password: string };
      smtp: { providerFilesSent: unknown };
      polls: unknown[];
      watchers: Array<{ folder: string; watcher: { view: string } }>;
    }>;
  };
  assert.deepEqual(
    json.mailboxes.map((m) => m.watchers.map((w) => `${w.folder} ${w.watcher.view}`)),
    json.mailboxes.map((m) => m.watchers.map((w) => `${w.folder} off`)),
  );
  assert.deepEqual(
    json.mailboxes.map((m) => m.smtp.providerFilesSent),
    [null, { graceSeconds: 5, attempts: 3 }, null, null],
  );
  assert.deepEqual(
    json.mailboxes.map((m) => [m.id, m.imap.password, m.polls.length]),
    [
      ['support', '$SUPPORT_IMAP_PASSWORD', 1],
      ['billing', '$BILLING_IMAP_PASSWORD', 1],
      ['sales', '$SUPPORT_IMAP_PASSWORD', 0],
      ['info', '$INFO_IMAP_PASSWORD', 0],
    ],
  );

  // Without Temporal the list still shows what it can, and says what it could not ask.
  const offline = await cli(['mailboxes', 'list'], { TEMPORAL_ADDRESS: `127.0.0.1:${await freePort()}` });
  assert.equal(offline.code, 0, offline.stderr);
  assert.match(offline.stdout, /schedule {2}imap-poll-support unknown: Temporal not reachable/);
  assert.match(offline.stdout, /^schedule state unknown: cannot reach Temporal/m);
});
