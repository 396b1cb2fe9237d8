/**
 * A replay run the policy names counts beside the live record, with real MariaDB (a throwaway
 * database): only its measured pairs of the same mailbox and category, one result per customer
 * mail, the newest up to the cap; another mailbox's run, an unfinished one and a deleted one count
 * nothing and say so. The verdict, its figures and audit rows carry the split, and a demotion when
 * the replay stops counting is decided and recorded as before. The workflow's `approve` Update is
 * a FAKE here: nothing is sent, only verdicts are asked.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import { MockActivityEnvironment } from '@temporalio/testing';
import { createAutonomyActivities, type AutonomyVerdict } from '../../src/autonomy/autonomy.activities';
import { createMariaDbAuditLog } from '../../src/platform/audit-log.mariadb';
import { createMariaDbAutonomyStore } from '../../src/autonomy/autonomy-store.mariadb';
import { createMariaDbReplayEvidence } from '../../src/replay/replay-evidence.mariadb';
import { createMariaDbDraftStore } from '../../src/email/draft/draft-store.mariadb';
import { createMariaDbMessageStore } from '../../src/email/message-store.mariadb';
import { createMariaDbReplayStore } from '../../src/replay/replay-store.mariadb';
import { readAutonomyStatus } from '../../src/autonomy/autonomy-status';
import { formatAutonomyStatus } from '../../src/autonomy/autonomy.cli';
import { autonomySection } from '../../src/review-inbox/autonomy.routes';
import { TEXTS } from '../../src/review-inbox/i18n';
import type { Config } from '../../src/config';
import { parseAutonomyPolicy, type AutonomyPolicy } from '../../src/autonomy/autonomy-policy';
import type { AutoApprover } from '../../src/autonomy/autonomy.port';
import { createTestDatabase } from '../support/database';
import { wilsonInterval } from '../../src/platform/wilson-interval';

let db: Awaited<ReturnType<typeof createTestDatabase>>;
let seq = 0;

const RUN = '20250605-aaaa0001';
const OTHER_MAILBOX = '20250605-bbbb0002';
const DELETED = '20250605-cccc0003';
const RUNNING = '20250605-dddd0004';
const WORSE = '20250605-eeee0005';

/** FAKE of the approve Update: no verdict here reaches the send. */
const approver: AutoApprover = {
  approve: () => Promise.resolve({ ok: true }),
  decision: () => Promise.resolve(null),
};

async function seedRun(id: string, mailbox: string, status = 'finished'): Promise<void> {
  await db.pool.query(
    `INSERT INTO replay_runs (id, mailbox_id, archive_name, team_addresses, status, created_by) VALUES (?, ?, 'a.mbox', '[]', ?, 'anna')`,
    [id, mailbox, status],
  );
}

/**
 * Replay pairs of a run (pair `p<first+i>`, its customer mail `first+i+1` hours ago: the first the
 * newest) with the outcome of each, or a failed row without one (null).
 */
async function seedPairs(
  run: string,
  category: string,
  outcomes: Array<string | null>,
  first = 0,
  rated: (outcome: string) => string | null = ratingOf,
): Promise<void> {
  for (const [i, outcome] of outcomes.entries()) {
    const pair = `p${String(first + i).padStart(31, '0')}`;
    await db.pool.query(
      `INSERT INTO replay_pairs (run_id, pair_id, reply_key, correspondent, customer_at) VALUES (?, ?, ?, 'eva@kunde.example', NOW(3) - INTERVAL ? HOUR)`,
      [run, pair, pair, first + i + 1],
    );
    await db.pool.query(
      `INSERT INTO replay_results (run_id, pair_id, correspondent, state, outcome, category) VALUES (?, ?, 'eva@kunde.example', ?, ?, ?)`,
      [run, pair, outcome === null ? 'error' : 'measured', outcome, category],
    );
    // Only a pair a person rated counts; by default the rating agrees with the measured outcome.
    const rating = outcome === null ? null : rated(outcome);
    if (rating)
      await db.pool.query(`INSERT INTO pair_ratings (source, pair_key, run_id, rating, rated_by) VALUES ('replay', ?, ?, ?, 'rita')`, [
        `${run}:${pair}`,
        run,
        rating,
      ]);
  }
}

/** The rating a person gives a pair whose measured outcome is `outcome`, as the seeds assume. */
function ratingOf(outcome: string): string {
  return outcome === 'unchanged' ? 'as_is' : outcome === 'light_edit' ? 'light_edit' : 'rewritten';
}

