/**
 * A Temporal that is not the stack's own: the dev server behind nginx (Debian's package, a real
 * TLS-terminating gRPC proxy, `grpc_pass`), as a self-hosted cluster sits behind a load balancer.
 * Certificates are made here with openssl. Three fronts on one dev server:
 * - TLS with a private CA (the server certificate names temporal.test only, so the name is checked);
 * - mTLS (`ssl_verify_client on`): a client certificate from that CA is required;
 * - "cloud": an API key in the authorization header, checked by nginx (a stand-in for Temporal
 *   Cloud's own API-key check, which no local server has), and Cloud's refusals: the operator
 *   service and namespace registration/update are answered with gRPC PERMISSION_DENIED by nginx,
 *   never reaching the server.
 * The product's init script (deploy/container/email-rag-init.sh) runs against the cloud front and
 * warns and goes on; the worker polls through it and runs a workflow of the product.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import { promisify } from 'node:util';
import { Connection } from '@temporalio/client';
import { msNumberToTs } from '@temporalio/common/lib/time';
import { temporal as proto } from '@temporalio/proto';
import { NativeConnection } from '@temporalio/worker';
import { loadConfig, type Config } from '../../src/config';
import { SEARCH_ATTRIBUTES, WORKFLOW_TYPES } from '../../src/platform/contract';
import { connectTemporalClient, temporalConnectionOptions } from '../../src/platform/temporal-connection';
import { createEmailWorker, type RunningWorker } from '../../workers/email-worker';
import { startNginxGrpcProxy, REFUSAL_MESSAGE, type NginxGrpcProxy } from '../support/services/nginx-grpc-proxy';
import { startStack, type TestStack } from '../support/stack';
import { makeTestPki, type TestPki } from '../support/tls-certs';
import { waitFor } from '../support/wait';
import { workflowBundle } from '../support/workflow-bundle';

const execFileAsync = promisify(execFile);
const root = path.resolve(__dirname, '../..');
const SERVER_NAME = 'temporal.test';
const API_KEY = 'tk-cloud-stand-in-7f3a9c';
/** A namespace made on the server behind the fronts, without the product's search attributes. */
const BARE_NAMESPACE = 'cloud-like';

let stack: TestStack;
let pki: TestPki;
let tls: NginxGrpcProxy;
let mtls: NginxGrpcProxy;
let cloud: NginxGrpcProxy;
/** Straight to the dev server: the administrator's view, and how the test sets up what "Cloud" refuses. */
let admin: Connection;
let binDir: string;

/** The product's settings for one front; `extra` overrides, an empty value unsets. */
function envFor(front: NginxGrpcProxy, extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = { ...stack.env, TEMPORAL_ADDRESS: front.address, TEMPORAL_TLS_CA: pki.caCert };
  env.TEMPORAL_TLS_SERVER_NAME = SERVER_NAME;
  if (front === mtls) Object.assign(env, { TEMPORAL_TLS_CERT: pki.clientCert, TEMPORAL_TLS_KEY: pki.clientKey });
  if (front === cloud) env.TEMPORAL_API_KEY = API_KEY;
  for (const [k, v] of Object.entries(extra)) {
    if (v === '') delete env[k];
    else env[k] = v;
  }
  return env;
}

/** `email-rag <args>` as an operator runs it, with exactly `env` (no TEMPORAL_* of the test's own). */
async function cli(env: Record<string, string>, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const base = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(TEMPORAL_|DATABASE_URL|IMAP_|SMTP_|LLM_)/.test(k)));
  return execFileAsync(process.execPath, [path.join(root, 'bin/email-rag.js'), ...args], { env: { ...base, ...env } }).then(
    (r) => ({ code: 0, stdout: r.stdout, stderr: r.stderr }),
    (err: { code: number; stdout: string; stderr: string }) => ({ code: err.code, stdout: err.stdout, stderr: err.stderr }),
  );
}

/** The container's init script, with `email-rag` on PATH being this checkout's CLI. */
async function init(env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  const base = Object.fromEntries(
    Object.entries(process.env).filter(([k]) => !/^(TEMPORAL_|DATABASE_URL|IMAP_|SMTP_|LLM_|INBOX_)/.test(k)),
  );
  return execFileAsync('sh', [path.join(root, 'deploy/container/email-rag-init.sh')], {
    env: { ...base, ...env, PATH: `${binDir}:${process.env.PATH ?? ''}`, TEMPORAL_RETENTION_DAYS: '30' },
  }).then(
    (r) => ({ code: 0, stdout: r.stdout, stderr: r.stderr }),
    (err: { code: number; stdout: string; stderr: string }) => ({ code: err.code, stdout: err.stdout, stderr: err.stderr }),
  );
}

