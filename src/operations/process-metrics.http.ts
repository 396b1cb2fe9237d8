/**
 * The process figures of the review inbox and the codec server for Prometheus (`/metrics`):
 * prom-client's default metrics (CPU, resident memory, heap, event loop lag, open handles, start
 * time). Enough for `up` and `absent(up{job=…})` alerts and to see a leak; nothing in them is secret.
 * The worker's metrics come from the Temporal SDK's exporter on METRICS_PORT instead.
 */
import type * as PromClient from 'prom-client';

export interface MetricsText {
  contentType: string;
  text(): Promise<string>;
}

/** One registry per process: the default collectors watch the process (GC, event loop) once, however many servers serve them. */
let shared: PromClient.Registry | undefined;

export function processMetrics(): MetricsText {
  if (!shared) {
    // Loaded here, not with the module: the worker loads this feature's adapters too and serves
    // no such /metrics, so it does not carry prom-client.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { collectDefaultMetrics, Registry } = require('prom-client') as typeof PromClient;
    shared = new Registry();
    collectDefaultMetrics({ register: shared });
  }
  const registry = shared;
  return { contentType: registry.contentType, text: () => registry.metrics() };
}
