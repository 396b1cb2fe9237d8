/**
 * The operations section of the configuration (src/config.ts assembles the sections): the worker
 * process (WORKER_*), its Prometheus endpoint (METRICS_*), its health server (HEALTH_*) and the
 * draft quality reports.
 */
import { GAP_SIMILARITY } from './gap-clusters';
import { DEFAULT_EMBEDDER_CONCURRENCY } from '../retrieval';
import { envValues, type Env, type EnvValues } from '../platform/env-values';
import { WORKER_HEALTH_PORT } from './operations.contract';

export interface WorkerSettings {
  maxCachedWorkflows: number;
  shutdownGraceMs: number;
  /**
   * How far V8 lets each heap grow past what survived the last full collection, in percent
   * (WORKER_HEAP_GROWTH_PERCENT); 0 keeps V8's own choice. See workers/heap-growth.ts.
   */
  heapGrowthPercent: number;
  /**
   * The largest semi-space of V8's young generation, in MB (WORKER_SEMI_SPACE_MB, default 8 as in
   * bin/worker-restart.js, which applies it before the worker starts); 0 keeps V8's own choice.
   * Read here so that a wrong value stops the start with its name.
   */
  semiSpaceMb: number;
  /** Concurrent activities per cost class (each has its own task queue). */
  /** `embedder`: embed calls in flight per worker (EMBEDDER_CONCURRENCY), the embedder's own cost class. */
  concurrency: { mailIo: number; parse: number; index: number; llm: number; embedder: number };
  /** Activities per second on the whole task queue, all workers together (the server enforces it); 0 = no limit. */
  ratePerSecond: { mailIo: number; llm: number };
  /**
   * The Worker Deployment Version of this worker (WORKER_DEPLOYMENT_NAME and WORKER_BUILD_ID, both
   * or neither): email runs are pinned to the build that started them (docs/changing-workflows.md).
   * Unset: an unversioned worker.
   */
  deployment?: { name: string; buildId: string };
}

export interface OperationsConfig {
  /**
   * Prometheus endpoint of the worker (METRICS_PORT; off when unset): the SDK's metrics and the
   * business figures sampled from MariaDB every `sampleIntervalSeconds`, on one `/metrics`.
   */
  metrics?: { host: string; port: number; sampleIntervalSeconds: number };
  /**
   * The worker's health server (HEALTH_PORT; off when unset, so workers started by hand or by
   * tests open no port): `/livez` and `/readyz` (docs/operating.md "Health and readiness").
   */
  health?: { host: string; port: number };
  /** Draft quality reports (docs/operating.md "Draft quality and knowledge gaps"). */
  quality: {
    /** GAP_SIMILARITY: cosine similarity at which two knowledge-gap mails count as one topic; depends on the embedding model. */
    gapSimilarity: number;
  };
  worker: WorkerSettings;
}

export function readOperationsConfig(env: Env, problems: string[]): OperationsConfig {
  const v = envValues(env, problems);
  const config: OperationsConfig = {
    quality: { gapSimilarity: v.share('GAP_SIMILARITY', GAP_SIMILARITY) },
    worker: readWorker(v),
  };
  if (v.optional('METRICS_PORT')) {
    config.metrics = {
      port: v.intInRange('METRICS_PORT', 9464, 1, 65535),
      // Prometheus scrapes from another host or container; the figures hold no personal data.
      host: v.text('METRICS_HOST', '0.0.0.0'),
      sampleIntervalSeconds: v.intInRange('METRICS_SAMPLE_SECONDS', 15, 1, 3600),
    };
    if (!/^[A-Za-z0-9.:-]+$/.test(config.metrics.host))
      problems.push(`METRICS_HOST must be an IP address or host name, got "${config.metrics.host}"`);
  }
  if (v.optional('HEALTH_PORT')) {
    config.health = {
      port: v.intInRange('HEALTH_PORT', WORKER_HEALTH_PORT, 1, 65535),
      // Kubernetes probes come from the node, not from inside the pod: every address by default.
      host: v.text('HEALTH_HOST', '0.0.0.0'),
    };
    if (!/^[A-Za-z0-9.:-]+$/.test(config.health.host))
      problems.push(`HEALTH_HOST must be an IP address or host name, got "${config.health.host}"`);
    if (config.metrics && config.metrics.port === config.health.port)
      problems.push(`HEALTH_PORT and METRICS_PORT must differ (both are ${config.health.port})`);
  }
  config.worker.deployment = workerDeployment(v);
  return config;
}