/** Doctor's verdicts by part, from `doctor --json`. */
async function doctorParts(env: Record<string, string>): Promise<Map<string, { verdict: string; detail: string; fix?: string }>> {
  const r = await cli(env, 'doctor', '--json');
  const report = JSON.parse(r.stdout) as { parts: Array<{ check: string; verdict: string; detail: string; fix?: string }> };
  return new Map(report.parts.map((f) => [f.check, f]));
}

before(async () => {
  stack = await startStack();
  const dir = path.join(stack.dir, 'temporal-fronts');
  mkdirSync(dir);
  pki = makeTestPki(dir, SERVER_NAME);
  const front = (name: string, opts: { clientCa?: string; apiKey?: string; refuseAdministration?: boolean } = {}) =>
    startNginxGrpcProxy({ dir: path.join(dir, name), target: stack.temporal!.address, cert: pki.serverCert, key: pki.serverKey, ...opts });
  tls = await front('tls');
  mtls = await front('mtls', { clientCa: pki.caCert });
  cloud = await front('cloud', { apiKey: API_KEY, refuseAdministration: true });
  admin = await Connection.connect({ address: stack.temporal!.address });
  await admin.workflowService.registerNamespace({
    namespace: BARE_NAMESPACE,
    workflowExecutionRetentionPeriod: msNumberToTs(3 * 86_400_000),
  });
  binDir = path.join(dir, 'bin');
  mkdirSync(binDir);
  writeFileSync(path.join(binDir, 'email-rag'), `#!/bin/sh\nexec "${process.execPath}" "${path.join(root, 'bin/email-rag.js')}" "$@"\n`);
  chmodSync(path.join(binDir, 'email-rag'), 0o755);
});

after(async () => {
  await admin?.close();
  for (const front of [cloud, mtls, tls]) await front?.stop();
  await stack?.stop();
});

