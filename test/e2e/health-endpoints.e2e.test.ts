/**
 * The review inbox's and the codec server's health endpoints as probes and Prometheus use them:
 * the real inbox (`startInbox`) on a Temporal dev server and MariaDB, each reached through a TCP
 * relay the test cuts, as a crashed database or Temporal would; the real codec server; and the
 * containers' health check script run against both.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import { promisify } from 'node:util';
import type { Payload, PayloadCodec } from '@temporalio/common';
import { loadConfig } from '../../src/config';
import { startCodecServer } from '../../src/operations/codec-server.cli';
import { createCodecServer } from '../../src/operations/codec-server.http';
import { HEALTH_DEPENDENCIES, HEALTH_PATHS, HEALTH_STATES, LEGACY_LIVE_PATHS, type ReadinessReport } from '../../src/operations';
import { startInbox, type RunningInbox } from '../../src/review-inbox/server';
import { createTestDatabase } from '../support/database';
import { listenLocally } from '../support/inbox-app';
import { parsePrometheusText } from '../support/prometheus-text';
import { startTemporalDevServer, type TemporalDevServer } from '../support/services/temporal-dev-server';
import { startTcpProxy } from '../support/tcp-proxy';
import { waitFor } from '../support/wait';

const run = promisify(execFile);
const HEALTHCHECK = path.resolve(__dirname, '../../deploy/container/healthcheck.js');

let dir: string;
let temporal: TemporalDevServer;
let db: Awaited<ReturnType<typeof createTestDatabase>>;
let dbProxy: Awaited<ReturnType<typeof startTcpProxy>>;
let temporalProxy: Awaited<ReturnType<typeof startTcpProxy>>;
let inbox: RunningInbox;
let codec: Awaited<ReturnType<typeof startCodecServer>>;

before(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'email-rag-health-'));
  db = await createTestDatabase('health');
  temporal = await startTemporalDevServer({ dataDir: dir, headless: true });
  const dbUrl = new URL(db.url);
  dbProxy = await startTcpProxy({ host: dbUrl.hostname, port: Number(dbUrl.port || 3306) });
  const [host, port] = temporal.address.split(':');
  temporalProxy = await startTcpProxy({ host: host!, port: Number(port) });
  dbUrl.hostname = '127.0.0.1';
  dbUrl.port = String(dbProxy.port);
  const env = {
    TEMPORAL_ADDRESS: `127.0.0.1:${temporalProxy.port}`,
    DATABASE_URL: dbUrl.toString(),
    EMBEDDER: 'off',
    INBOX_PORT: '0',
    INBOX_HOST: '127.0.0.1',
    PAYLOAD_KEYS: `k1:${randomBytes(32).toString('base64')}`,
    CODEC_TOKEN: randomBytes(20).toString('hex'),
    CODEC_PORT: '0',
  };
  inbox = await startInbox(loadConfig(env, { imap: false }));
  codec = await startCodecServer(loadConfig(env, { imap: false }));
});

after(async () => {
  await inbox?.close().catch(() => undefined);
  await codec?.close().catch(() => undefined);
  await dbProxy?.stop();
  await temporalProxy?.stop();
  await temporal?.stop();
  await db?.drop();
  rmSync(dir, { recursive: true, force: true });
});

async function readyz(base: string): Promise<{ status: number; body: ReadinessReport }> {
  const res = await fetch(`${base}${HEALTH_PATHS.ready}`);
  assert.match(res.headers.get('content-type') ?? '', /application\/json/);
  return { status: res.status, body: (await res.json()) as ReadinessReport };
}

const stateOf = (body: ReadinessReport, dependency: string) => body.checks.find((c) => c.dependency === dependency);

/** The containers' health check, as Docker runs it: its exit code and what it printed. */
async function healthcheck(url: string): Promise<{ code: number; stderr: string }> {
  return run(process.execPath, [HEALTHCHECK, url]).then(
    (r) => ({ code: 0, stderr: r.stderr }),
    (err: { code: number; stderr: string }) => ({ code: err.code, stderr: err.stderr }),
  );
}

test('inbox: /livez and /healthz answer without a sign-in; /readyz is 200 with the database and Temporal up', async () => {
  for (const p of [HEALTH_PATHS.live, LEGACY_LIVE_PATHS.inbox]) {
    const res = await fetch(`${inbox.url}${p}`, { redirect: 'manual' });
    assert.equal(res.status, 200, p);
    assert.deepEqual(await res.json(), { ok: true });
  }
  const { status, body } = await readyz(inbox.url);
  assert.equal(status, 200, JSON.stringify(body));
  assert.equal(body.ready, true);
  assert.deepEqual(body.checks.map((c) => [c.dependency, c.state]).sort(), [
    [HEALTH_DEPENDENCIES.database, HEALTH_STATES.ok],
    [HEALTH_DEPENDENCIES.temporal, HEALTH_STATES.ok],
  ]);
  assert.equal((await healthcheck(`${inbox.url}${HEALTH_PATHS.ready}`)).code, 0);
});

