/**
 * Several mailboxes served by one worker, end to end on real servers: Temporal dev server, MariaDB,
 * one Dovecot with three accounts and two SMTP listeners (one per sending identity); only the LLM
 * is a test double. Mail to each mailbox is answered from its own address over its own SMTP server
 * and filed in its own Sent folder; a wrong password stops only its mailbox; retrieval never mixes
 * two accounts; an unknown mailbox id is refused.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { WorkflowFailedError, type Client } from '@temporalio/client';
import { ImapFlow } from 'imapflow';
import { simpleParser } from 'mailparser';
import type { PollRunResult } from '../../src/email/intake/imap-poll.workflow';
import { ingest } from '../../src/archive-import/ingest.cli';
import { loadConfig, type Config } from '../../src/config';
import { startSmtpSink, type SmtpSink } from '../support/services/smtp-sink';
import { approveUpdate } from '../../src/email/email-definitions.workflow';
import { MAILBOX_PASSWORD, MAILBOX_USER, sampleEmail, type TestStack } from '../support/stack';
import { currentDraftId } from '../support/decisions';
import { waitFor } from '../support/wait';
import { useWorkerStack } from '../support/worker-stack';

const BILLING_USER = 'billing@example.test';
const BILLING_PASSWORD = 'billing-secret';
const INFO_USER = 'info@example.test';

let stack: TestStack;
let billingSmtp: SmtpSink;
let config: Config;
let client: Client;
let polls = 0;

useWorkerStack((s) => ({ stack, client } = s), {
  stack: {
    extraUsers: [
      { user: BILLING_USER, password: BILLING_PASSWORD },
      { user: INFO_USER, password: 'the-real-one' },
    ],
  },
  configure: (started) => workerConfig(started),
  cleanup: async () => {
    await billingSmtp?.stop();
  },
});

/** Three mailboxes: support (the stack's), billing (its own folders and SMTP relay), info (a wrong password). */
async function workerConfig(started: TestStack): Promise<Config> {
  billingSmtp = await startSmtpSink();
  const registry = path.join(started.dir, 'mailboxes.yaml');
  writeFileSync(
    registry,
    [
      'version: 1',
      'mailboxes:',
      '  - id: support',
      `    imap: { user: ${MAILBOX_USER}, password: { env: SUPPORT_IMAP_PASSWORD } }`,
      '    smtp:',
      '      from: "Support Team <support@example.test>"',
      '      signature: "Ihr Support-Team"',
      '  - id: billing',
      `    imap: { user: ${BILLING_USER}, password: { env: BILLING_IMAP_PASSWORD }, folders: [INBOX, Rechnungen], sentFolder: Gesendet }`,
      '    smtp:',
      `      host: ${billingSmtp.host}`,
      `      port: ${billingSmtp.port}`,
      '      user: billing-relay',
      '      password: { env: BILLING_SMTP_PASSWORD }',
      '      from: "Buchhaltung <billing@example.test>"',
      '      signature: "Ihre Buchhaltung"',
      '  - id: info',
      `    imap: { user: ${INFO_USER}, password: { env: INFO_IMAP_PASSWORD } }`,
      '    smtp: { from: info@example.test }',
    ].join('\n'),
  );
  config = loadConfig({
    ...started.env,
    MAILBOXES_FILE: registry,
    SUPPORT_IMAP_PASSWORD: MAILBOX_PASSWORD,
    BILLING_IMAP_PASSWORD: BILLING_PASSWORD,
    BILLING_SMTP_PASSWORD: 'relay-secret',
    INFO_IMAP_PASSWORD: 'a-wrong-password',
  });
  return config;
}

/** One poll run of a mailbox, as its schedule would start it. */
function poll(input: { mailboxId?: string; mailbox?: string }): Promise<PollRunResult> {
  polls += 1;
  return client.workflow.execute('ImapPollWorkflow', {
    taskQueue: config.temporal.taskQueue,
    workflowId: `poll-test-${polls}`,
    args: [input],
  });
}

