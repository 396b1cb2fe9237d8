/**
 * Password guessing against the review inbox over HTTP: growing delays and a lock per name, a lock
 * per address, parallel guesses serialised, every refusal audited (never the password) and counted
 * for email_rag_inbox_login_refusals_total; and the figure an attacker gets, measured by hammering
 * the login form at full speed.
 */
// suite: alone — the delays it checks are whole seconds of wall-clock time, and it measures a rate.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { createMariaDbOperatingFigures } from '../../src/operations/operating-figures.mariadb';
import { createMariaDbSignInRefusals } from '../../src/review-inbox/login-refusals.mariadb';
import { inboxUsersAdd, inboxUsersUnlock } from '../../src/review-inbox/inbox-users.cli';
import { loadConfig, type Config } from '../../src/config';
import { addressKey } from '../../src/review-inbox/login-throttle-policy';
import { inboxOnDatabase, listenLocally } from '../support/inbox-app';
import { createTestDatabase } from '../support/database';
import { inboxClient } from '../support/inbox-client';

let db: Awaited<ReturnType<typeof createTestDatabase>>;
let config: Config;
const apps: FastifyInstance[] = [];
const PASSWORD = 'harbor-signal-review-88';

/** A fresh app per test: the burst limit is per process, the durable counters are shared. */
async function startApp(over: Partial<Config['inbox']> = {}): Promise<string> {
  const app = await inboxOnDatabase({ ...config, inbox: { ...config.inbox, ...over } }, db.pool);
  apps.push(app);
  return listenLocally(app);
}

before(async () => {
  db = await createTestDatabase('throttle');
  config = loadConfig(
    { DATABASE_URL: db.url, INBOX_SESSION_SECRET: 'a shared secret of at least thirty-two characters', INBOX_TRUSTED_PROXIES: '' },
    { imap: false },
  );
  for (const name of ['tess', 'para', 'hans', 'rita']) await inboxUsersAdd(config, name, 'reviewer', PASSWORD);
});

after(async () => {
  for (const app of apps) await app.close().catch(() => undefined);
  await db?.drop();
});

/** The address starts afresh (tests share 127.0.0.1). */
async function forgetAddress(): Promise<void> {
  await db.pool.query(`DELETE FROM inbox_login_throttle WHERE scope = 'address'`);
}

