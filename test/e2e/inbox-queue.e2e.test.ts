/**
 * The review queue over HTTP (the real inbox app on a socket, real MariaDB; Temporal is stubbed:
 * these pages only read it): paging links, tabs, search, hostile query strings, the claim of a case
 * seen by another reviewer, hand assignment with CSRF, and the claim released on a decision.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { createMariaDbCaseClaims } from '../../src/cases/case-claims.mariadb';
import { createMariaDbCaseRouting } from '../../src/cases/case-routing.mariadb';
import type { TemporalDecisions } from '../../src/email/decisions/decisions.temporal';
import { loadConfig } from '../../src/config';
import { inboxOnDatabase, listenLocally } from '../support/inbox-app';
import { createTestDatabase } from '../support/database';
import { DEFAULT_QUEUE_SEED, seedQueue, seededAssignment, seededCaseId, seededEmailId } from '../support/queue-seed';

let db: Awaited<ReturnType<typeof createTestDatabase>>;
let app: FastifyInstance;
let base: string;
const WAITING = 260;
const decided: string[] = [];

before(async () => {
  db = await createTestDatabase('inboxq');
  await seedQueue(db.pool, { ...DEFAULT_QUEUE_SEED, waiting: WAITING, done: 50 });
  await db.pool.query(`INSERT INTO inbox_users (name, password_hash, role) VALUES ('rita', 'x', 'reviewer'), ('otto', 'x', 'reviewer')`);
  const config = loadConfig({ DATABASE_URL: db.url, INBOX_AUTH: 'header', INBOX_CLAIM_MINUTES: '7' }, { imap: false });
  const decisions = {
    state: async () => null,
    decide: async (id: string) => {
      decided.push(id);
      return { ok: true, result: { message: 'rejected', status: 'rejected' } };
    },
  } as unknown as TemporalDecisions;
  app = await inboxOnDatabase(config, db.pool, {
    decisions,
    claims: createMariaDbCaseClaims(db.pool),
    caseRouting: createMariaDbCaseRouting(db.pool),
  });
  base = await listenLocally(app);
});

after(async () => {
  await app?.close();
  await db?.drop();
});

async function get(path: string, user = 'rita', lang = 'en') {
  const res = await fetch(`${base}${path}`, { headers: { 'x-forwarded-user': user, 'accept-language': lang }, redirect: 'manual' });
  return { status: res.status, html: await res.text(), cookie: res.headers.get('set-cookie') ?? '' };
}
const rowIds = (html: string) => [...html.matchAll(/<tr data-email-id="([^"]+)"/g)].map((m) => m[1]!);
const link = (html: string, id: string) => {
  const m = new RegExp(`<a href="([^"]+)" id="${id}"`).exec(html);
  return m ? m[1]!.replace(/&amp;/g, '&') : null;
};

test('next links reach every waiting email once; previous and first links go back; filters ride along', async () => {
  const seen: string[] = [];
  let path: string | null = '/?mailbox=billing';
  const pages: string[][] = [];
  while (path) {
    const { status, html } = await get(path);
    assert.equal(status, 200);
    assert.match(path, /mailbox=billing/, 'the filter is kept in every link');
    pages.push(rowIds(html));
    seen.push(...rowIds(html));
    if (pages.length > 1) assert.ok(link(html, 'page-first') && link(html, 'page-prev'));
    path = link(html, 'page-next');
  }
  const want = Array.from({ length: WAITING }, (_, i) => i).filter((i) => i % 3 === 1);
  assert.equal(seen.length, want.length);
  assert.equal(new Set(seen).size, seen.length);
  assert.deepEqual([...seen].sort(), want.map(seededEmailId).sort());
  assert.equal(pages.length, Math.ceil(want.length / 50));
  const second = await get(
    `/?mailbox=billing&after=${encodeURIComponent(link((await get('/?mailbox=billing')).html, 'page-next')!.split('after=')[1]!)}`,
  );
  assert.deepEqual(rowIds(second.html), pages[1]);
  const back = await get(link(second.html, 'page-prev')!);
  assert.deepEqual(rowIds(back.html), pages[0]);
  assert.equal(link(back.html, 'page-prev'), null);
});

test('tabs: my queue and unassigned, marked as the current page; case, owner and team in each row', async () => {
  const mine = await get('/?view=mine', 'rita');
  // Each tab says how many emails it holds for this reviewer.
  const ritas = Array.from({ length: WAITING }, (_, i) => seededAssignment(i)).filter((a) => a.owner === 'rita').length;
  const free = Array.from({ length: WAITING }, (_, i) => seededAssignment(i)).filter((a) => !a.owner && !a.team).length;
  assert.match(
    mine.html,
    new RegExp(`<a href="/\\?view=mine" id="tab-mine" aria-current="page">My queue <span class="count">\\(${ritas}\\)</span></a>`),
  );
  assert.match(mine.html, new RegExp(`id="tab-all">All <span class="count">\\(${WAITING}\\)</span>`));
  assert.match(mine.html, new RegExp(`id="tab-unassigned">Unassigned <span class="count">\\(${free}\\)</span>`));
  const mineIds = rowIds(mine.html);
  assert.ok(mineIds.length > 0);
  for (const id of mineIds) assert.equal(seededAssignment(Number(id.slice(2))).owner, 'rita', id);
  const unassigned = await get('/?view=unassigned&lang=de', 'otto');
  assert.match(unassigned.html, new RegExp(`aria-current="page">Nicht zugewiesen <span class="count">\\(${free}\\)</span>`));
  for (const id of rowIds(unassigned.html)) assert.deepEqual(seededAssignment(Number(id.slice(2))), { owner: null, team: null });
  const all = await get('/');
  const row = new RegExp(`<tr data-email-id="${seededEmailId(4)}"[\\s\\S]*?</tr>`).exec(all.html)![0];
  const a = seededAssignment(4);
  assert.match(row, new RegExp(`<td class="case">${seededCaseId(4)}</td>`));
  assert.match(row, new RegExp(`<td class="assigned">${[a.owner, a.team].filter(Boolean).join(' / ')}</td>`));
  assert.match(all.html, /<nav aria-label="Queue views"/);
  assert.match(all.html, /<label for="f-q">Search<\/label>/);
});

test('search through the query string: sender, subject, id; hostile and broken text is refused or harmless', async () => {
  assert.deepEqual(rowIds((await get(`/?q=${encodeURIComponent(seededEmailId(17))}`)).html), [seededEmailId(17)]);
  assert.deepEqual(rowIds((await get('/?q=schmidt.121%40')).html), [seededEmailId(121)]);
  const tooLong = await get(`/?q=${'x'.repeat(10_240)}`);
  assert.equal(tooLong.status, 200);
  assert.match(tooLong.html, /id="search-too-long"[^>]*>The search text is too long: at most 200 characters/);
  assert.deepEqual(rowIds(tooLong.html), []);
  for (const q of [
    '%25',
    '_',
    '%27%20OR%201%3D1',
    '%22%3E%3Cscript%3Ealert(1)%3C%2Fscript%3E',
    '%FF%FE%FD',
    '%C3%28',
    '%E0%80%80',
    '%00',
    '%',
    '%zz',
  ]) {
    const res = await get(`/?q=${q}`);
    assert.ok(res.status === 200 || res.status === 400, `${q}: ${res.status}`);
    assert.doesNotMatch(res.html, /<script/i, q);
    if (res.status === 200 && !['%00'].includes(q)) assert.deepEqual(rowIds(res.html), [], q);
  }
  // An edited cursor is no error: the first page.
  const edited = await get('/?after=not-a-cursor&before=%FF');
  assert.equal(edited.status, 200);
  assert.deepEqual(rowIds(edited.html), rowIds((await get('/')).html));
});

test('opening an email claims its case; another reviewer sees who edits it until when, and may still decide', async () => {
  const id = seededEmailId(10);
  const opened = await get(`/email/${id}`, 'otto');
  assert.equal(opened.status, 200);
  assert.match(opened.html, /id="claim-mine">You hold this case until \d\d:\d\d UTC/);
  const [c] = (await db.pool.query('SELECT claimed_by, TIMESTAMPDIFF(SECOND, NOW(3), claimed_until) AS left_s FROM cases WHERE id = ?', [
    seededCaseId(10),
  ])) as Array<{ claimed_by: string; left_s: number }>;
  assert.equal(c!.claimed_by, 'otto');
  assert.ok(Number(c!.left_s) > 400 && Number(c!.left_s) <= 420, 'INBOX_CLAIM_MINUTES=7');
  const queue = await get(`/?q=${id}`, 'rita');
  assert.match(queue.html, /<td class="claim">being edited by otto until \d\d:\d\d UTC<\/td>/);
  const page = await get(`/email/${id}`, 'rita', 'de');
  assert.match(page.html, /id="claim-other">In Bearbeitung durch otto bis \d\d:\d\d UTC\. Sie können trotzdem entscheiden/);
  assert.equal(
    (await db.pool.query('SELECT claimed_by FROM cases WHERE id = ?', [seededCaseId(10)]))[0].claimed_by,
    'otto',
    'rita did not take it',
  );
});

async function form(path: string, user: string) {
  const page = await get(path, user);
  const token = /name="_csrf" value="([^"]+)"/.exec(page.html)![1]!;
  let cookie = page.cookie.split(';')[0]!;
  return {
    post: async (action: string, fields: Record<string, string>) => {
      const res = await fetch(`${base}${action}`, {
        method: 'POST',
        headers: { 'x-forwarded-user': user, cookie, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ _csrf: token, ...fields }),
        redirect: 'manual',
      });
      // As a browser does: the session cookie the server sets last is the one sent next.
      cookie = res.headers.get('set-cookie')?.split(';')[0] ?? cookie;
      return res;
    },
    // The same session: it carries the flash of the last post.
    view: async (path: string) => (await fetch(`${base}${path}`, { headers: { 'x-forwarded-user': user, cookie } })).text(),
  };
}

test('assigning by hand on the review page (CSRF checked); a decision releases the claim', async () => {
  const id = seededEmailId(20);
  const forged = await fetch(`${base}/email/${id}/assign`, {
    method: 'POST',
    headers: { 'x-forwarded-user': 'rita', 'content-type': 'application/x-www-form-urlencoded' },
    body: 'owner=rita',
    redirect: 'manual',
  });
  assert.equal(forged.status, 403);
  const { post, view } = await form(`/email/${id}`, 'rita');
  assert.equal((await post(`/email/${id}/assign`, { owner: 'otto', team: 'billing' })).status, 303);
  const [r] = (await db.pool.query('SELECT owner, team, routed_by, claimed_by FROM cases WHERE id = ?', [seededCaseId(20)])) as Array<
    Record<string, string>
  >;
  assert.deepEqual(r, { owner: 'otto', team: 'billing', routed_by: 'person:rita', claimed_by: 'rita' });
  assert.equal((await post(`/email/${id}/assign`, { owner: 'nobody-here', team: '' })).status, 303);
  const refused = { html: await view(`/email/${id}`) };
  assert.match(
    refused.html,
    /Refused:<\/strong>\s*<span class="flash-message">there is no enabled inbox user named &quot;nobody-here&quot;/,
  );
  assert.match(refused.html, /<span id="case-assigned">otto \/ billing<\/span>/);
  // rita rejects: the decision goes through and her claim ends.
  assert.equal((await post(`/email/${id}/reject`, { draftId: `${id}:draft:1`, reason: 'done' })).status, 303);
  assert.deepEqual(decided, [id]);
  assert.equal((await db.pool.query('SELECT claimed_by FROM cases WHERE id = ?', [seededCaseId(20)]))[0].claimed_by, null);
});
