/**
 * `email-rag autonomy status|off|on|stop` as an operator runs them (real MariaDB, the CLI in its
 * own process): the record and bar of each mailbox category and its state, the pending automatic
 * sends, the one switch that turns everything off (audited), and a stop.
 */
import { categoryListFile } from '../support/category-list';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import { createMariaDbAutonomyStore } from '../../src/autonomy/autonomy-store.mariadb';
import { runCli } from '../support/cli-run';
import { createTestDatabase } from '../support/database';
import { writeRegistry } from '../support/mailbox-registry-file';

let db: Awaited<ReturnType<typeof createTestDatabase>>;
let env: Record<string, string>;

async function seed(mailbox: string, category: string, n: number, unchanged: number, by = 'anna'): Promise<void> {
  for (let i = 0; i < n; i += 1)
    await db.pool.query(
      `INSERT INTO draft_outcomes (draft_id, email_id, outcome, mailbox_id, category, language, drafter, model, prompt_version, decided_by, decided_at)
       VALUES (?, ?, ?, ?, ?, 'de', 'openai', 'm', 'v1', ?, NOW(3) - INTERVAL ? MINUTE)`,
      [
        `${mailbox}-${category}-${by}-${i}:draft:1`,
        `${mailbox}-${category}-${i}`,
        i < unchanged ? 'approved_unchanged' : 'heavy_edit',
        mailbox,
        category,
        by,
        i + 1,
      ],
    );
}

before(async () => {
  db = await createTestDatabase('autonomycli');
  const dir = mkdtempSync(path.join(tmpdir(), 'autonomy-cli-'));
  const policy = path.join(dir, 'autonomy.yml');
  writeFileSync(policy, 'policy: support-autonomy\nversion: 2\nmailboxes:\n  support:\n    categories: [shipping, opening_hours]\n');
  env = {
    DATABASE_URL: db.url,
    AUTONOMY_FILE: policy,
    CATEGORIES_FILE: categoryListFile(dir, ['shipping', 'opening_hours', 'billing']),
    ...registryEnv(dir),
  };
  await seed('support', 'shipping', 55, 55);
  // Automatic approvals count for nothing: opening_hours stays at 30 reviewed.
  await seed('support', 'opening_hours', 30, 30);
  await seed('support', 'opening_hours', 40, 40, 'autonomy:support-autonomy@1');
  await seed('support', 'billing', 60, 60);
  await db.pool.query(
    `INSERT INTO drafts (id, email_id, version, subject, body, language, confidence, drafter, model, prompt_version, context_ids, category, to_address)
     VALUES ('email-9:draft:1', 'email-9', 1, 'Re: Lieferzeit', 'Drei bis fünf Werktage.', 'de', 0.9, 'openai', 'm', 'v1', '[]', 'shipping', 'eva@kunde.example'),
            ('email-8:draft:1', 'email-8', 1, 'Re: Lieferzeit', 'Drei bis fünf Werktage.', 'de', 0.9, 'openai', 'm', 'v1', '[]', 'shipping', 'eva@kunde.example')`,
  );
  // email-8's draft was approved by a person meanwhile: its automatic send is not listed.
  await db.pool.query("UPDATE drafts SET status = 'approved' WHERE id = 'email-8:draft:1'");
  for (const id of ['email-8', 'email-9'])
    await createMariaDbAutonomyStore(db.pool).savePending({
      draftId: `${id}:draft:1`,
      emailId: id,
      mailboxId: 'support',
      category: 'shipping',
      sendAfter: new Date('2026-12-03T14:32:00Z'),
      policy: 'support-autonomy@2',
      figures: { category: 'shipping', reviewed: 50, unchanged: 50, share: 1, lower: 0.929, minReviewed: 50, minShare: 0.9 },
    });
});
after(async () => {
  await db?.drop();
});

/** A registry with the mailbox `support` (the policy names it; an unknown one is refused). */
function registryEnv(dir: string): Record<string, string> {
  const file = path.join(dir, 'mailboxes.yml');
  writeRegistry(file, [
    { id: 'support', user: 'support@shop.example', passwordEnv: 'SUPPORT_IMAP_PASSWORD', from: 'Support <support@shop.example>' },
  ]);
  return { MAILBOXES_FILE: file, SUPPORT_IMAP_PASSWORD: 'x' };
}