/** `n` decided drafts of a category by people: `unchanged` of them approved unchanged. */
async function seedRecord(mailbox: string, category: string, n: number, unchanged: number): Promise<void> {
  for (let i = 0; i < n; i += 1) {
    seq += 1;
    await db.pool.query(
      `INSERT INTO draft_outcomes (draft_id, email_id, outcome, mailbox_id, category, language, drafter, model, prompt_version, decided_by, decided_at)
       VALUES (?, ?, ?, ?, ?, 'de', 'openai', 'm', 'v1', 'anna', NOW(3) - INTERVAL ? SECOND)`,
      [`seed-${seq}:draft:1`, `seed-${seq}`, i < unchanged ? 'approved_unchanged' : 'light_edit', mailbox, category, 1000 + seq],
    );
  }
}

const policyWith = (replay: string): AutonomyPolicy =>
  parseAutonomyPolicy(`policy: support-autonomy\nversion: 4\nmailboxes:\n  support:\n    categories: [shipping]\n${replay}`, 'test', [
    'support',
    'sales',
  ]);

function harness(policy: AutonomyPolicy) {
  const store = createMariaDbAutonomyStore(db.pool, createMariaDbReplayEvidence(db.pool));
  const drafts = createMariaDbDraftStore(db.pool);
  const messages = createMariaDbMessageStore(db.pool);
  const audit = createMariaDbAuditLog(db.pool);
  const acts = createAutonomyActivities({ autonomy: store, approver, messages, drafts, audit, policy });
  const verdict = (m: { emailId: string; draftId: string }): Promise<AutonomyVerdict> =>
    new MockActivityEnvironment({ workflowExecution: { workflowId: m.emailId, runId: randomUUID() }, activityId: '1', attempt: 1 }).run(
      acts.autonomyVerdict,
      m,
    );
  return { store, drafts, verdict };
}

/** A shipping mail of mailbox support whose draft waits for approval. */
async function mail(h: ReturnType<typeof harness>): Promise<{ emailId: string; draftId: string }> {
  seq += 1;
  const emailId = `email-replay-${seq}`;
  await db.pool.query(
    `INSERT INTO emails (id, source, status, mailbox_id, subject, text_body, from_address, from_name)
     VALUES (?, 'file', 'awaiting_approval', 'support', 'Lieferzeit', 'Wie lange dauert die Lieferung nach Österreich?', 'eva@kunde.example', 'Eva')`,
    [emailId],
  );
  const d = await h.drafts.save({
    id: `${emailId}:draft:1`,
    emailId,
    version: 1,
    subject: 'Re: Lieferzeit',
    body: 'Guten Tag,\n\ndie Lieferung nach Österreich dauert drei bis fünf Werktage.\n\nViele Grüße\nSupport',
    language: 'de',
    confidence: 0.9,
    drafter: 'openai',
    model: 'm',
    promptVersion: 'v1',
    contextIds: [],
    flags: [],
    category: 'shipping',
    to: { address: 'eva@kunde.example', name: 'Eva' },
  });
  return { emailId, draftId: d.id };
}

before(async () => {
  db = await createTestDatabase('autoreplay');
  await seedRun(RUN, 'support');
  // 58 unchanged newest, the 2 oldest lightly edited; 3 failed pairs; another category's pairs.
  await seedPairs(RUN, 'shipping', [...Array<string>(58).fill('unchanged'), 'light_edit', 'not_answerable']);
  await seedPairs(RUN, 'shipping', [null, null, null], 100);
  await seedPairs(RUN, 'billing', Array<string>(10).fill('unchanged'), 200);
  await seedRun(OTHER_MAILBOX, 'sales');
  await seedPairs(OTHER_MAILBOX, 'shipping', Array<string>(30).fill('unchanged'), 300);
  await seedRun(DELETED, 'support');
  await seedPairs(DELETED, 'shipping', Array<string>(20).fill('unchanged'), 400);
  await seedRun(RUNNING, 'support', 'running');
  await seedPairs(RUNNING, 'shipping', Array<string>(20).fill('unchanged'), 500);
  // The same customer mails as RUN's ten newest, replayed again and heavily edited.
  await seedRun(WORSE, 'support');
  await seedPairs(WORSE, 'shipping', Array<string>(10).fill('heavy_edit'));
  await createMariaDbReplayStore(db.pool).deleteRun(DELETED);
  // 49 of 50 by people: the lower bound 89.5 % alone is below the bar of 90 %.
  await seedRecord('support', 'shipping', 50, 49);
  await createMariaDbAutonomyStore(db.pool, createMariaDbReplayEvidence(db.pool)).setSwitch(true, 'tester');
});
after(async () => {
  await db?.drop();
});

