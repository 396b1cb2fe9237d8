/**
 * The HTTP servers' logs, on the real review inbox (MariaDB sessions and users) and the real codec
 * server, over HTTP: one access line per request with its fields, the request id taken from
 * X-Request-Id when it is safe and made otherwise, sent back, on every line of the request and in
 * error pages; cookies, Authorization, CSRF tokens, passwords, codec tokens and payloads never in
 * a line; LOG_LEVEL drops what is below it.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { loadConfig, type Config } from '../../src/config';
import type { LogDestination } from '../../src/platform/logger';
import { REQUEST_ID_HEADER } from '../../src/platform/request-log.http';
import { startCodecServer } from '../../src/operations/codec-server.cli';
import { createEncryptionCodec } from '../../src/platform/encryption-codec';
import { inboxUsersAdd } from '../../src/review-inbox/inbox-users.cli';
import { createMariaDbReviewStore } from '../../src/review-inbox/review-store.mariadb';
import { createTestDatabase } from '../support/database';
import { inboxOnDatabase, listenLocally } from '../support/inbox-app';
import { inboxClient } from '../support/inbox-client';

type Line = Record<string, unknown>;

const PASSWORD = 'kettle-orbit-review-24';
const CODEC_TOKEN = randomBytes(24).toString('hex');
const PAYLOAD_KEY = randomBytes(32).toString('base64');
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

let db: Awaited<ReturnType<typeof createTestDatabase>>;
const apps: FastifyInstance[] = [];
/** Set by a test: the queue's store fails (a 500 with its log lines). */
let failQueue = false;

function collector(): { lines: Line[]; raw: string[]; destination: LogDestination } {
  const lines: Line[] = [];
  const raw: string[] = [];
  return {
    lines,
    raw,
    destination: {
      write: (line: string) => {
        raw.push(line);
        lines.push(JSON.parse(line) as Line);
      },
    },
  };
}

function configWith(env: Record<string, string>): Config {
  return loadConfig(
    {
      DATABASE_URL: db.url,
      INBOX_SESSION_SECRET: 'a shared secret of at least thirty-two characters',
      INBOX_TRUSTED_PROXIES: '',
      PAYLOAD_KEYS: `k1:${PAYLOAD_KEY}`,
      CODEC_TOKEN,
      CODEC_PORT: '0',
      ...env,
    },
    { imap: false },
  );
}

async function startInboxApp(logLevel: string): Promise<{ url: string; lines: Line[]; raw: string[] }> {
  const log = collector();
  const config = configWith({ LOG_LEVEL: logLevel });
  const store = createMariaDbReviewStore(db.pool);
  const app = await inboxOnDatabase(config, db.pool, {
    logDestination: log.destination,
    store: { ...store, mailboxes: () => (failQueue ? Promise.reject(new Error('the review store is down')) : store.mailboxes()) },
  });
  apps.push(app);
  return { url: await listenLocally(app), lines: log.lines, raw: log.raw };
}

const accessLines = (lines: Line[]) => lines.filter((l) => l.message === 'request');

before(async () => {
  db = await createTestDatabase('request_logs');
  await inboxUsersAdd(configWith({}), 'rita', 'reviewer', PASSWORD);
});

after(async () => {
  for (const app of apps) await app.close().catch(() => undefined);
  await db?.drop();
});

test('the inbox writes one access line per request: method, URL, route, status, duration, request id, and the person once signed in', async () => {
  const inbox = await startInboxApp('info');
  const client = inboxClient(inbox.url);
  await client.get('/login');
  assert.equal((await client.login('rita', PASSWORD)).status, 303);
  const queue = await client.get('/');
  assert.equal(queue.status, 200);

  const access = accessLines(inbox.lines);
  assert.deepEqual(
    access.map((l) => `${String(l.method)} ${String(l.route)} ${String(l.status)}`),
    ['GET /login 200', 'GET /login 200', 'POST /login 303', 'GET / 200'],
    'one line per request (inbox.css and /healthz are debug lines)',
  );
  const last = access.at(-1)!;
  assert.deepEqual(Object.keys(last).sort(), [
    'component',
    'durationMs',
    'level',
    'message',
    'method',
    'requestId',
    'route',
    'status',
    'time',
    'url',
    'user',
  ]);
  assert.equal(last.level, 'info');
  assert.equal(last.component, 'review-inbox');
  assert.equal(last.url, '/');
  assert.equal(last.user, 'rita', 'the signed-in person');
  assert.equal(typeof last.durationMs, 'number');
  assert.ok((last.durationMs as number) >= 0);
  assert.equal(new Date(last.time as string).toISOString(), last.time);
  assert.equal(last.requestId, queue.headers.get(REQUEST_ID_HEADER), 'the id in the log is the one sent back');
  assert.match(String(last.requestId), UUID, 'made when the request brought none');
  assert.equal(access[0]!.user, undefined, 'nobody signed in yet');

  // Nothing of the session, the form or the password reaches the log.
  const text = inbox.raw.join('');
  const sessionCookie = decodeURIComponent(client.cookie!.split('=')[1]!);
  assert.ok(!text.includes(sessionCookie.split('.')[0]!), 'no session id');
  assert.ok(!text.includes(PASSWORD), 'no password');
  assert.ok(!/csrf/i.test(text), 'no CSRF token');
});