test('TLS with a private CA: client and worker connections reach Temporal through nginx; the server name is checked', async () => {
  const config = loadConfig(envFor(tls));
  const { client, connection } = await connectTemporalClient(config);
  const info = await connection.workflowService.getSystemInfo({});
  assert.ok(info.serverVersion, 'the dev server answered through nginx');
  await client.workflow.count();
  await connection.close();
  await (await NativeConnection.connect(temporalConnectionOptions(config))).close();

  // Dialled by IP, without TEMPORAL_TLS_SERVER_NAME: the certificate names temporal.test only.
  const noName = await cli(envFor(tls, { TEMPORAL_TLS_SERVER_NAME: '' }), 'temporal', 'setup');
  assert.equal(noName.code, 3, noName.stderr);
  assert.match(
    noName.stderr,
    /cannot reach Temporal at 127\.0\.0\.1:\d+: the TLS handshake failed \(.*IP: 127\.0\.0\.1 is not in the cert's list.*\): .*TEMPORAL_TLS_SERVER_NAME/,
  );
  const noCa = await cli(envFor(tls, { TEMPORAL_TLS_CA: '' }), 'temporal', 'setup');
  assert.equal(noCa.code, 3);
  assert.match(
    noCa.stderr,
    /the TLS handshake failed \((self-signed certificate in certificate chain|unable to verify the first certificate|unable to get local issuer certificate)\): set TEMPORAL_TLS_CA/,
  );
  assert.match(tls.accessLog(), /GetSystemInfo 200/);
});

test('mTLS: with the client certificate the CLI and the worker get through; without it, or with a stranger one, a clear refusal', async () => {
  const env = envFor(mtls);
  const ok = await cli(env, 'temporal', 'setup');
  assert.equal(ok.code, 0, ok.stderr);
  // Registered at the dev server's start already: the server takes them again without complaint.
  assert.match(ok.stdout, /search attributes on default: /);
  assert.match(mtls.accessLog(), /AddSearchAttributes 200 grpc-status=- client-cert=SUCCESS/);
  await (await NativeConnection.connect(temporalConnectionOptions(loadConfig(env)))).close();

  const without = await cli(envFor(mtls, { TEMPORAL_TLS_CERT: '', TEMPORAL_TLS_KEY: '' }), 'temporal', 'setup');
  assert.equal(without.code, 3);
  assert.match(
    without.stderr,
    /cannot reach Temporal at .*: the server wants a client certificate \(400 Bad Request.*set TEMPORAL_TLS_CERT and TEMPORAL_TLS_KEY/,
  );
  const stranger = await cli(envFor(mtls, { TEMPORAL_TLS_CERT: pki.strangerCert, TEMPORAL_TLS_KEY: pki.strangerKey }), 'temporal', 'setup');
  assert.equal(stranger.code, 3);
  assert.match(stranger.stderr, /the server refused the client certificate .*issued by the CA the server trusts/);
  // The worker's own (native) connection says the same instead of a transport error.
  await assert.rejects(
    createEmailWorker(loadConfig(envFor(mtls, { TEMPORAL_TLS_CERT: '', TEMPORAL_TLS_KEY: '' })), {
      workflowBundle: await workflowBundle(),
    }),
    /cannot reach Temporal at .*the server wants a client certificate/,
  );
  assert.match(mtls.accessLog(), /400 grpc-status=- client-cert=NONE/);
});

test('mTLS to a self-hosted cluster: a namespace that is missing is created, with the search attributes and retention', async () => {
  const r = await cli(envFor(mtls, { TEMPORAL_NAMESPACE: 'support-team' }), 'temporal', 'setup', '--retention-days', '14');
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /namespace support-team: created, retention 14 days/);
  assert.match(r.stdout, /search attributes on support-team: added EmailStatus, .*CaseOwner; already there none/);
  const listed = await admin.operatorService.listSearchAttributes({ namespace: 'support-team' });
  assert.deepEqual(Object.keys(listed.customAttributes ?? {}).sort(), Object.keys(SEARCH_ATTRIBUTES).sort());
  const ns = await admin.workflowService.describeNamespace({ namespace: 'support-team' });
  assert.equal(Number(ns.config?.workflowExecutionRetentionTtl?.seconds), 14 * 86_400);
});

test('API key through nginx: sent as a bearer header by the CLI and the worker; missing or wrong, a clear refusal', async () => {
  const schedules = await cli(envFor(cloud), 'schedules', 'install');
  assert.equal(schedules.code, 0, schedules.stderr);
  await (await NativeConnection.connect(temporalConnectionOptions(loadConfig(envFor(cloud))))).close();
  const missing = await cli(envFor(cloud, { TEMPORAL_API_KEY: '' }), 'schedules', 'install');
  assert.equal(missing.code, 3);
  assert.match(missing.stderr, /the server wants credentials \(401 Unauthorized\): set TEMPORAL_API_KEY/);
  const wrong = await cli(envFor(cloud, { TEMPORAL_API_KEY: 'tk-revoked' }), 'schedules', 'install');
  assert.equal(wrong.code, 3);
  assert.match(wrong.stderr, /the server refused the API key \(401 Unauthorized\): check TEMPORAL_API_KEY/);
  assert.doesNotMatch(wrong.stderr + missing.stderr, new RegExp(API_KEY), 'the key is never printed');
  assert.match(cloud.accessLog(), /GetSystemInfo 401/);
});

test('init against refusals: warns with what to do by hand and goes on; doctor finds the missing search attributes', async () => {
  const env = envFor(cloud, { TEMPORAL_NAMESPACE: BARE_NAMESPACE });
  const r = await init(env);
  assert.equal(r.code, 0, `init went on and finished:\n${r.stdout}\n${r.stderr}`);
  assert.match(r.stdout, /init: schedules\n[\s\S]*init: done/);
  // Both refusals, each with the server's words and the commands to run instead.
  assert.match(
    r.stderr,
    new RegExp(
      `WARNING: the server refused to register search attributes on ${BARE_NAMESPACE} \\(${REFUSAL_MESSAGE}\\); missing: EmailStatus`,
    ),
  );
  assert.match(
    r.stderr,
    /EmailStatus, EmailPriority, Mailbox, TriageClass, Category, CaseStatus and CaseOwner of type Keyword, NeedsHuman of type Bool, DraftVersion of type Int/,
  );
  assert.match(
    r.stderr,
    new RegExp(`tcld namespace search-attributes add --namespace ${BARE_NAMESPACE} --search-attribute EmailStatus=Keyword`),
  );
  assert.match(
    r.stderr,
    new RegExp(
      `WARNING: the server refused to set the retention of ${BARE_NAMESPACE} .*it stays 3 days: .*tcld namespace retention set --namespace ${BARE_NAMESPACE} --retention-days 30`,
    ),
  );
  assert.match(r.stdout, /init: WARNING: going on without what the server refused/);
  // nginx answered these itself: the server never saw them.
  assert.match(cloud.accessLog(), /OperatorService\/AddSearchAttributes 200 grpc-status=7/);
  assert.match(cloud.accessLog(), /WorkflowService\/UpdateNamespace 200 grpc-status=7/);
  const ns = await admin.workflowService.describeNamespace({ namespace: BARE_NAMESPACE });
  assert.equal(Number(ns.config?.workflowExecutionRetentionTtl?.seconds), 3 * 86_400, 'retention untouched');
  const schedules = await admin.workflowService.listSchedules({ namespace: BARE_NAMESPACE });
  assert.ok((schedules.schedules ?? []).length > 0, 'init installed the schedules after the warnings');

  // The doctor asks visibility instead of the refused operator API, and gives the by-hand fix.
  const before = (await doctorParts(env)).get('search attributes');
  assert.equal(before?.verdict, 'fail');
  assert.match(before!.detail, /not registered: EmailStatus, .*CaseOwner/);
  assert.match(before!.fix ?? '', /tcld namespace search-attributes add --namespace cloud-like/);

  // An administrator adds them (as in Cloud's UI); doctor and setup then see them, retention still warns.
  const INDEXED = proto.api.enums.v1.IndexedValueType;
  const types = { Keyword: INDEXED.INDEXED_VALUE_TYPE_KEYWORD, Bool: INDEXED.INDEXED_VALUE_TYPE_BOOL, Int: INDEXED.INDEXED_VALUE_TYPE_INT };
  await admin.operatorService.addSearchAttributes({
    namespace: BARE_NAMESPACE,
    searchAttributes: Object.fromEntries(Object.entries(SEARCH_ATTRIBUTES).map(([n, t]) => [n, types[t]])),
  });
  const after = await waitFor('the doctor to see the search attributes', async () => {
    const finding = (await doctorParts(env)).get('search attributes');
    return finding?.verdict === 'ok' && finding;
  });
  assert.match(after.detail, /all 9 registered/);
  const again = await cli(env, 'temporal', 'setup', '--retention-days', '30');
  assert.equal(again.code, 4, 'only the retention is left to do by hand');
  assert.match(again.stdout, /search attributes on cloud-like: all there \(registered by hand\)/);
  assert.doesNotMatch(again.stderr, /search attributes/);
});

test('init against refusals: a namespace that is missing and may not be created stops init with what to do', async () => {
  const r = await init(envFor(cloud, { TEMPORAL_NAMESPACE: 'not-made-yet' }));
  assert.equal(r.code, 1);
  assert.match(
    r.stderr,
    /namespace not-made-yet does not exist and the server refused to create it \(.*\): create the namespace not-made-yet .*tcld namespace create/,
  );
  assert.doesNotMatch(r.stdout, /init: schedules/);
  assert.match(cloud.accessLog(), /RegisterNamespace 200 grpc-status=7/);
});

test('a round trip through the API-key front: the worker polls through nginx and runs the cleanup workflow that `email-rag cleanup` starts', async () => {
  const env = envFor(cloud);
  const setUp = await init(env);
  assert.equal(setUp.code, 0, setUp.stderr);
  const config: Config = loadConfig(env);
  const worker: RunningWorker = await createEmailWorker(config, { workflowBundle: await workflowBundle() });
  const running = worker.run();
  try {
    const triggered = await cli(env, 'cleanup');
    assert.equal(triggered.code, 0, triggered.stderr);
    const { client, connection } = await connectTemporalClient(config);
    try {
      const query = `WorkflowType = "${WORKFLOW_TYPES.cleanup}" AND ExecutionStatus = "Completed"`;
      await waitFor(
        'the cleanup workflow to complete on the worker behind nginx',
        async () => (await client.workflow.count(query)).count > 0,
        120_000,
        500,
      );
    } finally {
      await connection.close();
    }
    const doctor = await doctorParts(env);
    for (const part of ['temporal namespace', 'search attributes', 'schedules']) assert.equal(doctor.get(part)?.verdict, 'ok', part);
    // The worker's long polls and its completions went through the API-key front.
    assert.match(cloud.accessLog(), /PollWorkflowTaskQueue 200/);
    assert.match(cloud.accessLog(), /RespondWorkflowTaskCompleted 200/);
  } finally {
    await worker.shutdown();
    await running.catch(() => undefined);
  }
  assert.ok(readFileSync(path.join(stack.dir, 'temporal-fronts', 'cloud', 'access.log'), 'utf8').length > 0);
});
