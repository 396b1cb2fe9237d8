/**
 * The review inbox in a real headless Chromium (Debian's chromium through playwright-core) against
 * the real worker, Temporal dev server, MariaDB, Dovecot and SMTP listener; only the LLM is a double.
 * Screenshots land in .local/artifacts/inbox/.
 */
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import { test } from 'node:test';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { ingest } from '../../src/archive-import/ingest.cli';
import { inboxUsersAdd } from '../../src/review-inbox/inbox-users.cli';
import { startInbox, type RunningInbox } from '../../src/review-inbox/server';
import { loadConfig, type Config } from '../../src/config';
import { startSwitchableSmtp } from '../support/services/switchable-smtp';
import { sampleEmail, type TestStack } from '../support/stack';
import { waitFor } from '../support/wait';
import { useWorkerStack } from '../support/worker-stack';
import { workflowBundle } from '../support/workflow-bundle';
import { createEmailWorker } from '../../workers/email-worker';

const ARTIFACTS = path.resolve(__dirname, '../../.local/artifacts/inbox');
const PASSWORDS = { rita: 'kettle-orbit-review-24', otto: 'lantern-quartz-operate-24' };

let stack: TestStack;
let inbox: RunningInbox;
let browser: Browser;

function inboxConfig(over: Partial<Config['inbox']> = {}): Config {
  return { ...stack.config, inbox: { ...stack.config.inbox, port: 0, ...over } };
}

useWorkerStack((s) => ({ stack } = s), {
  then: async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    await inboxUsersAdd(stack.config, 'rita', 'reviewer', PASSWORDS.rita);
    await inboxUsersAdd(stack.config, 'otto', 'operator', PASSWORDS.otto);
    inbox = await startInbox(inboxConfig());
    browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu'] });
  },
  cleanup: async () => {
    await browser?.close().catch(() => undefined);
    await inbox?.close().catch(() => undefined);
  },
});

async function status(id: string): Promise<string | undefined> {
  const rows = (await stack.db.pool.query('SELECT status FROM emails WHERE id = ?', [id])) as Array<{ status: string }>;
  return rows[0]?.status;
}

async function ingestMail(name: string, raw: string, wanted = 'awaiting_approval', config = stack.config): Promise<string> {
  const file = path.join(stack.dir, `${name}.eml`);
  writeFileSync(file, raw);
  const report = await ingest(config, file, { history: false });
  const id = report.lines[0]?.split('\t')[0];
  assert.ok(id, `ingested ${name}: ${report.lines.join('\n')}`);
  await waitFor(`${name} ${wanted}`, async () => (await status(id)) === wanted, 120_000, 300);
  return id;
}

/** A fresh browser context, logged in through the form. */
async function loginAs(
  name: keyof typeof PASSWORDS,
  locale = 'en-US',
  opts: { bypassCSP?: boolean } = {},
  base = inbox.url,
): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ locale, extraHTTPHeaders: { 'Accept-Language': locale }, ...opts });
  context.setDefaultTimeout(60_000);
  const page = await context.newPage();
  await page.goto(`${base}/`);
  assert.match(page.url(), /\/login\?next=/, 'without a session the queue sends the browser to the login form');
  await page.getByLabel(/^(Name)$/).fill(name);
  await page.getByLabel(/^(Password|Passwort)$/).fill(PASSWORDS[name]);
  await Promise.all([page.waitForURL(`${base}/`), page.getByRole('button', { name: /Log in|Anmelden/ }).click()]);
  assert.equal(await page.locator('#actor').textContent(), name);
  return { context, page };
}