test('a safe X-Request-Id is kept, sent back and on every line of the request and in its error page; an unsafe one is replaced', async () => {
  const inbox = await startInboxApp('info');
  const client = inboxClient(inbox.url, { [REQUEST_ID_HEADER]: 'ticket-4711.a:b_c' });
  await client.get('/login');
  await client.login('rita', PASSWORD);
  failQueue = true;
  let failed: Response;
  try {
    failed = await client.get('/');
  } finally {
    failQueue = false;
  }
  assert.equal(failed.status, 500);
  assert.equal(failed.headers.get(REQUEST_ID_HEADER), 'ticket-4711.a:b_c');
  assert.equal(await failed.text(), '500: internal error (request ticket-4711.a:b_c)', 'the person can quote it; no detail');
  const ofFailure = inbox.lines.filter((l) => l.requestId === 'ticket-4711.a:b_c' && l.route === undefined);
  assert.deepEqual(
    ofFailure.map((l) => [l.level, l.message]),
    [['error', 'request failed']],
  );
  assert.match(JSON.stringify(ofFailure[0]!.err), /the review store is down/, 'the operator sees the cause');
  const failedAccess = accessLines(inbox.lines).at(-1)!;
  assert.deepEqual([failedAccess.level, failedAccess.status, failedAccess.requestId], ['error', 500, 'ticket-4711.a:b_c']);

  const notFound = await client.get('/no-such-page');
  assert.equal(notFound.status, 404);
  assert.equal(await notFound.text(), '404: not found (request ticket-4711.a:b_c)');

  for (const unsafe of ['two words', 'x'.repeat(65), '<script>', 'a/b', 'id;drop']) {
    const res = await fetch(`${inbox.url}/login`, { headers: { [REQUEST_ID_HEADER]: unsafe } });
    const id = res.headers.get(REQUEST_ID_HEADER);
    assert.match(String(id), UUID, `${unsafe} is replaced`);
    assert.equal(accessLines(inbox.lines).at(-1)!.requestId, id);
  }
  assert.ok(!inbox.raw.join('').includes('<script>'));
});

