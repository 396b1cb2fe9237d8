/**
 * The review queue paged on the server, against a real MariaDB with 10,000 waiting emails: every
 * row reachable once by following the links (ties on priority and age broken by id), the filters
 * and tabs, search through indexes only (EXPLAIN checked), hostile search text and cursors.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import {
  decodeCursor,
  encodeCursor,
  pageKeysStatement,
  QUEUE_COUNT_CAP,
  queuePage,
  tabCountStatement,
  tabCounts,
  type QueueCursor,
  type QueueFilter,
  type QueueItem,
} from '../../src/review-inbox/review-queue.mariadb';
import { createTestDatabase } from '../support/database';
import { DEFAULT_QUEUE_SEED, seedQueue, seededAssignment, seededCaseId, seededEmailId } from '../support/queue-seed';

let db: Awaited<ReturnType<typeof createTestDatabase>>;
const N = DEFAULT_QUEUE_SEED.waiting;
const RANK: Record<string, number> = { critical: 0, high: 1, normal: 2, low: 3 };

interface Expected {
  id: string;
  rank: number;
  at: number;
  mailbox: string;
  status: string;
  owner: string | null;
  team: string | null;
}
let all: Expected[] = [];

before(async () => {
  db = await createTestDatabase('queue');
  await seedQueue(db.pool);
  // One approved email whose send is in doubt: in the queue through send_attempts, not by its status.
  await db.pool.query(`INSERT INTO emails (id, source, status, priority, subject, from_address, created_at)
    VALUES ('doubt-1', 'file', 'approved', 'critical', 'Zweifel', 'zweifel@kunde.example', '2026-10-01 00:00:00')`);
  await db.pool
    .query(`INSERT INTO drafts (id, email_id, version, status, subject, body, language, drafter, model, prompt_version, context_ids, to_address)
    VALUES ('doubt-1:draft:1', 'doubt-1', 1, 'approved', 'Re: Zweifel', '…', 'de', 'llm', 'm', 'v1', '[]', 'zweifel@kunde.example')`);
  await db.pool.query(
    `INSERT INTO send_attempts (draft_id, email_id, message_id, status) VALUES ('doubt-1:draft:1', 'doubt-1', '<d@x>', 'in_doubt')`,
  );
  const rows = (await db.pool.query(
    `SELECT e.id, e.priority, e.created_at, e.mailbox_id, e.status, c.owner, c.team FROM emails e LEFT JOIN cases c ON c.id = e.case_id
     WHERE e.status IN ('awaiting_approval', 'manual_review') OR e.id = 'doubt-1'`,
  )) as Array<{
    id: string;
    priority: string;
    created_at: Date;
    mailbox_id: string;
    status: string;
    owner: string | null;
    team: string | null;
  }>;
  all = rows
    .map((r) => ({
      id: r.id,
      rank: RANK[r.priority]!,
      at: r.created_at.getTime(),
      mailbox: r.mailbox_id,
      status: r.status,
      owner: r.owner,
      team: r.team,
    }))
    .sort((a, b) => a.rank - b.rank || a.at - b.at || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
});

after(async () => {
  await db?.drop();
});

/** Follows the next links from the first page to the end; returns the pages' ids. */
async function walk(filter: QueueFilter): Promise<{ pages: QueueItem[][]; last: QueueCursor | null }> {
  const pages: QueueItem[][] = [];
  let cursor: QueueCursor | null = null;
  for (let guard = 0; guard < 1000; guard++) {
    const page = await queuePage(db.pool, filter, cursor ? { after: decodeCursor(encodeCursor(cursor))! } : {});
    assert.ok(page.items.length <= 50);
    pages.push(page.items);
    if (!page.next) return { pages, last: cursor };
    assert.equal(page.items.length, 50, 'only the last page is short');
    cursor = page.next;
  }
  throw new Error('the pages never ended');
}

