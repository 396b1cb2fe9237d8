/**
 * The case page of the review inbox against the real MariaDB: what it shows (facts, summary marked
 * as not sent, open mails with their drafts, history), the "answer all in one reply" form and its
 * post (CSRF, a mail of another case or account refused, the result per mail), the case line on the
 * review page, and the page in Debian's Chromium (axe-core, the form submitted by a person).
 * CaseReplies is a recording double here: the port's adapter and the workflows behind it are tested
 * with the case workflow.
 */
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { chromium, type Page } from 'playwright-core';
import { loadConfig } from '../../src/config';
import type { CaseReplies, CaseReplyRequest, CaseReplyResult } from '../../src/cases/case-replies.port';
import { inboxOnDatabase, listenLocally } from '../support/inbox-app';
import { createTestDatabase } from '../support/database';

const ARTIFACTS = path.resolve(__dirname, '../../.local/artifacts/inbox');
const ACCOUNT = 'support@firma.example';
const USER = { 'x-forwarded-user': 'rita', 'accept-language': 'en' };
let db: Awaited<ReturnType<typeof createTestDatabase>>;

/** DOUBLE of the CaseReplies port: records each request and answers as scripted (default: every mail held). */
function caseRepliesDouble() {
  const requests: CaseReplyRequest[] = [];
  let next: ((r: CaseReplyRequest) => CaseReplyResult) | Error | null = null;
  const replies: CaseReplies = {
    async answer(request) {
      requests.push(request);
      const scripted = next;
      next = null;
      if (scripted instanceof Error) throw scripted;
      if (scripted) return scripted(request);
      return {
        accepted: true,
        message: `reply of ${request.leadEmailId} covers ${request.covers.length} mails`,
        covered: request.covers.map((c) => ({ emailId: c.emailId, held: true, message: `held for ${request.leadDraftId}` })),
      };
    },
  };
  return { replies, requests, script: (s: typeof next) => (next = s) };
}

const DAY = 86_400_000;
const ago = (days: number) => new Date(Date.now() - days * DAY);

async function email(id: string, caseId: string, status: string, days: number, opts: { account?: string; subject?: string } = {}) {
  await db.pool.query(
    `INSERT INTO emails (id, source, account, mailbox_id, status, from_name, from_address, subject, text_body, sent_date, created_at, case_id)
     VALUES (?, 'file', ?, 'default', ?, 'Anna Becker', 'anna@kunde.example', ?, 'Text', ?, ?, ?)`,
    [id, opts.account ?? ACCOUNT, status, opts.subject ?? `Mail ${id}`, ago(days), ago(days), caseId],
  );
}
async function draft(emailId: string, version: number, status: string, body: string, flags: string[] = []) {
  await db.pool.query(
    `INSERT INTO drafts (id, email_id, version, status, subject, body, language, drafter, model, prompt_version, context_ids, to_address, flags)
     VALUES (?, ?, ?, ?, 'Re: x', ?, 'de', 'openai', 'm', 'v', '[]', 'anna@kunde.example', ?)`,
    [`${emailId}:draft:${version}`, emailId, version, status, body, JSON.stringify(flags)],
  );
}

