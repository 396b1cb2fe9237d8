/**
 * Personal data out of plain-text history, and Temporal reached over mTLS, on real servers: the
 * Temporal dev server (which has no TLS flags) behind a TLS terminator that demands a client
 * certificate from a CA made here with openssl; MariaDB, Dovecot and an SMTP listener as always.
 * The worker, the CLI commands and the codec server all run with encryption keys set.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import { promisify } from 'node:util';
import { Client, Connection } from '@temporalio/client';
import type { Payload } from '@temporalio/common';
import { decodeFromPayloadsAtIndex } from '@temporalio/common/lib/internal-non-workflow';
import { temporal } from '@temporalio/proto';
import { NativeConnection } from '@temporalio/worker';
import { connectTemporalClient, temporalConnectionOptions } from '../../src/platform/temporal-connection';
import { startCodecServer } from '../../src/operations/codec-server.cli';
import { reject } from '../../src/email/decisions/approval.cli';
import { dlqRequeue } from '../../src/operations/dead-letters.cli';
import { ingest } from '../../src/archive-import/ingest.cli';
import { loadConfig, type Config } from '../../src/config';
import type { EmailWorkflowInput } from '../../src/email/email-input';
import { temporalCliPath } from '../support/services/tool-paths';
import { createEmailWorker, type RunningWorker } from '../../workers/email-worker';
import { draftQuery } from '../../src/email/email.workflow';
import { currentDraftId } from '../support/decisions';
import { sampleEmail, startStack, type TestStack } from '../support/stack';
import { makeTestPki, type TestPki } from '../support/tls-certs';
import { startTlsProxy } from '../support/tls-proxy';
import { startApiKeyProxy } from '../support/api-key-proxy';
import { waitFor } from '../support/wait';
import { workflowBundle } from '../support/workflow-bundle';

const run = promisify(execFile);
const root = path.resolve(__dirname, '../..');
const SUBJECT = 'Kündigung Vertrag 8841-Q zum Monatsende';
const BODY_WORD = 'Zitronenfalter-Geheimnis';
const SENDER = 'ilse.brandt@kundin.example';
const TOKEN = randomBytes(24).toString('hex');
const UI_ORIGIN = 'http://127.0.0.1:8233';

let stack: TestStack;
let pki: TestPki;
let proxy: Awaited<ReturnType<typeof startTlsProxy>>;
let env: Record<string, string>;
let config: Config;
let worker: RunningWorker;
let workerDone: Promise<void>;
/** Straight to the dev server, without TLS and without the codec: what anyone with server access sees. */
let rawConnection: Connection;
let raw: Client;
let codec: Awaited<ReturnType<typeof connectTemporalClient>>;
let codecServer: Awaited<ReturnType<typeof startCodecServer>>;
let emailId: string;

const utf8 = (b: Uint8Array | null | undefined) => Buffer.from(b ?? new Uint8Array()).toString('utf8');

/**
 * Every payload in a history except search attributes (indexed by the server, never encoded) and
 * the SDK's own marker bookkeeping (patch ids, local activity sequence numbers and timestamps),
 * which the SDK core writes as plain JSON; the byte scan above covers those too.
 */
function payloadsOf(node: unknown, out: Payload[] = []): Payload[] {
  if (!node || typeof node !== 'object') return out;
  if (Array.isArray(node)) {
    for (const n of node) payloadsOf(n, out);
    return out;
  }
  const obj = node as Record<string, unknown>;
  if (obj.metadata && typeof obj.metadata === 'object' && 'data' in obj) {
    out.push(obj as Payload);
    return out;
  }
  for (const [k, v] of Object.entries(obj)) {
    const markerBookkeeping = (k === 'patch-data' || k === 'data') && typeof v === 'object' && v !== null && 'payloads' in v;
    if (k !== 'searchAttributes' && !markerBookkeeping) payloadsOf(v, out);
  }
  return out;
}

