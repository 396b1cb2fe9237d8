/**
 * End to end on real servers: Temporal dev server, MariaDB, Dovecot, an SMTP listener; only the
 * LLM is a test double (local OpenAI-compatible HTTP server, reached through the real client).
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { test } from 'node:test';
import { promisify } from 'node:util';
import type { Client } from '@temporalio/client';
import type { ImapFlow } from 'imapflow';
import { withImap } from '../support/imap-session';
import { simpleParser } from 'mailparser';
import { imapEmailId } from '../../src/email/email-input';
import { temporalCliPath } from '../support/services/tool-paths';
import { CLEANUP_SCHEDULE_ID, installSchedules, pollScheduleId, triggerSchedule, wantedSchedules } from '../../src/operations/schedules';
import { DEFAULT_MAILBOX_ID } from '../../src/mailboxes/mailbox-registry';
import { draftQuery, rejectSignal, type EmailWorkflowResult } from '../../src/email/email.workflow';
import type { PollResult } from '../../src/email/email-activities';
import { MAILBOX_PASSWORD, MAILBOX_USER, sampleEmail, type TestStack } from '../support/stack';
import { currentDraftId } from '../support/decisions';
import { waitFor } from '../support/wait';
import { useWorkerStack } from '../support/worker-stack';

const run = promisify(execFile);
let stack: TestStack;
let client: Client;

const imap = <T>(fn: (c: ImapFlow) => Promise<T>): Promise<T> =>
  withImap({ host: stack.dovecot.host, port: stack.dovecot.port, user: MAILBOX_USER, password: MAILBOX_PASSWORD }, fn);

/** Triggers a schedule and waits for that run's result (found through the schedule itself). */
async function runSchedule<T>(scheduleId: string): Promise<T> {
  const schedule = client.schedule.getHandle(scheduleId);
  const known = new Set((await schedule.describe()).info.recentActions.map((a) => a.action.workflow.workflowId));
  await triggerSchedule(client, scheduleId);
  const workflowId = await waitFor(
    `the triggered run of ${scheduleId}`,
    async () => (await schedule.describe()).info.recentActions.map((a) => a.action.workflow.workflowId).find((id) => id && !known.has(id)),
    60_000,
    250,
  );
  return client.workflow.getHandle(workflowId).result() as Promise<T>;
}

const pollOnce = () => runSchedule<PollResult>(pollScheduleId(DEFAULT_MAILBOX_ID));

async function emailRow(id: string): Promise<{ status: string } | undefined> {
  const rows = (await stack.db.pool.query('SELECT status FROM emails WHERE id = ?', [id])) as Array<{ status: string }>;
  return rows[0];
}

// Drafts may take a while here: the cleanup test keeps one running for 15 s.
useWorkerStack((s) => ({ stack, client } = s), {
  stack: { env: { LLM_TIMEOUT_MS: '30000' } },
  then: async (s) => {
    await installSchedules(s.client, s.config);
    // Paused: the test triggers every run it needs, and a schedule's own run on an hour or
    // quarter-hour boundary (the hourly poll and cleanup, resend every 15 min) never takes a mail
    // or a stuck row from under it. A trigger runs a paused schedule all the same.
    for (const w of wantedSchedules(s.config)) await s.client.schedule.getHandle(w.id).pause('the test triggers each run itself');
  },
});

