/**
 * The prebuilt workflow bundles (what `npm run build` writes and the compiled worker runs) and
 * failure messages: with PAYLOAD_KEYS the worker picks the bundle built with the encrypting failure
 * converter, so an error raised inside workflow code reaches the history encrypted; the plain
 * bundle, run with the same keys, shows what that prevents. Activity errors the workflow ends on
 * keep the activity worker's encrypted failure either way. Real dev server, Dovecot and MariaDB;
 * the missing IMAP folder's name stands for personal data (a folder per customer).
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import { Client, Connection, WorkflowFailedError } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { connectTemporalClient } from '../../src/platform/temporal-connection';
import { loadConfig, type Config } from '../../src/config';
import { createEmailWorker, type RunningWorker } from '../../workers/email-worker';
import { WORKFLOW_BUNDLE_FILES, prebuiltWorkflowBundle, writeWorkflowBundle } from '../../workers/prebuilt-bundle';
import { startStack, type TestStack } from '../support/stack';
import { waitFor } from '../support/wait';

const root = path.resolve(__dirname, '../..');
const FOLDER = 'Kunden/Erika Mustermann 4471';
const KEYS = { PAYLOAD_KEYS: `k1:${randomBytes(32).toString('base64')}` };

let stack: TestStack;
let bundleDir: string;
let rawConnection: Connection;
let raw: Client;
const started: Array<{ worker: RunningWorker; done: Promise<void>; close(): Promise<void> }> = [];

before(async () => {
  stack = await startStack();
  bundleDir = mkdtempSync(path.join(tmpdir(), 'email-rag-bundles-'));
  // The build's own function, from the sources: the same options as dist/workflow-bundle*.js.
  await writeWorkflowBundle(root, bundleDir, 'plain');
  await writeWorkflowBundle(root, bundleDir, 'encryptedFailures');
  rawConnection = await Connection.connect({ address: stack.temporal!.address });
  raw = new Client({ connection: rawConnection });
});

after(async () => {
  for (const s of started) {
    await s.worker.shutdown();
    await s.done.catch(() => undefined);
    await s.close();
  }
  await rawConnection?.close();
  await stack?.stop();
  rmSync(bundleDir, { recursive: true, force: true });
});

/** A worker with payload keys on its own task queue, running `codePath`, and a client with the same keys. */
async function workerWith(config: Config, codePath: string): Promise<Client> {
  const worker = await createEmailWorker(config, { workflowBundle: { codePath } });
  const { client, connection } = await connectTemporalClient(config);
  started.push({ worker, done: worker.run(), close: () => connection.close() });
  return client;
}

const configFor = (queue: string): Config => loadConfig({ ...stack.env, ...KEYS, TEMPORAL_TASK_QUEUE: queue });
const rawBytes = (history: temporal.api.history.v1.IHistory) => Buffer.from(temporal.api.history.v1.History.encode(history).finish());
const utf8 = (b: Uint8Array | null | undefined) => Buffer.from(b ?? new Uint8Array()).toString('utf8');

/**
 * An error thrown by workflow code itself (here: a start input without its `source`, which the
 * workflow reads at once) fails the workflow task; the failure is written by the bundle's converter.
 */
async function workflowTaskFailure(client: Client, queue: string, workflowId: string) {
  const handle = await client.workflow.start('EmailWorkflow', { taskQueue: queue, workflowId, args: [{ emailId: workflowId }] });
  const failed = await waitFor(
    'the workflow task failure',
    async () =>
      (await raw.workflow.getHandle(workflowId).fetchHistory()).events?.find((e) => e.workflowTaskFailedEventAttributes)
        ?.workflowTaskFailedEventAttributes ?? undefined,
    60_000,
  );
  await handle.terminate('test done');
  return { failure: failed.failure, history: await raw.workflow.getHandle(workflowId).fetchHistory() };
}

// The input has no `source`: the workflow's first read of it throws this TypeError.
const CODE_ERROR = 'Cannot read properties of undefined';

test('with PAYLOAD_KEYS the compiled worker runs the bundle whose failure converter encrypts failures raised in workflow code', async () => {
  const config = configFor(`${stack.env.TEMPORAL_TASK_QUEUE}-encrypted`);
  const bundle = prebuiltWorkflowBundle(config, bundleDir);
  assert.equal(path.basename(bundle?.codePath ?? ''), WORKFLOW_BUNDLE_FILES.encryptedFailures);
  assert.equal(path.basename(prebuiltWorkflowBundle(loadConfig(stack.env), bundleDir)?.codePath ?? ''), WORKFLOW_BUNDLE_FILES.plain);
  const client = await workerWith(config, bundle!.codePath);

  const { failure, history } = await workflowTaskFailure(client, config.temporal.taskQueue, 'code-error-encrypted');
  assert.equal(failure?.message, 'Encoded failure', 'the message moved into the encoded attributes');
  assert.equal(failure?.stackTrace, '', 'and the stack trace with it');
  assert.equal(utf8(failure?.encodedAttributes?.metadata?.encoding), 'binary/encrypted');
  assert.ok(!rawBytes(history).includes(Buffer.from(CODE_ERROR)), 'the error text is not readable in the raw history');
  // An operator with the keys reads it: the data converter decodes the encoded attributes.
  const [decoded] = await client.options.loadedDataConverter.payloadCodecs[0]!.decode([failure!.encodedAttributes!]);
  assert.match(utf8(decoded?.data), new RegExp(CODE_ERROR));
});

test("an activity error the workflow ends on stays encrypted: the history keeps the activity worker's encoded failure", async () => {
  const config = configFor(`${stack.env.TEMPORAL_TASK_QUEUE}-poll`);
  const client = await workerWith(config, prebuiltWorkflowBundle(config, bundleDir)!.codePath);
  const handle = await client.workflow.start('ImapPollWorkflow', {
    taskQueue: config.temporal.taskQueue,
    workflowId: 'poll-missing-folder',
    args: [{ mailbox: FOLDER }],
  });
  const err: unknown = await handle.result().then(
    () => assert.fail('the poll of a missing folder must fail'),
    (e: unknown) => e,
  );
  assert.ok(err instanceof WorkflowFailedError, String(err));
  const chain: string[] = [];
  for (let e: unknown = err.cause; e instanceof Error; e = e.cause) chain.push(e.message);
  assert.ok(
    chain.some((m) => m.includes(FOLDER)),
    `decoded, the failure names the folder: ${chain.join(' <- ')}`,
  );
  const history = await raw.workflow.getHandle('poll-missing-folder').fetchHistory();
  assert.ok(!rawBytes(history).includes(Buffer.from(FOLDER)), `"${FOLDER}" is readable in the raw history`);
  const ended = history.events?.find((e) => e.workflowExecutionFailedEventAttributes)?.workflowExecutionFailedEventAttributes;
  assert.equal(ended?.failure?.cause?.message, 'Encoded failure');
});

test('the plain bundle run with the same keys leaves the error text readable (what the choice of bundle prevents)', async () => {
  const config = configFor(`${stack.env.TEMPORAL_TASK_QUEUE}-plain`);
  const client = await workerWith(config, path.join(bundleDir, WORKFLOW_BUNDLE_FILES.plain));
  const { failure, history } = await workflowTaskFailure(client, config.temporal.taskQueue, 'code-error-plain');
  assert.match(failure?.message ?? '', new RegExp(CODE_ERROR));
  assert.ok(rawBytes(history).includes(Buffer.from(CODE_ERROR)));
});