test('following the next links reaches every waiting email exactly once, in queue order (ties broken by id)', async () => {
  assert.equal(all.length, N + 1);
  const ties = new Set(all.map((e) => `${e.rank}/${e.at}`));
  assert.ok(ties.size < all.length / 2, 'many rows share priority and age');
  const { pages } = await walk({});
  const ids = pages.flat().map((i) => i.emailId);
  assert.equal(ids.length, all.length);
  assert.equal(new Set(ids).size, ids.length, 'no duplicates');
  assert.deepEqual(
    ids,
    all.map((e) => e.id),
    'no gaps, queue order',
  );
  assert.equal(pages[0]![0]!.emailId, 'doubt-1');
  assert.equal(pages[0]![0]!.status, 'in_doubt');
  const row = pages.flat().find((i) => i.emailId === seededEmailId(6))!;
  assert.equal(row.caseId, seededCaseId(6));
  assert.deepEqual({ owner: row.owner, team: row.team }, seededAssignment(6));
  assert.equal(row.draftId, `${seededEmailId(6)}:draft:1`);
});

test('previous links walk back over the same pages; back at the start the first page is whole', async () => {
  const filter: QueueFilter = { priority: 'high' };
  const forward = [];
  let page = await queuePage(db.pool, filter);
  forward.push(page);
  while (page.next) {
    page = await queuePage(db.pool, filter, { after: page.next });
    forward.push(page);
  }
  assert.ok(forward.length > 10);
  assert.equal(forward[0]!.prev, null, 'the first page has no previous page');
  // From the last page back to the first, each previous link shows the page shown before it.
  for (let i = forward.length - 1; i > 0; i--) {
    const back = await queuePage(db.pool, filter, { before: forward[i]!.prev! });
    assert.deepEqual(ids(back.items), ids(forward[i - 1]!.items), `page ${i}`);
    if (i === 1) assert.equal(back.prev, null);
  }
  // Rows that left the queue meanwhile: going back to the start still fills the first page.
  const second = forward[1]!;
  await db.pool.query(`UPDATE emails SET status = 'sent' WHERE id IN (?, ?)`, [
    forward[0]!.items[0]!.emailId,
    forward[0]!.items[1]!.emailId,
  ]);
  try {
    const back = await queuePage(db.pool, filter, { before: second.prev! });
    assert.equal(back.items.length, 50);
    assert.deepEqual(ids(back.items), ids((await queuePage(db.pool, filter)).items));
  } finally {
    await db.pool.query(`UPDATE emails SET status = 'awaiting_approval' WHERE id IN (?, ?)`, [
      forward[0]!.items[0]!.emailId,
      forward[0]!.items[1]!.emailId,
    ]);
  }
});

const ids = (items: QueueItem[]) => items.map((i) => i.emailId);

test('filters and tabs: mailbox, priority, status, flag, my queue, unassigned, team', async () => {
  const check = async (filter: QueueFilter, want: (e: Expected) => boolean) => {
    const got = (await walk(filter)).pages.flat().map((i) => i.emailId);
    assert.deepEqual(
      got,
      all.filter(want).map((e) => e.id),
      JSON.stringify(filter),
    );
    return got;
  };
  await check({ mailbox: 'billing' }, (e) => e.mailbox === 'billing');
  await check({ priority: 'low', mailbox: 'sales' }, (e) => e.rank === 3 && e.mailbox === 'sales');
  await check({ status: 'manual_review' }, (e) => e.status === 'manual_review');
  await check({ status: 'in_doubt' }, (e) => e.id === 'doubt-1');
  await check({ view: 'unassigned' }, (e) => !e.owner && !e.team);
  await check({ team: 'billing' }, (e) => e.team === 'billing');
  // rita holds a claim on a case she does not own: it is in her queue while the claim lasts.
  await db.pool.query(`UPDATE cases SET claimed_by = 'rita', claimed_until = NOW(3) + INTERVAL 5 MINUTE WHERE id = ?`, [seededCaseId(0)]);
  await db.pool.query(`UPDATE cases SET claimed_by = 'rita', claimed_until = NOW(3) - INTERVAL 5 MINUTE WHERE id = ?`, [seededCaseId(2)]);
  try {
    const mine = await check(
      { view: 'mine', me: 'rita' },
      (e) => e.owner === 'rita' || e.id === seededEmailId(0) || e.id === seededEmailId(1),
    );
    assert.ok(mine.length > 100);
    assert.ok(!mine.includes(seededEmailId(2)), 'an expired claim is not mine');
  } finally {
    await db.pool.query(`UPDATE cases SET claimed_by = NULL, claimed_until = NULL`);
  }
  const offline = (await walk({ flag: 'offline_drafter' })).pages.flat();
  assert.ok(offline.length > 100 && offline.every((i) => i.flags.includes('offline_drafter')));
  await check({ flag: 'manual_review', view: 'unassigned' }, (e) => e.status === 'manual_review' && !e.owner && !e.team);
});

