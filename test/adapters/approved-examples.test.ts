/**
 * Approved replies as examples on real MariaDB: only drafts of the same mailbox and category that a
 * person approved unchanged or with a light edit, as they were sent (the edited body), newest
 * decision first, at most the limit, each masked and within its length; never the answered email's
 * own, never one approved by earned autonomy, never one whose body retention emptied.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createMariaDbApprovedExamples } from '../../src/drafting/approved-examples.mariadb';
import { createTestDatabase } from '../support/database';

let db: Awaited<ReturnType<typeof createTestDatabase>>;
before(async () => {
  db = await createTestDatabase('examples');
  await seedAll();
});
after(async () => {
  await db?.drop();
});

interface Seed {
  id: string;
  mailbox?: string;
  category?: string;
  outcome: string;
  /** Minutes after a fixed start: the decision's time. */
  at: number;
  body: string;
  approvedBody?: string | null;
  by?: string;
}

async function seed(s: Seed): Promise<void> {
  const mailbox = s.mailbox ?? 'support';
  await db.pool.query(
    `INSERT INTO emails (id, source, status, mailbox_id, subject, text_body, from_name, from_address)
     VALUES (?, 'file', 'sent', ?, 'Frage', ?, 'Eva Weber', 'eva.weber@kunde.example')`,
    [s.id, mailbox, 'Guten Tag,\nmeine Rechnung ist doppelt.\n\nViele Grüße\nEva Weber\nLindenweg 7, 33602 Bielefeld'],
  );
  const draftId = `${s.id}:draft:1`;
  await db.pool.query(
    `INSERT INTO drafts (id, email_id, version, status, subject, body, language, drafter, model, prompt_version, context_ids,
       to_address, to_name, approved_body, category, decided_by, decided_at)
     VALUES (?, ?, 1, 'sent', 'Re: Frage', ?, 'de', 'openai', 'm', 'draft-v4', '[]', 'eva.weber@kunde.example', 'Eva Weber', ?, ?, ?,
       TIMESTAMPADD(MINUTE, ?, '2026-01-01 09:00:00'))`,
    [draftId, s.id, s.body, s.approvedBody ?? null, s.category ?? 'billing', s.by ?? 'anna', s.at],
  );
  await db.pool.query(
    `INSERT INTO draft_outcomes (draft_id, email_id, outcome, mailbox_id, category, language, drafter, model, prompt_version,
       decided_by, decided_at)
     VALUES (?, ?, ?, ?, ?, 'de', 'openai', 'm', 'draft-v4', ?, TIMESTAMPADD(MINUTE, ?, '2026-01-01 09:00:00'))`,
    [draftId, s.id, s.outcome, mailbox, s.category ?? 'billing', s.by ?? 'anna', s.at],
  );
}

const reply = (n: string) => `Guten Tag Frau Weber,\n\nAntwort ${n}: wir haben die doppelte Abbuchung geprüft.\n\nViele Grüße\nIhr Team`;

async function seedAll(): Promise<void> {
  await seed({ id: 'oldest', outcome: 'approved_unchanged', at: 0, body: reply('oldest') });
  await seed({ id: 'unchanged', outcome: 'approved_unchanged', at: 10, body: reply('unchanged') });
  await seed({ id: 'light', outcome: 'light_edit', at: 30, body: reply('light draft'), approvedBody: reply('light as sent') });
  await seed({ id: 'answered', outcome: 'approved_unchanged', at: 40, body: reply('of the answered email') });
  await seed({ id: 'heavy', outcome: 'heavy_edit', at: 50, body: reply('heavy'), approvedBody: 'Ganz anders.' });
  await seed({ id: 'rejected', outcome: 'rejected', at: 51, body: reply('rejected') });
  await seed({ id: 'redrafted', outcome: 'redrafted', at: 52, body: reply('redrafted') });
  await seed({ id: 'person', outcome: 'written_by_person', at: 53, body: reply('by a person') });
  await seed({ id: 'other-category', category: 'delivery', outcome: 'approved_unchanged', at: 54, body: reply('delivery') });
  await seed({ id: 'other-mailbox', mailbox: 'sales', outcome: 'approved_unchanged', at: 55, body: reply('sales') });
  await seed({ id: 'autonomy', outcome: 'approved_unchanged', at: 56, body: reply('automatic'), by: 'autonomy:default' });
  await seed({ id: 'purged', outcome: 'approved_unchanged', at: 57, body: '', approvedBody: '' });
}

