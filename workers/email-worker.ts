import { NativeConnection, Runtime, Worker, type State, type WorkflowBundleOption } from '@temporalio/worker';
import { Client } from '@temporalio/client';
import { temporalConnectionOptions, temporalDataConverter } from '../src/platform/temporal-connection';
import { explainTemporalConnectFailure } from '../src/platform/temporal-connect-error';
import { tlsHandshakeProblem } from '../src/platform/temporal-tls-probe';
import { createActivities } from '../activities';
import type { Config } from '../src/config';
import { startBusinessMetrics } from './business-metrics';
import { buildDependencies, type Dependencies } from './wiring';
import { buildEmbedder } from '../src/retrieval/index.adapters';
import { type RunningEmbedder } from '../src/retrieval';
import { createQueueInterceptor } from './queue-interceptor';
import { workflowBundleOptions } from './workflow-bundle-options';
import { workerDeploymentOptions } from './worker-deployment';
import { COST_CLASSES, type CostClass } from '../src/platform/activity-profiles.workflow';
import { REPLAY_QUEUE_SUFFIX } from '../src/replay';
import { createLogger } from '../src/platform/logger';
import { errorMessage } from '../src/platform/errors';

const logger = createLogger('worker');

/** Without a prebuilt bundle the worker bundles the workflows itself, with the build's options. */
function bundleAtStart() {
  const { workflowsPath, preloadModules } = workflowBundleOptions(require.resolve('../workflows'));
  return { workflowsPath, bundlerOptions: { preloadModules } };
}

export interface RunningWorker {
  worker: Worker;
  /** The activities' client, on the workers' native connection (the health server asks Temporal through it). */
  client: Client;
  /** The SDK state of each Temporal Worker of this process (the main queue's and every pool's). */
  states(): State[];
  /** Indexes the knowledge folder as it is now (null without KNOWLEDGE_DIR). */
  syncKnowledge: Dependencies['syncKnowledge'];
  /** The embedder this worker uses (EMBEDDER), and the local service it runs for it. */
  embedding: RunningEmbedder;
  /** Stops polling, lets in-flight activities finish (up to the grace time), closes adapters. */
  shutdown(): Promise<void>;
  /** Resolves when the worker has stopped (after shutdown or on a fatal error). */
  run(): Promise<void>;
}

/**
 * The worker: workflows and bookkeeping on the main task queue, and one activity pool per cost
 * class (mail I/O, parse, index, LLM) on its own queue. Pass a prebuilt
 * `workflowBundle` in tests to bundle once; otherwise the workflows are bundled at start.
 */
export async function createEmailWorker(config: Config, options: { workflowBundle?: WorkflowBundleOption } = {}): Promise<RunningWorker> {
  // First: a missing local embedder is a configuration error to report before anything else starts.
  const embedding = await buildEmbedder(config);
  try {
    return await assembleWorker(config, options, embedding);
  } catch (err) {
    await embedding.stop();
    throw err;
  }
}