test('tab counts: each tab under the other filters, exact up to the cap, more than the cap above it', async () => {
  // What the tab shows: the number, or "more than the cap".
  const shown = (n: number) => (n > QUEUE_COUNT_CAP ? 'more' : n);
  const tabs = (c: { all: number; mine: number; unassigned: number }) => ({
    all: shown(c.all),
    mine: shown(c.mine),
    unassigned: shown(c.unassigned),
  });
  const expect = (rows: Expected[], me: string) =>
    tabs({ all: rows.length, mine: rows.filter((e) => e.owner === me).length, unassigned: rows.filter((e) => !e.owner && !e.team).length });
  assert.ok(all.length > QUEUE_COUNT_CAP);
  assert.deepEqual(tabs(await tabCounts(db.pool, {}, 'rita')), expect(all, 'rita'));
  const highBilling = all.filter((e) => e.mailbox === 'billing' && e.rank === 1);
  assert.ok(highBilling.length < QUEUE_COUNT_CAP, 'a filter small enough to count exactly');
  assert.deepEqual(await tabCounts(db.pool, { mailbox: 'billing', priority: 'high' }, 'otto'), {
    all: highBilling.length,
    mine: highBilling.filter((e) => e.owner === 'otto').length,
    unassigned: highBilling.filter((e) => !e.owner && !e.team).length,
  });
  // The email in doubt counts once, though it is found by its send, not by its status.
  assert.deepEqual(await tabCounts(db.pool, { status: 'in_doubt' }, 'rita'), { all: 1, mine: 0, unassigned: 1 });
  const a17 = seededAssignment(17);
  assert.deepEqual(await tabCounts(db.pool, { search: seededEmailId(17) }, 'rita'), {
    all: 1,
    mine: a17.owner === 'rita' ? 1 : 0,
    unassigned: a17.owner || a17.team ? 0 : 1,
  });
});

test('search: sender address and name prefix, subject words, email id, case id', async () => {
  const search = async (text: string, extra: QueueFilter = {}) =>
    (await walk({ search: text, ...extra })).pages.flat().map((i) => i.emailId);
  // Addresses are `<name>.<i>@kunde<i % 50>.example`.
  assert.deepEqual(await search('mueller.1230@'), [seededEmailId(1230)]);
  const prefix = await search('MUELLER.123');
  assert.deepEqual([...prefix].sort(), [seededEmailId(1230)].sort(), 'case-insensitive prefix of the address');
  assert.deepEqual(await search('Schmidt 1231'), [seededEmailId(1231)], 'display name prefix');
  // Subjects are `<word> <1000 + i> <word>`: both words must be in the subject.
  assert.deepEqual(await search('Retoure 3002'), [seededEmailId(2002)]);
  // Kündigung is the first word of every tenth subject and the last of another tenth.
  assert.equal(
    (await search('Kündigung')).length,
    all.filter((e) => /^q-/.test(e.id) && [3, 9].includes(Number(e.id.slice(2)) % 10)).length,
  );
  assert.deepEqual(await search(seededEmailId(4321)), [seededEmailId(4321)]);
  assert.deepEqual((await search(seededCaseId(4321))).sort(), [seededEmailId(4320), seededEmailId(4321)]);
  assert.deepEqual(await search('zweifel'), ['doubt-1'], 'a send in doubt is found too');
  assert.deepEqual(await search('mueller.1230', { mailbox: 'sales' }), [], 'search and filters combine');
  assert.deepEqual(await search('d-000001'), [], 'an email that is not waiting is not in the queue');
});

test('hostile search text: wildcards, quotes, operators, 10 KB, broken characters match nothing they should not', async () => {
  for (const text of [
    '%',
    '_',
    '%%',
    '\\',
    "'",
    '"',
    "' OR 1=1 -- ",
    '+*',
    '-"a"',
    '@',
    '(*)',
    '\uFFFD',
    'a\u0000b',
    'x'.repeat(10_240),
    'ä'.repeat(5000),
  ]) {
    const page = await queuePage(db.pool, { search: text });
    assert.deepEqual(ids(page.items), [], JSON.stringify(text.slice(0, 20)));
  }
  // The wildcards are literal: `_` must not stand for one character.
  await db.pool.query(`UPDATE emails SET from_address = 'a_b@kunde.example' WHERE id = ?`, [seededEmailId(5)]);
  try {
    assert.deepEqual(ids((await queuePage(db.pool, { search: 'a_b' })).items), [seededEmailId(5)]);
    assert.deepEqual(ids((await queuePage(db.pool, { search: 'a%b' })).items), []);
    assert.deepEqual(ids((await queuePage(db.pool, { search: 'axb' })).items), []);
  } finally {
    await db.pool.query(`UPDATE emails SET from_address = 'schmidt.5@kunde5.example' WHERE id = ?`, [seededEmailId(5)]);
  }
});