before(async () => {
  db = await createTestDatabase('casepage');
  await db.pool.query(
    `INSERT INTO cases (id, account, mailbox_id, correspondent, correspondent_name, subject, status, priority, team, owner,
                        claimed_by, claimed_until, opened_at, due_at, remind_at, reminded_at, breached_at, summary, summary_kind, summary_emails)
     VALUES ('c-1', ?, 'default', 'anna@kunde.example', 'Anna Becker', 'Rechnung <b>4711</b>', 'open', 'high', 'billing', 'otto',
             'rita', ?, ?, ?, ?, ?, ?, ?, 'extractive_fallback', 3)`,
    [
      ACCOUNT,
      new Date(Date.now() + 10 * 60_000),
      ago(5),
      ago(1),
      ago(2),
      ago(2),
      ago(1),
      '3 Mails von Anna Becker:\n- Rechnung doppelt abgebucht <script>alert(1)</script>',
    ],
  );
  await email('e-old', 'c-1', 'sent', 5, { subject: 'Erste Frage' });
  await email('e-1', 'c-1', 'awaiting_approval', 4, { subject: 'Rechnung 4711 doppelt' });
  await email('e-2', 'c-1', 'awaiting_approval', 3, { subject: 'Nachtrag <img src=x onerror=alert(1)>' });
  await email('e-3', 'c-1', 'awaiting_approval', 2, { subject: 'Noch ein Nachtrag' });
  await email('e-4', 'c-1', 'manual_review', 1, { subject: 'Ohne Entwurf' });
  // Another account's mail carrying the same case id: never on this case's page.
  await email('e-stranger', 'c-1', 'awaiting_approval', 1, { account: 'other@else.example', subject: 'Fremde Mail' });
  await draft('e-old', 1, 'sent', 'Schon beantwortet.');
  await draft('e-1', 1, 'stale', 'Alter Entwurf.');
  await draft('e-1', 2, 'awaiting_approval', 'Guten Tag Frau Becker,\n\nwir erstatten den Betrag.\n\nViele Grüße');
  await draft('e-2', 1, 'awaiting_approval', 'Entwurf zwei', ['offline_drafter']);
  await draft('e-3', 1, 'awaiting_approval', 'Entwurf drei');
  await draft('e-stranger', 1, 'awaiting_approval', 'Fremder Entwurf');
  for (const [i, type, message] of [
    [1, 'joined', 'e-1 joined the case'],
    [2, 'reminded', 'reminder sent to otto'],
    [3, 'summarised', 'summary of 3 mails (extractive_fallback)'],
  ] as const) {
    await db.pool.query(
      `INSERT INTO case_events (case_id, email_id, event_type, actor, message, created_at) VALUES ('c-1', ?, ?, 'system', ?, ?)`,
      [i === 1 ? 'e-1' : null, type, message, ago(4 - i)],
    );
  }
  // A case with one waiting mail: nothing to answer together.
  await db.pool.query(
    `INSERT INTO cases (id, account, mailbox_id, correspondent, subject) VALUES ('c-2', ?, 'default', 'tom@client.example', 'Login')`,
    [ACCOUNT],
  );
  await email('f-1', 'c-2', 'awaiting_approval', 1);
  await draft('f-1', 1, 'awaiting_approval', 'Hallo Tom');
});
after(async () => {
  await db?.drop();
});

async function inbox(caseReplies?: CaseReplies): Promise<FastifyInstance> {
  const config = loadConfig({ DATABASE_URL: db.url, INBOX_AUTH: 'header' }, { imap: false });
  return inboxOnDatabase(config, db.pool, {
    ...(caseReplies ? { caseReplies } : {}),
  });
}

/** The page's session cookie and CSRF token, as a browser would keep them. */
async function session(app: FastifyInstance, url = '/cases/c-1') {
  const res = await app.inject({ url, headers: USER });
  const cookie = String(res.headers['set-cookie'] ?? '').split(';')[0]!;
  const csrf = /name="_csrf" value="([^"]+)"/.exec(res.body)?.[1] ?? '';
  return { cookie, csrf, html: res.body };
}

function answerForm(csrf: string, fields: Array<[string, string]>): string {
  return new URLSearchParams([['_csrf', csrf], ...fields]).toString();
}

