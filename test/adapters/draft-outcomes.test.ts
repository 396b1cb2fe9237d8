/**
 * Draft outcomes on real MariaDB: recorded by the decision activity and the draft store as they
 * run (approve, edit and approve, reject, redraft, a reply a person wrote), upserted on the draft
 * id, backfilled by the migration, and read back as `email-rag quality` prints them.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import { MockActivityEnvironment } from '@temporalio/testing';
import { createSendActivities } from '../../src/email/send/send.activities';
import { createMariaDbAuditLog } from '../../src/platform/audit-log.mariadb';
import { gapCandidates } from '../../src/operations/draft-quality.mariadb';
import { createMariaDbDraftStore } from '../../src/email/draft/draft-store.mariadb';
import { formatGaps, formatQuality, readGaps, readQuality } from '../../src/operations/quality.cli';
import type { Decision } from '../../src/email/email-input';
import type { NewDraft } from '../../src/email/email-stores.port';
import { createTestDatabase } from '../support/database';
import { sampleDraft } from '../support/draft-fixture';

let db: Awaited<ReturnType<typeof createTestDatabase>>;
before(async () => {
  db = await createTestDatabase('outcomes');
});
after(async () => {
  await db?.drop();
});

const BODY = 'Guten Tag, die doppelte Abbuchung erstatten wir innerhalb von fünf Werktagen auf Ihr Konto zurück.';

async function email(id: string, mailbox: string, subject: string, text = 'Hallo, eine Frage.'): Promise<void> {
  await db.pool.query('INSERT INTO emails (id, source, status, mailbox_id, subject, text_body) VALUES (?, ?, ?, ?, ?, ?)', [
    id,
    'file',
    'awaiting_approval',
    mailbox,
    subject,
    text,
  ]);
}

function newDraft(emailId: string, version: number, extra: Partial<NewDraft> = {}): NewDraft {
  return sampleDraft(emailId, version, BODY, extra);
}

function decide(emailId: string, draftId: string, decision: Decision) {
  const acts = createSendActivities({
    drafts: createMariaDbDraftStore(db.pool),
    audit: createMariaDbAuditLog(db.pool),
  } as unknown as Parameters<typeof createSendActivities>[0]);
  const env = new MockActivityEnvironment({ workflowExecution: { workflowId: `email-${emailId}`, runId: 'r1' }, activityId: '1' });
  return env.run(acts.recordDecision, { emailId, draftId, decision });
}

async function outcomes(): Promise<Array<Record<string, unknown>>> {
  return (await db.pool.query(
    `SELECT draft_id, outcome, edit_distance, changed_share, mailbox_id, category, language, drafter, model, prompt_version,
            no_relevant_context, decided_by FROM draft_outcomes ORDER BY draft_id`,
  )) as Array<Record<string, unknown>>;
}

test('every decision records its outcome with the figures it is grouped by', async () => {
  const drafts = createMariaDbDraftStore(db.pool);
  await email('e1', 'support', 'Doppelt abgebucht');
  await email('e2', 'support', 'Rechnung falsch');
  await email('e3', 'billing', 'Erstattung');
  await email('e4', 'billing', 'Wo ist mein Paket?', 'Mein Paket ist seit zwei Wochen unterwegs.\n> alte Mail');
  await email('e5', 'support', 'Passwort vergessen');
  await drafts.save(newDraft('e1', 1));
  await drafts.save(newDraft('e2', 1));
  await drafts.save(newDraft('e3', 1, { category: 'refund', language: 'en', promptVersion: 'v8' }));
  await drafts.save(newDraft('e4', 1, { drafter: 'offline', flags: ['offline_drafter', 'no_relevant_context'], category: 'unclassified' }));
  await drafts.save(newDraft('e5', 1));

  await decide('e1', 'e1:draft:1', { kind: 'approve', by: 'anna' });
  // Two of 15 words replaced: light.
  await decide('e2', 'e2:draft:1', { kind: 'approve', by: 'ben', body: BODY.replace('fünf', 'drei').replace('Konto', 'Girokonto') });
  await decide('e3', 'e3:draft:1', { kind: 'approve', by: 'anna', body: 'Wir haben das Geld heute überwiesen. Viele Grüße' });
  await decide('e4', 'e4:draft:1', { kind: 'reject', by: 'ben', reason: 'falsche Auskunft' });
  // A redraft: version 2 replaces 1 (the draft step marks it stale), then a person writes the reply.
  await drafts.save(newDraft('e5', 2));
  await drafts.markStale('e5', 2);
  await drafts.save(
    newDraft('e5', 3, {
      drafter: 'human',
      model: 'carla',
      promptVersion: 'human',
      language: 'und',
      category: null,
      flags: ['human_written'],
    }),
  );
  await decide('e5', 'e5:draft:3', { kind: 'approve', by: 'carla', body: BODY });
  // A retried decision activity changes nothing.
  await decide('e2', 'e2:draft:1', { kind: 'approve', by: 'ben', body: BODY.replace('fünf', 'drei').replace('Konto', 'Girokonto') });

  const rows = await outcomes();
  const o = Object.fromEntries(rows.map((r) => [r.draft_id, r]));
  assert.equal(rows.length, 6);
  assert.equal(o['e1:draft:1']!.outcome, 'approved_unchanged');
  assert.equal(o['e1:draft:1']!.edit_distance, 0);
  assert.equal(o['e2:draft:1']!.outcome, 'light_edit');
  assert.equal(o['e2:draft:1']!.edit_distance, 2);
  assert.equal(Number(o['e2:draft:1']!.changed_share).toFixed(3), (2 / 15).toFixed(3));
  assert.deepEqual(
    [
      o['e3:draft:1']!.outcome,
      o['e3:draft:1']!.category,
      o['e3:draft:1']!.language,
      o['e3:draft:1']!.prompt_version,
      o['e3:draft:1']!.mailbox_id,
    ],
    ['heavy_edit', 'refund', 'en', 'v8', 'billing'],
  );
  assert.deepEqual([o['e4:draft:1']!.outcome, o['e4:draft:1']!.no_relevant_context, o['e4:draft:1']!.drafter], ['rejected', 1, 'offline']);
  assert.equal(o['e5:draft:1']!.outcome, 'redrafted');
  // The person's reply counts against the machine draft it replaced, not under the person's name.
  assert.deepEqual(
    [o['e5:draft:3']!.outcome, o['e5:draft:3']!.drafter, o['e5:draft:3']!.model, o['e5:draft:3']!.category, o['e5:draft:3']!.language],
    ['written_by_person', 'openai', 'gpt-test', 'billing', 'de'],
  );
  assert.equal(o['e5:draft:3']!.decided_by, 'carla');

  const report = await readQuality(db.pool, new Date(Date.now() - 86_400_000), 'mailbox');
  assert.deepEqual(
    report.groups.map((g) => [g.group, g.decided, g.counts.approved_unchanged, g.counts.light_edit, g.counts.redrafted]),
    [
      ['support', 4, 1, 1, 1],
      ['billing', 2, 0, 0, 0],
    ],
  );
  assert.equal(report.total.accepted, 0.333);
  const text = formatQuality(report);
  assert.match(text, /^mailbox\s+decided\s+accepted\s+unchanged\s+light\s+heavy\s+rejected\s+redrafted\s+by person$/m);
  assert.match(text, /^support\s+4\s+50\.0 %\s+1 25\.0 %\s+1 25\.0 %\s+0 0\.0 %\s+0 0\.0 %\s+1 25\.0 %\s+1 25\.0 %$/m);
  assert.match(text, /^all\s+6\s+33\.3 %/m);
  const json = JSON.parse(JSON.stringify(report)) as typeof report;
  assert.equal(json.by, 'mailbox');
  assert.equal(json.groups[1]!.shares.heavy_edit, 0.5);
  const byPrompt = await readQuality(db.pool, new Date(Date.now() - 86_400_000), 'prompt');
  assert.deepEqual(byPrompt.groups.map((g) => g.group).sort(), ['v7', 'v8']);
  const future = new Date(Date.now() + 60_000);
  assert.equal(formatQuality(await readQuality(db.pool, future, 'category')), `no decided drafts since ${future.toISOString()}`);

  // Knowledge gaps: the rejected draft without a source (e4) and the heavily edited one (e3).
  const gaps = await gapCandidates(db.pool, new Date(Date.now() - 86_400_000));
  assert.deepEqual(gaps.map((g) => [g.emailId, g.reasons]).sort(), [
    ['e3', ['heavy_edit']],
    ['e4', ['no_relevant_context', 'rejected']],
  ]);
  assert.equal(gaps.find((g) => g.emailId === 'e4')!.opening, 'Mein Paket ist seit zwei Wochen unterwegs.');
  // Without an embedder the gaps are listed one by one, with the reason.
  const ungrouped = await readGaps(db.pool, new Date(Date.now() - 86_400_000), null);
  assert.equal(ungrouped.grouped, false);
  assert.equal(ungrouped.clusters.length, 2);
  assert.match(formatGaps(ungrouped), /^2 mails since .* \(not grouped: no embedder configured \(EMBEDDING_BASE_URL\)\):$/m);
  assert.match(formatGaps(ungrouped), /"Wo ist mein Paket\?"/);
  const down = await readGaps(db.pool, new Date(Date.now() - 86_400_000), {
    model: 'x',
    embed: () => Promise.reject(new Error('connect ECONNREFUSED 127.0.0.1:9')),
  });
  assert.equal(down.grouped, false);
  assert.match(down.problem ?? '', /embedder unavailable: connect ECONNREFUSED/);
});

test('the migration backfills the drafts decided before it', async () => {
  const backfill = readFileSync(path.join(__dirname, '../../migrations/016_draft_outcomes.sql'), 'utf8')
    .split('\n')
    .filter((l) => !l.trim().startsWith('--'))
    .join('\n')
    .split(/;\s*$/m)
    .map((s) => s.trim())
    .find((s) => s.startsWith('INSERT IGNORE INTO draft_outcomes'));
  assert.ok(backfill);
  await email('old1', 'support', 'Alt');
  await email('old2', 'support', 'Alt 2');
  const insert = `INSERT INTO drafts (id, email_id, version, status, subject, body, approved_body, edit_distance, language, drafter, model,
      prompt_version, context_ids, flags, to_address, decided_by, decided_at) VALUES (?, ?, ?, ?, 'Re', ?, ?, ?, 'de', ?, 'm', 'v1', '[]', ?, 'k@example.test', 'old', '2026-01-05 10:00:00')`;
  // Ten words, four replaced (40 %: heavy), across line breaks.
  await db.pool.query(insert, ['old1:draft:1', 'old1', 1, 'sent', 'a b c d e\nf g h i j', 'a b c d e\n\nf W X Y Z', 4, 'openai', '[]']);
  await db.pool.query(insert, ['old2:draft:1', 'old2', 1, 'stale', 'x y', null, null, 'offline', '["no_relevant_context"]']);
  await db.pool.query(insert, ['old2:draft:2', 'old2', 2, 'approved', 'a b c d e f g h i j', 'a b c d e f g h i Z', 1, 'openai', '[]']);
  await db.pool.query(insert, ['old2:draft:3', 'old2', 3, 'awaiting_approval', 'x', null, null, 'openai', '[]']);
  await db.pool.query(backfill);
  const rows = (await db.pool.query(
    "SELECT draft_id, outcome, changed_share, decided_at FROM draft_outcomes WHERE email_id LIKE 'old%' ORDER BY draft_id",
  )) as Array<{ draft_id: string; outcome: string; changed_share: number | null; decided_at: Date }>;
  assert.deepEqual(
    rows.map((r) => [r.draft_id, r.outcome, r.changed_share]),
    [
      ['old1:draft:1', 'heavy_edit', 0.4],
      ['old2:draft:1', 'redrafted', null],
      ['old2:draft:2', 'light_edit', 0.1],
    ],
  );
});