test('only replies a person approved unchanged or lightly edited, of the same mailbox and category, newest first, as sent', async () => {
  const found = await createMariaDbApprovedExamples(db.pool).recent({
    mailboxId: 'support',
    category: 'billing',
    limit: 10,
    maxChars: 2_000,
    excludeEmailId: 'answered',
  });
  assert.deepEqual(
    found.map((e) => /Antwort ([^:]+):/.exec(e.text)?.[1]),
    ['light as sent', 'unchanged', 'oldest'],
  );
  // Without an email to leave out, the answered one's earlier reply is an example like the others.
  const all = await createMariaDbApprovedExamples(db.pool).recent({
    mailboxId: 'support',
    category: 'billing',
    limit: 10,
    maxChars: 2_000,
  });
  assert.equal(all.length, 4);
  assert.match(all[0]!.text, /Antwort of the answered email/);
});

test('at most the limit; none for a category without approved replies, or with examples off', async () => {
  const two = await createMariaDbApprovedExamples(db.pool).recent({
    mailboxId: 'support',
    category: 'billing',
    limit: 2,
    maxChars: 2_000,
    excludeEmailId: 'x',
  });
  assert.deepEqual(
    two.map((e) => /Antwort ([^:]+):/.exec(e.text)?.[1]),
    ['of the answered email', 'light as sent'],
  );
  assert.deepEqual(
    await createMariaDbApprovedExamples(db.pool).recent({ mailboxId: 'support', category: 'complaint', limit: 2, maxChars: 2_000 }),
    [],
  );
  assert.deepEqual(
    await createMariaDbApprovedExamples(db.pool).recent({ mailboxId: 'support', category: 'billing', limit: 0, maxChars: 2_000 }),
    [],
  );
});

test('each example masked by what is known of its recipient and cut to its length', async () => {
  await seed({
    id: 'personal',
    category: 'account',
    outcome: 'approved_unchanged',
    at: 60,
    body: [
      'Guten Tag Frau Weber,',
      '',
      'wir schicken die Unterlagen an Lindenweg 7 und bestätigen an eva.weber@kunde.example.',
      `Eva, ${'wir melden uns, sobald die Buchhaltung die Rechnung geprüft hat. '.repeat(20)}`,
    ].join('\n'),
  });
  const [one] = await createMariaDbApprovedExamples(db.pool).recent({ mailboxId: 'support', category: 'account', limit: 2, maxChars: 400 });
  assert.ok(one);
  for (const secret of ['Weber', 'Eva', 'Lindenweg', 'eva.weber@']) assert.ok(!one.text.includes(secret), `"${secret}" in: ${one.text}`);
  assert.match(one.text, /^Guten Tag Frau \[name\],/);
  assert.ok(one.text.length <= 400, `${one.text.length} characters`);
  assert.match(one.text, / …$/);
});

test('a remembered example is the same text; an edited or erased reply is masked afresh, as is another length', async () => {
  await seed({ id: 'remembered', category: 'returns', outcome: 'approved_unchanged', at: 70, body: reply('first wording') });
  const examples = createMariaDbApprovedExamples(db.pool, { remember: 2 });
  const ask = (maxChars = 2_000) => examples.recent({ mailboxId: 'support', category: 'returns', limit: 2, maxChars });
  const [first] = await ask();
  assert.match(first!.text, /Antwort first wording/);
  assert.deepEqual(await ask(), [first]);
  // The reply as stored changes (an edit after the fact, a retention purge of the customer's mail):
  // what the memory holds for the old content is not served for the new.
  await db.pool.query(`UPDATE drafts SET approved_body = ? WHERE email_id = 'remembered'`, [reply('second wording')]);
  const [second] = await ask();
  assert.match(second!.text, /Antwort second wording/);
  assert.ok((await ask(40))[0]!.text.length <= 40);
  await db.pool.query(`UPDATE emails SET text_body = NULL, from_name = NULL WHERE id = 'remembered'`);
  await db.pool.query(`UPDATE drafts SET approved_body = '' , body = '' WHERE email_id = 'remembered'`);
  assert.deepEqual(await ask(), []);
});
