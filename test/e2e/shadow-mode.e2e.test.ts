/**
 * Shadow mode on real servers (Temporal dev server, MariaDB, Dovecot, SMTP listener; the LLM is a
 * double): a mailbox in shadow mode drafts, asks nobody and sends nothing; when the team answers
 * from its own client the draft is measured against that reply (shadow evidence), and
 * `email-rag shadow report` gives the replay's figures over it.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Client } from '@temporalio/client';
import type { ImapFlow } from 'imapflow';
import { withImap } from '../support/imap-session';
import { imapEmailId } from '../../src/email/email-input';
import { installSchedules, wantedSchedules } from '../../src/operations/schedules';
import { stateQuery, type EmailWorkflowResult } from '../../src/email/email.workflow';
import { createTemporalDecisions } from '../../src/email/decisions/decisions.temporal';
import { formatShadowReport, shadowReport } from '../../src/shadow/index.adapters';
import type { Config } from '../../src/config';
import { MAILBOX_PASSWORD, MAILBOX_USER, sampleEmail, type TestStack } from '../support/stack';
import { waitFor } from '../support/wait';
import { useWorkerStack } from '../support/worker-stack';
import { emailStatusOf, pollOnce } from '../support/poll-runs';
import { inboxOnDatabase, listenLocally } from '../support/inbox-app';
import { loadConfig } from '../../src/config';
import { inboxUsersAdd } from '../../src/review-inbox/inbox-users.cli';
import { createMariaDbPairRatings } from '../../src/replay/index.adapters';

let stack: TestStack;
let client: Client;
let config: Config;

const imap = <T>(fn: (c: ImapFlow) => Promise<T>): Promise<T> =>
  withImap({ host: stack.dovecot.host, port: stack.dovecot.port, user: MAILBOX_USER, password: MAILBOX_PASSWORD }, fn);

useWorkerStack((s) => ({ stack, client, config } = s), {
  configure: (s) => ({ ...s.config, mailboxes: s.config.mailboxes.map((m) => ({ ...m, mode: 'shadow' as const })) }),
  then: async (s) => {
    await installSchedules(s.client, s.config);
    for (const w of wantedSchedules(s.config)) await s.client.schedule.getHandle(w.id).pause('the test triggers each run itself');
    await pollOnce(client);
  },
});

test('a shadow mailbox drafts, asks nobody, and measures its draft against the team’s own reply', async () => {
  const r = await imap((c) => c.append('INBOX', sampleEmail({ messageId: '<shadow-e2e@customer.example>' })));
  assert.ok(r && r.uid);
  const emailId = imapEmailId(MAILBOX_USER, 'INBOX', Number(r.uidValidity), r.uid);
  await pollOnce(client);
  await waitFor('shadowed', async () => (await emailStatusOf(stack.db.pool, emailId)) === 'shadowed', 90_000);
  const state = await waitFor('the workflow waits in shadow', async () => {
    const s = await client.workflow.getHandle(emailId).query(stateQuery);
    return s.waitingFor?.kind === 'shadow' ? s : undefined;
  });
  // Nobody is asked: a decision on the shadow draft is refused, saying why.
  const refused = await createTemporalDecisions(client, { catchUpMs: 0 }).decide(emailId, 'approve', {
    draftId: state.waitingFor!.draftId,
    by: 'reviewer',
  });
  assert.equal(refused.ok, false);
  assert.match(refused.ok ? '' : refused.message, /shadow mode.*never sent/);
  const queued = (await stack.db.pool.query(
    `SELECT COUNT(*) AS n FROM emails WHERE status IN ('awaiting_approval', 'manual_review')`,
  )) as Array<{
    n: bigint;
  }>;
  assert.equal(Number(queued[0]!.n), 0, 'nothing waits in the review queue');

  // The team answers from its own client, quoting what it knows: the assistant measures its draft against it.
  const reply = [
    `From: Support <${MAILBOX_USER}>`,
    'To: Erika Mustermann <erika@customer.example>',
    'Subject: Re: Rechnung 2024-117 doppelt abgebucht',
    '<team-shadow-1@example.test>'.replace(/^/, 'Message-ID: '),
    'In-Reply-To: <shadow-e2e@customer.example>',
    `Date: ${new Date().toUTCString()}`,
    'Content-Type: text/plain; charset=utf-8',
    '',
    'Hallo Frau Mustermann,\r\n\r\ndie doppelte Abbuchung der Rechnung 2024-117 erstatten wir Ihnen bis zum 12.12.2026.\r\n\r\nViele Grüße\r\nIhr Support',
    '',
  ].join('\r\n');
  await imap((c) => c.append('Sent', reply));
  await pollOnce(client);
  const result = (await client.workflow.getHandle(emailId).result()) as EmailWorkflowResult;
  assert.equal(result.status, 'answered_elsewhere');
  const [evidence] = (await stack.db.pool.query('SELECT * FROM shadow_evidence WHERE email_id = ?', [emailId])) as Array<{
    mailbox_mode: string;
    outcome: string;
    edit_share: number;
    facts_total: number;
    reply_message_id: string;
  }>;
  assert.ok(evidence, 'the draft was measured');
  assert.equal(evidence.mailbox_mode, 'shadow');
  assert.equal(evidence.reply_message_id, '<team-shadow-1@example.test>');
  assert.ok(['unchanged', 'light_edit', 'heavy_edit', 'not_answerable'].includes(evidence.outcome), evidence.outcome);
  assert.ok(evidence.facts_total >= 2, 'the reply’s invoice number and date are facts to find');
  assert.equal(stack.smtp.messages.length, 0, 'a shadow mailbox sends nothing');

  const report = await shadowReport(config, { mode: 'shadow' });
  assert.equal(report.total.measured, 1);
  assert.equal(report.standDowns.withdrawn, 1);
  assert.ok(report.standDowns.latencyP50 !== null && report.standDowns.latencyP50 >= 0);
  const text = formatShadowReport(report);
  assert.match(text, /shadow report \(every mailbox, measured in shadow mode, all time\): 1 drafts measured/);
  assert.match(text, /modes now: default shadow/);
  assert.match(text, /stood down for a person's own answer: 1; from the reply's Date to the withdrawal p50 \d+\.\d s/);

  // An operator rates the pair side by side; only then does it count (docs/answered-elsewhere.md#rating-pairs).
  await inboxUsersAdd(config, 'olga', 'operator', 'a long and unguessable passphrase');
  const app = await inboxOnDatabase(loadConfig({ ...stack.env, INBOX_AUTH: 'header' }), stack.db.pool);
  try {
    const base = await listenLocally(app);
    const page = await fetch(`${base}/rate`, { headers: { 'x-forwarded-user': 'olga', 'accept-language': 'en' } });
    const html = await page.text();
    assert.equal(page.status, 200);
    assert.match(html, /0 rated, 1 to rate/);
    assert.ok(html.includes(`value="${emailId}"`), 'the pair to rate is the shadow mail');
    assert.match(html, /erstatten wir Ihnen bis zum 12\.12\.2026/, 'the team’s reply beside the draft');
    const reviewer = await fetch(`${base}/rate`, { headers: { 'x-forwarded-user': 'rita' } });
    assert.equal(reviewer.status, 403, 'every correspondent’s mail at once: operators only');
    const ratings = createMariaDbPairRatings(stack.db.pool);
    assert.equal(await ratings.rate({ source: 'shadow', pairKey: emailId, rating: 'as_is', by: 'olga' }), true);
    assert.equal(await ratings.rate({ source: 'shadow', pairKey: 'no-such-email', rating: 'as_is', by: 'olga' }), false);
    assert.deepEqual(await ratings.counts(), { rated: 1, unrated: 0 });
    assert.equal(await ratings.nextUnrated(), null);
  } finally {
    await app.close();
  }
});