test('inbox: /metrics serves the process figures as Prometheus text, without a sign-in', async () => {
  const res = await fetch(`${inbox.url}${HEALTH_PATHS.metrics}`, { redirect: 'manual' });
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /text\/plain/);
  const samples = parsePrometheusText(await res.text());
  for (const name of [
    'process_cpu_user_seconds_total',
    'process_resident_memory_bytes',
    'nodejs_eventloop_lag_seconds',
    'process_start_time_seconds',
  ])
    assert.ok(
      samples.some((s) => s.name === name),
      `${name} in the scrape`,
    );
});

test('inbox: the database gone makes /readyz 503 naming it, while /livez stays 200; back when it returns', async () => {
  dbProxy.cut();
  try {
    const { status, body } = await readyz(inbox.url);
    assert.equal(status, 503);
    assert.equal(body.ready, false);
    const database = stateOf(body, HEALTH_DEPENDENCIES.database);
    assert.equal(database?.state, HEALTH_STATES.failing);
    assert.match(database?.reason ?? '', /^MariaDB at 127\.0\.0\.1:\d+\/email_rag_health_\w+: /);
    assert.equal(stateOf(body, HEALTH_DEPENDENCIES.temporal)?.state, HEALTH_STATES.ok, 'Temporal is not blamed');
    assert.equal((await fetch(`${inbox.url}${HEALTH_PATHS.live}`)).status, 200, 'liveness does no I/O');
    const check = await healthcheck(`${inbox.url}${HEALTH_PATHS.ready}`);
    assert.equal(check.code, 1);
    assert.match(check.stderr, /HTTP 503/);
    assert.match(check.stderr, /database: failing \(MariaDB at /, 'the reason, for docker inspect');
  } finally {
    dbProxy.restore();
  }
  await waitFor('the inbox ready again', async () => (await readyz(inbox.url)).status === 200, 30_000, 500);
});

test('inbox: Temporal gone makes /readyz 503 naming it; back when it returns', async () => {
  temporalProxy.cut();
  try {
    const { status, body } = await readyz(inbox.url);
    assert.equal(status, 503);
    const t = stateOf(body, HEALTH_DEPENDENCIES.temporal);
    assert.equal(t?.state, HEALTH_STATES.failing);
    assert.match(t?.reason ?? '', new RegExp(`^namespace "default" at 127\\.0\\.0\\.1:${temporalProxy.port}: `));
    assert.equal(stateOf(body, HEALTH_DEPENDENCIES.database)?.state, HEALTH_STATES.ok, 'the database is not blamed');
    assert.equal((await fetch(`${inbox.url}${HEALTH_PATHS.live}`)).status, 200);
  } finally {
    temporalProxy.restore();
  }
  await waitFor('the inbox ready again', async () => (await readyz(inbox.url)).status === 200, 60_000, 500);
});

test('codec server: /livez, /health and /metrics without the token; /readyz 200 once its keys seal and open a test payload', async () => {
  for (const p of [HEALTH_PATHS.live, LEGACY_LIVE_PATHS.codecServer]) assert.equal((await fetch(`${codec.url}${p}`)).status, 200, p);
  const { status, body } = await readyz(codec.url);
  assert.equal(status, 200, JSON.stringify(body));
  assert.deepEqual(body.checks, [{ dependency: HEALTH_DEPENDENCIES.codec, state: HEALTH_STATES.ok }]);
  const metrics = await fetch(`${codec.url}${HEALTH_PATHS.metrics}`);
  assert.equal(metrics.status, 200);
  assert.ok(parsePrometheusText(await metrics.text()).some((s) => s.name === 'process_resident_memory_bytes'));
  assert.equal((await healthcheck(`${codec.url}${HEALTH_PATHS.ready}`)).code, 0);
  // Encoding still needs the token: the health paths open nothing else.
  assert.equal((await fetch(`${codec.url}/encode`, { method: 'POST', body: '{"payloads":[]}' })).status, 401);
});

test('codec server: a codec that does not seal the test payload is not ready, and says so', async () => {
  // A double of a misconfigured codec: it returns payloads unchanged, as if no key were active.
  const passThroughDouble: PayloadCodec = { encode: async (p: Payload[]) => p, decode: async (p: Payload[]) => p };
  const app = createCodecServer({ codec: passThroughDouble, token: randomBytes(20).toString('hex'), corsOrigins: [] });
  const base = await listenLocally(app);
  try {
    const { status, body } = await readyz(base);
    assert.equal(status, 503);
    assert.equal(body.checks[0]?.state, HEALTH_STATES.failing);
    assert.match(body.checks[0]?.reason ?? '', /unencrypted/);
    const check = await healthcheck(`${base}${HEALTH_PATHS.ready}`);
    assert.equal(check.code, 1);
    assert.match(check.stderr, /codec: failing \(the test payload came back unencrypted/);
  } finally {
    await app.close();
  }
});

test('the health check script: a closed port fails with the reason, a missing URL is a usage error', async () => {
  const closed = await startTcpProxy({ host: '127.0.0.1', port: 1 });
  await closed.stop();
  const check = await healthcheck(`http://127.0.0.1:${closed.port}${HEALTH_PATHS.live}`);
  assert.equal(check.code, 1);
  assert.match(check.stderr, /ECONNREFUSED/);
  const usage = await run(process.execPath, [HEALTHCHECK]).catch((err: { code: number; stderr: string }) => err);
  assert.equal((usage as { code: number }).code, 2);
  assert.match((usage as { stderr: string }).stderr, /usage: node healthcheck\.js/);
});
