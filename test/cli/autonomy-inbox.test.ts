/**
 * Earned autonomy in the review inbox, rendered by the server against real MariaDB: the
 * operations page's table of each category's record and state (de/en) with the operators' switch,
 * and on an email's page the time of its automatic send with a CSRF-protected stop button. The
 * workflow's `state` query is a FAKE (no Temporal here): the email waits for approval of its draft.
 */
import { categoryListFile } from '../support/category-list';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { createMariaDbAutonomyStore } from '../../src/autonomy/autonomy-store.mariadb';
import { createMariaDbInboxUsers } from '../../src/review-inbox/inbox-users.mariadb';
import type { TemporalDecisions } from '../../src/email/decisions/decisions.temporal';
import { loadConfig } from '../../src/config';
import { inboxOnDatabase } from '../support/inbox-app';
import { createTestDatabase } from '../support/database';

let db: Awaited<ReturnType<typeof createTestDatabase>>;
let app: FastifyInstance;
const EMAIL = 'email-auto-inbox-1';
const DRAFT = `${EMAIL}:draft:1`;

before(async () => {
  db = await createTestDatabase('autonomyinbox');
  for (let i = 0; i < 60; i += 1)
    await db.pool.query(
      `INSERT INTO draft_outcomes (draft_id, email_id, outcome, mailbox_id, category, language, drafter, model, prompt_version, decided_by, decided_at)
       VALUES (?, ?, ?, 'default', ?, 'de', 'openai', 'm', 'v1', 'anna', NOW(3) - INTERVAL ? MINUTE)`,
      [`seed-${i}:draft:1`, `seed-${i}`, i % 3 === 0 ? 'light_edit' : 'approved_unchanged', i < 55 ? 'shipping' : 'billing', i + 1],
    );
  await db.pool.query(
    `INSERT INTO emails (id, source, status, mailbox_id, subject, text_body, from_address, from_name)
     VALUES (?, 'file', 'awaiting_approval', 'default', 'Lieferzeit', 'Wie lange dauert die Lieferung?', 'eva@kunde.example', 'Eva')`,
    [EMAIL],
  );
  await db.pool.query(
    `INSERT INTO drafts (id, email_id, version, subject, body, language, confidence, drafter, model, prompt_version, context_ids, flags, category, to_address)
     VALUES (?, ?, 1, 'Re: Lieferzeit', 'Drei bis fünf Werktage.', 'de', 0.9, 'openai', 'm', 'v1', '[]', '[]', 'shipping', 'eva@kunde.example')`,
    [DRAFT, EMAIL],
  );
  const store = createMariaDbAutonomyStore(db.pool);
  await store.setSwitch(true, 'olga');
  await store.savePending({
    draftId: DRAFT,
    emailId: EMAIL,
    mailboxId: 'default',
    category: 'shipping',
    sendAfter: new Date('2026-12-03T14:32:00Z'),
    policy: 'support@1',
    figures: { category: 'shipping', reviewed: 50, unchanged: 50, share: 1, lower: 0.929, minReviewed: 50, minShare: 0.9 },
  });
  await createMariaDbInboxUsers(db.pool).upsert('otto', 'x', 'operator');
  const dir = mkdtempSync(path.join(tmpdir(), 'autonomy-inbox-'));
  const file = path.join(dir, 'autonomy.yml');
  writeFileSync(file, 'policy: support\nversion: 1\nmailboxes:\n  default:\n    categories: [shipping]\n    minUnchangedShare: 0.5\n');
  const config = loadConfig(
    { DATABASE_URL: db.url, INBOX_AUTH: 'header', AUTONOMY_FILE: file, CATEGORIES_FILE: categoryListFile(dir, ['shipping']) },
    { imap: false },
  );
  // FAKE of the workflow's state query: it waits for approval of the draft.
  const decisions = {
    state: () => Promise.resolve({ waitingFor: { kind: 'approval', draftId: DRAFT, version: 1 } }),
  } as unknown as TemporalDecisions;
  app = await inboxOnDatabase(config, db.pool, {
    decisions,
  });
});
after(async () => {
  await app?.close();
  await db?.drop();
});

const as = (user: string, lang = 'en') => ({ 'x-forwarded-user': user, 'accept-language': lang });

/** A page and the session cookie and CSRF token its forms carry. */
async function open(url: string, user: string): Promise<{ html: string; cookie: string; csrf: string }> {
  const res = await app.inject({ url, headers: as(user) });
  assert.equal(res.statusCode, 200);
  const cookie = String(res.headers['set-cookie']).split(';')[0]!;
  const csrf = /name="_csrf" value="([^"]+)"/.exec(res.body)?.[1] ?? '';
  return { html: res.body, cookie, csrf };
}

