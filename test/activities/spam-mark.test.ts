/**
 * A person marks a waiting mail as spam, on real Dovecot, MariaDB and a real spamd: the decision
 * is recorded (draft rejected, a `spam_marked` row, no draft outcome), spamd's Bayes database
 * learns the message as spam once (one `spam_learned` row however often the step runs; spamd's own
 * database holds it), the sender is not a known correspondent, and a spamd that does not answer is
 * tried again, then audited on the last attempt with the decision standing.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { EMAIL_AUDIT_EVENTS } from '../../src/email/email.contract';
import { TAKEN_FOR_REAL_STATUSES } from '../../src/email';
import { DRAFT_STATUS } from '../../src/drafting';
import { SPAM_LEARN_ATTEMPTS } from '../../src/platform/activity-profiles.workflow';
import { TRIAGE_AUDIT_EVENTS } from '../../src/triage/triage.contract';
import { createMariaDbKnownSenders } from '../../src/triage/known-sender.mariadb';
import { createSpamdLearner } from '../../src/triage/spam-scorer.spamd';
import { freePort } from '../support/services/ports';
import { useSpamd, type Spamd } from '../support/services/spamd';
import { auditRows, customerMail, harnessWithSpamd } from '../support/spam-mail';
import type { TestStack } from '../support/stack';
import { useActivityStack, type activityHarness, type inboxDelivery } from './support';

const run = promisify(execFile);
let stack: TestStack;
let deliver: ReturnType<typeof inboxDelivery>;
let spamd: Spamd;

useActivityStack((s) => ({ stack, deliver } = s));
useSpamd((s) => (spamd = s));

/** A mail that reads like a customer's (not held): fetched, parsed, indexed and drafted, waiting for a person. */
async function waitingDraft(h: ReturnType<typeof activityHarness>, from: string, messageId: string) {
  const delivered = await deliver(customerMail(from, messageId));
  const { emailId, source } = delivered;
  await h.run(emailId, h.activities.fetchEmail, { emailId, source });
  const parsed = await h.run(emailId, h.activities.parseEmail, { emailId });
  assert.equal(parsed.triage, null, 'not held as spam: it got a draft');
  await h.run(emailId, h.activities.indexEmail, { emailId });
  const draft = await h.run(emailId, h.activities.draftReply, { emailId, version: 1, record: { seq: 1 } });
  return { emailId, draftId: draft.draftId };
}

/** spamd's Bayes database as `sa-learn --dump magic` reads it: how many spam messages it learnt. */
async function learntSpam(): Promise<number> {
  const db = path.join(spamd.dir, 'bayes', 'bayes');
  // No database before the first message was learnt (sa-learn refuses to dump what is not there).
  if (!existsSync(`${db}_toks`)) return 0;
  const out = await run('sa-learn', ['--dbpath', db, '--dump', 'magic']);
  const line = out.stdout.split('\n').find((l) => /non-token data: nspam$/.test(l));
  assert.ok(line, `no nspam line in:\n${out.stdout}`);
  return Number(line.trim().split(/\s+/)[2]);
}