test('a cursor that was edited or made up is refused (first page), never an error', () => {
  for (const raw of [
    undefined,
    '',
    'x',
    '%%%',
    'eyJ9',
    Buffer.from('[9,"2026-01-01 00:00:00.000000","a"]').toString('base64url'),
    Buffer.from('[1,"now","a"]').toString('base64url'),
    'a'.repeat(5000),
    42,
  ])
    assert.equal(decodeCursor(raw), null, String(raw).slice(0, 30));
  const c = { rank: 2, at: '2026-11-01 08:00:00.000000', id: 'q-\'"%' };
  assert.deepEqual(decodeCursor(encodeCursor(c)), c);
});

/** The plan of every statement a page of the queue runs: each table read through an index, none scanned whole. */
async function plan(filter: QueueFilter, cursor: QueueCursor | null, counting = false) {
  const st = counting ? tabCountStatement(filter) : pageKeysStatement(filter, cursor, false, 50);
  return (await db.pool.query({ sql: `EXPLAIN ${st.sql}` }, st.args)) as Array<{
    table: string | null;
    type: string | null;
    key: string | null;
    Extra: string | null;
  }>;
}

test('EXPLAIN: the first page, a deep page, the tabs, their counts and every search read through indexes, no table scan', async () => {
  const deep: QueueCursor = { rank: 2, at: '2026-11-01 08:05:00.000000', id: seededEmailId(3000) };
  const cases: Array<[string, QueueFilter, QueueCursor | null]> = [
    ['first page', {}, null],
    ['deep page', {}, deep],
    ['mailbox', { mailbox: 'billing' }, deep],
    ['my queue', { view: 'mine', me: 'rita' }, null],
    ['unassigned', { view: 'unassigned' }, null],
    ['team', { team: 'billing' }, null],
    ['search sender', { search: 'mueller.12' }, null],
    ['search subject', { search: 'Rechnung 1234' }, null],
    ['search id', { search: seededEmailId(77) }, null],
  ];
  const counted = cases.filter(([, , cursor]) => cursor === null).map(([name, filter]) => [`count: ${name}`, filter, null, true] as const);
  for (const [name, filter, cursor, counting] of [...cases.map(([n, f, c]) => [n, f, c, false] as const), ...counted]) {
    const rows = await plan(filter, cursor, counting);
    // Derived tables and the UNION's result have no key by nature: only base tables are checked.
    const base = rows.filter((r) => r.table && !/^<(derived|union|subquery)/.test(r.table));
    assert.ok(base.length > 0, name);
    for (const r of base) {
      assert.notEqual(r.type, 'ALL', `${name}: ${r.table} is scanned whole: ${JSON.stringify(r)}`);
      assert.notEqual(r.type, 'index', `${name}: ${r.table} reads a whole index: ${JSON.stringify(r)}`);
      assert.ok(r.key || /no matching row|Impossible/.test(r.Extra ?? ''), `${name}: ${r.table} without an index: ${JSON.stringify(r)}`);
    }
  }
  // The default page's status branches come off the queue index in order: no sort of the waiting emails.
  const first = await plan({}, null);
  const statusBranches = first.filter((r) => r.table === 'e' && r.key === 'ix_emails_queue');
  assert.equal(statusBranches.length, 2);
  for (const r of statusBranches) assert.doesNotMatch(r.Extra ?? '', /filesort/);
  const searched = await plan({ search: 'Rechnung 1234' }, null);
  assert.ok(searched.some((r) => r.key === 'ft_emails_subject'));
  // The sender part reads an index on the sender address (the queue's, or the one erasure uses: the
  // optimizer picks either, both are ranges over from_address).
  assert.ok(
    searched.some((r) => r.key === 'ix_emails_queue_from_address' || r.key === 'ix_emails_from_address'),
    JSON.stringify(searched),
  );
});