test('the case page shows the facts, the summary as not sent, the open mails with their drafts, and the history', async () => {
  const app = await inbox(caseRepliesDouble().replies);
  try {
    const res = await app.inject({ url: '/cases/c-1', headers: USER });
    assert.equal(res.statusCode, 200);
    // Each mail the page lists is a look at that mail in the access log; another account's is not.
    const looked = (await db.pool.query(
      `SELECT DISTINCT email_id FROM access_log WHERE actor = 'rita' AND action = 'case_viewed' AND detail = 'c-1' ORDER BY email_id`,
    )) as Array<{ email_id: string }>;
    assert.deepEqual(
      looked.map((r) => r.email_id),
      ['e-1', 'e-2', 'e-3', 'e-4', 'e-old'],
    );
    const html = res.body;
    assert.doesNotMatch(html, /<script|<img|<b>4711/i, 'subject, summary and mail subjects are shown as text');
    assert.match(html, /<h1 id="case-subject">Case: Rechnung &lt;b&gt;4711&lt;\/b&gt;<\/h1>/);
    assert.match(html, /<dd id="case-status">open<\/dd>/);
    assert.match(html, /<dd id="case-priority">high<\/dd>/);
    assert.match(html, /<dd id="case-team">billing<\/dd>/);
    assert.match(html, /<dd id="case-owner">otto<\/dd>/);
    assert.match(html, /<dd id="case-claim">rita until \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC<\/dd>/);
    assert.match(html, /<dd id="case-due">\d{4}-[^<]+ UTC <span class="overdue">overdue<\/span><\/dd>/);
    assert.match(html, /<dd id="case-reminder">[^<]+ UTC \(reminded [^<]+ UTC\)<\/dd>/);
    assert.match(html, /<dd id="case-breached"><span class="overdue">[^<]+ UTC<\/span><\/dd>/);
    assert.match(html, /<p class="warning" id="summary-not-sent">For you, not sent to the customer\.<\/p>/);
    assert.match(
      html,
      /<p class="meta" id="summary-kind">made from the mails’ own sentences: the language model failed · covers 3 of 5 mails<\/p>/,
    );
    assert.match(html, /<pre class="mail" id="summary">3 Mails von Anna Becker:\n- Rechnung doppelt abgebucht &lt;script&gt;/);
    // Open mails, oldest first, each with its current draft and its review page; the ended one listed apart.
    const open = [...html.matchAll(/<article class="case-mail" data-email-id="([^"]+)">/g)].map((m) => m[1]);
    assert.deepEqual(open, ['e-1', 'e-2', 'e-3', 'e-4']);
    assert.match(html, /<code>e-1:draft:2<\/code> \(version 2, awaiting_approval\)/);
    assert.match(
      html,
      /<code>e-2:draft:1<\/code> \(version 1, awaiting_approval\) <span class="flag flag-offline_drafter">offline drafter<\/span>/,
    );
    assert.match(html, /<p><a href="\/email\/e-1">Open the review page<\/a><\/p>/);
    assert.match(html, /<h2 id="h-ended">Earlier mails \(1\)<\/h2>/);
    assert.match(html, /<li data-email-id="e-old"><a href="\/email\/e-old">Erste Frage<\/a>/);
    assert.ok(!html.includes('e-stranger') && !html.includes('Fremde'), "another account's mail is not on the page");
    const history = [...html.matchAll(/<tr><td>[^<]+<\/td><td>([a-z_]+)<\/td>/g)].map((m) => m[1]);
    assert.deepEqual(history, ['summarised', 'reminded', 'joined'], 'newest first');
    // The form: the oldest waiting mail leads with its current draft; the others ticked, each with its draft id.
    assert.match(html, /<input type="hidden" name="leadEmailId" value="e-1">/);
    assert.match(html, /<input type="hidden" name="leadDraftId" value="e-1:draft:2">/);
    assert.match(
      html,
      /<textarea id="answer-body" name="body" required>Guten Tag Frau Becker,\n\nwir erstatten den Betrag\.\n\nViele Grüße<\/textarea>/,
    );
    const covers = [...html.matchAll(/<input type="checkbox" name="cover" value="([^"]+)" checked/g)].map((m) => m[1]);
    assert.deepEqual(covers, ['e-2', 'e-3'], 'mails waiting for approval only (not the one in manual review)');
    assert.match(html, /<input type="hidden" name="draft:e-2" value="e-2:draft:1">/);
    assert.match(html, /<input type="hidden" name="draft:e-3" value="e-3:draft:1">/);

    const de = await app.inject({ url: '/cases/c-1', headers: { ...USER, 'accept-language': 'de' } });
    assert.match(de.body, /Für Sie, wird nicht an den Kunden gesendet\./);
    assert.match(de.body, /<h2 id="h-answer">Alle mit einer Antwort beantworten<\/h2>/);
    assert.match(de.body, /<dd id="case-status">offen<\/dd>/);
  } finally {
    await app.close();
  }
});

