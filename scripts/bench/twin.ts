import { boundedMap } from '../../src/platform/bounded-map';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { bundleWorkflowCode, NativeConnection, Worker } from '@temporalio/worker';
import type { Config } from '../../src/config';
import { COST_CLASSES } from '../../src/platform/activity-profiles.workflow';

export interface TwinResult {
  workflows: number;
  ms: number;
  perSecond: number;
  /** Filled in by the bench: the dev server's CPU per twin workflow. */
  serverCpuMsPerWorkflow?: number;
  /** Filled in by the bench: the CPU of the twin's worker and client (the bench process) per workflow. */
  workerCpuMsPerWorkflow?: number;
  /** One of the twin's workflows, for its history. */
  sampleWorkflowId: string;
}

/** How many twin workflows are waited for at once (the server's limit on long polls is per namespace). */
const MAX_RESULT_WAITS = 200;

/** Keeps `limit` promises in flight over `items`. */
export async function inParallel<T>(items: T[], limit: number, fn: (item: T, i: number) => Promise<void>): Promise<void> {
  await boundedMap(items, limit, fn);
}

/**
 * N twin workflows on the same dev server, worker and client in this process, with the
 * pipeline worker's cache size and per-cost-class concurrency limits. The five activities run on
 * mail-io, parse, index, llm and the workflow's own queue, as fetch, parse, index, draft and the
 * status bookkeeping do. Time: first start → last completion.
 */
export async function runTwin(config: Config, n: number, startConcurrency: number): Promise<TwinResult> {
  const base = `${config.temporal.taskQueue}-twin`;
  const { code } = await bundleWorkflowCode({ workflowsPath: path.join(__dirname, 'twin-workflow.ts'), logger: undefined });
  const native = await NativeConnection.connect({ address: config.temporal.address });
  const activities = { noop: async (step: number) => step };
  const limits = {
    'mail-io': config.worker.concurrency.mailIo,
    parse: config.worker.concurrency.parse,
    index: config.worker.concurrency.index,
    llm: config.worker.concurrency.llm,
  };
  const workers = [
    await Worker.create({
      connection: native,
      taskQueue: base,
      workflowBundle: { code },
      activities,
      maxCachedWorkflows: config.worker.maxCachedWorkflows,
    }),
    ...(await Promise.all(
      COST_CLASSES.map((c) =>
        Worker.create({ connection: native, taskQueue: `${base}-${c}`, activities, maxConcurrentActivityTaskExecutions: limits[c] }),
      ),
    )),
  ];
  const running = Promise.all(workers.map((w) => w.run()));
  const connection = await Connection.connect({ address: config.temporal.address });
  const client = new Client({ connection, namespace: config.temporal.namespace });
  const queues = [`${base}-mail-io`, `${base}-parse`, `${base}-index`, `${base}-llm`, base];
  try {
    const t0 = Date.now();
    const started: Array<{ result(): Promise<unknown> }> = [];
    await inParallel(
      Array.from({ length: n }, (_, i) => i),
      startConcurrency,
      async (i) => {
        started.push(
          await client.workflow.start('BenchTwinWorkflow', {
            taskQueue: base,
            workflowId: `bench-twin-${t0}-${i}`,
            args: [{ queues }],
          }),
        );
      },
    );
    // Each wait is a long poll on the server, which allows only so many at once per namespace
    // ("namespace concurrent poller limit exceeded" at 5,000): a bounded number wait at a time.
    await inParallel(started, MAX_RESULT_WAITS, async (h) => {
      await h.result();
    });
    const ms = Date.now() - t0;
    return { workflows: n, ms, perSecond: (n * 1000) / ms, sampleWorkflowId: `bench-twin-${t0}-0` };
  } finally {
    for (const w of workers) w.shutdown();
    await running.catch(() => undefined);
    await connection.close();
    await native.close();
  }
}
