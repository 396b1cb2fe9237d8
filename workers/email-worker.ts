import { Client, Connection } from '@temporalio/client';
import { NativeConnection, Worker, type WorkflowBundleOption } from '@temporalio/worker';
import { createActivities } from '../activities';
import type { Config } from '../lib/config';
import { buildDependencies } from './dependencies';
import { createQueueInterceptor } from './queue-interceptor';

export interface RunningWorker {
  worker: Worker;
  /** Stops polling, lets in-flight activities finish (up to the grace time), closes adapters. */
  shutdown(): Promise<void>;
  /** Resolves when the worker has stopped (after shutdown or on a fatal error). */
  run(): Promise<void>;
}

/**
 * The worker: all pipeline activities and workflows on one task queue. Pass a prebuilt
 * `workflowBundle` in tests to bundle once; otherwise the workflows are bundled at start.
 */
export async function createEmailWorker(config: Config, options: { workflowBundle?: WorkflowBundleOption } = {}): Promise<RunningWorker> {
  const clientConnection = await Connection.connect({ address: config.temporal.address });
  const client = new Client({ connection: clientConnection, namespace: config.temporal.namespace });
  const deps = buildDependencies(config, client);
  const connection = await NativeConnection.connect({ address: config.temporal.address });
  const worker = await Worker.create({
    connection,
    namespace: config.temporal.namespace,
    taskQueue: config.temporal.taskQueue,
    ...(options.workflowBundle ? { workflowBundle: options.workflowBundle } : { workflowsPath: require.resolve('../workflows') }),
    activities: createActivities(deps.activities),
    interceptors: { activity: [createQueueInterceptor(deps.jobs, deps.activities.audit)] },
    // Every email waits open for approval; evicted workflows replay when their signal comes.
    maxCachedWorkflows: config.worker.maxCachedWorkflows,
    shutdownGraceTime: config.worker.shutdownGraceMs,
  });
  let closing: Promise<void> | undefined;
  const closeAll = async () => {
    await deps.close();
    await connection.close().catch(() => undefined);
    await clientConnection.close().catch(() => undefined);
  };
  let runPromise: Promise<void> | undefined;
  return {
    worker,
    run() {
      runPromise ??= worker.run().finally(() => (closing ??= closeAll()));
      return runPromise;
    },
    async shutdown() {
      if (worker.getState() === 'RUNNING') worker.shutdown();
      if (runPromise) await runPromise.catch(() => undefined);
      await (closing ??= closeAll());
    },
  };
}
