/**
 * Single sign-on to the review inbox in Chromium against a real OpenID provider (oidc-provider)
 * run by the test: login with the role from a group claim, RP-initiated logout, a role change at
 * the provider taking effect at the next login, a person without a mapped role refused, and ID
 * tokens that are tampered, expired or carry another nonce refused, as is a callback with another
 * state. Every refusal is an audit row.
 */
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { chromium, type Browser, type Page } from 'playwright-core';
import { loadConfig, type Config } from '../../src/config';
import { inboxOnDatabase } from '../support/inbox-app';
import { createTestDatabase } from '../support/database';
import { startOidcProvider, type TestOidcProvider } from '../support/services/oidc-provider';
import { freePort } from '../support/services/ports';

const ARTIFACTS = path.resolve(__dirname, '../../.local/artifacts/inbox-oidc');

let db: Awaited<ReturnType<typeof createTestDatabase>>;
let idp: TestOidcProvider;
let app: FastifyInstance;
let inboxUrl: string;
let browser: Browser;

before(async () => {
  mkdirSync(ARTIFACTS, { recursive: true });
  db = await createTestDatabase('oidc');
  const port = await freePort();
  inboxUrl = `http://127.0.0.1:${port}`;
  idp = await startOidcProvider(inboxUrl);
  idp.accounts.set('olga', { preferred_username: 'olga', email: 'olga@example.com', groups: ['email-rag-reviewers'] });
  idp.accounts.set('nina', { preferred_username: 'nina', email: 'nina@example.com', groups: ['marketing'] });
  const config: Config = loadConfig(
    {
      DATABASE_URL: db.url,
      INBOX_SESSION_SECRET: 'a shared secret of at least thirty-two characters',
      INBOX_OIDC_ISSUER: idp.issuer,
      INBOX_OIDC_CLIENT_ID: idp.clientId,
      INBOX_OIDC_CLIENT_SECRET: 'env:TEST_OIDC_CLIENT_SECRET',
      TEST_OIDC_CLIENT_SECRET: idp.clientSecret,
      INBOX_PUBLIC_URL: inboxUrl,
      INBOX_OIDC_SCOPES: 'openid profile email groups',
      INBOX_OIDC_ROLE_CLAIM: 'groups',
      INBOX_OIDC_ROLE_MAP: 'email-rag-operators=operator,email-rag-reviewers=reviewer',
      INBOX_LOCAL_USERS: 'off',
    },
    { imap: false },
  );
  app = await inboxOnDatabase(config, db.pool);
  await app.listen({ port, host: '127.0.0.1' });
  browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu'] });
});

after(async () => {
  await browser?.close().catch(() => undefined);
  await app?.close().catch(() => undefined);
  await idp?.stop().catch(() => undefined);
  await db?.drop();
});

/** From the inbox's login page through the provider's login form; returns where the browser ends up. */
async function signIn(page: Page, login: string): Promise<void> {
  await page.goto(`${inboxUrl}/login`);
  await page.locator('#sso').click();
  const form = page.locator('input[name="login"]');
  // A provider session from before signs in without its form.
  await Promise.race([form.waitFor({ timeout: 10_000 }).catch(() => undefined), page.waitForURL(`${inboxUrl}/**`, { timeout: 10_000 })]);
  if (page.url().startsWith(idp.issuer) && (await form.count()) > 0) {
    await form.fill(login);
    await page.locator('input[name="password"]').fill('any password');
    await page.getByRole('button', { name: 'Sign-in' }).click();
  }
  await page.waitForURL(`${inboxUrl}/**`, { timeout: 15_000 });
}

async function refusals(): Promise<Array<{ reason: string; actor: string | null; message: string }>> {
  return (await db.pool.query(
    `SELECT JSON_VALUE(details, '$.reason') AS reason, actor, message FROM audit_log WHERE event_type = 'inbox_login_refused' ORDER BY id`,
  )) as Array<{ reason: string; actor: string | null; message: string }>;
}

test('login through the provider with the role of a group claim; logout ends the session here and at the provider', async () => {
  const context = await browser.newContext();
  const page = await context.newPage();
  try {
    await page.goto(`${inboxUrl}/login`);
    assert.equal(await page.locator('input[name="password"]').count(), 0, 'local users are off: no password form');
    await signIn(page, 'olga');
    assert.equal(page.url(), `${inboxUrl}/`);
    assert.equal(await page.locator('#actor').textContent(), 'olga');
    assert.match((await page.locator('header').textContent()) ?? '', /reviewer/);
    await page.screenshot({ path: path.join(ARTIFACTS, 'signed-in.png') });
    const rows = (await db.pool.query(`SELECT role FROM inbox_sessions WHERE user_name = 'olga'`)) as Array<{ role: string }>;
    assert.deepEqual(
      rows.map((r) => r.role),
      ['reviewer'],
    );

    await page.getByRole('button', { name: 'Log out', exact: true }).click();
    await page.waitForURL(`${idp.issuer}/**`);
    await page.getByRole('button', { name: 'Yes, sign me out' }).click();
    await page.waitForURL(`${inboxUrl}/login**`);
    assert.equal(
      ((await db.pool.query(`SELECT COUNT(*) AS n FROM inbox_sessions WHERE user_name = 'olga'`)) as Array<{ n: number }>)[0]!.n,
      0,
    );
    await page.goto(`${inboxUrl}/`);
    assert.match(page.url(), /\/login\?next=/);
    // Logged out at the provider too: the next sign-in asks for the login again.
    await page.locator('#sso').click();
    await page.locator('input[name="login"]').waitFor();
  } finally {
    await context.close();
  }
});