test('an unknown case is 404, without a session the page is refused, and without the port there is no form', async () => {
  const app = await inbox();
  try {
    assert.equal((await app.inject({ url: '/cases/nope', headers: USER })).statusCode, 404);
    assert.equal((await app.inject({ url: '/cases/c-1' })).statusCode, 401, 'header mode: no user, no page');
    const res = await app.inject({ url: '/cases/c-1', headers: USER });
    assert.equal(res.statusCode, 200);
    assert.doesNotMatch(res.body, /id="answer-form"/);
    const { cookie, csrf } = await session(app);
    const post = await app.inject({
      method: 'POST',
      url: '/cases/c-1/answer',
      headers: { ...USER, cookie, 'content-type': 'application/x-www-form-urlencoded' },
      payload: answerForm(csrf, [['leadEmailId', 'e-1']]),
    });
    assert.equal(post.statusCode, 404);
    assert.match(post.body, /not available/);
  } finally {
    await app.close();
  }
  const one = await inbox(caseRepliesDouble().replies);
  try {
    const res = await one.inject({ url: '/cases/c-2', headers: USER });
    assert.doesNotMatch(res.body, /id="answer-form"/);
    assert.match(
      res.body,
      /<p class="note" id="answer-note">One reply for several mails needs at least two mails waiting for approval\.<\/p>/,
    );
  } finally {
    await one.close();
  }
});