async function failureOf(p: Promise<unknown>): Promise<{ type: string; message: string }> {
  const err = await p.then(
    () => assert.fail('expected the run to fail'),
    (e: unknown) => e,
  );
  assert.ok(err instanceof WorkflowFailedError, String(err));
  const cause = err.cause as { type?: string; message?: string; cause?: { type?: string; message?: string } } | undefined;
  const leaf = cause?.cause ?? cause;
  return { type: leaf?.type ?? '', message: leaf?.message ?? '' };
}

async function row(id: string): Promise<{ status: string; mailbox_id: string; account: string } | undefined> {
  const rows = (await stack.db.pool.query('SELECT status, mailbox_id, account FROM emails WHERE id = ?', [id])) as Array<{
    status: string;
    mailbox_id: string;
    account: string;
  }>;
  return rows[0];
}

async function contextOf(emailId: string): Promise<string[]> {
  const rows = (await stack.db.pool.query('SELECT context_ids FROM drafts WHERE email_id = ? ORDER BY version DESC LIMIT 1', [
    emailId,
  ])) as Array<{ context_ids: string | string[] }>;
  const ids = rows[0]?.context_ids;
  return typeof ids === 'string' ? (JSON.parse(ids) as string[]) : (ids ?? []);
}

async function approveAndWaitSent(emailId: string): Promise<void> {
  await waitFor(`${emailId} awaiting approval`, async () => (await row(emailId))?.status === 'awaiting_approval', 120_000);
  const draftId = await currentDraftId(client, emailId);
  await client.workflow.getHandle(emailId).executeUpdate(approveUpdate, { args: [{ draftId, by: 'olga' }] });
  await waitFor(`${emailId} sent`, async () => (await row(emailId))?.status === 'sent', 120_000);
}

async function sentFolder(user: string, password: string, folder: string): Promise<string[]> {
  const c = new ImapFlow({
    host: stack.dovecot.host,
    port: stack.dovecot.port,
    secure: false,
    auth: { user, pass: password },
    logger: false,
  });
  await c.connect();
  try {
    const ids: string[] = [];
    const lock = await c.getMailboxLock(folder);
    try {
      for await (const m of c.fetch('1:*', { envelope: true })) if (m.envelope?.messageId) ids.push(m.envelope.messageId);
    } finally {
      lock.release();
    }
    return ids;
  } finally {
    await c.logout();
  }
}

const erika = 'Erika Mustermann <erika@customer.example>';
const ids: Record<string, string> = {};

test('a wrong password stops only its mailbox: its poll fails with a recorded health row', async () => {
  const failed = await failureOf(poll({ mailboxId: 'info' }));
  assert.equal(failed.type, 'IMAP_AUTH');
  assert.match(failed.message, /imap\.password \(\$INFO_IMAP_PASSWORD\) of mailbox "info"/);
  assert.ok(!failed.message.includes('a-wrong-password'));

  // The others connect (existing mail is left alone) while info keeps failing.
  await stack.dovecot.deliver(BILLING_USER, sampleEmail({ subject: 'Alte Rechnung', messageId: '<old@customer.example>' }), 'Rechnungen');
  assert.deepEqual((await poll({ mailboxId: 'support' })).started, []);
  assert.deepEqual((await poll({ mailboxId: 'billing' })).started, []);
  const health = (await stack.db.pool.query(
    'SELECT mailbox_id, folder, last_success_at, last_error, last_error_class, failures_in_a_row FROM mailbox_polls ORDER BY mailbox_id, folder',
  )) as Array<{
    mailbox_id: string;
    folder: string;
    last_success_at: Date | null;
    last_error: string | null;
    last_error_class: string | null;
    failures_in_a_row: number;
  }>;
  assert.deepEqual(
    health.map((h) => [h.mailbox_id, h.folder, h.last_success_at !== null, h.last_error_class, Number(h.failures_in_a_row)]),
    [
      ['billing', 'INBOX', true, null, 0],
      ['billing', 'Rechnungen', true, null, 0],
      ['info', 'INBOX', false, 'permanent', 1],
      ['support', 'INBOX', true, null, 0],
    ],
  );
  assert.match(health.find((h) => h.mailbox_id === 'info')?.last_error ?? '', /^IMAP_AUTH: IMAP login refused/);
});

