/**
 * Trust in spam scores, on real Dovecot, MariaDB and a real spamd (TRIAGE_SPAMD): a sender a
 * person has taken for real is never held by a score alone (the draft carries a flag instead), a
 * spammer's own earlier mail makes nobody known, and a person's release of held spam teaches
 * spamd's Bayes database ham once, with an audit row, however often the step runs.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { TRIAGE_AUDIT_EVENTS } from '../../src/triage/triage.contract';
import { DRAFT_FLAGS } from '../../src/drafting';
import { teachSpamFilter } from '../../src/email/intake/spam-learning';
import { createSpamdLearner } from '../../src/triage/spam-scorer.spamd';
import { createMariaDbKnownSenders } from '../../src/triage/known-sender.mariadb';
import { TAKEN_FOR_REAL_STATUSES } from '../../src/email';
import { DRAFT_STATUS } from '../../src/drafting';
import { freePort } from '../support/services/ports';
import { useSpamd, type Spamd } from '../support/services/spamd';
import type { TestStack } from '../support/stack';
import { auditRows as rowsOf, customerMail as mailOf, harnessWithSpamd, parseDelivered, spamCopy } from '../support/spam-mail';
import { type activityHarness, approveDelivered, useActivityStack, type inboxDelivery } from './support';

let stack: TestStack;
let h: ReturnType<typeof activityHarness>;
let deliver: ReturnType<typeof inboxDelivery>;
let spamd: Spamd;

useActivityStack((s) => ({ stack, h, deliver } = s));
useSpamd((s) => (spamd = s));

/** Real spam (SpamAssassin's test set) from `from`, with a Message-ID of its own: spamd scores it above 5, the built-in check lets it through. */
const spamFrom = (from: string, n: number) => spamCopy(`trust-${n}@spam.example`, from);
const customerMail = (from: string, n: number) => mailOf(from, `trust-customer-${n}@customer.example`);
const parseWith = (harness: ReturnType<typeof activityHarness>, raw: string) => parseDelivered(harness, deliver, raw);
const auditRows = (emailId: string, eventType: string) => rowsOf(stack.db.pool, emailId, eventType);

test('a sender whose earlier mail a person approved is not held by a spam score: drafted, flagged, audited', async () => {
  const withSpamd = harnessWithSpamd(stack.env, spamd);
  try {
    const sender = 'erika.known@customer.example';
    // Before any mail of theirs was taken for real, the score holds it.
    const unknown = await parseWith(withSpamd, spamFrom(sender, 1));
    assert.equal(unknown.summary.triage?.class, 'spam');
    // A second held spam from the same address makes it no better known.
    const again = await parseWith(withSpamd, spamFrom(sender, 2));
    assert.equal(again.summary.triage?.class, 'spam', "a spammer's earlier held mail makes nobody known");

    await approveDelivered(withSpamd, await deliver(customerMail(sender, 1)));

    const known = await parseWith(withSpamd, spamFrom(sender, 3));
    assert.equal(known.summary.triage, null, 'drafted, not held');
    const [row] = (await stack.db.pool.query('SELECT triage_class, status_reason FROM emails WHERE id = ?', [known.emailId])) as Array<{
      triage_class: string;
      status_reason: string;
    }>;
    assert.equal(row?.triage_class, 'spam', 'the score stays on the email');
    const flagged = await auditRows(known.emailId, TRIAGE_AUDIT_EVENTS.spamScoreFlagged);
    assert.equal(flagged.length, 1);
    assert.match(
      flagged[0]!.message,
      /^spam score not held, flagged for review: spamd .*score .* ≥ 5.*known sender \(erika\.known@customer\.example: 1 earlier email a person took for real\)/,
    );

    await withSpamd.run(known.emailId, withSpamd.activities.indexEmail, { emailId: known.emailId });
    const draft = await withSpamd.run(known.emailId, withSpamd.activities.draftReply, {
      emailId: known.emailId,
      version: 1,
      record: { seq: 1 },
    });
    assert.ok(draft.flags.includes(DRAFT_FLAGS.spamScore), `the draft is flagged for a person: ${draft.flags.join(', ')}`);
  } finally {
    await withSpamd.close();
  }
});