test('the one-reply post: CSRF checked, only mails of this case, the request as the reviewer saw it, the result per mail', async () => {
  const double = caseRepliesDouble();
  const app = await inbox(double.replies);
  try {
    const { cookie, csrf } = await session(app);
    const post = (payload: string, headers: Record<string, string> = { cookie }) =>
      app.inject({
        method: 'POST',
        url: '/cases/c-1/answer',
        headers: { ...USER, ...headers, 'content-type': 'application/x-www-form-urlencoded' },
        payload,
      });
    const lead: Array<[string, string]> = [
      ['leadEmailId', 'e-1'],
      ['leadDraftId', 'e-1:draft:2'],
      ['original', 'Guten Tag Frau Becker,\n\nwir erstatten den Betrag.\n\nViele Grüße'],
    ];
    // No token, a wrong token, no session: refused before anything is asked.
    assert.equal((await post(new URLSearchParams(lead).toString())).statusCode, 403);
    assert.equal((await post(answerForm('forged', lead))).statusCode, 403);
    assert.equal((await post(answerForm(csrf, lead), {})).statusCode, 403);
    assert.equal(double.requests.length, 0);

    // A mail of another account (same case id) and a mail of another case: refused whole, nothing asked.
    for (const stranger of ['e-stranger', 'f-1']) {
      const r = await post(
        answerForm(csrf, [
          ...lead,
          ['body', 'x'],
          ['cover', 'e-2'],
          ['draft:e-2', 'e-2:draft:1'],
          ['cover', stranger],
          [`draft:${stranger}`, `${stranger}:draft:1`],
        ]),
      );
      assert.equal(r.statusCode, 303);
      const page = await app.inject({ url: '/cases/c-1', headers: { ...USER, cookie } });
      assert.match(page.body, new RegExp(`<span class="flash-message">not mails of this case: ${stranger}</span>`));
    }
    const noCover = await post(answerForm(csrf, [...lead, ['body', 'x']]));
    assert.equal(noCover.statusCode, 303);
    assert.match((await app.inject({ url: '/cases/c-1', headers: { ...USER, cookie } })).body, /tick at least one other mail/);
    assert.equal(double.requests.length, 0);

    // The reviewer edits the text (CRLF from the browser) and unticks e-3.
    const edited = await post(
      answerForm(csrf, [
        ...lead,
        ['body', 'Guten Tag Frau Becker,\r\n\r\nwir erstatten alles.\r\n'],
        ['cover', 'e-2'],
        ['draft:e-2', 'e-2:draft:1'],
        ['draft:e-3', 'e-3:draft:1'],
      ]),
    );
    assert.equal(edited.statusCode, 303);
    assert.equal(edited.headers.location, '/cases/c-1');
    assert.deepEqual(double.requests.at(-1), {
      caseId: 'c-1',
      leadEmailId: 'e-1',
      leadDraftId: 'e-1:draft:2',
      body: 'Guten Tag Frau Becker,\n\nwir erstatten alles.\n',
      covers: [{ emailId: 'e-2', draftId: 'e-2:draft:1' }],
      by: 'rita',
    });
    const shown = await app.inject({ url: '/cases/c-1', headers: { ...USER, cookie } });
    assert.match(shown.body, /<div class="flash ok" role="status" id="answer-result">/);
    assert.match(
      shown.body,
      /<li data-email-id="e-2" class="held"><a href="\/email\/e-2">e-2<\/a>: held for the reply – held for e-1:draft:2<\/li>/,
    );
    const again = await app.inject({ url: '/cases/c-1', headers: { ...USER, cookie } });
    assert.doesNotMatch(again.body, /id="answer-result"/, 'the result is shown once');

    // The text unchanged: the lead draft goes as it is (no body); a refusal per mail is shown as such.
    double.script((r) => ({
      accepted: false,
      message: 'a newer draft of e-3 exists',
      covered: [
        { emailId: 'e-2', held: true, message: 'held' },
        { emailId: 'e-3', held: false, message: 'draft e-3:draft:1 is not the current one' },
      ].filter((c) => r.covers.some((x) => x.emailId === c.emailId)),
    }));
    await post(
      answerForm(csrf, [
        ...lead,
        ['body', 'Guten Tag Frau Becker,\r\n\r\nwir erstatten den Betrag.\r\n\r\nViele Grüße'],
        ['cover', 'e-2'],
        ['draft:e-2', 'e-2:draft:1'],
        ['cover', 'e-3'],
        ['draft:e-3', 'e-3:draft:1'],
      ]),
    );
    assert.equal('body' in double.requests.at(-1)!, false);
    assert.equal(double.requests.at(-1)!.covers.length, 2);
    const refused = await app.inject({ url: '/cases/c-1', headers: { ...USER, cookie } });
    assert.match(refused.body, /<div class="flash refused" role="status" id="answer-result">/);
    assert.match(refused.body, /<li data-email-id="e-3" class="not-held">.*not included – draft e-3:draft:1 is not the current one<\/li>/);

    // The port failing (Temporal down): refused with its message, nothing lost.
    double.script(new Error('Temporal is unreachable'));
    await post(answerForm(csrf, [...lead, ['body', 'x'], ['cover', 'e-2'], ['draft:e-2', 'e-2:draft:1']]));
    assert.match(
      (await app.inject({ url: '/cases/c-1', headers: { ...USER, cookie } })).body,
      /<span class="flash-message">Temporal is unreachable<\/span>/,
    );
    // A cover without its draft id, and an unknown case.
    await post(answerForm(csrf, [...lead, ['body', 'x'], ['cover', 'e-2']]));
    assert.match((await app.inject({ url: '/cases/c-1', headers: { ...USER, cookie } })).body, /no draft named for: e-2/);
    const unknown = await app.inject({
      method: 'POST',
      url: '/cases/nope/answer',
      headers: { ...USER, cookie, 'content-type': 'application/x-www-form-urlencoded' },
      payload: answerForm(csrf, lead),
    });
    assert.equal(unknown.statusCode, 404);
    assert.equal(double.requests.length, 3);
  } finally {
    await app.close();
  }
});