test('the operations page shows each category record and state, in English and German', async () => {
  const { html } = await open('/ops', 'bea');
  assert.match(html, /<h2 id="autonomy-h">Earned autonomy<\/h2>/);
  assert.match(html, /Autonomy is on\. \(olga, /);
  assert.match(html, /<code>support@1<\/code>/);
  // shipping: 55 reviewed, a third lightly edited: 36 unchanged, 65.5 %, its 95 % interval 52.3–76.6 %, bar 50 % on the lower bound.
  assert.match(
    html,
    /<tr class="autonomy-qualifies"><td>default<\/td><th scope="row">shipping<\/th><td>55<\/td><td>36 \(65\.5\u00a0%\)<\/td><td class="bound">52\.3\u00a0% – 76\.6\u00a0%<\/td><td>50 · 50\.0\u00a0%<\/td><td>qualifies<\/td><td class="demoted">–<\/td><\/tr>/,
  );
  assert.match(html, /<th scope="row">billing<\/th><td>5<\/td>.*<td>not listed<\/td>/);
  assert.match(html, /<table id="autonomy-pending">.*2026-12-03 14:32:00 UTC.*email-auto-inbox-1/s);
  assert.match(html, /only operators switch autonomy/, 'a reviewer gets no switch');
  assert.doesNotMatch(html, /id="autonomy-off"/);
  const de = await app.inject({ url: '/ops', headers: as('bea', 'de') });
  assert.match(de.body, /Verdienter automatischer Versand/);
  assert.match(de.body, /<td>erfüllt<\/td>/);
});

test('the review page says when the draft is sent automatically; a stop needs the CSRF token and ends it', async () => {
  const page = await open(`/email/${EMAIL}`, 'bea');
  assert.match(page.html, /Sent automatically at 14:32 UTC unless stopped\. \(support@1\)/);
  assert.match(page.html, /<button type="submit" id="stop-auto-send">Stop automatic send<\/button>/);
  const de = await app.inject({ url: `/email/${EMAIL}`, headers: as('bea', 'de') });
  assert.match(de.body, /Wird um 14:32 UTC automatisch gesendet, sofern es niemand stoppt\./);
  const forged = await app.inject({
    method: 'POST',
    url: `/email/${EMAIL}/stop-auto-send`,
    headers: { ...as('bea'), cookie: page.cookie, 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({ _csrf: 'forged', draftId: DRAFT }).toString(),
  });
  assert.equal(forged.statusCode, 403);
  assert.equal((await createMariaDbAutonomyStore(db.pool).pending(DRAFT))?.state, 'pending');
  const stop = await app.inject({
    method: 'POST',
    url: `/email/${EMAIL}/stop-auto-send`,
    headers: { ...as('bea'), cookie: page.cookie, 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({ _csrf: page.csrf, draftId: DRAFT }).toString(),
  });
  assert.equal(stop.statusCode, 303);
  assert.equal((await createMariaDbAutonomyStore(db.pool).pending(DRAFT))?.state, 'stopped');
  const after = await app.inject({ url: `/email/${EMAIL}`, headers: { ...as('bea'), cookie: page.cookie } });
  assert.match(after.body, /Automatic send stopped: the draft waits for a person\./);
  assert.doesNotMatch(after.body, /id="stop-auto-send"/);
  assert.match(after.body, /auto_send_stopped<\/td><td>bea<\/td>/);
});

test('only an operator switches all autonomy off, with the CSRF token', async () => {
  const reviewer = await open('/ops', 'bea');
  const refused = await app.inject({
    method: 'POST',
    url: '/ops/autonomy/off',
    headers: { ...as('bea'), cookie: reviewer.cookie, 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({ _csrf: reviewer.csrf }).toString(),
  });
  assert.equal(refused.statusCode, 403);
  const op = await open('/ops', 'otto');
  assert.match(op.html, /<button type="submit" id="autonomy-off">Switch all autonomy off<\/button>/);
  const off = await app.inject({
    method: 'POST',
    url: '/ops/autonomy/off',
    headers: { ...as('otto'), cookie: op.cookie, 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({ _csrf: op.csrf }).toString(),
  });
  assert.equal(off.statusCode, 303);
  assert.equal((await createMariaDbAutonomyStore(db.pool).switchState()).on, false);
  const page = await app.inject({ url: '/ops', headers: { ...as('otto'), cookie: op.cookie } });
  assert.match(page.body, /Autonomy switched off: every draft waits for a person\./);
  assert.match(page.body, /Autonomy is off: every draft waits for a person\. \(otto, /);
  assert.match(page.body, /<th scope="row">shipping<\/th>.*<td>switched off<\/td>/);
});