test('a mail appended over IMAP travels to exactly one threaded reply, approved with the temporal CLI', async () => {
  // Mail that is there before the mailbox is connected is history: never answered.
  await stack.dovecot.deliver(MAILBOX_USER, sampleEmail({ subject: 'Alte Nachricht', messageId: '<old-1@customer.example>' }));
  const first = await pollOnce();
  assert.deepEqual(first.started, [], 'connecting the mailbox starts nothing for existing mail');

  const originalId = '<invoice-117@customer.example>';
  const raw = sampleEmail({ messageId: originalId });
  const appended = await imap((c) => c.append('INBOX', raw));
  assert.ok(appended && appended.uid, 'IMAP APPEND returned a UID');
  const uidValidity = Number(appended.uidValidity);
  const emailId = imapEmailId(MAILBOX_USER, 'INBOX', uidValidity, appended.uid);

  const second = await pollOnce();
  assert.deepEqual(second.started, [emailId]);

  await waitFor('awaiting_approval', async () => (await emailRow(emailId))?.status === 'awaiting_approval', 90_000);
  const handle = client.workflow.getHandle(emailId);
  // The draft step records awaiting_approval in MariaDB itself; the workflow holds the draft once
  // it has taken the step's result, a workflow task later (on a loaded machine, a moment after).
  const draft = await waitFor('the draft query answers', async () => (await handle.query(draftQuery)) ?? undefined, 30_000);
  assert.ok(draft, 'the draft query answers');
  assert.equal(draft.to.address, 'erika@customer.example');
  assert.match(draft.body, /Rechnung 2024-117/);
  assert.equal(draft.language, 'de');
  const llmCall = stack.llm.requests.find((r) => r.path.endsWith('/chat/completions'));
  assert.equal(llmCall?.body.response_format?.type, 'json_schema', 'structured output was requested');
  assert.equal(llmCall?.body.tools, undefined, 'the model gets no tools');

  // Decide with the real temporal CLI, as an operator would: an Update that names the draft.
  const update = (input: Record<string, unknown>) =>
    run(temporalCliPath(), [
      'workflow',
      'update',
      'execute',
      '--address',
      stack.config.temporal.address,
      '--namespace',
      'default',
      '--workflow-id',
      emailId,
      '--name',
      'approve',
      '--input',
      JSON.stringify(input),
    ]);
  const refusals: Array<[Record<string, unknown>, RegExp]> = [
    [{ draftId: `${emailId}:draft:9`, by: 'e2e-operator' }, /not the current one/],
    [{ draftId: draft.draftId }, /"by" is required/],
    [{ draftId: draft.draftId, by: 'e2e-operator', body: '' }, /"body" must not be empty/],
    [{ draftId: draft.draftId, by: 'e2e-operator', body: 'x'.repeat(100_001) }, /at most 100000/],
  ];
  for (const [input, why] of refusals) {
    const refused = await update(input).catch((err: { stderr: string; stdout: string }) => err);
    assert.match(`${(refused as { stderr?: string }).stderr ?? ''}${(refused as { stdout?: string }).stdout ?? ''}`, why);
  }
  const accepted = await update({ draftId: draft.draftId, by: 'e2e-operator' });
  assert.match(accepted.stdout, /approved/);
  const result = (await handle.result()) as EmailWorkflowResult;
  assert.equal(result.status, 'sent');

  const [mail] = await stack.smtp.waitForMessages(1, 30_000);
  assert.ok(mail);
  assert.deepEqual(mail.envelope.rcptTo, ['erika@customer.example']);
  const reply = await simpleParser(mail.raw);
  assert.equal(reply.inReplyTo, originalId);
  assert.ok((Array.isArray(reply.references) ? reply.references : [reply.references]).includes(originalId));
  assert.equal(reply.messageId, result.messageId);
  assert.match(reply.subject ?? '', /^Re: /);

  assert.equal((await emailRow(emailId))?.status, 'sent');
  const jobs = (await stack.db.pool.query('SELECT step, status FROM queue_jobs WHERE workflow_id = ? ORDER BY id', [emailId])) as Array<{
    step: string;
    status: string;
  }>;
  assert.deepEqual(
    jobs.map((j) => j.step),
    ['fetch', 'parse', 'index', 'draft', 'decide', 'send'],
  );
  assert.ok(
    jobs.every((j) => j.status === 'done'),
    JSON.stringify(jobs),
  );
  const audit = (await stack.db.pool.query('SELECT event_type, actor, message FROM audit_log WHERE email_id = ? ORDER BY id', [
    emailId,
  ])) as Array<{
    event_type: string;
    actor: string | null;
    message: string;
  }>;
  const statuses = audit.filter((a) => a.event_type === 'status_changed').map((a) => a.message.split(':')[0]);
  assert.deepEqual(statuses, ['fetched', 'parsed', 'indexed', 'drafted', 'awaiting_approval', 'approved', 'sent']);
  assert.ok(audit.some((a) => a.event_type === 'draft_approved' && a.actor === 'e2e-operator'));
  const sends = (await stack.db.pool.query('SELECT status, attempts, appended_to_sent FROM send_attempts WHERE email_id = ?', [
    emailId,
  ])) as Array<{
    status: string;
    attempts: number;
    appended_to_sent: number;
  }>;
  assert.deepEqual(sends, [{ status: 'sent', attempts: 1, appended_to_sent: 1 }]);

  // The reply sits in the Sent folder, as a mail client would keep it.
  const inSent = await imap(async (c) => {
    await c.mailboxOpen('Sent');
    return c.search({ header: { 'message-id': result.messageId ?? '' } }, { uid: true });
  });
  assert.equal(Array.isArray(inSent) ? inSent.length : 0, 1);

  // A further poll finds nothing new, and nothing is sent again.
  const third = await pollOnce();
  assert.deepEqual(third.started, []);
  const emails = (await stack.db.pool.query('SELECT COUNT(*) AS n FROM emails')) as Array<{ n: number }>;
  assert.equal(Number(emails[0]?.n), 1, 'the pre-existing mail was never processed');
  assert.equal(stack.smtp.messages.length, 1);
});