test('secrets in a URL are replaced in the log: sign-in callback codes, tokens; a CSRF failure names its request', async () => {
  const inbox = await startInboxApp('info');
  await fetch(`${inbox.url}/login?next=%2Fcases&code=AUTH-CODE-1&state=STATE-2&access_token=TOK-3&lang=de`);
  const line = accessLines(inbox.lines).at(-1)!;
  assert.equal(line.url, '/login?next=%2Fcases&code=[redacted]&state=[redacted]&access_token=[redacted]&lang=de');
  assert.equal(line.route, '/login');

  const client = inboxClient(inbox.url);
  await client.get('/login');
  const forged = await fetch(`${inbox.url}/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: client.cookie!, authorization: 'Bearer AUTH-HEADER-4' },
    body: new URLSearchParams({ name: 'rita', password: PASSWORD, _csrf: 'FORGED-CSRF-5' }).toString(),
  });
  assert.equal(forged.status, 403);
  assert.equal(await forged.text(), `403: invalid or missing CSRF token (request ${forged.headers.get(REQUEST_ID_HEADER)})`);
  const text = inbox.raw.join('');
  for (const secret of ['AUTH-CODE-1', 'STATE-2', 'TOK-3', 'AUTH-HEADER-4', 'FORGED-CSRF-5', PASSWORD])
    assert.ok(!text.includes(secret), secret);
});

test('LOG_LEVEL: warn drops the access lines but keeps errors; debug adds the quiet routes; silent writes nothing', async () => {
  const warn = await startInboxApp('WARN');
  const client = inboxClient(warn.url);
  await client.get('/login');
  await client.login('rita', PASSWORD);
  failQueue = true;
  try {
    assert.equal((await client.get('/')).status, 500);
  } finally {
    failQueue = false;
  }
  assert.deepEqual(
    warn.lines.map((l) => [l.level, l.message]),
    [
      ['error', 'request failed'],
      ['error', 'request'],
    ],
  );

  const debug = await startInboxApp('debug');
  await fetch(`${debug.url}/inbox.css`);
  await fetch(`${debug.url}/healthz`);
  await fetch(`${debug.url}/login`);
  assert.deepEqual(
    accessLines(debug.lines).map((l) => [l.level, l.route]),
    [
      ['debug', '/inbox.css'],
      ['debug', '/healthz'],
      ['info', '/login'],
    ],
  );

  const silent = await startInboxApp('silent');
  await fetch(`${silent.url}/login`);
  await fetch(`${silent.url}/nowhere`);
  assert.deepEqual(silent.lines, []);
});

test('the codec server: access lines without the token of the path, refusals with their request id, never a payload', async () => {
  const log = collector();
  const codec = await startCodecServer(configWith({ LOG_LEVEL: 'info' }), { logDestination: log.destination });
  try {
    const [sealed] = await createEncryptionCodec(configWith({}).security.payloadKeys!).encode([
      { metadata: { encoding: Buffer.from('json/plain') }, data: Buffer.from('"Zitronenfalter-Geheimnis"') },
    ]);
    const base64 = (b: Uint8Array | null | undefined) => Buffer.from(b ?? new Uint8Array()).toString('base64');
    const metadata = Object.fromEntries(Object.entries(sealed!.metadata ?? {}).map(([k, v]) => [k, base64(v)]));
    const body = JSON.stringify({ payloads: [{ metadata, data: base64(sealed!.data) }] });
    const post = (path: string, headers: Record<string, string> = {}) =>
      fetch(`${codec.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });

    const decoded = await post('/decode', { authorization: `Bearer ${CODEC_TOKEN}`, [REQUEST_ID_HEADER]: 'ui-call-1' });
    assert.equal(decoded.status, 200);
    const plain = ((await decoded.json()) as { payloads: Array<{ data: string }> }).payloads[0]!.data;
    assert.equal(Buffer.from(plain, 'base64').toString(), '"Zitronenfalter-Geheimnis"');
    assert.equal(decoded.headers.get(REQUEST_ID_HEADER), 'ui-call-1');
    const viaPath = await post(`/ui/${CODEC_TOKEN}/decode`);
    assert.equal(viaPath.status, 200);
    const refused = await post('/decode', { authorization: 'Bearer wrong-token-value' });
    assert.equal(refused.status, 401);
    const refusal = (await refused.json()) as { error: string; requestId: string };
    assert.equal(refusal.requestId, refused.headers.get(REQUEST_ID_HEADER), 'the JSON error names the request');
    const lost = await post(`/ui/${CODEC_TOKEN}/v1/decode`);
    assert.equal(lost.status, 404);

    const access = accessLines(log.lines);
    assert.deepEqual(
      access.map((l) => [l.component, l.method, l.url, l.status]),
      [
        ['codec-server', 'POST', '/decode', 200],
        ['codec-server', 'POST', '/ui/[redacted]/decode', 200],
        ['codec-server', 'POST', '/decode', 401],
        ['codec-server', 'POST', '/ui/[redacted]/v1/decode', 404],
      ],
    );
    assert.equal(access[0]!.requestId, 'ui-call-1');
    assert.equal(access[1]!.route, '/ui/:token/decode');
    const warning = log.lines.find((l) => l.message === 'request refused')!;
    assert.deepEqual([warning.level, warning.requestId, warning.status], ['warn', refusal.requestId, 401]);
    const text = log.raw.join('');
    for (const secret of [CODEC_TOKEN, 'wrong-token-value', 'Zitronenfalter', plain, base64(sealed!.data).slice(0, 24)])
      assert.ok(!text.includes(secret), secret);
  } finally {
    await codec.close();
  }

  const quiet = collector();
  const warnOnly = await startCodecServer(configWith({ LOG_LEVEL: 'warn' }), { logDestination: quiet.destination });
  try {
    await fetch(`${warnOnly.url}/health`);
    await fetch(`${warnOnly.url}/decode`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"payloads":[]}' });
  } finally {
    await warnOnly.close();
  }
  assert.deepEqual(
    quiet.lines.map((l) => [l.level, l.message]),
    [['warn', 'request refused']],
  );
});