test('status: off by default, each category with its record, bar and state, and the pending sends', async () => {
  const r = await runCli(env, ['autonomy', 'status']);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^autonomy: off \(never switched on\)$/m);
  assert.match(r.stdout, /^policy: support-autonomy@2$/m);
  // The record is the last 200 reviewed; the bar is compared with the 95 % interval's lower bound.
  assert.match(r.stdout, /^support\s+billing\s+60\s+60 100\.0 %\s+94\.0 %–100\.0 %\s+50 \/ 90\.0 %\s+not listed\s+–$/m);
  assert.match(r.stdout, /^support\s+opening_hours\s+30\s+30 100\.0 %\s+88\.6 %–100\.0 %\s+50 \/ 90\.0 %\s+switched off\s+–$/m);
  assert.match(r.stdout, /^support\s+shipping\s+55\s+55 100\.0 %\s+93\.5 %–100\.0 %\s+50 \/ 90\.0 %\s+switched off\s+–$/m);
  assert.match(
    r.stdout,
    /^pending automatic sends \(1\):\n {2}2026-12-03T14:32:00\.000Z {2}email-9 {2}email-9:draft:1 {2}support\/shipping/m,
  );
  assert.doesNotMatch(r.stdout, /email-8/);
});

test('on and off need --by, switch everything, and are audited; status shows the states', async () => {
  const missing = await runCli(env, ['autonomy', 'on']);
  assert.equal(missing.code, 2);
  assert.match(missing.stderr, /autonomy on needs --by NAME/);
  const on = await runCli(env, ['autonomy', 'on', '--by', 'olga']);
  assert.equal(on.code, 0, on.stderr);
  assert.match(on.stdout, /^autonomy on \(by olga\)$/m);
  const json = JSON.parse((await runCli(env, ['autonomy', 'status', '--json'])).stdout) as {
    switch: { on: boolean; by: string };
    categories: Array<{ category: string; state: string; reviewed: number }>;
    pending: unknown[];
  };
  assert.deepEqual(json.switch.on, true);
  assert.deepEqual(
    json.categories.map((c) => [c.category, c.state, c.reviewed]),
    [
      ['billing', 'not_listed', 60],
      ['opening_hours', 'below_bar', 30],
      ['shipping', 'qualifies', 55],
    ],
  );
  assert.equal(json.pending.length, 1);
  const off = await runCli(env, ['autonomy', 'off', '--by', 'olga']);
  assert.match(off.stdout, /^autonomy off \(by olga\): every draft waits for a person$/m);
  assert.match((await runCli(env, ['autonomy', 'status'])).stdout, /^support\s+shipping\s+.*switched off\s+–$/m);
  const rows = (await db.pool.query("SELECT actor, message FROM audit_log WHERE event_type = 'autonomy_switched' ORDER BY id")) as Array<{
    actor: string;
    message: string;
  }>;
  assert.deepEqual(
    rows.map((r) => r.actor),
    ['olga', 'olga'],
  );
  assert.match(rows[1]!.message, /olga switched autonomy off/);
});

test('stop: the pending send of an email is stopped and leaves the list; wrong use is refused', async () => {
  assert.equal((await runCli(env, ['autonomy', 'stop', 'email-9'])).code, 2);
  const r = await runCli(env, ['autonomy', 'stop', 'email-9', '--by', 'bea']);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /stopped the automatic send of email-9:draft:1: it waits for a person/);
  assert.match((await runCli(env, ['autonomy', 'status'])).stdout, /^pending automatic sends: none$/m);
  const none = await runCli(env, ['autonomy', 'stop', 'email-9', '--by', 'bea']);
  assert.equal(none.code, 1);
  assert.match(none.stderr, /no automatic send is pending for email-9/);
  const bad = await runCli(env, ['autonomy', 'sideways']);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /usage: email-rag autonomy status/);
});

test('no AUTONOMY_FILE: status says autonomy is off everywhere; a broken file is refused with its problems', async () => {
  const plain = await runCli({ DATABASE_URL: db.url, AUTONOMY_FILE: '' }, ['autonomy', 'status']);
  assert.equal(plain.code, 0, plain.stderr);
  assert.match(plain.stdout, /^policy: none \(no AUTONOMY_FILE\): every draft waits for a person$/m);
  assert.match(plain.stdout, /^support\s+shipping\s+55\s+.*not listed\s+–$/m);
  const dir = mkdtempSync(path.join(tmpdir(), 'autonomy-bad-'));
  const broken = path.join(dir, 'a.yml');
  writeFileSync(
    broken,
    'policy: x\nversion: 1\nmailboxes:\n  support: { categories: [a], minUnchangedShare: 2 }\n  nobody: { categories: [a] }\n',
  );
  const r = await runCli({ ...env, AUTONOMY_FILE: broken }, ['autonomy', 'status']);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /minUnchangedShare must be a number from 0 to 1, got 2; mailboxes\.nobody: no such mailbox/);
});
