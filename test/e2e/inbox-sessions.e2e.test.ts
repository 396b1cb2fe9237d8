/**
 * Review-inbox sessions in MariaDB, over HTTP against two inbox apps on one database: a session
 * made on one is good on the other and after a restart; rotation at login; idle and absolute
 * expiry; revocation when a user is disabled, gets a new role or password, signs out everywhere,
 * or an operator signs them out.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { sessionIdHash } from '../../src/review-inbox/session-store.mariadb';
import { inboxUsersAdd, inboxUsersDisable, inboxUsersSignOut } from '../../src/review-inbox/inbox-users.cli';
import { loadConfig, type Config } from '../../src/config';
import { inboxOnDatabase, listenLocally } from '../support/inbox-app';
import { createTestDatabase } from '../support/database';
import { inboxClient } from '../support/inbox-client';

let db: Awaited<ReturnType<typeof createTestDatabase>>;
let config: Config;
const apps: FastifyInstance[] = [];

async function startApp(): Promise<{ url: string; app: FastifyInstance }> {
  const app = await inboxOnDatabase(config, db.pool);
  apps.push(app);
  return { url: await listenLocally(app), app };
}

before(async () => {
  db = await createTestDatabase('sessions');
  config = loadConfig(
    { DATABASE_URL: db.url, INBOX_SESSION_SECRET: 'a shared secret of at least thirty-two characters', INBOX_TRUSTED_PROXIES: '' },
    { imap: false },
  );
  await inboxUsersAdd(config, 'rita', 'reviewer', 'kettle-orbit-review-24');
  await inboxUsersAdd(config, 'otto', 'operator', 'lantern-quartz-operate-24');
});

after(async () => {
  for (const app of apps) await app.close().catch(() => undefined);
  await db?.drop();
});

const sessionId = (cookie: string | undefined) => decodeURIComponent(cookie!.split('=')[1]!).split('.')[0]!;

async function rows(name: string) {
  return (await db.pool.query('SELECT id_hash, role, address, user_agent, data FROM inbox_sessions WHERE user_name = ?', [name])) as Array<{
    id_hash: string;
    role: string;
    address: string;
    user_agent: string;
    data: string;
  }>;
}

test('a session made on one inbox process is good on another and after a restart; the id changes at login and is stored hashed', async () => {
  const a = await startApp();
  const b = await startApp();
  const client = inboxClient(a.url, { 'user-agent': 'sessions-test/1.0' });
  await client.get('/login');
  const before = client.cookie;
  assert.ok(before, 'the login page opens an anonymous session (CSRF secret)');
  const res = await client.login('rita', 'kettle-orbit-review-24');
  assert.equal(res.status, 303);
  assert.notEqual(client.cookie, before, 'a new session id at login');
  const [row] = await rows('rita');
  assert.equal(row?.id_hash, sessionIdHash(sessionId(client.cookie)));
  assert.notEqual(row?.id_hash, sessionId(client.cookie));
  assert.equal(row?.role, 'reviewer');
  assert.equal(row?.address, '127.0.0.1');
  assert.equal(row?.user_agent, 'sessions-test/1.0');
  assert.doesNotMatch(row!.data, /kettle-orbit-review-24/);
  const old = (await db.pool.query('SELECT COUNT(*) AS n FROM inbox_sessions WHERE id_hash = ?', [
    sessionIdHash(sessionId(before)),
  ])) as Array<{
    n: number;
  }>;
  assert.equal(Number(old[0]!.n), 0, 'the anonymous session is gone');

  const onB = await fetch(`${b.url}/`, { headers: { cookie: client.cookie! }, redirect: 'manual' });
  assert.equal(onB.status, 200);
  assert.match(await onB.text(), /id="actor">rita</);

  await a.app.close();
  const a2 = await startApp();
  const afterRestart = await fetch(`${a2.url}/`, { headers: { cookie: client.cookie! }, redirect: 'manual' });
  assert.equal(afterRestart.status, 200, 'a restart signs no one out');
});

test('a session ends after the idle time and at its absolute end', async () => {
  const { url } = await startApp();
  const client = inboxClient(url);
  await client.login('otto', 'lantern-quartz-operate-24');
  assert.equal((await client.get('/')).status, 200);
  const hash = sessionIdHash(sessionId(client.cookie));
  await db.pool.query('UPDATE inbox_sessions SET last_seen_at = CURRENT_TIMESTAMP(3) - INTERVAL 61 MINUTE WHERE id_hash = ?', [hash]);
  const idle = await client.get('/');
  assert.equal(idle.status, 303);
  assert.match(idle.headers.get('location') ?? '', /^\/login/);

  await client.login('otto', 'lantern-quartz-operate-24');
  await db.pool.query('UPDATE inbox_sessions SET expires_at = CURRENT_TIMESTAMP(3) - INTERVAL 1 SECOND WHERE id_hash = ?', [
    sessionIdHash(sessionId(client.cookie)),
  ]);
  assert.equal((await client.get('/')).status, 303);
});

test('disabling a user, a new role or password, and an operator sign-out end the open sessions in every process', async () => {
  const a = await startApp();
  const b = await startApp();
  await inboxUsersAdd(config, 'dora', 'reviewer', 'meadow-violin-review-24');
  const open = async () => {
    const c = inboxClient(a.url);
    assert.equal((await c.login('dora', 'meadow-violin-review-24')).status, 303);
    return c;
  };
  const out = async (cookie: string | undefined) => {
    const res = await fetch(`${b.url}/`, { headers: { cookie: cookie! }, redirect: 'manual' });
    return res.status === 303 && /^\/login/.test(res.headers.get('location') ?? '');
  };

  let c = await open();
  assert.match(await inboxUsersAdd(config, 'dora', 'operator', 'meadow-violin-operate-24'), /updated; 1 open session\(s\) ended/);
  assert.ok(await out(c.cookie), 'a new role or password ends the session');

  c = inboxClient(a.url);
  await c.login('dora', 'meadow-violin-operate-24');
  const second = inboxClient(b.url);
  await second.login('dora', 'meadow-violin-operate-24');
  assert.match(await inboxUsersSignOut(config, 'dora'), /2 open inbox session\(s\) of dora ended/);
  assert.ok(await out(c.cookie));
  assert.ok(await out(second.cookie));

  c = inboxClient(a.url);
  await c.login('dora', 'meadow-violin-operate-24');
  assert.match(await inboxUsersDisable(config, 'dora'), /disabled; 1 open session\(s\) ended/);
  assert.ok(await out(c.cookie));
  const audit = (await db.pool.query(
    `SELECT JSON_VALUE(details, '$.reason') AS reason FROM audit_log WHERE event_type = 'inbox_sessions_ended' AND correlation_id = 'inbox-user-dora' ORDER BY id`,
  )) as Array<{ reason: string }>;
  assert.deepEqual(
    audit.map((r) => r.reason),
    ['password or role set', 'signed out by an operator', 'user disabled'],
  );
});

test('a role changed in the table by hand ends the session on its next request (the role at login is kept)', async () => {
  const { url } = await startApp();
  await inboxUsersAdd(config, 'remo', 'reviewer', 'pebble-cinema-review-24');
  const c = inboxClient(url);
  await c.login('remo', 'pebble-cinema-review-24');
  assert.equal((await c.get('/')).status, 200);
  await db.pool.query(`UPDATE inbox_users SET role = 'operator' WHERE name = 'remo'`);
  assert.equal((await c.get('/')).status, 303);
  assert.equal((await rows('remo')).length, 0, 'the session row is gone');
  await c.login('remo', 'pebble-cinema-review-24');
  const page = await c.get('/');
  assert.match(await page.text(), /operator/);
});

test('sign out everywhere: the button ends every session of that person, not those of others', async () => {
  const a = await startApp();
  const b = await startApp();
  const first = inboxClient(a.url);
  const second = inboxClient(b.url);
  const other = inboxClient(a.url);
  await first.login('rita', 'kettle-orbit-review-24');
  await second.login('rita', 'kettle-orbit-review-24');
  await other.login('otto', 'lantern-quartz-operate-24');
  const page = await first.get('/');
  assert.match(await page.text(), /action="\/logout\/everywhere"/);
  const res = await first.post('/logout/everywhere', {});
  assert.equal(res.status, 303);
  assert.equal((await second.get('/')).status, 303, 'the other browser is signed out');
  assert.equal((await first.get('/')).status, 303);
  assert.equal((await other.get('/')).status, 200, "someone else's session stays");
  const audit = (await db.pool.query(
    `SELECT actor, JSON_VALUE(details, '$.sessions') AS n FROM audit_log WHERE event_type = 'inbox_sessions_ended' AND actor = 'rita'`,
  )) as Array<{ actor: string; n: string }>;
  assert.ok(audit.some((r) => Number(r.n) >= 2));
});

test('a forged or unsigned session cookie is a stranger', async () => {
  const { url } = await startApp();
  const c = inboxClient(url);
  await c.login('rita', 'kettle-orbit-review-24');
  const id = sessionId(c.cookie);
  for (const cookie of [`inbox_session=${id}`, `inbox_session=${id}.AAAA`, `inbox_session=${sessionIdHash(id)}`]) {
    const res = await fetch(`${url}/`, { headers: { cookie }, redirect: 'manual' });
    assert.equal(res.status, 303, cookie);
  }
});
