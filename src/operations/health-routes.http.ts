/**
 * `/livez`, `/readyz` and `/metrics` on a fastify server (the review inbox, the codec server),
 * plus the server's liveness path of earlier releases. Unauthenticated by design: probes and
 * Prometheus carry no credentials, and nothing here is secret.
 */
import type { FastifyInstance } from 'fastify';
import { HEALTH_PATHS } from './operations.contract';
import { processMetrics } from './process-metrics.http';
import type { ReadinessReport } from './readiness';

export interface HealthRoutes {
  /** What `/readyz` asks each time it is called. */
  readiness(): Promise<ReadinessReport>;
  /** Also answered like `/livez` (`/healthz`, `/health`). */
  legacyLivePath?: string;
}

/** The paths these routes answer, for a server whose other routes need a sign-in. */
export function healthPaths(legacyLivePath?: string): string[] {
  return [...Object.values(HEALTH_PATHS), ...(legacyLivePath ? [legacyLivePath] : [])];
}

export function registerHealthRoutes(app: FastifyInstance, opts: HealthRoutes): void {
  const metrics = processMetrics();
  for (const path of [HEALTH_PATHS.live, ...(opts.legacyLivePath ? [opts.legacyLivePath] : [])]) app.get(path, async () => ({ ok: true }));
  app.get(HEALTH_PATHS.ready, async (_req, reply) => {
    const report = await opts.readiness();
    return reply.code(report.ready ? 200 : 503).send(report);
  });
  app.get(HEALTH_PATHS.metrics, async (_req, reply) => reply.type(metrics.contentType).send(await metrics.text()));
}