const cli = (args: string[]) =>
  run(process.execPath, ['bin/email-rag.js', ...args], { env: { ...process.env, ...stack.env }, cwd: process.cwd() });

test('the project CLI: ingest files, list drafts, approve with an edited body, reject with a reason, status', async () => {
  const dir = `${stack.dir}/ingest`;
  const { mkdirSync, writeFileSync } = await import('node:fs');
  mkdirSync(dir, { recursive: true });
  writeFileSync(`${dir}/a.eml`, sampleEmail({ messageId: '<cli-a@customer.example>', subject: 'Lieferverzug Auftrag 5521' }));
  writeFileSync(
    `${dir}/b.eml`,
    sampleEmail({
      from: 'John Smith <john@client.example>',
      messageId: '<cli-b@client.example>',
      subject: 'Contract question',
      body: 'Hello, can I cancel my contract early? Thanks, John',
    }),
  );
  const ingested = await cli(['ingest', dir]);
  const ids = ingested.stdout
    .trim()
    .split('\n')
    .map((l) => l.split('\t')[0]!);
  assert.equal(ids.length, 2);
  assert.ok(ids.every((id) => id.startsWith('email-file-')));
  const again = await cli(['ingest', `${dir}/a.eml`]);
  assert.match(again.stdout, /already known/, 'importing the same message twice starts nothing');

  for (const id of ids) await waitFor(`${id} awaiting approval`, async () => (await emailRow(id))?.status === 'awaiting_approval', 90_000);
  const drafts = JSON.parse((await cli(['drafts', '--json'])).stdout) as Array<{ emailId: string; language: string }>;
  assert.deepEqual(drafts.map((d) => d.emailId).sort(), [...ids].sort());
  assert.equal(drafts.find((d) => d.emailId === ids[1])?.language, 'en');

  const bodyFile = `${dir}/edited.txt`;
  writeFileSync(bodyFile, 'Guten Tag,\n\nIhre Lieferung ist unterwegs.\n\nViele Grüße');
  const approved = await cli(['approve', ids[0]!, '--body-file', bodyFile, '--by', 'alice']);
  assert.match(approved.stdout, /draft .*:draft:1 \(version 1\)[^]*approved as alice with an edited body/);
  const rejected = await cli(['reject', ids[1]!, '--reason', 'answered by phone', '--by', 'bob']);
  assert.match(rejected.stdout, /rejected/);

  assert.equal(((await client.workflow.getHandle(ids[0]!).result()) as EmailWorkflowResult).status, 'sent');
  assert.equal(((await client.workflow.getHandle(ids[1]!).result()) as EmailWorkflowResult).status, 'rejected');
  const mails = await stack.smtp.waitForMessages(2, 30_000);
  const edited = await simpleParser(mails[1]!.raw);
  assert.match(edited.text ?? '', /Ihre Lieferung ist unterwegs/);
  const rows = (await stack.db.pool.query('SELECT body, approved_body, decided_by, edit_distance FROM drafts WHERE email_id = ?', [
    ids[0],
  ])) as Array<{
    body: string;
    approved_body: string;
    decided_by: string;
    edit_distance: number;
  }>;
  assert.ok(rows[0]!.edit_distance > 0, 'the size of the edit is kept');
  assert.equal(rows[0]?.decided_by, 'alice');
  assert.notEqual(rows[0]?.body, rows[0]?.approved_body, 'both the draft and the edited version are kept');
  // What became of each draft, recorded by the decision steps of the real runs.
  const outcomes = (await stack.db.pool.query(
    'SELECT email_id, outcome, edit_distance, decided_by FROM draft_outcomes WHERE email_id IN (?, ?)',
    [ids[0], ids[1]],
  )) as Array<{ email_id: string; outcome: string; edit_distance: number | null; decided_by: string }>;
  const outcomeOf = (id: string) => outcomes.find((o) => o.email_id === id);
  assert.match(outcomeOf(ids[0]!)?.outcome ?? '', /^(light|heavy)_edit$/);
  assert.equal(outcomeOf(ids[0]!)?.edit_distance, rows[0]!.edit_distance);
  assert.deepEqual([outcomeOf(ids[1]!)?.outcome, outcomeOf(ids[1]!)?.decided_by], ['rejected', 'bob']);

  const late = await cli(['approve', ids[1]!]).catch((err: { code: number; stderr: string }) => err);
  assert.equal((late as { code: number }).code, 1);
  assert.match((late as { stderr: string }).stderr, /waits for no decision on a draft \(status rejected\)/);

  const report = JSON.parse((await cli(['status', '--json'])).stdout) as {
    emails: Record<string, number>;
    queue: Record<string, number>;
    deadLetters: number;
  };
  assert.equal(report.emails.sent, 2);
  assert.equal(report.emails.rejected, 1);
  assert.equal(report.deadLetters, 0);
});