async function refusals(actor: string): Promise<Array<{ reason: string; address: string; message: string; details: string }>> {
  return (await db.pool.query(
    `SELECT JSON_VALUE(details, '$.reason') AS reason, JSON_VALUE(details, '$.address') AS address, message, details
       FROM audit_log WHERE event_type = 'inbox_login_refused' AND actor = ? ORDER BY id`,
    [actor],
  )) as Array<{ reason: string; address: string; message: string; details: string }>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

test('a name gets growing delays (1, 2, 4, 8 s) and from the 5th failure a 15-minute lock, the right password included', async () => {
  const url = await startApp();
  const c = inboxClient(url);
  const seen: Array<[number, string | null]> = [];
  for (let i = 1; i <= 5; i += 1) {
    const wrong = await c.login('tess', `wrong-${i}`);
    assert.equal(wrong.status, 401, `failure ${i} is checked`);
    const soon = await c.login('tess', PASSWORD);
    seen.push([soon.status, soon.headers.get('retry-after')]);
    assert.equal(soon.status, 429, `right after failure ${i} even the right password waits`);
    assert.match(await soon.text(), /Too many failed sign-ins/);
    if (i < 5) await sleep(Number(soon.headers.get('retry-after')) * 1000 + 100);
  }
  assert.deepEqual(
    seen.map(([s, r]) => [s, Number(r)]),
    [
      [429, 1],
      [429, 2],
      [429, 4],
      [429, 8],
      [429, 900],
    ],
  );
  const rows = await refusals('tess');
  assert.deepEqual(
    rows.map((r) => r.reason),
    [
      'wrong_credentials',
      'too_soon',
      'wrong_credentials',
      'too_soon',
      'wrong_credentials',
      'too_soon',
      'wrong_credentials',
      'too_soon',
      'wrong_credentials',
      'account_locked',
    ],
  );
  for (const r of rows) {
    assert.equal(r.address, '127.0.0.1');
    assert.doesNotMatch(`${r.message} ${r.details}`, /wrong-\d|harbor-signal/, 'no password in the audit');
  }
  // A name typed in other case is the same name.
  assert.equal((await c.login('TESS', PASSWORD)).status, 429);
  assert.match(await inboxUsersUnlock(config, 'tess'), /cleared/);
  assert.equal((await c.login('tess', PASSWORD)).status, 303, 'an operator lifts the lock');
  await forgetAddress();
});

test('twenty guesses at one name in parallel: one is checked, the others wait', async () => {
  const url = await startApp();
  const clients = Array.from({ length: 20 }, () => inboxClient(url));
  for (const c of clients) await c.get('/login');
  const statuses = await Promise.all(
    clients.map((c, i) => c.post('/login', { name: 'para', password: `guess-${i}` }).then((r) => r.status)),
  );
  assert.equal(statuses.filter((s) => s === 401).length, 1, statuses.join(' '));
  assert.equal(statuses.filter((s) => s === 429).length, 19);
  await forgetAddress();
});

test('an address gets 20 failures in 10 minutes, then every name from it waits 10 minutes; X-Forwarded-For counts only from a trusted proxy', async () => {
  const url = await startApp();
  const c = inboxClient(url, { 'x-forwarded-for': '203.0.113.7' });
  for (let i = 0; i < 20; i += 1) assert.equal((await c.login(`nobody-${i}`, 'guess')).status, 401, `guess ${i}`);
  const locked = await c.login('hans', PASSWORD);
  assert.equal(locked.status, 429, 'the address is locked, for a known name with its right password too');
  assert.ok(Number(locked.headers.get('retry-after')) > 590);
  const rows = await refusals('hans');
  assert.equal(rows.at(-1)?.reason, 'address_locked');
  assert.equal(rows.at(-1)?.address, '127.0.0.1', 'the header of an untrusted peer is not believed');

  const behindProxy = await startApp({ trustedProxies: ['127.0.0.1'] });
  const viaProxy = inboxClient(behindProxy, { 'x-forwarded-for': '198.51.100.1, 203.0.113.7' });
  assert.equal((await viaProxy.login('hans', PASSWORD)).status, 303, 'behind a trusted proxy the client address counts');
  await forgetAddress();
});

test('every refusal is counted per reason for email_rag_inbox_login_refusals_total', async () => {
  const figures = createMariaDbOperatingFigures(db.pool, createMariaDbSignInRefusals(db.pool));
  const events = await figures.eventsBetween(new Date(Date.now() - 3600_000), await figures.now(0));
  const byReason = Object.fromEntries((events.loginRefusals ?? []).map((r) => [r.reason, r.count]));
  const audit = (await db.pool.query(
    `SELECT JSON_VALUE(details, '$.reason') AS reason, SUM(COALESCE(JSON_VALUE(details, '$.count'), 1)) AS n
       FROM audit_log WHERE event_type = 'inbox_login_refused' GROUP BY reason`,
  )) as Array<{ reason: string; n: number }>;
  assert.deepEqual(byReason, Object.fromEntries(audit.map((r) => [r.reason, Number(r.n)])));
  assert.ok(
    byReason.wrong_credentials! >= 25 && byReason.too_soon! >= 23 && byReason.account_locked! >= 1 && byReason.address_locked! >= 1,
  );
});

/**
 * The figure, measured over HAMMER_SECONDS (default 20) against a fresh inbox each time:
 * - "full speed": 4 connections post the login form as fast as they can;
 * - "paced": one client that waits exactly the Retry-After it is told (the best an attacker can do).
 * Reported: guesses that reached the password check (answered 401); the rest were refused (429).
 */
test('measured: guesses an attacker gets against one name and from one address', async (t) => {
  const seconds = Number(process.env.HAMMER_SECONDS ?? 20);
  const fullSpeed = async (url: string, name: (i: number) => string) => {
    const until = Date.now() + seconds * 1000;
    const counts = { checked: 0, refused: 0, other: 0 };
    let n = 0;
    await Promise.all(
      Array.from({ length: 4 }, async () => {
        const c = inboxClient(url);
        await c.get('/login');
        while (Date.now() < until) {
          const status = (await c.post('/login', { name: name(n++), password: `guess-${n}` })).status;
          if (status === 401) counts.checked += 1;
          else if (status === 429) counts.refused += 1;
          else counts.other += 1;
        }
      }),
    );
    return counts;
  };
  const paced = async (url: string, name: (i: number) => string) => {
    const until = Date.now() + seconds * 1000;
    const counts = { checked: 0, refused: 0, other: 0 };
    const c = inboxClient(url);
    await c.get('/login');
    for (let n = 0; Date.now() < until; n += 1) {
      const res = await c.post('/login', { name: name(n), password: `guess-${n}` });
      if (res.status === 401) counts.checked += 1;
      else if (res.status === 429) {
        counts.refused += 1;
        const wait = Number(res.headers.get('retry-after')) * 1000;
        if (Date.now() + wait >= until) break;
        await sleep(wait);
      } else counts.other += 1;
    }
    return counts;
  };
  const figures: Record<string, { checked: number; refused: number; other: number }> = {};
  for (const [label, run, name] of [
    ['full speed, one name', fullSpeed, () => 'target'],
    ['paced, one name', paced, () => 'target'],
    ['full speed, new names from one address', fullSpeed, (i: number) => `someone-${i}`],
    ['paced, new names from one address', paced, (i: number) => `another-${i}`],
  ] as const) {
    await db.pool.query('DELETE FROM inbox_login_throttle');
    figures[label] = await run(await startApp(), name);
  }
  const report = Object.entries(figures)
    .map(([label, f]) => `${label}: ${f.checked} guesses checked in ${seconds} s (${f.refused} refused)`)
    .join('; ');
  t.diagnostic(report);
  console.log(`login hammer: ${report}`);
  for (const f of Object.values(figures)) assert.equal(f.other, 0, report);
  // 1 + 2 + 4 + 8 s of delays: the 5th guess at one name comes after 15 s, then it is locked for 15 min.
  assert.ok(figures['full speed, one name']!.checked <= 5, report);
  assert.ok(figures['paced, one name']!.checked <= 5 && (seconds < 16 || figures['paced, one name']!.checked === 5), report);
  assert.ok(figures['full speed, new names from one address']!.checked <= 20, report);
  assert.ok(figures['paced, new names from one address']!.checked <= 20, report);
  const rows = (await db.pool.query(
    `SELECT COUNT(*) AS n FROM audit_log WHERE event_type = 'inbox_login_refused' AND JSON_VALUE(details, '$.reason') = 'burst'`,
  )) as Array<{ n: number }>;
  assert.ok(Number(rows[0]!.n) <= 2 * (seconds / 10 + 1), 'over the burst limit: one audit row per address and 10 s');
  assert.ok(addressKey('2001:db8:1:2:3:4:5:6') === addressKey('2001:db8:1:2::9'));
});