async function emailStatus(id: string): Promise<string | undefined> {
  const rows = (await stack.db.pool.query('SELECT status FROM emails WHERE id = ?', [id])) as Array<{ status: string }>;
  return rows[0]?.status;
}

before(async () => {
  stack = await startStack();
  const pkiDir = path.join(stack.dir, 'pki');
  mkdirSync(pkiDir);
  pki = makeTestPki(pkiDir, 'temporal.test');
  proxy = await startTlsProxy({ target: stack.temporal!.address, cert: pki.serverCert, key: pki.serverKey, ca: pki.caCert });
  env = {
    ...stack.env,
    TEMPORAL_ADDRESS: proxy.address,
    TEMPORAL_TLS_CERT: pki.clientCert,
    TEMPORAL_TLS_KEY: pki.clientKey,
    TEMPORAL_TLS_CA: pki.caCert,
    // The server certificate names temporal.test only; we dial an IP address.
    TEMPORAL_TLS_SERVER_NAME: 'temporal.test',
    PAYLOAD_KEYS: `old:${randomBytes(32).toString('base64')},new:${randomBytes(32).toString('base64')}`,
    PAYLOAD_KEY_ID: 'new',
    CODEC_TOKEN: TOKEN,
    CODEC_PORT: '0',
  };
  config = loadConfig(env);
  worker = await createEmailWorker(config, { workflowBundle: await workflowBundle() });
  workerDone = worker.run();
  rawConnection = await Connection.connect({ address: stack.temporal!.address });
  raw = new Client({ connection: rawConnection });
  codec = await connectTemporalClient(config);
  codecServer = await startCodecServer(config);
});

after(async () => {
  await codecServer?.close();
  await worker?.shutdown();
  await workerDone?.catch(() => undefined);
  await codec?.connection.close();
  await rawConnection?.close();
  await proxy?.stop();
  await stack?.stop();
});

test('TLS: worker and clients reach Temporal only with the right CA, client certificate and server name', async () => {
  assert.ok(proxy.handshakes() >= 2, `the worker's client and native connections went through TLS (${proxy.handshakes()} handshakes)`);
  const good = temporalConnectionOptions(config);
  const native = await NativeConnection.connect(good);
  await native.close();

  const fails = async (what: string, options: Parameters<typeof Connection.connect>[0]) => {
    const refusedBefore = proxy.refused();
    await assert.rejects(
      (async () => {
        const c = await Connection.connect({ ...options, connectTimeout: 3_000 });
        try {
          await c.withDeadline(Date.now() + 3_000, () => c.workflowService.getSystemInfo({}));
        } finally {
          await c.close();
        }
      })(),
      `${what} must not connect`,
    );
    return proxy.refused() - refusedBefore;
  };
  const ca = readFileSync(pki.caCert);
  const pair = { crt: readFileSync(pki.clientCert), key: readFileSync(pki.clientKey) };
  await fails('plain text', { address: proxy.address });
  await fails('no client certificate', {
    address: proxy.address,
    tls: { serverNameOverride: 'temporal.test', serverRootCACertificate: ca },
  });
  await fails('a client certificate from another CA', {
    address: proxy.address,
    tls: {
      serverNameOverride: 'temporal.test',
      serverRootCACertificate: ca,
      clientCertPair: { crt: readFileSync(pki.strangerCert), key: readFileSync(pki.strangerKey) },
    },
  });
  await fails('a server name the certificate does not carry', {
    address: proxy.address,
    tls: { serverRootCACertificate: ca, clientCertPair: pair },
  });
  await fails('a server the client does not trust', {
    address: proxy.address,
    tls: { serverNameOverride: 'temporal.test', clientCertPair: pair },
  });
  await assert.rejects(
    NativeConnection.connect({ address: proxy.address, tls: { serverNameOverride: 'temporal.test', serverRootCACertificate: ca } }),
    'the native connection also needs the client certificate',
  );

  // The operator CLI takes the same settings: set the namespace's retention over mTLS.
  const setup = await run(process.execPath, [path.join(root, 'bin/email-rag.js'), 'temporal', 'setup', '--retention-days', '3'], {
    env: { ...process.env, ...env },
  });
  assert.match(setup.stdout, /retention on default: 3 days/);
  const ns = await rawConnection.workflowService.describeNamespace({ namespace: 'default' });
  assert.equal(Number(ns.config?.workflowExecutionRetentionTtl?.seconds), 3 * 86_400);
  const refused = await run(process.execPath, [path.join(root, 'bin/email-rag.js'), 'temporal', 'setup'], {
    env: { ...process.env, ...env, TEMPORAL_TLS_CERT: pki.strangerCert, TEMPORAL_TLS_KEY: pki.strangerKey },
  }).catch((err: { code: number; stderr: string }) => err);
  assert.equal((refused as { code?: number }).code, 3, 'an unknown client certificate: Temporal unreachable, exit 3');
  assert.match((refused as { stderr: string }).stderr, /cannot reach Temporal.*TEMPORAL_TLS_/s);
});