async function openFromQueue(page: Page, emailId: string): Promise<void> {
  await page.goto(`${inbox.url}/`);
  const row = page.locator(`tr[data-email-id="${emailId}"]`);
  await row.waitFor();
  await Promise.all([page.waitForURL(/\/email\//), row.getByRole('link').click()]);
}

test('without a session every page and action is refused; cookies are HttpOnly and SameSite=Lax', async () => {
  for (const p of ['/', '/ops', '/spam', '/email/x', '/email/x/source?sid=y']) {
    const r = await fetch(`${inbox.url}${p}`, { redirect: 'manual' });
    assert.equal(r.status, 303, p);
    assert.match(r.headers.get('location') ?? '', /^\/login\?next=/);
  }
  for (const p of [
    '/email/x/approve',
    '/email/x/reject',
    '/email/x/resend',
    '/email/x/mark-sent',
    '/email/x/not-spam',
    '/ops/dead/1/requeue',
  ]) {
    const r = await fetch(`${inbox.url}${p}`, {
      method: 'POST',
      body: new URLSearchParams({ draftId: 'x', by: 'mallory', reason: 'x' }),
      redirect: 'manual',
    });
    assert.equal(r.status, 401, p);
  }
  const login = await fetch(`${inbox.url}/login`);
  const cookie = login.headers.get('set-cookie') ?? '';
  assert.match(cookie, /inbox_session=/);
  assert.match(cookie, /HttpOnly/i);
  assert.match(cookie, /SameSite=Lax/i);
  // A login post without the form's token is refused as well.
  const forged = await fetch(`${inbox.url}/login`, {
    method: 'POST',
    body: new URLSearchParams({ name: 'rita', password: PASSWORDS.rita }),
    redirect: 'manual',
  });
  assert.equal(forged.status, 403);
});

test('a reviewer edits a draft and approves it; the SMTP listener receives the edited body, sent as rita', async () => {
  const id = await ingestMail('approve', sampleEmail({ subject: 'Lieferung 5521 fehlt', messageId: '<approve@customer.example>' }));
  const { context, page } = await loginAs('rita');
  try {
    await openFromQueue(page, id);
    const draftId = (await page.locator('#draft-id').textContent())!;
    assert.equal(draftId, `${id}:draft:1`);
    await page.screenshot({ path: path.join(ARTIFACTS, 'review.png'), fullPage: true });
    const edited = 'Guten Tag Frau Mustermann,\n\ndie Lieferung 5521 geht heute erneut raus – Sendungsnummer folgt.\n\nViele Grüße\nRita';
    await page.getByLabel('Reply text').fill(edited);
    await page.getByRole('button', { name: 'Approve and send' }).click();
    await page.locator('#flash.ok').waitFor();
    const mail = await waitFor(
      'the approved reply on the SMTP listener',
      async () => stack.smtp.messages.find((m) => m.raw.toString('utf8').includes('approve@customer.example')),
      120_000,
    );
    const raw = mail.raw.toString('utf8');
    assert.match(raw.replace(/=\r?\n/g, ''), /Sendungsnummer folgt|Sendungsnummer=20folgt/);
    await waitFor('sent', async () => (await status(id)) === 'sent', 60_000);
    const [draft] = (await stack.db.pool.query('SELECT decided_by, approved_body FROM drafts WHERE id = ?', [draftId])) as Array<{
      decided_by: string;
      approved_body: string;
    }>;
    assert.equal(draft?.decided_by, 'rita');
    assert.equal(draft?.approved_body, edited);
    const audit = (await stack.db.pool.query(`SELECT COUNT(*) AS n FROM audit_log WHERE email_id = ? AND actor = 'rita'`, [id])) as Array<{
      n: number;
    }>;
    assert.ok(Number(audit[0]?.n) >= 1, 'the decision is in the audit log under the logged-in name');
    await page.reload();
    assert.equal(await page.locator('#email-status').textContent(), 'sent');
    await page.screenshot({ path: path.join(ARTIFACTS, 'sent.png'), fullPage: true });
  } finally {
    await context.close();
  }
});

test('a reviewer rejects a draft with a reason', async () => {
  const id = await ingestMail('reject', sampleEmail({ subject: 'Kündigung Vertrag 77', messageId: '<reject@customer.example>' }));
  const { context, page } = await loginAs('rita');
  try {
    await openFromQueue(page, id);
    await page.getByLabel('Reason', { exact: true }).fill('Kunde wird angerufen');
    await page.getByRole('button', { name: 'Reject' }).click();
    await page.locator('#flash.ok').waitFor();
    await waitFor('rejected', async () => (await status(id)) === 'rejected', 60_000);
    const [draft] = (await stack.db.pool.query('SELECT decided_by, decision_reason FROM drafts WHERE email_id = ?', [id])) as Array<{
      decided_by: string;
      decision_reason: string;
    }>;
    assert.equal(draft?.decided_by, 'rita');
    assert.equal(draft?.decision_reason, 'Kunde wird angerufen');
  } finally {
    await context.close();
  }
});

test('approving a draft that a follow-up made stale is refused on screen and the newer draft is offered', async () => {
  const firstId = await ingestMail('stale-1', sampleEmail({ messageId: '<inbox-stale-1@customer.example>', subject: 'Retoure 4242' }));
  const { context, page } = await loginAs('rita');
  try {
    await openFromQueue(page, firstId);
    assert.equal(await page.locator('#draft-id').textContent(), `${firstId}:draft:1`);
    // The customer writes again in the same thread while the reviewer reads draft 1.
    const secondId = await ingestMail(
      'stale-2',
      sampleEmail({
        messageId: '<inbox-stale-2@customer.example>',
        subject: 'Re: Retoure 4242',
        body: 'Nachtrag: Das Ladekabel ist auch dabei.',
        extra: ['In-Reply-To: <inbox-stale-1@customer.example>', 'References: <inbox-stale-1@customer.example>'],
      }),
    );
    await waitFor('draft 2 of the first email', async () => {
      const rows = (await stack.db.pool.query(`SELECT status FROM drafts WHERE email_id = ? AND version = 2`, [firstId])) as Array<{
        status: string;
      }>;
      return rows[0]?.status === 'awaiting_approval';
    });
    await page.getByRole('button', { name: 'Approve and send' }).click();
    const flash = page.locator('#flash.refused');
    await flash.waitFor();
    assert.match((await flash.textContent()) ?? '', /draft .*:draft:1 is not the current one/);
    await page.screenshot({ path: path.join(ARTIFACTS, 'stale-refused.png'), fullPage: true });
    assert.equal(await status(firstId), 'awaiting_approval', 'nothing was approved');
    await page.locator('#newer-draft').click();
    await page.waitForURL(new RegExp(`/email/${encodeURIComponent(firstId)}$`));
    assert.equal(await page.locator('#draft-id').textContent(), `${firstId}:draft:2`);
    // The new draft's sources open as text; only a draft's own sources can be opened from its email.
    await Promise.all([page.waitForURL(/\/source\?sid=/), page.locator('#sources a', { hasText: secondId }).click()]);
    assert.match((await page.locator('#source-text').textContent()) ?? '', /Ladekabel/);
    const foreign = await page.request.get(
      `${inbox.url}/email/${encodeURIComponent(firstId)}/source?sid=${encodeURIComponent('email-not-a-source')}`,
    );
    assert.equal(foreign.status(), 404);
    await page.goBack();
    await page.getByLabel('Reason', { exact: true }).fill('test done');
    await page.getByRole('button', { name: 'Reject' }).click();
    await page.locator('#flash.ok').waitFor();
  } finally {
    await context.close();
  }
});

test('a hostile HTML mail: no script runs, no handler or javascript: link reaches the DOM, nothing loads from outside', async () => {
  const html = [
    '<html><head><style>body{background:url(http://203.0.113.9/track.png)} .x{display:none}</style>',
    '<script>window.__pwned = 1; alert("xss")</script><meta http-equiv="refresh" content="0;url=http://203.0.113.9/"></head>',
    '<body><p>Bitte prüfen Sie meine Bestellung 9001.</p>',
    '<img src="x" onerror="window.__pwned = 2; alert(1)">',
    '<a href="javascript:alert(3)">Klick</a> <a href="http://203.0.113.9/phish">Konto</a>',
    '<svg onload="alert(4)"></svg><iframe src="http://203.0.113.9/"></iframe>',
    '<div style="position:fixed;top:0;left:0;width:100%;height:100%;background:url(http://203.0.113.9/x)">overlay</div>',
    '&lt;script&gt;alert(5)&lt;/script&gt;</body></html>',
  ].join('\n');
  const raw = [
    'From: Mallory <mallory@customer.example>',
    'To: Support <support@example.test>',
    'Subject: <img src=x onerror=alert(6)> Bestellung 9001',
    'Message-ID: <hostile@customer.example>',
    `Date: ${new Date().toUTCString()}`,
    'MIME-Version: 1.0',
    'Content-Type: text/html; charset=utf-8',
    '',
    html,
    '',
  ].join('\r\n');
  const id = await ingestMail('hostile', raw);
  const { context, page } = await loginAs('rita');
  const events: string[] = [];
  const outside: string[] = [];
  page.on('dialog', (d) => {
    events.push(`dialog: ${d.message()}`);
    void d.dismiss();
  });
  page.on('pageerror', (e) => events.push(`pageerror: ${e.message}`));
  page.on('console', (m) => events.push(`console ${m.type()}: ${m.text()}`));
  page.on('request', (r) => {
    if (!r.url().startsWith(inbox.url)) outside.push(r.url());
  });
  try {
    await openFromQueue(page, id);
    await page.waitForLoadState('load');
    await page.waitForTimeout(1_000);
    await page.screenshot({ path: path.join(ARTIFACTS, 'hostile.png'), fullPage: true });
    const text = (await page.locator('#mail-text').textContent()) ?? '';
    assert.match(text, /Bestellung 9001/);
    // A string: the test code is type-checked without the DOM library.
    const dom = await page.evaluate(`({
      pwned: window.__pwned ?? null,
      scripts: document.querySelectorAll('script').length,
      handlers: [...document.querySelectorAll('*')].flatMap((e) => [...e.attributes].filter((a) => /^on/i.test(a.name)).map((a) => a.name)),
      jsLinks: [...document.querySelectorAll('[href],[src]')].filter((e) => /^\\s*javascript:/i.test(e.getAttribute('href') ?? e.getAttribute('src') ?? '')).length,
      frames: document.querySelectorAll('iframe, object, embed, svg, img').length,
      styles: [...document.querySelectorAll('style, [style]:not(input):not(textarea)')].map((e) => e.outerHTML.slice(0, 80)),
    })`);
    assert.deepEqual(dom, { pwned: null, scripts: 0, handlers: [], jsLinks: 0, frames: 0, styles: [] });
    assert.deepEqual(events, [], 'no dialog, console message or page error');
    assert.deepEqual(outside, [], 'nothing loaded from outside the inbox');
    // The markup as served (before the browser touches it): the mail's tags only ever appear escaped.
    const served = await page.request.get(page.url());
    const markup = await served.text();
    assert.match(markup, /&lt;img src=x onerror=alert\(6\)&gt; Bestellung 9001/);
    assert.doesNotMatch(markup, /<(script|style|iframe|svg|img|object|embed|meta http-equiv="refresh" content="0)\b/i);
    // Every attribute of every tag as served (quoted values may hold escaped mail text; that is fine).
    const attributes = [...markup.matchAll(/<[a-z][a-z0-9-]*((?:\s+[^\s=>"']+(?:=(?:"[^"]*"|'[^']*'|[^\s>"']+))?)*)\s*\/?>/gi)].flatMap(
      (tag) =>
        [...(tag[1] ?? '').matchAll(/\s+([^\s=>"']+)(?:=(?:"([^"]*)"|'([^']*)'|([^\s>"']+)))?/g)].map((a) => ({
          name: a[1]!.toLowerCase(),
          value: a[2] ?? a[3] ?? a[4] ?? '',
        })),
    );
    assert.ok(attributes.length > 50, 'the tags were parsed');
    assert.deepEqual(
      attributes.filter(
        (a) => /^on/.test(a.name) || a.name === 'style' || ((a.name === 'href' || a.name === 'src') && /^\s*javascript:/i.test(a.value)),
      ),
      [],
    );
    assert.match(served.headers()['content-security-policy'] ?? '', /default-src 'none'/);
  } finally {
    await context.close();
  }
});

test('a send in doubt offers only the two explicit actions; mark sent records who checked', async () => {
  // A second worker on its own task queue whose SMTP server keeps the message and never answers.
  const held = await startSwitchableSmtp();
  held.addRule(() => ({ kind: 'hold' }));
  const config = loadConfig({
    ...stack.env,
    SMTP_PORT: String(held.port),
    SMTP_TIMEOUT_MS: '1500',
    TEMPORAL_TASK_QUEUE: `${stack.env.TEMPORAL_TASK_QUEUE}-doubt`,
  });
  const doubtWorker = await createEmailWorker(config, { workflowBundle: await workflowBundle() });
  const doubtDone = doubtWorker.run();
  const { context, page } = await loginAs('rita');
  try {
    const id = await ingestMail(
      'doubt',
      sampleEmail({ subject: 'Zahlung 31 offen', messageId: '<doubt@customer.example>' }),
      'awaiting_approval',
      config,
    );
    await openFromQueue(page, id);
    await page.getByRole('button', { name: 'Approve and send' }).click();
    await page.locator('#flash.ok').waitFor();
    await waitFor(
      'the send in doubt',
      async () => {
        const rows = (await stack.db.pool.query('SELECT status FROM send_attempts WHERE email_id = ?', [id])) as Array<{ status: string }>;
        return rows[0]?.status === 'in_doubt';
      },
      120_000,
    );
    await page.goto(`${inbox.url}/?status=in_doubt`);
    await openFromQueue(page, id);
    await page.locator('#mark-sent-form').waitFor();
    assert.equal(await page.locator('#approve-form').count(), 0);
    assert.equal(await page.locator('#resend-form input[name="force"]').getAttribute('value'), 'true');
    assert.equal(await page.locator('#checked').getAttribute('required'), '', 'force needs the explicit confirmation');
    await page.screenshot({ path: path.join(ARTIFACTS, 'in-doubt.png'), fullPage: true });
    await page.getByLabel('What you checked').fill('customer confirmed receipt by phone');
    await page.getByRole('button', { name: 'Mark as sent (it did arrive)' }).click();
    await page.locator('#flash.ok').waitFor();
    await waitFor('sent', async () => (await status(id)) === 'sent', 60_000);
    const [row] = (await stack.db.pool.query('SELECT status, resolved_by FROM send_attempts WHERE email_id = ?', [id])) as Array<{
      status: string;
      resolved_by: string;
    }>;
    assert.deepEqual(row, { status: 'sent', resolved_by: 'rita' });
    assert.equal(held.received(), 1, 'one copy was handed over and none sent again');
  } finally {
    await context.close();
    await doubtWorker.shutdown();
    await doubtDone.catch(() => undefined);
    held.releaseHeld();
    await held.stop();
  }
});

test('CSRF: a post without or with a wrong token is refused; a reviewer cannot requeue a dead letter', async () => {
  await stack.db.pool.query(
    `INSERT INTO queue_jobs (workflow_id, step, activity_id, status, error_class, last_error, attempt, finished_at)
     VALUES ('email-dead-demo', 'parse', '1', 'dead', 'permanent', 'corrupt MIME structure', 1, CURRENT_TIMESTAMP(3))`,
  );
  const [dead] = (await stack.db.pool.query(`SELECT id FROM queue_jobs WHERE workflow_id = 'email-dead-demo'`)) as Array<{ id: number }>;
  const { context, page } = await loginAs('rita');
  try {
    const noToken = await page.request.post(`${inbox.url}/email/x/reject`, { form: { draftId: 'x', reason: 'forged' }, maxRedirects: 0 });
    assert.equal(noToken.status(), 403);
    const wrong = await page.request.post(`${inbox.url}/email/x/reject`, {
      form: { _csrf: 'not-the-token', draftId: 'x', reason: 'forged' },
      maxRedirects: 0,
    });
    assert.equal(wrong.status(), 403);
    await page.goto(`${inbox.url}/ops`);
    assert.equal(await page.locator(`tr[data-dead-id="${dead!.id}"] button`).count(), 0, 'no requeue button for a reviewer');
    const token = await page.locator('input[name="_csrf"]').first().getAttribute('value');
    const requeue = await page.request.post(`${inbox.url}/ops/dead/${dead!.id}/requeue`, { form: { _csrf: token! }, maxRedirects: 0 });
    assert.equal(requeue.status(), 403);
    const [row] = (await stack.db.pool.query('SELECT status FROM queue_jobs WHERE id = ?', [dead!.id])) as Array<{ status: string }>;
    assert.equal(row?.status, 'dead');
  } finally {
    await context.close();
  }
  const operator = await loginAs('otto');
  try {
    await operator.page.goto(`${inbox.url}/ops`);
    await operator.page.locator(`tr[data-dead-id="${dead!.id}"] button`).waitFor();
    assert.match((await operator.page.locator('#dead-letters').textContent()) ?? '', /corrupt MIME structure/);
    const link = await operator.page.locator(`tr[data-dead-id="${dead!.id}"] a`).first().getAttribute('href');
    assert.equal(link, 'http://127.0.0.1:8233/namespaces/default/workflows/email-dead-demo');
    await operator.page.screenshot({ path: path.join(ARTIFACTS, 'operations.png'), fullPage: true });
  } finally {
    await operator.context.close();
  }
});

test('a forged form post from another site is refused and decides nothing', async () => {
  const id = await ingestMail('forged', sampleEmail({ subject: 'Passwort vergessen', messageId: '<forged@customer.example>' }));
  const draftId = `${id}:draft:1`;
  // The attacker's page: another origin that posts a rejection to the inbox as soon as it loads.
  const evil = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end(`<form method="post" action="${inbox.url}/email/${encodeURIComponent(id)}/reject">
      <input name="draftId" value="${draftId}"><input name="reason" value="forged"></form>
      <script>document.forms[0].submit()</script>`);
  });
  await new Promise<void>((resolve) => evil.listen(0, '127.0.0.1', resolve));
  const { context, page } = await loginAs('rita');
  try {
    const posted = page.waitForResponse((r) => r.url().endsWith('/reject'));
    await page.goto(`http://127.0.0.1:${(evil.address() as AddressInfo).port}/`);
    assert.equal((await posted).status(), 403);
    assert.equal(await status(id), 'awaiting_approval');
    await openFromQueue(page, id);
    await page.getByLabel('Reason', { exact: true }).fill('forgery test done');
    await page.getByRole('button', { name: 'Reject' }).click();
    await page.locator('#flash.ok').waitFor();
  } finally {
    await context.close();
    evil.close();
  }
});