test('mail to each mailbox is answered from its address, over its SMTP server, and filed in its Sent folder', async () => {
  await stack.dovecot.deliver(
    MAILBOX_USER,
    sampleEmail({
      from: erika,
      subject: 'Lieferung 5531 beschädigt',
      messageId: '<support-1@customer.example>',
      body: 'Hallo,\n\ndie Lieferung 5531 kam beschädigt an. Bitte um Ersatz.\n\nErika',
    }),
  );
  await stack.dovecot.deliver(
    BILLING_USER,
    sampleEmail({ from: erika, subject: 'Rechnung 2024-117 doppelt abgebucht', messageId: '<billing-1@customer.example>' }),
  );
  const support = await poll({ mailboxId: 'support' });
  const billing = await poll({ mailboxId: 'billing' });
  assert.equal(support.started.length, 1);
  assert.equal(billing.started.length, 1);
  ids.support1 = support.started[0]!;
  ids.billing1 = billing.started[0]!;
  // Workflow ids keep the account + folder + UIDVALIDITY + UID form.
  assert.match(ids.support1, /^email-support@example\.test-INBOX-\d+-\d+$/);
  assert.match(ids.billing1, /^email-billing@example\.test-INBOX-\d+-\d+$/);

  await approveAndWaitSent(ids.support1);
  await approveAndWaitSent(ids.billing1);
  assert.deepEqual(
    [await row(ids.support1), await row(ids.billing1)].map((r) => r?.mailbox_id),
    ['support', 'billing'],
    'each email row names its mailbox',
  );

  // One reply on each SMTP server, each from its own identity, signature included.
  assert.equal(stack.smtp.messages.length, 1);
  assert.equal(billingSmtp.messages.length, 1);
  const [toSupport] = stack.smtp.messages;
  const [toBilling] = billingSmtp.messages;
  assert.equal(toSupport!.envelope.mailFrom, 'support@example.test');
  assert.equal(toBilling!.envelope.mailFrom, 'billing@example.test');
  assert.equal(toBilling!.authUser, 'billing-relay', 'billing logs in with its own SMTP account');
  assert.equal(toSupport!.authUser, undefined);
  const a = await simpleParser(toSupport!.raw);
  const b = await simpleParser(toBilling!.raw);
  assert.equal(a.from?.value[0]?.address, 'support@example.test');
  assert.equal(a.from?.value[0]?.name, 'Support Team');
  assert.equal(b.from?.value[0]?.address, 'billing@example.test');
  assert.equal(b.from?.value[0]?.name, 'Buchhaltung');
  // The signature closes the reply; the customer's message is quoted beneath it.
  assert.match(a.text ?? '', /\n-- \nIhr Support-Team\n\n.* schrieb .*:\n> /);
  assert.match(b.text ?? '', /\n-- \nIhre Buchhaltung\n\n.* schrieb .*:\n> /);
  assert.equal(a.inReplyTo, '<support-1@customer.example>');
  assert.equal(b.inReplyTo, '<billing-1@customer.example>');

  // The exact bytes are filed in each mailbox's own Sent folder, and only there.
  await waitFor('both Sent copies', async () => {
    const s = await sentFolder(MAILBOX_USER, MAILBOX_PASSWORD, 'Sent');
    const g = await sentFolder(BILLING_USER, BILLING_PASSWORD, 'Gesendet');
    return s.length === 1 && g.length === 1 ? true : undefined;
  });
  assert.deepEqual(await sentFolder(MAILBOX_USER, MAILBOX_PASSWORD, 'Sent'), [a.messageId]);
  assert.deepEqual(await sentFolder(BILLING_USER, BILLING_PASSWORD, 'Gesendet'), [b.messageId]);
  assert.match(a.messageId ?? '', /@example\.test>$/);
});