test('the named run counts its measured pairs of the category; other mailboxes, unfinished and deleted runs count nothing', async () => {
  const store = createMariaDbAutonomyStore(db.pool, createMariaDbReplayEvidence(db.pool));
  const all = await store.replayRecord('support', 'shipping', [RUN], 1000);
  assert.deepEqual(all, { runs: [{ runId: RUN, problem: null }], available: 60, reviewed: 60, unchanged: 58, allowed: 1000 });
  const named = await store.replayRecord('support', 'shipping', [RUN, OTHER_MAILBOX, DELETED, RUNNING, 'never-made'], 1000);
  assert.deepEqual(named.runs, [
    { runId: RUN, problem: null },
    { runId: OTHER_MAILBOX, problem: 'other_mailbox' },
    { runId: DELETED, problem: 'not_found' },
    { runId: RUNNING, problem: 'unfinished' },
    { runId: 'never-made', problem: 'not_found' },
  ]);
  assert.deepEqual([named.available, named.reviewed, named.unchanged], [60, 60, 58]);
  const nothing = await store.replayRecord('support', 'shipping', [OTHER_MAILBOX, DELETED, RUNNING], 1000);
  assert.deepEqual([nothing.available, nothing.reviewed, nothing.unchanged], [0, 0, 0]);
  assert.equal((await store.replayRecord('support', 'billing', [RUN], 1000)).reviewed, 10);
  assert.equal((await store.replayRecord('sales', 'shipping', [RUN], 1000)).runs[0]?.problem, 'other_mailbox');
});

test('the cap holds: the newest pairs up to the limit; a customer mail in two named runs counts once, the first named', async () => {
  const store = createMariaDbAutonomyStore(db.pool, createMariaDbReplayEvidence(db.pool));
  const capped = await store.replayRecord('support', 'shipping', [RUN], 40);
  assert.deepEqual([capped.available, capped.reviewed, capped.unchanged, capped.allowed], [60, 40, 40, 40]);
  assert.equal((await store.replayRecord('support', 'shipping', [RUN], 0)).reviewed, 0);
  const runFirst = await store.replayRecord('support', 'shipping', [RUN, WORSE], 1000);
  assert.deepEqual([runFirst.available, runFirst.unchanged], [60, 58]);
  const worseFirst = await store.replayRecord('support', 'shipping', [WORSE, RUN], 1000);
  assert.deepEqual([worseFirst.available, worseFirst.unchanged], [60, 48]);
});

