import { DefaultLogger, Runtime, type LogEntry, type LogLevel as SdkLogLevel } from '@temporalio/worker';
import { checkDatabaseLimitsAt } from '../src/platform/limits.mariadb';
import type { Config } from '../src/config';
import { errorMessage } from '../src/platform/errors';
import { createLogger, setLogLevel, type LogLevel, type LogLevelSetting } from '../src/platform/logger';
import { createEmailWorker } from './email-worker';
import { metricsBindAddress, telemetryOptions } from './telemetry';
import { prebuiltWorkflowBundle, startMode } from './prebuilt-bundle';
import { applyHeapGrowth } from './heap-growth';
import { startWorkerHealth } from './worker-health';

const logger = createLogger('worker');

/** The SDK core's own threshold for LOG_LEVEL: it knows no `fatal` or `silent` (our logger drops what is below the level). */
function sdkLogLevel(level: LogLevelSetting): SdkLogLevel {
  return level === 'fatal' || level === 'silent' ? 'ERROR' : (level.toUpperCase() as SdkLogLevel);
}

/**
 * Runs the worker until SIGTERM/SIGINT: stop polling, let in-flight activities finish or hand
 * them back, and exit within the grace time plus a hard limit.
 */
export async function runWorker(config: Config): Promise<void> {
  // Mailboxes count as `starting` on /readyz from here until their first successful poll.
  const startedAt = performance.now();
  applyHeapGrowth(config.worker.heapGrowthPercent);
  setLogLevel(config.logLevel);
  Runtime.install({
    telemetryOptions: telemetryOptions(config),
    logger: new DefaultLogger(sdkLogLevel(config.logLevel), (entry: LogEntry) => {
      const meta = (entry.meta ?? {}) as Record<string, unknown>;
      logger.log(entry.level.toLowerCase() as LogLevel, entry.message, {
        correlationId: meta.workflowId,
        ...meta,
      });
    }),
  });
  const fatal = (kind: string) => (err: unknown) => {
    // After an unexpected error the process state is suspect: log it and end cleanly.
    logger.error(kind, { error: errorMessage(err), stack: err instanceof Error ? err.stack : undefined });
    process.exit(1);
  };
  process.on('unhandledRejection', fatal('unhandledRejection'));
  process.on('uncaughtException', fatal('uncaughtException'));

  // Large mail must not meet a packet limit mid-pipeline (it would look like an outage): refuse now.
  const limits = await checkDatabaseLimitsAt(config.databaseUrl, config.imap.maxMessageBytes);
  if (!limits) logger.warn('MariaDB not reachable at start; its limits are checked on the first large write');
  const bundle = prebuiltWorkflowBundle(config);
  logger.info(`worker runs ${startMode(bundle)}`, { workflowBundle: bundle?.codePath });
  const running = await createEmailWorker(config, { workflowBundle: bundle });
  const runs = running.run();
  // Handled here too, so a worker failing while the health server starts is not an unhandled rejection.
  runs.catch(() => undefined);
  // After run(): /livez answers only once the Temporal Workers are RUNNING (or starting up).
  const health = await startWorkerHealth(config, running, startedAt).catch(async (err: unknown) => {
    await running.shutdown();
    throw err;
  });
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info('stopping: no new tasks, finishing in-flight work', { signal, graceMs: config.worker.shutdownGraceMs });
    const hardLimit = setTimeout(() => {
      logger.error('shutdown took too long; exiting', { limitMs: config.worker.shutdownGraceMs + 5_000 });
      process.exit(1);
    }, config.worker.shutdownGraceMs + 5_000);
    hardLimit.unref();
    void running.shutdown();
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
  logger.info('worker started', {
    taskQueue: config.temporal.taskQueue,
    temporal: config.temporal.address,
    drafter: config.llm.mode,
    embedder: running.embedding.description,
    maxCachedWorkflows: config.worker.maxCachedWorkflows,
    // Which Worker Deployment Version this process serves; runs pinned to it need it until they close.
    deployment: config.worker.deployment ? `${config.worker.deployment.name}/${config.worker.deployment.buildId}` : 'unversioned',
    heapGrowthPercent: config.worker.heapGrowthPercent || 'V8 default',
    // Set on the command line by bin/worker-restart.js (or by the operator): V8 flags are process-wide.
    semiSpace: [...process.execArgv, process.env.NODE_OPTIONS ?? ''].find((a) => a.includes('--max-semi-space-size')) ?? 'V8 default',
    // Set by the same restart unless the operator set it (glibc reads it at process start).
    mallocArenas: process.env.MALLOC_ARENA_MAX ?? 'C library default',
    metrics: config.metrics ? `http://${metricsBindAddress(config.metrics)}/metrics` : undefined,
    health: health?.url,
    // Every mailbox this worker serves (any worker serves all): id, account and folders.
    mailboxes: config.mailboxes.map((m) => `${m.id}=${m.imap.user}@${m.imap.host}:${m.imap.port}/${m.imap.folders.join(',')}`),
  });
  const knowledge = running.syncKnowledge().then(
    (r) =>
      r &&
      logger.info('knowledge folder indexed', {
        added: r.added.length,
        updated: r.updated.length,
        removed: r.removed.length,
        unchanged: r.unchanged,
        skipped: r.skipped,
      }),
    // Drafting works without it; the next start or `email-rag knowledge sync` tries again.
    (err: unknown) => logger.warn('knowledge folder not indexed', { error: errorMessage(err) }),
  );
  await runs;
  await knowledge;
  // Open until the end of the drain: /livez says `stopping` meanwhile, so no probe restarts it.
  await health?.close();
  logger.info('worker stopped');
}