test('dead letters: a malformed mail dies at parse, is inspected, fixed and requeued by an operator', async () => {
  const { writeFileSync } = await import('node:fs');
  const file = `${stack.dir}/broken.eml`;
  writeFileSync(file, 'this is not an RFC 822 message\r\n');
  const [emailId] = (await cli(['ingest', file])).stdout.trim().split('\t');
  assert.ok(emailId);
  const result = (await client.workflow.getHandle(emailId).result()) as EmailWorkflowResult;
  assert.equal(result.status, 'failed');

  const list = JSON.parse((await cli(['dlq', 'list', '--json'])).stdout) as Array<{ id: number; step: string; correlationId: string }>;
  const dead = list.find((d) => d.correlationId === emailId);
  assert.equal(dead?.step, 'parse');
  const shown = (await cli(['dlq', 'show', String(dead.id)])).stdout;
  assert.match(shown, /cause: +\[permanent\] message has no RFC 822 header block/);
  assert.match(shown, new RegExp(`correlation id: ${emailId}`));
  assert.match(shown, /payload: +raw_messages\.email_id/);
  assert.match(shown, /job_dead/);
  const report = JSON.parse((await cli(['status', '--json'])).stdout) as { deadLetters: number };
  assert.ok(report.deadLetters >= 1);

  const refused = await cli(['dlq', 'requeue', String(dead.id)]).catch((err: { code: number; stderr: string }) => err);
  assert.equal((refused as { code: number }).code, 2, 'who authorised it must be named');

  // The fix: the stored message is repaired, then the dead step runs again.
  await stack.db.pool.query('UPDATE raw_messages SET raw = ? WHERE email_id = ?', [
    Buffer.from(sampleEmail({ messageId: '<repaired@customer.example>', subject: 'Repariert' })),
    emailId,
  ]);
  const requeued = await cli(['dlq', 'requeue', String(dead.id), '--by', 'carol']);
  assert.match(requeued.stdout, /requeued .* as carol: the email workflow was started again/);
  await waitFor('repaired email awaiting approval', async () => (await emailRow(emailId))?.status === 'awaiting_approval', 90_000);
  const row = (await stack.db.pool.query('SELECT status, requeued_by, requeue_count FROM queue_jobs WHERE id = ?', [dead.id])) as Array<{
    status: string;
    requeued_by: string;
    requeue_count: number;
  }>;
  assert.deepEqual(row[0], { status: 'done', requeued_by: 'carol', requeue_count: 1 });
  const audit = (await stack.db.pool.query(`SELECT actor FROM audit_log WHERE correlation_id = ? AND event_type = 'dlq_requeued'`, [
    emailId,
  ])) as Array<{ actor: string }>;
  assert.deepEqual(audit, [{ actor: 'carol' }]);
  await client.workflow
    .getHandle(emailId)
    .signal(rejectSignal, { draftId: await currentDraftId(client, emailId), by: 'carol', reason: 'test done' });
});