test('German from Accept-Language, English by the switch', async () => {
  const { context, page } = await loginAs('rita', 'de-DE');
  try {
    await page.goto(`${inbox.url}/`);
    assert.equal(await page.locator('html').getAttribute('lang'), 'de');
    assert.match((await page.locator('h1').textContent()) ?? '', /Warteschlange/);
    await page.getByRole('link', { name: 'EN', exact: true }).click();
    assert.equal(await page.locator('html').getAttribute('lang'), 'en');
    await page.goto(`${inbox.url}/ops`);
    assert.match((await page.locator('h1').textContent()) ?? '', /Operations/);
  } finally {
    await context.close();
  }
});

test('accessibility basics: every visible form control has a label; Tab reaches the reply text before the approve button', async () => {
  const id = await ingestMail('a11y', sampleEmail({ subject: 'Adresse ändern', messageId: '<a11y@customer.example>' }));
  // The pages forbid scripts (CSP); only this context may inject the checker.
  const { context, page } = await loginAs('rita', 'en-US', { bypassCSP: true });
  try {
    for (const url of [`${inbox.url}/`, `${inbox.url}/email/${encodeURIComponent(id)}`, `${inbox.url}/ops`, `${inbox.url}/spam`]) {
      await page.goto(url);
      // axe-core, the automated checker: WCAG 2 A/AA rules, serious and critical findings fail.
      await page.addScriptTag({ path: require.resolve('axe-core/axe.min.js') });
      const violations = (await page.evaluate(`axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa'] } })
        .then((r) => r.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')
          .map((v) => v.id + ': ' + v.nodes.map((n) => n.target.join(' ')).slice(0, 3).join(', ')))`)) as string[];
      assert.deepEqual(violations, [], `${url}: ${violations.join('; ')}`);
      const unlabelled = await page.evaluate(`[...document.querySelectorAll('input:not([type=hidden]), select, textarea, button')]
        .filter((e) => !(e.labels && e.labels.length > 0) && !e.getAttribute('aria-label') && !(e.tagName === 'BUTTON' && e.textContent.trim()))
        .map((e) => e.outerHTML.slice(0, 80))`);
      assert.deepEqual(unlabelled, [], url);
      assert.ok(await page.locator('html[lang]').count(), 'the page names its language');
    }
    await page.goto(`${inbox.url}/email/${encodeURIComponent(id)}`);
    await page.locator('#body').focus();
    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate('document.activeElement.id'), 'approve');
    await page.getByLabel('Reason', { exact: true }).fill('a11y done');
    await page.getByRole('button', { name: 'Reject' }).click();
    await page.locator('#flash.ok').waitFor();
  } finally {
    await context.close();
  }
});