test('codec: the raw history holds no subject, body or sender; through the codec they are there; an old key still decodes', async () => {
  const file = path.join(stack.dir, 'secret.eml');
  writeFileSync(
    file,
    sampleEmail({
      from: `Ilse Brandt <${SENDER}>`,
      subject: SUBJECT,
      body: `Guten Tag,\n\nhiermit kündige ich. Kennwort für Rückfragen: ${BODY_WORD}.\n\nIlse Brandt`,
    }),
  );
  // Ingested while "old" was still the active key; the worker already writes with "new".
  const report = await ingest(loadConfig({ ...env, PAYLOAD_KEY_ID: 'old' }), file, { history: false });
  assert.equal(report.failed, 0, report.lines.join('\n'));
  emailId = report.lines[0]!.split('\t')[0]!;
  await waitFor('awaiting_approval', async () => (await emailStatus(emailId)) === 'awaiting_approval', 120_000);

  // The data is really in the workflow: the draft carries the subject and the recipient. The row
  // says awaiting_approval a moment before the workflow takes the draft in: wait for that first.
  await currentDraftId(codec.client, emailId);
  const draft = await codec.client.workflow.getHandle(emailId).query(draftQuery);
  assert.ok(draft?.subject.includes(SUBJECT), 'decoded through the codec, the draft names the subject');
  assert.equal(draft?.to.address, SENDER);

  const history = await raw.workflow.getHandle(emailId).fetchHistory();
  const bytes = Buffer.from(temporal.api.history.v1.History.encode(history).finish());
  for (const needle of [SUBJECT, '8841-Q', BODY_WORD, SENDER, 'Ilse Brandt']) {
    assert.ok(!bytes.includes(Buffer.from(needle)), `"${needle}" is readable in the raw history`);
  }
  const payloads = payloadsOf(history.events);
  assert.ok(payloads.length >= 6, `inputs and results are in the history (${payloads.length} payloads)`);
  const encodings = new Set(payloads.map((p) => utf8(p.metadata?.encoding)));
  assert.deepEqual([...encodings], ['binary/encrypted'], 'every payload outside the search attributes is encrypted');
  const input = history.events?.[0]?.workflowExecutionStartedEventAttributes?.input?.payloads?.[0];
  assert.equal(utf8(input?.metadata?.['encryption-key-id']), 'old', 'the start input was sealed with the key active at ingest');
  const keyIds = new Set(payloads.map((p) => utf8(p.metadata?.['encryption-key-id'])));
  assert.deepEqual([...keyIds].sort(), ['new', 'old'], 'later payloads use the new active key');
  // The worker read the old-key input (rotation): the pipeline reached the draft above.
  const decodedInput = await decodeFromPayloadsAtIndex<EmailWorkflowInput>(codec.client.options.loadedDataConverter, 0, [input!]);
  assert.equal(decodedInput.emailId, emailId);
});