test('a release of held spam teaches spamd ham once: one audit row, spamd learns nothing the second time', async () => {
  const withSpamd = harnessWithSpamd(stack.env, spamd);
  try {
    const held = await parseWith(withSpamd, spamFrom('stranger@elsewhere.example', 10));
    assert.equal(held.summary.triage?.class, 'spam');
    assert.equal((await auditRows(held.emailId, TRIAGE_AUDIT_EVENTS.spamLearned)).length, 0, 'holding it teaches nothing');
    const released = { emailId: held.emailId, answerRequestedBy: 'Rita Reviewer' };
    // The released run's parse step, and a retry of it.
    const first = await withSpamd.run(held.emailId, withSpamd.activities.parseEmail, released);
    assert.equal(first.triage?.class, 'spam', 'the score is unchanged; the run goes on because a person asked');
    await withSpamd.run(held.emailId, withSpamd.activities.parseEmail, released);
    const rows = await auditRows(held.emailId, TRIAGE_AUDIT_EVENTS.spamLearned);
    assert.equal(rows.length, 1, 'one row for the decision, however often the step ran');
    assert.equal(rows[0]?.actor, 'Rita Reviewer');
    assert.match(rows[0]!.message, new RegExp(`^spamd 127\\.0\\.0\\.1:${spamd.port} learned it as ham \\(Rita Reviewer's decision\\)$`));
    // spamd's own record: the same message as ham again changes nothing.
    const raw = (await withSpamd.deps.activities.messages.getRaw(held.emailId))!;
    assert.equal(await createSpamdLearner({ host: spamd.host, port: spamd.port, timeoutMs: 30_000 }).learn(raw, 'ham'), 'known');
  } finally {
    await withSpamd.close();
  }
});

test('spamd not answering a release: the decision stands and one audit row says the filter did not learn it', async () => {
  const port = await freePort();
  const emailId = 'spam-learn-down';
  const learner = createSpamdLearner({ host: '127.0.0.1', port, timeoutMs: 5_000 });
  const deps = { audit: h.deps.activities.audit, spamLearner: learner };
  for (let attempt = 0; attempt < 2; attempt++)
    await h.run(emailId, () => teachSpamFilter(deps, emailId, Buffer.from(customerMail('x@y.example', 9)), 'ham', 'Rita Reviewer'));
  const rows = await auditRows(emailId, TRIAGE_AUDIT_EVENTS.spamLearnFailed);
  assert.equal(rows.length, 1);
  assert.equal(rows[0]?.error_class, 'dependency');
  assert.match(
    rows[0]!.message,
    new RegExp(
      `did not learn Rita Reviewer's decision \\(ham\\); the decision stands: spamd 127\\.0\\.0\\.1:${port}: connect ECONNREFUSED`,
    ),
  );
});

test('a sender the team sent a reply to is known; a draft that was never sent makes nobody known', async () => {
  const known = createMariaDbKnownSenders(stack.db.pool, { handledStatuses: TAKEN_FOR_REAL_STATUSES, sentDraft: DRAFT_STATUS.sent });
  const draft = (id: string, to: string, status: string) =>
    stack.db.pool.query(
      `INSERT INTO drafts (id, email_id, version, status, subject, body, language, drafter, model, prompt_version, context_ids, to_address)
       VALUES (?, ?, 1, ?, 'Re: x', 'y', 'de', 'test', 'none', 'test', '[]', ?)`,
      [`${id}:draft:1`, id, status, to],
    );
  await draft('known-sender-replied', 'Kunde@Replied.Example', DRAFT_STATUS.sent);
  await draft('known-sender-waiting', 'waiting@replied.example', DRAFT_STATUS.awaitingApproval);
  assert.equal(await known.knownSender('kunde@replied.example', 'another-mail'), 'kunde@replied.example: the team sent it a reply before');
  assert.equal(await known.knownSender('kunde@replied.example', 'known-sender-replied'), null, 'its own reply does not count');
  assert.equal(await known.knownSender('waiting@replied.example', 'another-mail'), null);
  assert.equal(await known.knownSender('nobody@replied.example', 'another-mail'), null);
});