test('spam held by the built-in check is listed with its reason; "Not spam – draft it" gets it drafted and is audited', async () => {
  const id = await ingestMail(
    'spam',
    sampleEmail({
      from: 'Lotto Team <claims@lottery.example>',
      subject: 'WINNING NOTIFICATION!!!',
      body: 'Dear Friend,\r\nYou have been selected! Claim your prize of US$ 2,500,000.00 now: http://192.0.2.7/claim\r\nTo be removed reply REMOVE.',
    }),
    'ignored',
  );
  const [row] = (await stack.db.pool.query('SELECT triage_class, status_reason FROM emails WHERE id = ?', [id])) as Array<
    Record<string, string>
  >;
  assert.equal(row?.triage_class, 'spam');
  assert.match(row?.status_reason ?? '', /built-in spam check/);
  const { context, page } = await loginAs('rita');
  try {
    await Promise.all([page.waitForURL(`${inbox.url}/spam`), page.locator('#nav-spam').click()]);
    const listed = page.locator(`tr[data-email-id="${id}"]`);
    assert.match((await listed.locator('.reason').textContent()) ?? '', /built-in spam check: [\d.]+ points/);
    await page.screenshot({ path: path.join(ARTIFACTS, 'spam-list.png'), fullPage: true });
    await listed.getByRole('button', { name: /Not spam – draft it/ }).click();
    await page.locator('#flash.ok').waitFor();
    assert.match((await page.locator('#flash').textContent()) ?? '', /back in the pipeline for a reply, requested by rita/);
  } finally {
    await context.close();
  }
  await waitFor('the released spam to be drafted', async () => (await status(id)) === 'awaiting_approval', 120_000, 300);
  const audit = (await stack.db.pool.query(`SELECT actor FROM audit_log WHERE email_id = ? AND event_type = 'spam_released'`, [
    id,
  ])) as Array<{
    actor: string;
  }>;
  assert.deepEqual(
    audit.map((a) => a.actor),
    ['rita'],
  );
});