test('codec server: decodes for a bearer of the token only, answers the Web UI preflight, and the temporal CLI uses it', async () => {
  const history = await raw.workflow.getHandle(emailId).fetchHistory();
  const sealed = payloadsOf(history.events).map((p) => ({
    metadata: Object.fromEntries(Object.entries(p.metadata ?? {}).map(([k, v]) => [k, Buffer.from(v).toString('base64')])),
    data: Buffer.from(p.data ?? new Uint8Array()).toString('base64'),
  }));
  const post = (route: string, headers: Record<string, string>, body: unknown = { payloads: sealed }) =>
    fetch(`${codecServer.url}${route}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-namespace': 'default', ...headers },
      body: JSON.stringify(body),
    });

  const ok = await post('/decode', { authorization: `Bearer ${TOKEN}`, origin: UI_ORIGIN });
  assert.equal(ok.status, 200);
  assert.equal(ok.headers.get('access-control-allow-origin'), UI_ORIGIN);
  const decoded = ((await ok.json()) as { payloads: Array<{ metadata: Record<string, string>; data: string }> }).payloads;
  assert.equal(decoded.length, sealed.length);
  const plain = decoded.map((p) => Buffer.from(p.data, 'base64').toString('utf8')).join('\n');
  assert.ok(plain.includes(SUBJECT), 'the decoded payloads carry the subject');
  assert.ok(plain.includes(SENDER));
  assert.equal(Buffer.from(decoded[0]!.metadata.encoding!, 'base64').toString(), 'json/plain');

  for (const [what, headers] of [
    ['no token', {}],
    ['a wrong token', { authorization: `Bearer ${TOKEN.slice(0, -1)}x` }],
    ['the token without the scheme', { authorization: TOKEN }],
    ['the token with extra characters', { authorization: `Bearer ${TOKEN}0` }],
  ] as Array<[string, Record<string, string>]>) {
    const res = await post('/decode', headers);
    assert.equal(res.status, 401, what);
    assert.equal(res.headers.get('www-authenticate'), 'Bearer');
    assert.ok(!(await res.text()).includes(SUBJECT));
  }
  assert.equal((await post('/encode', {}, { payloads: [{ metadata: {}, data: '' }] })).status, 401, 'encode needs the token too');
  assert.equal((await post('/decode', { authorization: `Bearer ${TOKEN}` }, { payloads: [{ data: '%%%' }] })).status, 400);
  assert.equal((await post('/decode', { authorization: `Bearer ${TOKEN}` }, { nothing: true })).status, 400);

  // What a browser sends before the real call: no credentials, so no token; only allowed origins.
  const preflight = (origin: string) =>
    fetch(`${codecServer.url}/decode`, {
      method: 'OPTIONS',
      headers: {
        origin,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization,content-type,x-namespace',
      },
    });
  const pre = await preflight(UI_ORIGIN);
  assert.equal(pre.status, 204);
  assert.equal(pre.headers.get('access-control-allow-origin'), UI_ORIGIN);
  assert.match(pre.headers.get('access-control-allow-headers') ?? '', /Authorization/);
  assert.match(pre.headers.get('access-control-allow-methods') ?? '', /POST/);
  assert.equal(pre.headers.get('access-control-allow-credentials'), 'true');
  // The Web UI's form: the token in the path (it cannot add a header), same rules otherwise.
  const ui = await post(`/ui/${TOKEN}/decode`, { origin: UI_ORIGIN });
  assert.equal(ui.status, 200);
  assert.equal(ui.headers.get('access-control-allow-origin'), UI_ORIGIN);
  assert.ok(JSON.stringify(await ui.json()).length > 0);
  assert.equal((await post(`/ui/${TOKEN.slice(1)}/decode`, { origin: UI_ORIGIN })).status, 401, 'a wrong path token');
  assert.equal((await post(`/ui/${TOKEN.slice(1)}/decode`, { authorization: `Bearer ${TOKEN}` })).status, 401, 'the path token decides');
  const uiPre = await fetch(`${codecServer.url}/ui/${TOKEN}/decode`, {
    method: 'OPTIONS',
    headers: { origin: UI_ORIGIN, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type,x-namespace' },
  });
  assert.equal(uiPre.status, 204);
  assert.equal(uiPre.headers.get('access-control-allow-origin'), UI_ORIGIN);
  const evil = await preflight('https://evil.example');
  assert.equal(evil.status, 403);
  assert.equal(evil.headers.get('access-control-allow-origin'), null);

  // encode then decode: the codec server speaks both directions of the protocol.
  const json = Buffer.from(JSON.stringify({ note: SUBJECT })).toString('base64');
  const enc = (await (
    await post(
      '/encode',
      { authorization: `Bearer ${TOKEN}` },
      { payloads: [{ metadata: { encoding: Buffer.from('json/plain').toString('base64') }, data: json }] },
    )
  ).json()) as {
    payloads: Array<{ metadata: Record<string, string>; data: string }>;
  };
  assert.equal(Buffer.from(enc.payloads[0]!.metadata['encryption-key-id']!, 'base64').toString(), 'new');
  assert.ok(!Buffer.from(enc.payloads[0]!.data, 'base64').includes(Buffer.from('8841-Q')));
  const back = (await (await post('/decode', { authorization: `Bearer ${TOKEN}` }, enc)).json()) as { payloads: Array<{ data: string }> };
  assert.equal(back.payloads[0]!.data, json);

  // The real temporal CLI, as an operator runs it against the server.
  const show = (extra: string[]) =>
    run(
      temporalCliPath(),
      ['workflow', 'show', '--address', stack.temporal!.address, '--workflow-id', emailId, '--output', 'json', ...extra],
      {
        maxBuffer: 32 * 1024 * 1024,
      },
    );
  // Its JSON output keeps payload data base64-encoded: look inside.
  const readable = (out: string) => {
    const datas: string[] = [];
    JSON.parse(out, (k, v: unknown) => (k === 'data' && typeof v === 'string' && datas.push(Buffer.from(v, 'base64').toString('utf8')), v));
    return `${out}\n${datas.join('\n')}`;
  };
  const withCodec = await show(['--codec-endpoint', codecServer.url, '--codec-auth', `Bearer ${TOKEN}`]);
  assert.ok(readable(withCodec.stdout).includes(SUBJECT), 'temporal workflow show decodes through the codec server');
  const withoutAuth = await show(['--codec-endpoint', codecServer.url]).catch((err: { stdout?: string; stderr?: string }) => err);
  assert.ok(!`${withoutAuth.stdout ?? ''}${withoutAuth.stderr ?? ''}`.includes(SUBJECT), 'no token: nothing decoded');
  if (withoutAuth.stdout) assert.ok(!readable(withoutAuth.stdout).includes(SUBJECT), 'no token: nothing decoded');
  const withoutCodec = await show([]);
  assert.ok(!readable(withoutCodec.stdout).includes(SUBJECT), 'without the codec the CLI sees ciphertext');
});

test('dlq requeue reads the encrypted start input through the data converter', async () => {
  const draftId = (await codec.client.workflow.getHandle(emailId).query(draftQuery))!.draftId;
  assert.match(await reject(config, emailId, { by: 'ops', reason: 'no reply needed', draft: draftId }), /reject/i);
  await waitFor(
    'the workflow to finish',
    async () => (await raw.workflow.getHandle(emailId).describe()).status.name === 'COMPLETED',
    60_000,
  );
  const firstRun = (await raw.workflow.getHandle(emailId).describe()).runId;
  // As if its index step had died: an operator requeues it after a fix.
  await stack.db.pool.query(
    `UPDATE queue_jobs SET status = 'dead', error_class = 'permanent', last_error = 'test' WHERE workflow_id = ? AND step = 'index'`,
    [emailId],
  );
  const rows = (await stack.db.pool.query(`SELECT id FROM queue_jobs WHERE workflow_id = ? AND step = 'index' AND status = 'dead'`, [
    emailId,
  ])) as Array<{
    id: number;
  }>;
  assert.equal(rows.length, 1);
  const outcome = await dlqRequeue(config, Number(rows[0]!.id), 'ops');
  assert.match(outcome, /started again from its original input/);
  const second = raw.workflow.getHandle(emailId);
  const secondRun = (await second.describe()).runId;
  assert.notEqual(secondRun, firstRun);
  const first = (await raw.workflow.getHandle(emailId, firstRun).fetchHistory()).events?.[0]?.workflowExecutionStartedEventAttributes?.input
    ?.payloads;
  const again = (await second.fetchHistory()).events?.[0]?.workflowExecutionStartedEventAttributes?.input?.payloads;
  assert.equal(utf8(again?.[0]?.metadata?.encoding), 'binary/encrypted', 'the new run is started encrypted as well');
  const converter = codec.client.options.loadedDataConverter;
  assert.deepEqual(await decodeFromPayloadsAtIndex(converter, 0, again), await decodeFromPayloadsAtIndex(converter, 0, first));
  await second.terminate('test done');
});

test('TEMPORAL_API_KEY: the worker, clients and the CLI send it over TLS on every call; a wrong key is refused', async () => {
  const apiKey = randomBytes(16).toString('hex');
  const cloud = await startApiKeyProxy({ target: stack.temporal!.address, cert: pki.serverCert, key: pki.serverKey, apiKey });
  try {
    const cloudEnv = {
      ...stack.env,
      TEMPORAL_ADDRESS: cloud.address,
      TEMPORAL_API_KEY: apiKey,
      TEMPORAL_TLS_CA: pki.caCert,
      TEMPORAL_TLS_SERVER_NAME: 'temporal.test',
      TEMPORAL_TASK_QUEUE: `${stack.env.TEMPORAL_TASK_QUEUE}-cloud`,
    };
    const cloudConfig = loadConfig(cloudEnv);
    // Worker.create checks the namespace through the native connection: it starts only if the key works.
    const second = await createEmailWorker(cloudConfig, { workflowBundle: await workflowBundle() });
    const secondDone = second.run();
    await second.shutdown();
    await secondDone;
    const { client, connection } = await connectTemporalClient(cloudConfig);
    try {
      assert.equal((await client.workflow.getHandle(emailId).describe()).workflowId, emailId);
    } finally {
      await connection.close();
    }
    const setup = await run(process.execPath, [path.join(root, 'bin/email-rag.js'), 'temporal', 'setup'], {
      env: { ...process.env, ...cloudEnv },
    });
    assert.match(setup.stdout, /search attributes on default/);
    assert.ok(cloud.seen.length >= 4, `calls went through the key check (${cloud.seen.length})`);
    assert.deepEqual([...new Set(cloud.seen)], [`Bearer ${apiKey}`], 'every call carried the key');

    const wrong = loadConfig({ ...cloudEnv, TEMPORAL_API_KEY: 'not-the-key' });
    // Lazy, so the refused connection can be closed (a failed connect would leave its channel open).
    const refused = Connection.lazy(temporalConnectionOptions(wrong));
    try {
      await assert.rejects(refused.workflowService.getSystemInfo({}), /UNAUTHENTICATED: invalid API key/);
    } finally {
      await refused.close();
    }
    await assert.rejects(NativeConnection.connect(temporalConnectionOptions(wrong)), /UNAUTHENTICATED|invalid API key|connect/i);
  } finally {
    await cloud.stop();
  }
});