async function assembleWorker(
  config: Config,
  options: { workflowBundle?: WorkflowBundleOption },
  embedding: RunningEmbedder,
): Promise<RunningWorker> {
  const connection = await NativeConnection.connect(temporalConnectionOptions(config)).catch(async (err: unknown) => {
    const { tls } = config.security.temporal;
    const handshake = tls ? await tlsHandshakeProblem(config.temporal.address, tls) : undefined;
    const why = explainTemporalConnectFailure(err, config.security.temporal, handshake);
    throw why ? new Error(`cannot reach Temporal at ${config.temporal.address}: ${why}`, { cause: err }) : err;
  });
  const dataConverter = temporalDataConverter(config);
  // The activities' client shares the workers' native connection: its calls run in the SDK core
  // instead of a second gRPC stack on the main thread, and a poll's starts can be eager (the new
  // run's first workflow task comes back with the start response, no dispatch round trip).
  // Not on a versioned worker: the server hands an eager start's first task to the asking worker
  // and pins the run to that worker's version even when another version is current, so a poll
  // still running on the previous build after a switch would start new emails on that build
  // (test/e2e/worker-versioning.e2e.test.ts). Without eager starts the server routes each new run to
  // the current version.
  const client = new Client({ connection, namespace: config.temporal.namespace, ...(dataConverter ? { dataConverter } : {}) });
  const deps = buildDependencies(config, client, { eagerStarts: !config.worker.deployment, embedder: embedding.embedder });
  const activities = createActivities(deps.activities);
  const deployment = workerDeploymentOptions(config.worker.deployment);
  const common = {
    connection,
    namespace: config.temporal.namespace,
    ...(dataConverter ? { dataConverter } : {}),
    activities,
    interceptors: { activity: [createQueueInterceptor(deps.jobs, deps.activities.audit)] },
    shutdownGraceTime: config.worker.shutdownGraceMs,
    // The activity pools carry the version too: a pinned run's activities stay on its build.
    ...(deployment ? { workerDeploymentOptions: deployment } : {}),
  };
  const worker = await Worker.create({
    ...common,
    taskQueue: config.temporal.taskQueue,
    ...(options.workflowBundle ? { workflowBundle: options.workflowBundle } : bundleAtStart()),
    // Every email waits open for approval; evicted workflows replay when their signal comes.
    maxCachedWorkflows: config.worker.maxCachedWorkflows,
  });
  // One activity-only pool per cost class, each with its own concurrency limit, so a slow
  // LLM never holds up mail I/O or parsing.
  const limits: Record<CostClass, number> = {
    'mail-io': config.worker.concurrency.mailIo,
    parse: config.worker.concurrency.parse,
    index: config.worker.concurrency.index,
    llm: config.worker.concurrency.llm,
  };
  const rates: Partial<Record<CostClass, number>> = { 'mail-io': config.worker.ratePerSecond.mailIo, llm: config.worker.ratePerSecond.llm };
  const pools = await Promise.all(
    COST_CLASSES.map((costClass) =>
      Worker.create({
        ...common,
        taskQueue: `${config.temporal.taskQueue}-${costClass}`,
        maxConcurrentActivityTaskExecutions: limits[costClass],
        // A fleet-wide limit (e.g. the LLM provider's rate), enforced by the server across workers.
        ...(rates[costClass] ? { maxTaskQueueActivitiesPerSecond: rates[costClass] } : {}),
      }),
    ),
  );
  // Replays draft on their own queue with their own few slots (REPLAY_CONCURRENCY): however long a
  // replay, live drafts never wait for a replay's slot in the LLM pool (docs/replay.md).
  const replayPool = await Worker.create({
    ...common,
    taskQueue: `${config.temporal.taskQueue}${REPLAY_QUEUE_SUFFIX}`,
    maxConcurrentActivityTaskExecutions: config.replay.concurrency,
  });
  const all = [worker, ...pools, replayPool];
  // Business figures on the SDK's Prometheus endpoint (METRICS_PORT, set up by Runtime.install).
  const businessMetrics = config.metrics ? startBusinessMetrics(config, Runtime.instance().metricMeter) : undefined;
  let closing: Promise<void> | undefined;
  const closeAll = async () => {
    await businessMetrics?.stop();
    await deps.close();
    await embedding.stop();
    await connection.close().catch(() => undefined);
  };
  let runPromise: Promise<void> | undefined;
  return {
    worker,
    client,
    states: () => all.map((w) => w.getState()),
    embedding,
    syncKnowledge: () => deps.syncKnowledge(),
    run() {
      // The case clock runs wherever workers with cases do: woken (or started) once per start, so
      // a clock an operator terminated comes back with the next worker.
      if (!runPromise && deps.activities.case) {
        deps.activities.case.caseSignals
          .wakeClock()
          .catch((err: unknown) => logger.warn('case clock not woken at start', { error: errorMessage(err) }));
      }
      runPromise ??= Promise.all(all.map((w) => w.run()))
        .then(() => undefined)
        .finally(() => (closing ??= closeAll()));
      return runPromise;
    },
    async shutdown() {
      for (const w of all) if (w.getState() === 'RUNNING') w.shutdown();
      if (runPromise) await runPromise.catch(() => undefined);
      await (closing ??= closeAll());
    },
  };
}