test('a disabled user is out at once, also with a session that is still open', async () => {
  await inboxUsersAdd(stack.config, 'dora', 'reviewer', 'meadow-violin-review-24');
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    await page.goto(`${inbox.url}/login`);
    await page.getByLabel('Name').fill('dora');
    await page.getByLabel('Password').fill('meadow-violin-review-24');
    await Promise.all([page.waitForURL(`${inbox.url}/`), page.getByRole('button', { name: 'Log in' }).click()]);
    await stack.db.pool.query(`UPDATE inbox_users SET disabled_at = CURRENT_TIMESTAMP(3) WHERE name = 'dora'`);
    await page.goto(`${inbox.url}/ops`);
    assert.match(page.url(), /\/login\?next=/);
  } finally {
    await context.close();
  }
});

test('header mode: the proxy header is believed only from a trusted address', async () => {
  const trusted = await startInbox(inboxConfig({ auth: 'header', trustedProxies: ['127.0.0.1', '::1'] }));
  const untrusted = await startInbox(inboxConfig({ auth: 'header', trustedProxies: ['192.0.2.1'] }));
  try {
    const ok = await fetch(`${trusted.url}/ops`, { headers: { 'X-Forwarded-User': 'otto' } });
    assert.equal(ok.status, 200);
    assert.match(await ok.text(), /id="actor">otto</);
    const none = await fetch(`${trusted.url}/`, { redirect: 'manual' });
    assert.equal(none.status, 401);
    const spoofed = await fetch(`${untrusted.url}/`, { headers: { 'X-Forwarded-User': 'otto' }, redirect: 'manual' });
    assert.equal(spoofed.status, 403);
  } finally {
    await trusted.close();
    await untrusted.close();
  }
});

