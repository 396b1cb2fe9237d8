import type { TelemetryOptions } from '@temporalio/worker';
import type { Config } from '../src/config';
import { BUSINESS_HISTOGRAM_BUCKETS } from './business-metrics';

/** `host:port` for the exporter; an IPv6 host needs brackets. */
export function metricsBindAddress(metrics: NonNullable<Config['metrics']>): string {
  return metrics.host.includes(':') ? `[${metrics.host}]:${metrics.port}` : `${metrics.host}:${metrics.port}`;
}

/**
 * The SDK's Prometheus exporter on METRICS_PORT (`/metrics`): workflow task failures (with
 * `failure_reason="NonDeterminismError"`), schedule-to-start latencies, slots, … under the SDK's
 * own `temporal_` names, and the business metrics created through the runtime's meter.
 * Undefined without METRICS_PORT. Pass to `Runtime.install` before any connection is made.
 */
export function telemetryOptions(config: Config): TelemetryOptions | undefined {
  if (!config.metrics) return undefined;
  return {
    metrics: {
      prometheus: { bindAddress: metricsBindAddress(config.metrics), histogramBucketOverrides: BUSINESS_HISTOGRAM_BUCKETS },
    },
  };
}
