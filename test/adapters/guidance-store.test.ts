/**
 * Guidance on real MariaDB: a saved text is a new version and never changes an older one, the
 * newest is current, the same text twice adds nothing; which versions a draft of a mailbox and
 * category takes, in order; every save audited; the version a draft was written under kept with its
 * outcome and grouped by `quality --by guidance`.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createMariaDbDraftStore } from '../../src/email/draft/draft-store.mariadb';
import { saveGuidance } from '../../src/guidance/guidance-changes';
import { guidanceForDraft } from '../../src/guidance/guidance-for-draft';
import { parseScope } from '../../src/guidance/guidance-scope';
import { createMariaDbGuidanceStore } from '../../src/guidance/guidance-store.mariadb';
import { readQuality } from '../../src/operations/quality.cli';
import { createMariaDbAuditLog } from '../../src/platform/audit-log.mariadb';
import { createTestDatabase } from '../support/database';
import { recordingPool } from '../support/recording-pool';

let db: Awaited<ReturnType<typeof createTestDatabase>>;
before(async () => {
  db = await createTestDatabase('guidance');
});
after(async () => {
  await db?.drop();
});

const known = { mailboxes: ['support', 'sales'], categories: ['billing', 'delivery'] };
const save = (scope: string, text: string, author = 'olga') =>
  saveGuidance({ store: createMariaDbGuidanceStore(db.pool), audit: createMariaDbAuditLog(db.pool) }, { scope, text, author }, known);

test('a new version never changes an older one; the newest is current; the same text again adds nothing', async () => {
  const store = createMariaDbGuidanceStore(db.pool);
  const v1 = await save('mailbox:sales', 'Sprechen Sie Kunden mit „Sie“ an.');
  const v2 = await save('mailbox:sales', 'Duzen Sie Kunden.\r\nKeine Rabatte zusagen.', 'anna');
  assert.deepEqual([v1.created, v1.version.version, v2.created, v2.version.version], [true, 1, true, 2]);
  assert.equal(v2.version.text, 'Duzen Sie Kunden.\nKeine Rabatte zusagen.', 'stored with LF');
  const history = await store.history(parseScope('mailbox:sales'));
  assert.deepEqual(
    history.map((v) => [v.version, v.author, v.text]),
    [
      [2, 'anna', 'Duzen Sie Kunden.\nKeine Rabatte zusagen.'],
      [1, 'olga', 'Sprechen Sie Kunden mit „Sie“ an.'],
    ],
  );
  const again = await save('mailbox:sales', 'Duzen Sie Kunden.\nKeine Rabatte zusagen.\n', 'bea');
  assert.deepEqual([again.created, again.version.id], [false, v2.version.id]);
  assert.equal((await store.history(parseScope('mailbox:sales'))).length, 2);
  const current = await store.currentOf([parseScope('mailbox:sales')]);
  assert.deepEqual(
    current.map((v) => v.id),
    [v2.version.id],
  );
  // Versions are only ever inserted: the first row reads as it was written.
  const [first] = await store.byIds([v1.version.id]);
  assert.equal(first!.text, 'Sprechen Sie Kunden mit „Sie“ an.');
  // Each save is audited with who and the version; the unchanged one is not.
  const rows = (await db.pool.query(
    "SELECT actor, message, details FROM audit_log WHERE event_type = 'guidance_changed' ORDER BY id",
  )) as Array<{ actor: string; message: string; details: string }>;
  assert.deepEqual(
    rows.map((r) => [r.actor, r.message]),
    [
      ['olga', 'guidance mailbox:sales version 1 saved by olga'],
      ['anna', 'guidance mailbox:sales version 2 saved by anna'],
    ],
  );
  assert.deepEqual(JSON.parse(rows[1]!.details), { scope: 'mailbox:sales', version: 2, id: v2.version.id, chars: 40 });
});

test('a scope, text or author that cannot apply is refused and nothing is saved', async () => {
  await assert.rejects(save('mailbox:unknown', 'x'), /no mailbox "unknown"/);
  await assert.rejects(save('category:colour', 'x'), /no category "colour"/);
  await assert.rejects(save('team:x', 'x'), /scope "team:x"/);
  await assert.rejects(save('default', '  \n '), /empty/);
  await assert.rejects(save('default', 'x'.repeat(2_001)), /2001 characters; at most 2000/);
  await assert.rejects(save('default', 'x', ' '), /must be named/);
  assert.deepEqual(await createMariaDbGuidanceStore(db.pool).history(parseScope('default')), []);
});

test('a draft takes the default, the mailbox, the category, then the mailbox category: most general first', async () => {
  const store = createMariaDbGuidanceStore(db.pool);
  const d = await save('default', 'Sachlich und freundlich.');
  const m = await save('mailbox:support', 'Siezen.');
  const c = await save('category:billing', 'Keine Erstattung zusagen.');
  const mc = await save('mailbox:support/category:billing', 'Bei Beträgen über 500 € an eine Person übergeben.');
  await save('category:delivery', 'Sendungsnummer nennen.');
  const billing = await guidanceForDraft(store, 'support', 'billing');
  assert.equal(billing!.version, `g${d.version.id}+g${m.version.id}+g${c.version.id}+g${mc.version.id}`);
  assert.deepEqual(
    billing!.sections.map((s) => s.scope),
    ['default', 'mailbox:support', 'category:billing', 'mailbox:support/category:billing'],
  );
  // No category known (no embedder, or none near): the default and the mailbox's only.
  assert.equal((await guidanceForDraft(store, 'support', null))!.version, `g${d.version.id}+g${m.version.id}`);
  // Another mailbox: its own (version 2 of sales), never support's.
  const sales = await guidanceForDraft(store, 'sales', 'billing');
  assert.deepEqual(
    sales!.sections.map((s) => [s.scope, s.version]),
    [
      ['default', 1],
      ['mailbox:sales', 2],
      ['category:billing', 1],
    ],
  );
  assert.equal(
    (await store.currentForMailbox('support')).some((v) => v.scope.category !== null),
    true,
  );
  // A newer default is taken by the next draft; the older one stays as it was.
  const d2 = await save('default', 'Sachlich, freundlich, kurz.');
  assert.match((await guidanceForDraft(store, 'support', null))!.version, new RegExp(`^g${d2.version.id}\\+`));
  assert.equal((await store.listCurrent()).length, 6);
});

test('the guidance version stays with the draft and its outcome; quality groups by it', async () => {
  const drafts = createMariaDbDraftStore(db.pool);
  const draft = (id: string, guidanceVersion: string | null) =>
    drafts.save({
      id: `${id}:draft:1`,
      emailId: id,
      version: 1,
      subject: 'Re: Rechnung',
      body: 'Guten Tag, wir prüfen das.',
      language: 'de',
      confidence: 0.8,
      drafter: 'openai',
      model: 'm',
      promptVersion: 'draft-v3',
      contextIds: [],
      flags: [],
      category: 'billing',
      guidanceVersion,
      to: { name: 'Eva', address: 'eva@kunde.example' },
    });
  for (const [id, g] of [
    ['q1', 'g1+g2'],
    ['q2', 'g1+g2'],
    ['q3', 'g1+g3'],
    ['q4', null],
  ] as const) {
    await db.pool.query(
      "INSERT INTO emails (id, source, status, mailbox_id, subject) VALUES (?, 'file', 'awaiting_approval', 'support', 'Rechnung')",
      [id],
    );
    const saved = await draft(id, g);
    assert.equal(saved.guidanceVersion, g);
  }
  await drafts.approve('q1:draft:1', 'bea', null, 0);
  await drafts.recordOutcome('q1:draft:1', { outcome: 'approved_unchanged', editDistance: 0, changedShare: 0 });
  await drafts.reject('q2:draft:1', 'bea', 'falsch');
  await drafts.recordOutcome('q2:draft:1', { outcome: 'rejected' });
  await drafts.approve('q3:draft:1', 'bea', null, 0);
  await drafts.recordOutcome('q3:draft:1', { outcome: 'approved_unchanged', editDistance: 0, changedShare: 0 });
  await drafts.approve('q4:draft:1', 'bea', null, 0);
  await drafts.recordOutcome('q4:draft:1', { outcome: 'approved_unchanged', editDistance: 0, changedShare: 0 });
  const r = await readQuality(db.pool, new Date(Date.now() - 86_400_000), 'guidance');
  assert.deepEqual(
    r.groups.map((g) => [g.group, g.decided, g.accepted]),
    [
      ['g1+g2', 2, 0.5],
      ['g1+g3', 1, 1],
      ['none', 1, 1],
    ],
  );
});

test('a mailbox’s current guidance is read once per change: a new version, saved anywhere, is read on the next draft', async () => {
  const { pool: recording, sent } = recordingPool(db.pool);
  const store = createMariaDbGuidanceStore(recording);
  const texts = async () => (await store.currentForMailbox('sales')).map((v) => v.text).sort();
  await save('mailbox:sales', 'Erste Fassung.');
  const first = await texts();
  const reads = () => sent.filter((s) => /JOIN \(SELECT mailbox_id, category, MAX\(version\)/.test(s)).length;
  assert.equal(reads(), 1);
  assert.deepEqual(await texts(), first, 'the same answer');
  assert.equal(reads(), 1, 'remembered while no version was added');
  // Another worker (another store) saves a version; a row written straight into the table counts too.
  await save('mailbox:sales', 'Zweite Fassung.');
  assert.ok((await texts()).includes('Zweite Fassung.'));
  await db.pool.query(
    `INSERT INTO guidance_versions (mailbox_id, category, version, text, author) VALUES ('sales', 'delivery', 99, 'Dritte.', 'ops')`,
  );
  assert.ok((await texts()).includes('Dritte.'));
  assert.equal(reads(), 3);
});