test('several mailboxes: the queue filters by mailbox (kept in the query string), each row and email names its mailbox', async () => {
  // A mail that came in through `billing`; the registry has billing and a disabled `info` beside `default`.
  await stack.db.pool.query(
    `INSERT INTO emails (id, source, status, priority, mailbox_id, mailbox, subject, from_address)
     VALUES ('mbx-billing-1', 'imap', 'manual_review', 'normal', 'billing', 'INBOX', 'Rechnung falsch', 'kunde@customer.example')`,
  );
  const billing = { ...stack.config.mailboxes[0]!, id: 'billing' };
  const multi = await startInbox({
    ...inboxConfig(),
    mailboxes: [...stack.config.mailboxes, billing, { ...billing, id: 'info', enabled: false }],
  });
  const { context, page } = await loginAs('rita', 'en-US', { bypassCSP: true }, multi.url);
  try {
    await page.goto(`${multi.url}/`);
    const select = page.getByLabel('Mailbox', { exact: true });
    assert.deepEqual(await select.locator('option').evaluateAll((os) => os.map((o) => (o as unknown as { value: string }).value)), [
      '',
      'default',
      'billing',
      'info',
    ]);
    const all = await page.locator('tr[data-email-id]').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-mailbox')));
    assert.ok(all.includes('billing') && all.includes('default'), `both mailboxes in the unfiltered queue: ${all.join(', ')}`);

    await select.selectOption('billing');
    await Promise.all([page.waitForURL(/[?&]mailbox=billing/), page.getByRole('button', { name: 'Filter' }).click()]);
    const rows = page.locator('tr[data-email-id]');
    assert.equal(await rows.count(), 1);
    assert.equal(await rows.first().getAttribute('data-email-id'), 'mbx-billing-1');
    assert.equal((await rows.first().locator('td.mailbox').textContent())?.trim(), 'billing (INBOX)');
    // The filter survives a reload and the refresh links.
    await page.reload();
    assert.equal(await page.getByLabel('Mailbox', { exact: true }).inputValue(), 'billing');
    assert.match((await page.getByRole('link', { name: 'Refresh now' }).getAttribute('href')) ?? '', /mailbox=billing/);
    await page.addScriptTag({ path: require.resolve('axe-core/axe.min.js') });
    const violations = (await page.evaluate(`axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa'] } })
      .then((r) => r.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id))`)) as string[];
    assert.deepEqual(violations, []);

    await page.goto(`${multi.url}/?mailbox=default`);
    assert.ok(!(await page.locator('tr[data-mailbox="billing"]').count()), 'the billing mail is not in the default queue');
    // An id the registry and the emails do not know filters nothing away rather than everything.
    await page.goto(`${multi.url}/?mailbox=nope`);
    assert.equal(await page.getByLabel('Mailbox', { exact: true }).inputValue(), '');

    await page.goto(`${multi.url}/email/mbx-billing-1`);
    assert.equal((await page.locator('#email-mailbox').textContent())?.trim(), 'billing (INBOX)');
  } finally {
    await context.close();
    await multi.close();
    await stack.db.pool.query(`DELETE FROM emails WHERE id = 'mbx-billing-1'`);
  }
});