test('the verdict counts the named replay up to the live record and says so; without countReplay it does not', async () => {
  const plain = harness(policyWith(''));
  const withheld = await plain.verdict(await mail(plain));
  assert.equal(withheld.send, false);
  assert.match(
    withheld.reasons.join('; '),
    /category "shipping" is below its bar: 49 of 50 approved unchanged \(98\.0 %; 95 % interval 89\.5 %/,
  );
  assert.equal(withheld.figures?.replay, undefined);

  const h = harness(policyWith(`    countReplay: [${RUN}, ${DELETED}]\n`));
  const v = await h.verdict(await mail(h));
  assert.equal(v.send, true, v.reasons.join('; '));
  // The cap is the live record's 50: the newest 50 replay pairs, all unchanged; 99 of 100 together.
  assert.deepEqual(v.figures, {
    category: 'shipping',
    reviewed: 50,
    unchanged: 49,
    share: 99 / 100,
    lower: wilsonInterval(99, 100).lower,
    minReviewed: 50,
    minShare: 0.9,
    replay: { runs: [RUN], reviewed: 50, unchanged: 50 },
  });
  const [pending] = (await db.pool.query(
    "SELECT message FROM audit_log WHERE event_type = 'auto_send_pending' ORDER BY id DESC LIMIT 1",
  )) as Array<{
    message: string;
  }>;
  assert.match(pending!.message, /sent automatically/);

  // A cap of a fifth: 10 replay pairs beside the 50 live, 59 of 60 (lower bound 91.1 %).
  const fifth = harness(policyWith(`    countReplay: ${RUN}\n    replayCap: 0.2\n`));
  const f = await fifth.verdict(await mail(fifth));
  assert.deepEqual(f.figures?.replay, { runs: [RUN], reviewed: 10, unchanged: 10 });

  const counting = policyWith(`    countReplay: [${RUN}, ${DELETED}]\n`);
  const status = await readAutonomyStatus(h.store, counting);
  const shipping = status.categories.find((c) => c.category === 'shipping');
  assert.equal(shipping?.state, 'qualifies');
  assert.deepEqual(
    [shipping?.reviewed, shipping?.unchanged, shipping?.replay?.reviewed, shipping?.replay?.countedReviewed],
    [50, 49, 50, 100],
  );
  assert.equal(
    shipping?.replay?.evidence,
    `live 49 of 50 approved unchanged; replay ${RUN}: 50 of 50 unchanged (50 of 60 pairs, cap 50); replay run ${DELETED} not found (never made, or deleted): counts nothing; together 99 of 100 (99.0 %; 95 % interval 94.6 %–99.8 %)`,
  );
  // `email-rag autonomy status` marks the interval and prints the split; the operations page says it beside the interval.
  const text = formatAutonomyStatus(status);
  assert.match(text, /^support\s+shipping\s+50\s+49 98\.0 %\s+94\.6 %–99\.8 % \(with replay\)\s+50 \/ 90\.0 %\s+qualifies/m);
  assert.match(text, new RegExp(`^  support/shipping: live 49 of 50 approved unchanged; replay ${RUN}: 50 of 50 unchanged`, 'm'));
  const page = await autonomySection({ pool: db.pool, config: { autonomy: counting } as Config }, TEXTS.en);
  assert.equal(
    page.rows.find((r) => r.category === 'shipping')?.replayNote,
    `with replay ${RUN}: 50 of 50 unchanged; together 99.0\u00a0%`,
  );
});

test('a named run deleted after it counted: the category is demoted as before, and the row says replay counted nothing', async () => {
  await seedRun('20250606-ffff0006', 'support');
  await seedPairs('20250606-ffff0006', 'shipping', Array<string>(50).fill('unchanged'), 600);
  const h = harness(policyWith('    countReplay: 20250606-ffff0006\n'));
  assert.equal((await h.verdict(await mail(h))).send, true);
  assert.equal((await h.store.standings()).find((s) => s.category === 'shipping')?.qualified, true);
  await createMariaDbReplayStore(db.pool).deleteRun('20250606-ffff0006');
  const v = await h.verdict(await mail(h));
  assert.equal(v.send, false);
  assert.match(
    v.reasons.join('; '),
    /replay run 20250606-ffff0006 not found \(never made, or deleted\): counts nothing; together 49 of 50/,
  );
  const standing = (await h.store.standings()).find((s) => s.category === 'shipping');
  assert.equal(standing?.qualified, false);
  assert.ok(standing?.lastDemotedAt instanceof Date);
  const demoted = (await db.pool.query("SELECT message FROM audit_log WHERE event_type = 'autonomy_demoted'")) as Array<{
    message: string;
  }>;
  assert.equal(demoted.length, 1);
  assert.match(
    demoted[0]!.message,
    /category "shipping" of mailbox support no longer qualifies .*49 of the last 50 approved unchanged with replay \(no usable run\) counted: 0 of 0 unchanged, lower bound 89\.5 % \(bar 90\.0 %\)/,
  );
});

test('only rated pairs count, and a person’s “as is” counts as unchanged whatever the edit distance said', async () => {
  const run = '20250606-aaaa0007';
  await seedRun(run, 'support', 'finished');
  // 10 unchanged by edit distance nobody rated, 5 heavily edited by edit distance a person would have sent as they were.
  await seedPairs(run, 'returns', Array<string>(10).fill('unchanged'), 700, () => null);
  await seedPairs(run, 'returns', Array<string>(5).fill('heavy_edit'), 720, () => 'as_is');
  const store = createMariaDbAutonomyStore(db.pool, createMariaDbReplayEvidence(db.pool));
  const record = await store.replayRecord('support', 'returns', [run], 1000);
  assert.deepEqual([record.available, record.reviewed, record.unchanged], [5, 5, 5]);
});

test('a policy naming `shadow` counts the mailbox’s rated shadow evidence beside its replay runs', async () => {
  for (let i = 0; i < 6; i++) {
    const email = `shadow-mail-${i}`;
    await db.pool.query(
      `INSERT INTO shadow_evidence (email_id, mailbox_id, mailbox_mode, draft_id, reply_message_id, category, language, outcome, edit_share, replied_at)
       VALUES (?, 'support', 'shadow', ?, ?, 'complaints', 'de', 'heavy_edit', 0.8, NOW(3) - INTERVAL ? HOUR)`,
      [email, `${email}:draft:1`, `<r${i}@example.test>`, i + 1],
    );
    // Four rated as they were, one rewritten, one not rated at all.
    if (i < 5)
      await db.pool.query(`INSERT INTO pair_ratings (source, pair_key, rating, rated_by) VALUES ('shadow', ?, ?, 'rita')`, [
        email,
        i < 4 ? 'as_is' : 'rewritten',
      ]);
  }
  const store = createMariaDbAutonomyStore(db.pool, createMariaDbReplayEvidence(db.pool));
  const shadow = await store.replayRecord('support', 'complaints', ['shadow'], 1000);
  assert.deepEqual(shadow.runs, [{ runId: 'shadow', problem: null }]);
  assert.deepEqual([shadow.available, shadow.reviewed, shadow.unchanged], [5, 5, 4]);
  // Another mailbox's shadow evidence is not this one's.
  assert.equal((await store.replayRecord('sales', 'complaints', ['shadow'], 1000)).available, 0);
  assert.equal((await store.replayRecord('support', 'complaints', ['shadow'], 3)).reviewed, 3);
});