test('the cleanup schedule resets rows stuck in processing, but not an attempt that still runs', async () => {
  const { writeFileSync } = await import('node:fs');
  const [closed] = (await stack.db.pool.query(`SELECT id FROM emails WHERE status = 'sent' LIMIT 1`)) as Array<{ id: string }>;
  assert.ok(closed);
  // What a lost worker leaves behind: a row that says processing for a workflow long finished.
  await stack.db.pool.query(
    `INSERT INTO queue_jobs (workflow_id, email_id, step, activity_id, status, attempt, started_at)
     VALUES (?, ?, 'fetch', 'lost-1', 'processing', 1, CURRENT_TIMESTAMP(3) - INTERVAL 20 MINUTE)`,
    [closed.id, closed.id],
  );
  // A long draft that is still heartbeating.
  stack.llm.script({ kind: 'delay', ms: 15_000, for: 'email_draft' });
  const file = `${stack.dir}/slow.eml`;
  writeFileSync(file, sampleEmail({ messageId: '<slow-draft@customer.example>', subject: 'Langsamer Entwurf' }));
  const [slowId] = (await cli(['ingest', file])).stdout.trim().split('\t');
  await waitFor('slow draft running', async () => {
    const r = (await stack.db.pool.query(`SELECT 1 FROM queue_jobs WHERE workflow_id = ? AND step = 'draft' AND status = 'processing'`, [
      slowId,
    ])) as unknown[];
    return r.length > 0;
  });
  await stack.db.pool.query(
    `UPDATE queue_jobs SET started_at = CURRENT_TIMESTAMP(3) - INTERVAL 20 MINUTE WHERE workflow_id = ? AND step = 'draft'`,
    [slowId],
  );
  const result = await runSchedule<{ checked: number; reset: number; stillRunning: number }>(CLEANUP_SCHEDULE_ID);
  assert.deepEqual(result, { checked: 2, reset: 1, stillRunning: 1 });
  const lost = (await stack.db.pool.query(`SELECT status, last_error FROM queue_jobs WHERE activity_id = 'lost-1'`)) as Array<{
    status: string;
    last_error: string;
  }>;
  assert.equal(lost[0]?.status, 'failed');
  assert.match(lost[0]?.last_error ?? '', /workflow closed/);
  const audit = (await stack.db.pool.query(`SELECT COUNT(*) AS n FROM audit_log WHERE event_type = 'stuck_reset'`)) as Array<{ n: number }>;
  assert.equal(Number(audit[0]?.n), 1);
  await waitFor('slow draft finished', async () => (await emailRow(slowId!))?.status === 'awaiting_approval', 60_000);
  await client.workflow
    .getHandle(slowId!)
    .signal(rejectSignal, { draftId: await currentDraftId(client, slowId!), by: 'test', reason: 'done' });
});