function readWorker(v: EnvValues): WorkerSettings {
  return {
    // 250 keeps a lived-in worker under 400 MB with 1,000 emails waiting, for about 1.5 ms more
    // workflow-thread CPU an email in replays of evicted runs (docs/performance.md, "Memory").
    maxCachedWorkflows: v.intInRange('WORKER_MAX_CACHED_WORKFLOWS', 250, 0),
    shutdownGraceMs: v.intInRange('WORKER_SHUTDOWN_GRACE_MS', 30_000, 0),
    heapGrowthPercent: v.intInRange('WORKER_HEAP_GROWTH_PERCENT', 25, 0, 300),
    semiSpaceMb: v.intInRange('WORKER_SEMI_SPACE_MB', 8, 0, 256),
    concurrency: {
      // Dovecot allows 10 connections per user and address by default: stay below.
      mailIo: v.intInRange('WORKER_CONCURRENCY_MAIL_IO', 8, 1, 1000),
      parse: v.intInRange('WORKER_CONCURRENCY_PARSE', 4, 1, 1000),
      index: v.intInRange('WORKER_CONCURRENCY_INDEX', 4, 1, 1000),
      llm: v.intInRange('WORKER_CONCURRENCY_LLM', 4, 1, 1000),
      embedder: v.intInRange('EMBEDDER_CONCURRENCY', DEFAULT_EMBEDDER_CONCURRENCY, 1, 64),
    },
    ratePerSecond: {
      mailIo: v.intInRange('WORKER_RATE_MAIL_IO_PER_SECOND', 0, 0, 10_000),
      llm: v.intInRange('WORKER_RATE_LLM_PER_SECOND', 0, 0, 10_000),
    },
  };
}

/**
 * WORKER_DEPLOYMENT_NAME and WORKER_BUILD_ID name one Worker Deployment Version: one without the
 * other is a mistake (a versioned worker needs both, an unversioned one neither). The server refuses
 * '.' and ':' in a deployment name (they delimit version strings) and names longer than 255.
 */
function workerDeployment(v: EnvValues): WorkerSettings['deployment'] {
  const { problems } = v;
  const name = v.optional('WORKER_DEPLOYMENT_NAME');
  const buildId = v.optional('WORKER_BUILD_ID');
  if (!name && !buildId) return undefined;
  if (!name || !buildId) {
    problems.push('WORKER_DEPLOYMENT_NAME and WORKER_BUILD_ID must be set together (or neither, for an unversioned worker)');
    return undefined;
  }
  const before = problems.length;
  if (/[.:]/.test(name) || name.startsWith('__'))
    problems.push(`WORKER_DEPLOYMENT_NAME must not contain '.' or ':' nor start with '__', got "${name}"`);
  if (buildId.startsWith('__')) problems.push(`WORKER_BUILD_ID must not start with '__', got "${buildId}"`);
  for (const [variable, value] of [
    ['WORKER_DEPLOYMENT_NAME', name],
    ['WORKER_BUILD_ID', buildId],
  ] as const)
    if (value.length > 255 || /\s/.test(value)) problems.push(`${variable} must be at most 255 characters without spaces, got "${value}"`);
  return problems.length === before ? { name, buildId } : undefined;
}

// This feature's section of the whole configuration (src/platform/config.ts).
declare module '../platform/config' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- merged into the whole configuration
  interface Config extends OperationsConfig {}
}