test('marked as spam: rejected with a spam_marked row, spamd learns it once, the sender is not known', async () => {
  const h = harnessWithSpamd(stack.env, spamd);
  try {
    const sender = 'gewinn@lottery.example';
    const { emailId, draftId } = await waitingDraft(h, sender, 'mark-spam-1@lottery.example');
    const before = await learntSpam();
    await h.run(emailId, h.activities.recordDecision, {
      emailId,
      draftId,
      decision: { kind: 'reject', by: 'Rita Reviewer', reason: 'spam', spam: true },
      record: { seq: 2 },
    });
    const [email] = (await stack.db.pool.query('SELECT status, status_reason FROM emails WHERE id = ?', [emailId])) as Array<{
      status: string;
      status_reason: string;
    }>;
    assert.deepEqual({ ...email }, { status: 'rejected', status_reason: 'marked as spam by Rita Reviewer' });
    const marked = await auditRows(stack.db.pool, emailId, EMAIL_AUDIT_EVENTS.spamMarked);
    assert.deepEqual(
      marked.map((r) => [r.actor, r.message]),
      [['Rita Reviewer', 'marked as spam by Rita Reviewer: draft rejected, nothing sent']],
    );
    assert.equal((await auditRows(stack.db.pool, emailId, EMAIL_AUDIT_EVENTS.draftRejected)).length, 0);
    const [draft] = (await stack.db.pool.query('SELECT status FROM drafts WHERE id = ?', [draftId])) as Array<{ status: string }>;
    assert.equal(draft?.status, DRAFT_STATUS.rejected);
    const outcomes = (await stack.db.pool.query('SELECT COUNT(*) AS n FROM draft_outcomes WHERE draft_id = ?', [draftId])) as Array<{
      n: number | bigint;
    }>;
    assert.equal(Number(outcomes[0]?.n), 0, "a spam mail's draft says nothing about the drafts' quality");

    // The step after the decision, and a retry of it.
    await h.run(emailId, h.activities.learnMarkedSpam, { emailId, by: 'Rita Reviewer' });
    await h.run(emailId, h.activities.learnMarkedSpam, { emailId, by: 'Rita Reviewer' });
    const learned = await auditRows(stack.db.pool, emailId, TRIAGE_AUDIT_EVENTS.spamLearned);
    assert.equal(learned.length, 1, 'one row for the decision, however often the step ran');
    assert.equal(learned[0]?.actor, 'Rita Reviewer');
    assert.match(
      learned[0]!.message,
      new RegExp(`^spamd 127\\.0\\.0\\.1:${spamd.port} learned it as spam \\(Rita Reviewer's decision\\)$`),
    );
    // spamd's own record: one more spam message in its database, and the same message again changes nothing.
    assert.equal(await learntSpam(), before + 1);
    const raw = (await h.deps.activities.messages.getRaw(emailId))!;
    assert.equal(await createSpamdLearner({ host: spamd.host, port: spamd.port, timeoutMs: 30_000 }).learn(raw, 'spam'), 'known');

    // A mail a person marked as spam makes its sender no correspondent of the team's.
    const known = createMariaDbKnownSenders(stack.db.pool, { handledStatuses: TAKEN_FOR_REAL_STATUSES, sentDraft: DRAFT_STATUS.sent });
    assert.equal(await known.knownSender(sender, 'the-next-mail'), null);
  } finally {
    await h.close();
  }
});

test('spamd not answering a spam mark: tried again, the last attempt audits it, the decision stands', async () => {
  const port = await freePort();
  const down = harnessWithSpamd(stack.env, { address: `127.0.0.1:${port}` });
  try {
    const { emailId } = await waitingDraft(down, 'another@lottery.example', 'mark-spam-2@lottery.example');
    const input = { emailId, by: 'Rita Reviewer' };
    for (let attempt = 1; attempt < SPAM_LEARN_ATTEMPTS; attempt++)
      await assert.rejects(down.runAttempt(emailId, attempt, down.activities.learnMarkedSpam, input), /ECONNREFUSED/);
    assert.equal((await auditRows(stack.db.pool, emailId, TRIAGE_AUDIT_EVENTS.spamLearnFailed)).length, 0, 'not before the last attempt');
    // The last attempt, and that attempt again (a worker lost after the row was written).
    for (let i = 0; i < 2; i++) await down.runAttempt(emailId, SPAM_LEARN_ATTEMPTS, down.activities.learnMarkedSpam, input);
    const rows = await auditRows(stack.db.pool, emailId, TRIAGE_AUDIT_EVENTS.spamLearnFailed);
    assert.equal(rows.length, 1);
    assert.equal(rows[0]?.error_class, 'dependency');
    assert.match(
      rows[0]!.message,
      new RegExp(
        `did not learn Rita Reviewer's decision \\(spam\\); the decision stands: spamd 127\\.0\\.0\\.1:${port}: connect ECONNREFUSED`,
      ),
    );

    // A message retention already removed: nothing to teach, said once.
    await down.run('spam-mark-gone', down.activities.learnMarkedSpam, { emailId: 'spam-mark-gone', by: 'Rita Reviewer' });
    const gone = await auditRows(stack.db.pool, 'spam-mark-gone', TRIAGE_AUDIT_EVENTS.spamLearnFailed);
    assert.match(gone[0]?.message ?? '', /the decision stands: the message is no longer stored$/);
  } finally {
    await down.close();
  }
});