test('queue tabs and paging: my queue, unassigned, next and previous page (keyboard-reachable links, axe clean)', async () => {
  // 55 mails of one mailbox, oldest first; one belongs to a case rita owns, one to a case of a team.
  const ids = Array.from({ length: 55 }, (_, i) => `pg-${String(i).padStart(3, '0')}`);
  await stack.db.pool.query(
    `INSERT INTO emails (id, source, status, priority, mailbox_id, mailbox, subject, from_address, created_at, case_id) VALUES ${ids
      .map(() => `(?, 'file', 'manual_review', 'normal', 'paging', 'INBOX', ?, 'kunde@customer.example', ?, ?)`)
      .join(', ')}`,
    ids.flatMap((id, i) => [
      id,
      `Seite ${i}`,
      new Date(Date.UTC(2026, 0, 1, 0, 0, i)),
      i === 3 ? 'pg-case-rita' : i === 4 ? 'pg-case-team' : null,
    ]),
  );
  await stack.db.pool.query(
    `INSERT INTO cases (id, account, mailbox_id, correspondent, owner, team) VALUES
     ('pg-case-rita', 'a', 'paging', 'kunde@customer.example', 'rita', NULL), ('pg-case-team', 'a', 'paging', 'kunde@customer.example', NULL, 'billing')`,
  );
  const { context, page } = await loginAs('rita', 'en-US', { bypassCSP: true });
  const rows = () => page.locator('tr[data-email-id]').evaluateAll((rs) => rs.map((r) => r.getAttribute('data-email-id')));
  try {
    await page.goto(`${inbox.url}/?mailbox=paging`);
    assert.deepEqual(await rows(), ids.slice(0, 50));
    assert.equal(await page.locator('#tab-all').getAttribute('aria-current'), 'page');
    await page.addScriptTag({ path: require.resolve('axe-core/axe.min.js') });
    const violations = (await page.evaluate(`axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa'] } })
      .then((r) => r.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id))`)) as string[];
    assert.deepEqual(violations, []);
    await Promise.all([page.waitForURL(/after=/), page.getByRole('link', { name: 'Next page' }).click()]);
    assert.deepEqual(await rows(), ids.slice(50));
    assert.match(page.url(), /mailbox=paging/, 'the filter rides along');
    assert.equal(await page.getByRole('link', { name: 'Next page' }).count(), 0);
    await Promise.all([page.waitForURL(/before=/), page.getByRole('link', { name: 'Previous page' }).click()]);
    assert.deepEqual(await rows(), ids.slice(0, 50));
    await page.screenshot({ path: path.join(ARTIFACTS, 'queue-paging.png'), fullPage: true });

    await page.getByRole('link', { name: 'My queue' }).click();
    await page.waitForURL(/view=mine/);
    assert.equal(await page.locator('#tab-mine').getAttribute('aria-current'), 'page');
    assert.deepEqual(await rows(), ['pg-003']);
    assert.equal((await page.locator('tr[data-email-id="pg-003"] td.assigned').textContent())?.trim(), 'rita');
    await page.getByRole('link', { name: 'Unassigned' }).click();
    await page.waitForURL(/view=unassigned/);
    const unassigned = await rows();
    assert.ok(!unassigned.includes('pg-003') && !unassigned.includes('pg-004') && unassigned.includes('pg-000'));
    // The search box: a sender prefix, within the tab and filters.
    await page.getByLabel('Search', { exact: true }).fill('kunde@customer');
    await Promise.all([page.waitForURL(/q=kunde/), page.getByRole('button', { name: 'Filter' }).click()]);
    assert.match(page.url(), /view=unassigned/);
    assert.deepEqual((await rows()).slice(0, 3), ['pg-000', 'pg-001', 'pg-002']);
  } finally {
    await context.close();
    await stack.db.pool.query(`DELETE FROM emails WHERE id LIKE 'pg-%'`);
    await stack.db.pool.query(`DELETE FROM cases WHERE id LIKE 'pg-case-%'`);
  }
});