test('retrieval never mixes the two accounts: the same correspondent’s mail to the other mailbox is never context', async () => {
  assert.ok(ids.support1 && ids.billing1, 'runs after the previous test');
  await stack.dovecot.deliver(
    MAILBOX_USER,
    sampleEmail({ from: erika, subject: 'Rechnung 2024-117 und Lieferung 5531', messageId: '<support-2@customer.example>' }),
  );
  await stack.dovecot.deliver(
    BILLING_USER,
    sampleEmail({ from: erika, subject: 'Lieferung 5531 und Rechnung 2024-117', messageId: '<billing-2@customer.example>' }),
  );
  const support2 = (await poll({ mailboxId: 'support' })).started[0]!;
  const billing2 = (await poll({ mailboxId: 'billing' })).started[0]!;
  for (const id of [support2, billing2]) {
    await waitFor(`${id} awaiting approval`, async () => (await row(id))?.status === 'awaiting_approval', 120_000);
  }
  const fromSupport = (c: string) => c.startsWith(ids.support1!);
  const fromBilling = (c: string) => c.startsWith(ids.billing1!);
  const supportContext = await contextOf(support2);
  const billingContext = await contextOf(billing2);
  // Each sees Erika's earlier mail to the same mailbox (retrieval works) …
  assert.ok(supportContext.some(fromSupport), JSON.stringify(supportContext));
  assert.ok(billingContext.some(fromBilling), JSON.stringify(billingContext));
  // … and nothing of the other account, neither her mail nor our reply to it.
  assert.ok(!supportContext.some(fromBilling), JSON.stringify(supportContext));
  assert.ok(!billingContext.some(fromSupport), JSON.stringify(billingContext));
  assert.ok(!(await contextOf(ids.billing1!)).some(fromSupport));
  // Threads never join across accounts: the isolation key is each mailbox's account.
  assert.deepEqual([(await row(support2))?.account, (await row(billing2))?.account], [MAILBOX_USER, BILLING_USER]);
});

test('one run polls every folder of a mailbox, each with its own watermark', async () => {
  await stack.dovecot.deliver(
    BILLING_USER,
    sampleEmail({ from: erika, subject: 'Rechnung 88', messageId: '<r-88@customer.example>' }),
    'Rechnungen',
  );
  const run = await poll({ mailboxId: 'billing' });
  assert.equal(run.started.length, 1);
  assert.match(run.started[0]!, /^email-billing@example\.test-Rechnungen-\d+-\d+$/);
  assert.deepEqual(
    run.otherFolders?.map((f) => [f.mailbox, f.started]),
    [['Rechnungen', 1]],
  );
  const marks = (await stack.db.pool.query('SELECT mailbox FROM mailbox_watermarks WHERE account = ? ORDER BY mailbox', [
    BILLING_USER,
  ])) as Array<{ mailbox: string }>;
  // Its Sent folder (Gesendet) has its own mark too: what a person files there later is an answer beside the assistant.
  assert.deepEqual(
    marks.map((m) => m.mailbox),
    ['Gesendet', 'INBOX', 'Rechnungen'],
  );
  await waitFor('the folder’s email stored', async () => (await row(run.started[0]!))?.mailbox_id === 'billing');
});

test('a file imported for a mailbox (ingest --mailbox) is answered from that mailbox', async () => {
  const file = path.join(stack.dir, 'imported.eml');
  writeFileSync(file, sampleEmail({ from: erika, subject: 'Zahlung per Überweisung', messageId: '<file-1@customer.example>' }));
  const report = await ingest(config, file, { history: false, mailboxId: 'billing' });
  const emailId = report.lines[0]!.split('\t')[0]!;
  assert.equal(report.failed, 0, report.lines.join('\n'));
  const before = billingSmtp.messages.length;
  await approveAndWaitSent(emailId);
  assert.equal((await row(emailId))?.mailbox_id, 'billing');
  assert.equal(billingSmtp.messages.length, before + 1);
  assert.equal(billingSmtp.messages.at(-1)!.envelope.mailFrom, 'billing@example.test');
  await assert.rejects(
    ingest(config, file, { history: false, mailboxId: 'shop' }),
    /unknown mailbox "shop" \(known: support, billing, info\)/,
  );
});

test('an unknown mailbox id is refused for good, naming the known ones', async () => {
  const failed = await failureOf(poll({ mailboxId: 'sales' }));
  assert.equal(failed.type, 'UNKNOWN_MAILBOX');
  assert.match(failed.message, /mailbox "sales" is not in the registry \(known: support, billing, info\)/);
  // A schedule from before the registry means the default mailbox, which this registry lacks.
  const legacy = await failureOf(poll({ mailbox: 'INBOX' }));
  assert.equal(legacy.type, 'UNKNOWN_MAILBOX');
  assert.match(legacy.message, /mailbox "default" is not in the registry/);
});
