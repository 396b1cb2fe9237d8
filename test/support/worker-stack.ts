/**
 * The end-to-end tests' usual setup: the whole stack (Temporal dev server, MariaDB, Dovecot, the
 * SMTP listener, the LLM double), a real email worker with the prebuilt workflow bundle, and a
 * Temporal client, started before a file's tests and stopped after them, worker first.
 */
import { after, before } from 'node:test';
import { Client, Connection } from '@temporalio/client';
import type { Config } from '../../src/config';
import { createEmailWorker, type RunningWorker } from '../../workers/email-worker';
import { startStack, type TestStack } from './stack';
import { workflowBundle } from './workflow-bundle';

export interface WorkerStack {
  stack: TestStack;
  /** The configuration the worker runs with (the stack's, unless `configure` gave another). */
  config: Config;
  worker: RunningWorker;
  client: Client;
}

type StackOptions = Parameters<typeof startStack>[0];

export interface WorkerStackOptions {
  /**
   * What `startStack` takes (extra environment, users, …), or a function run first in `before`
   * that makes it (e.g. after starting a server whose port goes into the environment).
   */
  stack?: StackOptions | (() => StackOptions | Promise<StackOptions>);
  /** Runs after the stack started and before the worker: a changed configuration for the worker. */
  configure?: (stack: TestStack) => Config | Promise<Config>;
  /** More setup once the worker runs (schedules, a browser, …), in the same `before` hook. */
  then?: (s: WorkerStack) => Promise<void>;
  /** Stops what `then` or `stack` started, first in the same `after` hook. */
  cleanup?: () => Promise<void>;
}

/**
 * Registers the `before`/`after` hooks of the calling test file; `ready` receives the running parts.
 * A file using it registers no root-level hooks of its own: Node 20 runs a file's root `before`
 * hooks concurrently, so a second one would not see the stack; `then` and `cleanup` run in order.
 */
export function useWorkerStack(ready: (s: WorkerStack) => void, opts: WorkerStackOptions = {}): void {
  let stack: TestStack | undefined;
  let worker: RunningWorker | undefined;
  let workerDone: Promise<void> | undefined;
  let connection: Connection | undefined;
  before(async () => {
    stack = await startStack(typeof opts.stack === 'function' ? await opts.stack() : opts.stack);
    const config = opts.configure ? await opts.configure(stack) : stack.config;
    worker = await createEmailWorker(config, { workflowBundle: await workflowBundle() });
    workerDone = worker.run();
    connection = await Connection.connect({ address: config.temporal.address });
    const running = { stack, config, worker, client: new Client({ connection, namespace: config.temporal.namespace }) };
    ready(running);
    await opts.then?.(running);
  });
  after(async () => {
    await opts.cleanup?.();
    await worker?.shutdown();
    await workerDone?.catch(() => undefined);
    await connection?.close();
    await stack?.stop();
  });
}