test('a role changed at the provider takes effect at the next login', async () => {
  const context = await browser.newContext();
  const page = await context.newPage();
  try {
    await signIn(page, 'olga');
    assert.match((await page.locator('header').textContent()) ?? '', /reviewer/);
    assert.equal((await page.goto(`${inboxUrl}/ops`))?.status(), 200);
    idp.accounts.set('olga', {
      preferred_username: 'olga',
      email: 'olga@example.com',
      groups: ['email-rag-reviewers', 'email-rag-operators'],
    });
    // The open session keeps the role of its login…
    await page.goto(`${inboxUrl}/`);
    assert.match((await page.locator('header').textContent()) ?? '', /role reviewer/);
    await page.getByRole('button', { name: 'Log out', exact: true }).click();
    await page.getByRole('button', { name: 'Yes, sign me out' }).click();
    await page.waitForURL(`${inboxUrl}/login**`);
    // …the next login gets the new one.
    await signIn(page, 'olga');
    assert.match((await page.locator('header').textContent()) ?? '', /role operator/);
  } finally {
    idp.accounts.set('olga', { preferred_username: 'olga', email: 'olga@example.com', groups: ['email-rag-reviewers'] });
    await context.close();
  }
});

test('a person whose groups map to no inbox role is refused, and the refusal is audited', async () => {
  const context = await browser.newContext();
  const page = await context.newPage();
  try {
    await signIn(page, 'nina');
    assert.match((await page.locator('[role="alert"]').textContent()) ?? '', /no role in the review inbox/);
    await page.goto(`${inboxUrl}/`);
    assert.match(page.url(), /\/login\?next=/);
    const last = (await refusals()).at(-1);
    assert.equal(last?.reason, 'sso_no_role');
    assert.equal(last?.actor, 'nina');
  } finally {
    await context.close();
  }
});

for (const [how, reason] of [
  ['tamper', /signature/i],
  ['expire', /\(exp\)|expired|timestamp/i],
  ['nonce', /nonce/i],
] as const) {
  test(`an ID token that is ${how === 'tamper' ? 'tampered with' : how === 'expire' ? 'expired' : 'issued for another nonce'} is refused`, async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    try {
      idp.spoilNextIdToken(how);
      await signIn(page, 'olga');
      assert.match((await page.locator('[role="alert"]').textContent()) ?? '', /Single sign-on did not succeed/);
      await page.goto(`${inboxUrl}/`);
      assert.match(page.url(), /\/login\?next=/, 'not signed in');
      const last = (await refusals()).at(-1);
      assert.equal(last?.reason, 'sso_invalid');
      assert.match(last!.message, reason);
    } finally {
      await context.close();
    }
  });
}

test('a callback with another state is refused, and a callback without a started sign-in too', async () => {
  const context = await browser.newContext();
  const first = await context.newPage();
  const second = await context.newPage();
  try {
    // Two sign-ins started in one browser: the second replaces the first one's state, PKCE and nonce.
    await first.goto(`${inboxUrl}/login`);
    await first.locator('#sso').click();
    await first.locator('input[name="login"]').waitFor();
    await second.goto(`${inboxUrl}/auth/oidc/login`);
    await second.locator('input[name="login"]').waitFor();
    await first.locator('input[name="login"]').fill('olga');
    await first.locator('input[name="password"]').fill('any password');
    await first.getByRole('button', { name: 'Sign-in' }).click();
    await first.waitForURL(`${inboxUrl}/**`);
    assert.match((await first.locator('[role="alert"]').textContent()) ?? '', /Single sign-on did not succeed/);
    assert.match((await refusals()).at(-1)!.message, /state/i);
    // The second one's callback finds no sign-in to finish: a failed callback uses the pending one up.
    await second.locator('input[name="login"]').fill('olga');
    await second.locator('input[name="password"]').fill('any password');
    await second.getByRole('button', { name: 'Sign-in' }).click();
    await second.waitForURL(`${inboxUrl}/**`);
    assert.match((await refusals()).at(-1)!.message, /no sign-in was started/);
    await first.goto(`${inboxUrl}/`);
    assert.match(first.url(), /\/login\?next=/);
  } finally {
    await context.close();
  }
});