test('a new message in the thread makes the waiting draft stale; a new one is drafted with it as context', async () => {
  const { writeFileSync } = await import('node:fs');
  const first = `${stack.dir}/thread-1.eml`;
  writeFileSync(first, sampleEmail({ messageId: '<stale-1@customer.example>', subject: 'Retoure 3141' }));
  const [firstId] = (await cli(['ingest', first])).stdout.trim().split('\t');
  await waitFor('first draft', async () => (await emailRow(firstId!))?.status === 'awaiting_approval');
  const second = `${stack.dir}/thread-2.eml`;
  writeFileSync(
    second,
    sampleEmail({
      messageId: '<stale-2@customer.example>',
      subject: 'Re: Retoure 3141',
      body: 'Nachtrag: Die Retoure 3141 enthält auch das Ladekabel.',
      extra: ['In-Reply-To: <stale-1@customer.example>', 'References: <stale-1@customer.example>'],
    }),
  );
  const [secondId] = (await cli(['ingest', second])).stdout.trim().split('\t');
  const drafts = await waitFor('a second draft for the first email', async () => {
    const rows = (await stack.db.pool.query('SELECT version, status, context_ids FROM drafts WHERE email_id = ? ORDER BY version', [
      firstId,
    ])) as Array<{ version: number; status: string; context_ids: string }>;
    return rows.length === 2 && rows[1]!.status === 'awaiting_approval' ? rows : undefined;
  });
  assert.equal(drafts[0]!.status, 'stale');
  assert.ok((JSON.parse(drafts[1]!.context_ids) as string[]).includes(secondId!), 'the new draft knows the newer message');
  const superseded = (await stack.db.pool.query('SELECT draft_id, outcome FROM draft_outcomes WHERE email_id = ?', [firstId])) as Array<{
    draft_id: string;
    outcome: string;
  }>;
  assert.deepEqual(
    superseded.map((o) => [o.draft_id, o.outcome]),
    [[`${firstId}:draft:1`, 'redrafted']],
  );
  const handle = client.workflow.getHandle(firstId!);
  // The draft row is written before the workflow hears of it: wait for the workflow, not the table.
  await waitFor('the workflow waits on draft 2', async () => (await handle.query(draftQuery))?.version === 2);
  // The reviewer read version 1; approving it now is refused, and version 2 is not sent either.
  const stale = await cli(['approve', firstId!, '--draft', '1', '--by', 'dora']).catch((err: { code: number; stderr: string }) => err);
  assert.equal((stale as { code: number }).code, 5);
  assert.match((stale as { stderr: string }).stderr, /draft .*:draft:1 is not the current one/);
  const unpinned = await cli(['approve', firstId!, '--by', 'dora']).catch((err: { code: number; stderr: string }) => err);
  assert.equal((unpinned as { code: number }).code, 2, 'with two drafts the reviewer must name the one they read');
  assert.equal((await emailRow(firstId!))?.status, 'awaiting_approval');
  const audit = (await stack.db.pool.query(`SELECT COUNT(*) AS n FROM audit_log WHERE email_id = ? AND event_type = 'draft_stale'`, [
    firstId,
  ])) as Array<{ n: number }>;
  assert.equal(Number(audit[0]?.n), 1);
  for (const id of [firstId!, secondId!]) {
    await waitFor(`${id} waiting`, async () => (await emailRow(id))?.status === 'awaiting_approval');
    await client.workflow.getHandle(id).signal(rejectSignal, { draftId: await currentDraftId(client, id), by: 'test', reason: 'done' });
  }
});

test('metrics: intake, time to draft, step runtimes, backlog age, and an alert when urgent mail waits too long', async () => {
  const ok = JSON.parse((await cli(['metrics', '--json', '--minutes', '120'])).stdout) as {
    intake: { emails: number };
    timeToDraftMs: { p50: number | null };
    steps: Record<string, { runs: number; p50Ms: number | null }>;
    alerts: string[];
  };
  assert.ok(ok.intake.emails >= 5);
  assert.ok(ok.timeToDraftMs.p50 !== null && ok.timeToDraftMs.p50 > 0);
  assert.ok((ok.steps.draft?.runs ?? 0) >= 5 && ok.steps.draft?.p50Ms !== null);
  assert.deepEqual(ok.alerts, []);

  await stack.db.pool.query(
    `INSERT INTO emails (id, source, status, priority, created_at, status_changed_at)
     VALUES ('email-urgent-stuck', 'file', 'parsed', 'critical', CURRENT_TIMESTAMP(3) - INTERVAL 2 HOUR, CURRENT_TIMESTAMP(3) - INTERVAL 2 HOUR)`,
  );
  try {
    const alerting = await cli(['metrics', '--urgent-deadline', '30']).catch((err: { code: number; stdout: string }) => err);
    assert.equal((alerting as { code: number }).code, 4, 'a non-zero exit for monitoring scripts');
    assert.match((alerting as { stdout: string }).stdout, /ALERT: urgent mail has waited 120 min in the pipeline \(deadline 30 min\)/);
  } finally {
    await stack.db.pool.query(`DELETE FROM emails WHERE id = 'email-urgent-stuck'`);
  }
});