test('the review page of a case mail links its case and says how many other mails are open', async () => {
  const app = await inbox();
  try {
    const res = await app.inject({ url: '/email/e-2', headers: USER });
    assert.equal(res.statusCode, 200);
    assert.match(
      res.body,
      /<p class="meta" id="email-case">Part of case <a href="\/cases\/c-1">Rechnung &lt;b&gt;4711&lt;\/b&gt;<\/a> · 3 other open mails<\/p>/,
    );
    const de = await app.inject({ url: '/email/f-1', headers: { ...USER, 'accept-language': 'de' } });
    assert.match(de.body, /Gehört zu Fall <a href="\/cases\/c-2">Login<\/a> · 0 weitere offene Mails/);
    // Another account's mail carrying the case id is not shown as part of the case.
    const stranger = await app.inject({ url: '/email/e-stranger', headers: USER });
    assert.doesNotMatch(stranger.body, /id="email-case"/);
  } finally {
    await app.close();
  }
});

test('in Chromium: no script runs, axe finds nothing serious, and a reviewer sends one reply for two mails', async () => {
  const double = caseRepliesDouble();
  const app = await inbox(double.replies);
  const base = await listenLocally(app);
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu'] });
  try {
    mkdirSync(ARTIFACTS, { recursive: true });
    const context = await browser.newContext({
      locale: 'en-US',
      extraHTTPHeaders: { 'X-Forwarded-User': 'rita', 'Accept-Language': 'en' },
    });
    const page = await context.newPage();
    const dialogs: string[] = [];
    page.on('dialog', (d) => {
      dialogs.push(d.message());
      void d.dismiss();
    });
    await page.goto(`${base}/cases/c-1`);
    assert.equal(await page.locator('#case-status').textContent(), 'open');
    await page.screenshot({ path: path.join(ARTIFACTS, 'case.png'), fullPage: true });
    await axe(page);
    await page.getByLabel('Reply', { exact: true }).fill('Guten Tag Frau Becker,\n\nwir erstatten beide Beträge.');
    await page.getByRole('checkbox', { name: /Noch ein Nachtrag/ }).uncheck();
    await Promise.all([page.waitForURL(`${base}/cases/c-1`), page.getByRole('button', { name: 'Send one reply for these mails' }).click()]);
    await page.locator('#answer-result').waitFor();
    assert.match((await page.locator('#answer-result').textContent())!, /e-2: held for the reply/);
    assert.deepEqual(double.requests.at(-1)?.covers, [{ emailId: 'e-2', draftId: 'e-2:draft:1' }]);
    assert.equal(double.requests.at(-1)?.body, 'Guten Tag Frau Becker,\n\nwir erstatten beide Beträge.');
    await page.screenshot({ path: path.join(ARTIFACTS, 'case-answered.png'), fullPage: true });
    assert.deepEqual(dialogs, [], 'no script from a subject or the summary ran');
  } finally {
    await browser.close();
    await app.close();
  }
});

/** axe-core's serious and critical WCAG 2 A/AA findings on the live page (script injected past the CSP in a copy). */
async function axe(page: Page): Promise<void> {
  const html = await page.content();
  const copy = await page.context().browser()!.newContext({ bypassCSP: true });
  try {
    const p = await copy.newPage();
    const css = readFileSync(path.join(__dirname, '../../src/review-inbox/views/inbox.css'), 'utf8');
    await p.setContent(html.replace('<link rel="stylesheet" href="/inbox.css">', () => `<style>${css}</style>`));
    await p.addScriptTag({ path: require.resolve('axe-core/axe.min.js') });
    const violations = (await p.evaluate(`axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa'] } })
      .then((r) => r.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')
        .map((v) => v.id + ': ' + v.nodes.map((n) => n.target.join(' ')).slice(0, 3).join(', ')))`)) as string[];
    assert.deepEqual(violations, []);
  } finally {
    await copy.close();
  }
}
