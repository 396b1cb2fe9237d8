/**
 * Guidance as operators and reviewers meet it, on real MariaDB: `email-rag guidance set|list|show`
 * (a file or stdin, audited, refusals with exit 2), `email-rag quality --by guidance`, and the
 * review inbox rendered by the server: the guidance page (an operator saves a new version with the
 * CSRF token and an audit row is written; a reviewer reads but cannot save; a forged token is
 * refused) and an email's review page naming the versions its draft was written under, linked.
 * axe-core finds no serious or critical WCAG 2 A/AA problem on the page (Debian's Chromium).
 * The workflow's `state` query is a FAKE (no Temporal here): the email waits for approval.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { assertNoAxeFindings } from '../support/axe-findings';
import { loadConfig } from '../../src/config';
import type { TemporalDecisions } from '../../src/email/decisions/decisions.temporal';
import { createMariaDbInboxUsers } from '../../src/review-inbox/inbox-users.mariadb';
import { createTestDatabase } from '../support/database';
import { inboxOnDatabase } from '../support/inbox-app';

let db: Awaited<ReturnType<typeof createTestDatabase>>;
let app: FastifyInstance;
const dir = mkdtempSync(path.join(tmpdir(), 'guidance-cli-'));
const EMAIL = 'email-guidance-1';

before(async () => {
  db = await createTestDatabase('guidancecli');
  await createMariaDbInboxUsers(db.pool).upsert('otto', 'x', 'operator');
  const config = loadConfig({ DATABASE_URL: db.url, INBOX_AUTH: 'header' }, { imap: false });
  const decisions = {
    state: () => Promise.resolve({ waitingFor: { kind: 'approval', draftId: `${EMAIL}:draft:1`, version: 1 } }),
  } as unknown as TemporalDecisions;
  app = await inboxOnDatabase(config, db.pool, { decisions });
});
after(async () => {
  await app?.close();
  await db?.drop();
});

function cli(args: string[], stdin?: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['bin/email-rag.js', ...args], { env: { ...process.env, DATABASE_URL: db.url } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('close', (code) => resolve({ code: code ?? 1, stdout, stderr }));
    child.stdin.end(stdin ?? '');
  });
}

const file = (name: string, text: string) => {
  const f = path.join(dir, name);
  writeFileSync(f, text);
  return f;
};

test('email-rag guidance set adds versions (audited), list shows the current ones, show a scope history', async () => {
  const first = await cli(['guidance', 'set', '--scope', 'default', '--file', file('d1.txt', 'Siezen Sie.\n'), '--by', 'olga']);
  assert.equal(first.code, 0, first.stderr);
  assert.match(first.stdout, /^guidance default: version 1 saved \(g\d+\) by olga$/m);
  const second = await cli(
    ['guidance', 'set', '--scope', 'default', '--file', '-', '--by', 'anna'],
    'Siezen Sie.\nKeine Rabatte zusagen.\n',
  );
  assert.match(second.stdout, /^guidance default: version 2 saved/m);
  const same = await cli(['guidance', 'set', '--scope', 'default', '--file', '-', '--by', 'anna'], 'Siezen Sie.\nKeine Rabatte zusagen.');
  assert.match(same.stdout, /unchanged, version 2/);
  await cli([
    'guidance',
    'set',
    '--scope',
    'mailbox:default/category:billing',
    '--file',
    file('b.txt', 'Keine Erstattung zusagen.'),
    '--by',
    'olga',
  ]);
  const list = await cli(['guidance', 'list']);
  assert.equal(list.code, 0, list.stderr);
  assert.match(list.stdout, /^default\s+2\s+g\d+\s+34\s+anna, \S+\s+"Siezen Sie\."$/m);
  assert.match(list.stdout, /^mailbox:default\/category:billing\s+1\s/m);
  const show = JSON.parse((await cli(['guidance', 'show', 'default', '--json'])).stdout) as Array<{
    version: number;
    author: string;
    text: string;
  }>;
  assert.deepEqual(
    show.map((v) => [v.version, v.author, v.text]),
    [
      [2, 'anna', 'Siezen Sie.\nKeine Rabatte zusagen.'],
      [1, 'olga', 'Siezen Sie.'],
    ],
  );
  const audited = (await db.pool.query("SELECT actor, message FROM audit_log WHERE event_type = 'guidance_changed' ORDER BY id")) as Array<{
    actor: string;
    message: string;
  }>;
  assert.deepEqual(
    audited.map((a) => a.actor),
    ['olga', 'anna', 'olga'],
  );
  for (const [args, pattern] of [
    [['guidance', 'set', '--scope', 'mailbox:nowhere', '--file', file('x.txt', 'x')], /no mailbox "nowhere"/],
    [['guidance', 'set', '--scope', 'default', '--file', file('long.txt', 'x'.repeat(2_001))], /at most 2000/],
    [['guidance', 'set', '--scope', 'default'], /needs --scope SCOPE and --file FILE/],
    [['guidance', 'show', 'team:x'], /scope "team:x"/],
  ] as const) {
    const r = await cli([...args]);
    assert.equal(r.code, 2, `${args.join(' ')}: ${r.stdout}${r.stderr}`);
    assert.match(r.stderr, pattern);
  }
});

test('email-rag quality --by guidance compares the acceptance of guidance versions', async () => {
  const outcome = (id: string, outcome: string, guidance: string | null) =>
    db.pool.query(
      `INSERT INTO draft_outcomes (draft_id, email_id, outcome, mailbox_id, category, language, drafter, model, prompt_version, decided_at, guidance_version)
       VALUES (?, ?, ?, 'default', 'billing', 'de', 'openai', 'm', 'draft-v3', NOW(3) - INTERVAL 1 HOUR, ?)`,
      [`${id}:draft:1`, id, outcome, guidance],
    );
  await outcome('o1', 'approved_unchanged', 'g1');
  await outcome('o2', 'heavy_edit', 'g1');
  await outcome('o3', 'approved_unchanged', 'g2');
  await outcome('o4', 'light_edit', 'g2');
  await outcome('o5', 'rejected', null);
  const text = await cli(['quality', '--by', 'guidance']);
  assert.equal(text.code, 0, text.stderr);
  assert.match(text.stdout, /^guidance\s+decided\s+accepted/m);
  assert.match(text.stdout, /^g1\s+2\s+50\.0 %/m);
  assert.match(text.stdout, /^g2\s+2\s+100\.0 %/m);
  assert.match(text.stdout, /^none\s+1\s+0\.0 %/m);
});

const as = (user: string, lang = 'en') => ({ 'x-forwarded-user': user, 'accept-language': lang });
const form = (cookie: string, user: string) => ({ ...as(user), cookie, 'content-type': 'application/x-www-form-urlencoded' });

async function open(url: string, user: string, lang = 'en'): Promise<{ html: string; cookie: string; csrf: string }> {
  const res = await app.inject({ url, headers: as(user, lang) });
  assert.equal(res.statusCode, 200, res.body);
  const cookie = String(res.headers['set-cookie']).split(';')[0]!;
  return { html: res.body, cookie, csrf: /name="_csrf" value="([^"]+)"/.exec(res.body)?.[1] ?? '' };
}

test('an operator saves a new version on the guidance page (CSRF, audited); a reviewer reads it only', async () => {
  const op = await open('/guidance?scope=default', 'otto');
  assert.match(op.html, /<a href="\/guidance" id="nav-guidance">Guidance<\/a>/);
  assert.match(
    op.html,
    /<tr data-scope="default"><th scope="row"><a href="\/guidance\?scope=default">default<\/a><\/th><td>2 \(g\d+\)<\/td><td>Siezen Sie\./,
  );
  assert.match(op.html, /<h2 id="guidance-history-h">Versions of default<\/h2>/);
  assert.match(
    op.html,
    /<textarea id="guidance-text" name="text" required maxlength="2000"[^>]*>Siezen Sie\.\nKeine Rabatte zusagen\.<\/textarea>/,
  );
  const forged = await app.inject({
    method: 'POST',
    url: '/guidance',
    headers: form(op.cookie, 'otto'),
    payload: new URLSearchParams({ _csrf: 'forged', scope: 'mailbox:default', text: 'Duzen.' }).toString(),
  });
  assert.equal(forged.statusCode, 403);
  const saved = await app.inject({
    method: 'POST',
    url: '/guidance',
    headers: form(op.cookie, 'otto'),
    payload: new URLSearchParams({
      _csrf: op.csrf,
      scope: 'mailbox:default',
      text: 'Duzen Sie die Kundschaft.\r\nClosing: Viele Grüße',
    }).toString(),
  });
  assert.equal(saved.statusCode, 303);
  assert.equal(saved.headers.location, '/guidance?scope=mailbox%3Adefault');
  const after = await app.inject({ url: '/guidance?scope=mailbox%3Adefault', headers: { ...as('otto'), cookie: op.cookie } });
  assert.match(after.body, /Saved mailbox:default version 1\./);
  assert.match(after.body, /<article class="guidance-version" id="g\d+">\s*<h3>Version 1 \(g\d+\) · current<\/h3>/);
  const [row] = (await db.pool.query(
    "SELECT actor, details FROM audit_log WHERE event_type = 'guidance_changed' ORDER BY id DESC LIMIT 1",
  )) as Array<{
    actor: string;
    details: string;
  }>;
  assert.equal(row!.actor, 'otto');
  assert.deepEqual(JSON.parse(row!.details).scope, 'mailbox:default');
  // A text that cannot be saved comes back as a refusal on the page.
  const refused = await app.inject({
    method: 'POST',
    url: '/guidance',
    headers: form(op.cookie, 'otto'),
    payload: new URLSearchParams({ _csrf: op.csrf, scope: 'category:colour', text: 'x' }).toString(),
  });
  assert.equal(refused.statusCode, 303);
  const shown = await app.inject({ url: String(refused.headers.location), headers: { ...as('otto'), cookie: op.cookie } });
  assert.match(shown.body, /Refused:<\/strong>\s*<span class="flash-message">no category &quot;colour&quot;/);

  const reviewer = await open('/guidance', 'bea');
  assert.match(reviewer.html, /Only operators write guidance; you can read it\./);
  assert.doesNotMatch(reviewer.html, /id="guidance-form"/);
  const denied = await app.inject({
    method: 'POST',
    url: '/guidance',
    headers: form(reviewer.cookie, 'bea'),
    payload: new URLSearchParams({ _csrf: reviewer.csrf, scope: 'default', text: 'Anything goes.' }).toString(),
  });
  assert.equal(denied.statusCode, 403);
  const versions = (await db.pool.query("SELECT COUNT(*) AS n FROM guidance_versions WHERE category = '' AND mailbox_id = ''")) as Array<{
    n: bigint;
  }>;
  assert.equal(Number(versions[0]!.n), 2, 'the reviewer saved nothing');
  await assertNoAxeFindings(op.html);
  const de = await open('/guidance', 'bea', 'de');
  assert.match(de.html, /<h1>Leitlinien<\/h1>/);
  assert.match(de.html, /Nur der Betrieb schreibt Leitlinien/);
});

test('the review page names the guidance versions of the draft, linked to the guidance page', async () => {
  const [d] = (await db.pool.query("SELECT id FROM guidance_versions WHERE mailbox_id = '' AND category = '' AND version = 2")) as Array<{
    id: bigint;
  }>;
  const [b] = (await db.pool.query("SELECT id FROM guidance_versions WHERE category = 'billing'")) as Array<{ id: bigint }>;
  await db.pool.query(
    `INSERT INTO emails (id, source, status, mailbox_id, subject, text_body, from_address, from_name)
     VALUES (?, 'file', 'awaiting_approval', 'default', 'Rechnung', 'Doppelt abgebucht.', 'eva@kunde.example', 'Eva')`,
    [EMAIL],
  );
  await db.pool.query(
    `INSERT INTO drafts (id, email_id, version, subject, body, language, confidence, drafter, model, prompt_version, context_ids, flags, to_address, guidance_version)
     VALUES (?, ?, 1, 'Re: Rechnung', 'Wir prüfen das.', 'de', 0.8, 'openai', 'm', 'draft-v3', '[]', '[]', 'eva@kunde.example', ?)`,
    [`${EMAIL}:draft:1`, EMAIL, `g${d!.id}+g${b!.id}+g999`],
  );
  const { html } = await open(`/email/${EMAIL}`, 'bea');
  assert.match(
    html,
    new RegExp(
      `<dt>Guidance</dt><dd id="draft-guidance"><a href="/guidance\\?scope=default#g${d!.id}">default v2</a> · <a href="/guidance\\?scope=mailbox%3Adefault%2Fcategory%3Abilling#g${b!.id}">mailbox:default/category:billing v1</a> · g999</dd>`,
    ),
  );
  const de = await open(`/email/${EMAIL}`, 'bea', 'de');
  assert.match(de.html, /<dt>Leitlinien<\/dt><dd id="draft-guidance">/);
});
